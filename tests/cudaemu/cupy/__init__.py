"""A CPU stand-in for the part of CuPy that fsmnet's GPU backend uses.

Why: the CuPy backend (``fsmnet/gpu/cupy_backend.py`` and ``kernels/*.cu``)
must be right the first time it meets a GPU, and GPU time is scarce.  This
package imports as ``cupy`` and runs the *unchanged* CUDA C kernels on the
host: g++ compiles each ``RawModule`` source against ``runtime.h`` (threads of
a block are fibers, ``__syncthreads`` is a real barrier), so the host code,
the launch arguments and the kernels' logic are all exercised.

It is stricter than a GPU where that finds bugs a GPU would show later or
never: every launch argument must have exactly the C type of its parameter
(CuPy passes a scalar's own bytes, so ``np.int64`` for an ``int`` parameter
shifts every later argument), pointers must be contiguous device arrays of
the pointee's dtype, vector loads must be aligned, barriers must not diverge,
dynamic shared memory above 48 KiB needs ``max_dynamic_shared_size_bytes``,
and writes past an array or past the shared memory fail the launch.

It is not a performance model, runs blocks one after another (races are not
found), and emulates 1-D grids only.  Use: put ``tests/cudaemu`` first on
``sys.path`` (or ``PYTHONPATH``), or see the ``emulated_cupy`` fixture in
``tests/test_gpu_emulated.py``.
"""

from __future__ import annotations

import ctypes
import threading
import types
from typing import Any

import numpy as np

from . import _compiler
from ._arrays import LIVE, ndarray
from ._arrays import device_copy as _device_copy

__version__ = "0+host-emulator"
EMULATED = True
DEFAULT_SHARED = 48 * 1024
MAX_SHARED = 232448  # H100/H200: 227 KiB of dynamic shared memory a block, opted in
MAX_THREADS = 1024
# The host runtime keeps one grid's state in globals, and a build writes files named
# by process: launches and builds from several threads (Dask's) take turns.
_LOCK = threading.RLock()

uint8, int8, int32, uint32, int64, float32, float64, bool_ = (
    np.uint8, np.int8, np.int32, np.uint32, np.int64, np.float32, np.float64, np.bool_)


class CUDADriverError(RuntimeError):
    """What a failed launch raises (CuPy raises ``cupy.cuda.driver.CUDADriverError``)."""


# ------------------------------------------------------------------ arrays
def asarray(a: Any, dtype: Any = None) -> ndarray:
    if isinstance(a, ndarray):
        return a if dtype is None or np.dtype(dtype) == a.dtype else a.astype(dtype)
    return _device_copy(np.asarray(a, dtype=dtype))


array = asarray


def ascontiguousarray(a: Any, dtype: Any = None) -> ndarray:
    a = asarray(a, dtype)
    return a if a.flags["C_CONTIGUOUS"] else a.copy()


def asnumpy(a: Any) -> np.ndarray:
    return a.get() if isinstance(a, ndarray) else np.asarray(a)


def empty(shape: Any, dtype: Any = np.float64) -> ndarray:
    return _device_copy(np.empty(shape, dtype=dtype))


def zeros(shape: Any, dtype: Any = np.float64) -> ndarray:
    return _device_copy(np.zeros(shape, dtype=dtype))


def ones(shape: Any, dtype: Any = np.float64) -> ndarray:
    return _device_copy(np.ones(shape, dtype=dtype))


def empty_like(a: ndarray) -> ndarray:
    return empty(a.shape, a.dtype)


def arange(*args: Any, **kwargs: Any) -> ndarray:
    return _device_copy(np.arange(*args, **kwargs))


def abs(a: ndarray) -> ndarray:  # noqa: A001 - CuPy's name
    return a.__abs__()


def get_array_module(*arrays: Any) -> Any:
    import sys

    return sys.modules[__name__] if any(isinstance(a, ndarray) for a in arrays) else np


class _Generator:
    def __init__(self, seed: Any) -> None:
        self._rng = np.random.default_rng(seed)

    def integers(self, low: int, high: int | None = None, size: Any = None,
                 dtype: Any = np.int64) -> ndarray:
        return _device_copy(np.asarray(self._rng.integers(low, high, size, dtype=dtype)))

    def random(self, size: Any = None) -> ndarray:
        return _device_copy(np.asarray(self._rng.random(size)))


random = types.SimpleNamespace(default_rng=_Generator)


# -------------------------------------------------------------------- CUDA
class _Device:
    def __init__(self, device: int = 0) -> None:
        self.id = device

    def synchronize(self) -> None:
        """Launches run synchronously here."""


def _properties(device: int = 0) -> dict[str, Any]:
    return {"name": b"fsmnet CUDA emulator (host CPU)", "sharedMemPerBlockOptin": MAX_SHARED,
            "maxThreadsPerBlock": MAX_THREADS, "multiProcessorCount": 1}


cuda = types.SimpleNamespace(
    Device=_Device,
    runtime=types.SimpleNamespace(getDeviceCount=lambda: 1, getDeviceProperties=_properties),
    driver=types.SimpleNamespace(CUDADriverError=CUDADriverError),
)


