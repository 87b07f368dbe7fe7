"""Loading the scripts of ``experiments/`` in tests: they are files run from the
repository root, not a package, so each is loaded by path under its own name."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent


def load_script(file: str, name: str) -> ModuleType:
    """``experiments/FILE`` as a fresh module called ``name`` (outside sys.modules)."""
    spec = importlib.util.spec_from_file_location(name, ROOT / "experiments" / file)
    assert spec is not None and spec.loader is not None, file
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
