"""Loads the CUDA emulator (``tests/cudaemu/cupy``) as the module ``cupy``, for tests.

The emulator runs the unchanged ``.cu`` kernels on the host (see its
docstring), so the CuPy backend is tested on every machine with g++, and on a
GPU machine the same tests run again on the device (``-m gpu``).
"""

from __future__ import annotations

import functools
import importlib.util
import shutil
import sys
from pathlib import Path
from types import ModuleType

import pytest

PACKAGE = Path(__file__).with_name("cudaemu") / "cupy"
HAVE_GXX = shutil.which("g++") is not None
needs_gxx = pytest.mark.skipif(not HAVE_GXX, reason="g++ is not installed: the CUDA emulator "
                                                    "cannot build the kernels for the host")


@functools.cache
def emulator() -> ModuleType:
    """The emulator package, loaded once, under the name ``cupy``."""
    spec = importlib.util.spec_from_file_location(
        "cupy", PACKAGE / "__init__.py", submodule_search_locations=[str(PACKAGE)])
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    saved = sys.modules.get("cupy")
    sys.modules["cupy"] = module  # its relative imports resolve through this entry
    try:
        spec.loader.exec_module(module)
    finally:
        if saved is None:
            del sys.modules["cupy"]
        else:
            sys.modules["cupy"] = saved
    return module


def use_emulator(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    """Make ``import cupy`` give the emulator for one test (and forget compiled modules)."""
    import fsmnet.gpu.cupy_backend as backend

    module = emulator()
    monkeypatch.setitem(sys.modules, "cupy", module)
    backend.compiled_module.cache_clear()
    return module