class RawModule:
    """A CUDA C source compiled for the host (CuPy: ``cupy.RawModule``)."""

    def __init__(self, code: str, options: tuple[str, ...] = (), **kwargs: Any) -> None:
        for opt in options:
            if not opt.startswith(("-std=", "-D", "--use_fast_math", "-I")):
                raise ValueError(f"the emulator does not know NVRTC option {opt!r}")
        defines = tuple(opt for opt in options if opt.startswith("-D"))
        with _LOCK:
            self._lib, self._kernels = _compiler.build(code, kwargs.get("name", "<RawModule>"),
                                                       defines)
        self._max_shared: dict[str, int] = {}

    def get_function(self, name: str) -> RawKernel:
        if name not in self._kernels:
            raise CUDADriverError(f"CUDA_ERROR_NOT_FOUND: named symbol not found ({name})")
        return RawKernel(self, name)


class RawKernel:
    """One kernel of a :class:`RawModule`; call it as ``kern(grid, block, args, shared_mem=)``."""

    def __init__(self, module: RawModule, name: str) -> None:
        self._module, self.name = module, name
        self._params = module._kernels[name]
        self._launch = getattr(module._lib, f"emu_launch_{name}")
        self._launch.restype = ctypes.c_int
        self._launch.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_uint,
                                 ctypes.c_uint, ctypes.c_ulong]

    @property
    def max_dynamic_shared_size_bytes(self) -> int:
        return self._module._max_shared.get(self.name, DEFAULT_SHARED)

    @max_dynamic_shared_size_bytes.setter
    def max_dynamic_shared_size_bytes(self, value: int) -> None:
        if not 0 <= value <= MAX_SHARED:
            raise CUDADriverError(f"CUDA_ERROR_INVALID_VALUE: {self.name}: "
                                  f"max_dynamic_shared_size_bytes={value} > {MAX_SHARED}")
        self._module._max_shared[self.name] = int(value)

    def __call__(self, grid: Any, block: Any, args: tuple[Any, ...], *, shared_mem: int = 0,
                 stream: Any = None) -> None:
        gx, bx = _one_dimensional(grid, "grid", self.name), _one_dimensional(block, "block",
                                                                             self.name)
        if not 1 <= bx <= MAX_THREADS or gx < 1:
            raise CUDADriverError(f"CUDA_ERROR_INVALID_VALUE: {self.name}: launch of {gx} "
                                  f"blocks of {bx} threads")
        if shared_mem > self.max_dynamic_shared_size_bytes:
            raise CUDADriverError(f"CUDA_ERROR_INVALID_VALUE: {self.name} asks for "
                                  f"{shared_mem} bytes of shared memory; above 48 KiB set "
                                  f"max_dynamic_shared_size_bytes first")
        keep = [self._argument(i, value) for i, value in enumerate(args)]
        if len(args) != len(self._params):
            raise TypeError(f"{self.name} takes {len(self._params)} arguments, "
                            f"{len(args)} given")
        argv = (ctypes.c_void_p * len(keep))(*[ctypes.addressof(k) for k in keep])
        with _LOCK:
            errors = self._launch(argv, gx, bx, shared_mem)
            intact = all(a.intact() for a in list(LIVE))
        problems = [text for bit, text in ((1, "misaligned address (a vector load)"),
                                           (2, "threads returned while others waited at "
                                               "__syncthreads"),
                                           (4, "a write past the dynamic shared memory"),
                                           (8, "a thread overflowed its stack"))
                    if errors & bit]
        if not intact:
            problems.append("a write past the end (or before the start) of a device array")
        if problems:
            raise CUDADriverError(f"{self.name}: " + "; ".join(problems))

    def _argument(self, index: int, value: Any) -> Any:
        if index >= len(self._params):
            raise TypeError(f"{self.name} takes {len(self._params)} arguments, more given")
        param = self._params[index]
        where = f"{self.name} argument {index} ({param.name})"
        if param.pointer:
            if not isinstance(value, ndarray):
                raise TypeError(f"{where} is a pointer to {param.dtype}; got "
                                f"{type(value).__name__}, not a device array")
            if value.dtype != param.dtype:
                raise TypeError(f"{where} points to {param.dtype}; the array holds "
                                f"{value.dtype}")
            if not value.flags["C_CONTIGUOUS"]:
                raise TypeError(f"{where}: the array is not contiguous, so the kernel would "
                                f"read other elements")
            return ctypes.c_void_p(value.data.ptr)
        if isinstance(value, bool):
            given = np.dtype(np.bool_)
        elif isinstance(value, int):
            given = np.dtype(np.int64)  # CuPy passes a Python int as long long
        elif isinstance(value, float):
            given = np.dtype(np.float64)
        elif isinstance(value, np.generic):
            given = value.dtype
        else:
            raise TypeError(f"{where}: cannot pass {type(value).__name__}")
        if given != param.dtype:
            raise TypeError(f"{where} is {param.dtype}; got {given}, whose bytes CuPy would "
                            f"pass unchanged")
        return _scalar(value, given)


def _scalar(value: Any, dtype: np.dtype) -> Any:
    kinds = {"b": ctypes.c_bool, "i1": ctypes.c_int8, "u1": ctypes.c_uint8,
             "i4": ctypes.c_int32, "u4": ctypes.c_uint32, "i8": ctypes.c_int64,
             "u8": ctypes.c_uint64, "f4": ctypes.c_float, "f8": ctypes.c_double}
    code = "b" if dtype == np.bool_ else f"{dtype.kind}{dtype.itemsize}"
    return kinds[code](value.item() if isinstance(value, np.generic) else value)


def _one_dimensional(dims: Any, what: str, name: str) -> int:
    dims = (dims,) if isinstance(dims, int | np.integer) else tuple(dims)
    if any(int(d) != 1 for d in dims[1:]):
        raise NotImplementedError(f"{name}: the emulator runs 1-D {what}s only, not {dims}")
    return int(dims[0])
