"""Device arrays of the emulator: NumPy arrays in guarded host buffers.

Like CuPy's, they refuse implicit conversion to NumPy (``.get()`` or
``cupy.asnumpy`` copy them back), allocations are 256-byte aligned, and a
slice is a view with its own (possibly unaligned) data pointer.  Guard bytes
around every allocation are checked after each kernel launch, so that a kernel
writing past an array fails the launch instead of corrupting the process.
"""

from __future__ import annotations

import operator
import weakref
from typing import Any

import numpy as np

ALIGN = 256
CANARY = 0xA5


class Allocation:
    """One device buffer: ``nbytes`` usable bytes between two guard zones."""

    def __init__(self, nbytes: int) -> None:
        raw = np.empty(nbytes + 3 * ALIGN, dtype=np.uint8)
        begin = ALIGN + (-raw.ctypes.data) % ALIGN
        raw[:begin] = CANARY
        raw[begin + nbytes:] = CANARY
        self.raw, self.begin, self.nbytes = raw, begin, nbytes
        LIVE.add(self)

    def view(self, shape: Any, dtype: Any) -> np.ndarray:
        dtype = np.dtype(dtype)
        return self.raw[self.begin:self.begin + self.nbytes].view(dtype).reshape(shape)

    def intact(self) -> bool:
        return bool(np.all(self.raw[:self.begin] == CANARY)
                    and np.all(self.raw[self.begin + self.nbytes:] == CANARY))


LIVE: weakref.WeakSet[Allocation] = weakref.WeakSet()


def device_copy(host: np.ndarray) -> ndarray:
    host = np.array(host, order="C")  # not ascontiguousarray, which makes 0-d arrays 1-d
    alloc = Allocation(host.nbytes)
    view = alloc.view(host.shape, host.dtype)
    view[...] = host
    return ndarray(view, alloc)


class _Pointer:
    def __init__(self, ptr: int) -> None:
        self.ptr = ptr


def _unwrap(value: Any) -> Any:
    if isinstance(value, ndarray):
        return value._a
    if isinstance(value, tuple):
        return tuple(_unwrap(v) for v in value)
    if isinstance(value, np.ndarray):
        raise TypeError(f"Unsupported type {type(value)} (a NumPy array where a device array "
                        f"is needed: copy it with cupy.asarray)")
    return value


def _wrap(result: Any, parent: ndarray | None = None) -> ndarray:
    result = np.asarray(result)
    if parent is not None and np.may_share_memory(result, parent._alloc.raw):
        return ndarray(result, parent._alloc)
    return device_copy(result)


class ndarray:  # noqa: N801 - CuPy's name
    """A device array (host memory standing in for the GPU's)."""

    __slots__ = ("_a", "_alloc", "__weakref__")

    def __init__(self, array: np.ndarray, alloc: Allocation) -> None:
        self._a, self._alloc = array, alloc

    shape = property(lambda self: self._a.shape)
    dtype = property(lambda self: self._a.dtype)
    ndim = property(lambda self: self._a.ndim)
    size = property(lambda self: self._a.size)
    nbytes = property(lambda self: self._a.nbytes)
    strides = property(lambda self: self._a.strides)
    flags = property(lambda self: self._a.flags)
    data = property(lambda self: _Pointer(self._a.ctypes.data))
    T = property(lambda self: _wrap(self._a.T, self))

    def __len__(self) -> int:
        return len(self._a)

    def __repr__(self) -> str:
        return f"array({self._a!r}) on the emulated device"

    def __array__(self, *args: Any, **kwargs: Any) -> Any:
        raise TypeError("Implicit conversion to a NumPy array is not allowed. Please use "
                        "`.get()` to construct a NumPy array explicitly.")

    def __getitem__(self, key: Any) -> ndarray:
        return _wrap(self._a[_unwrap(key)], self)

    def __setitem__(self, key: Any, value: Any) -> None:
        self._a[_unwrap(key)] = _unwrap(value)

    def __iter__(self) -> Any:
        return (self[i] for i in range(len(self)))

    def __int__(self) -> int:
        return int(self._a)

    def __float__(self) -> float:
        return float(self._a)

    def __index__(self) -> int:
        return operator.index(self._a.item())

    def __bool__(self) -> bool:
        return bool(self._a)

    def get(self) -> np.ndarray:
        return np.array(self._a)

    def copy(self) -> ndarray:
        return device_copy(self._a)

    def astype(self, dtype: Any, copy: bool = True) -> ndarray:
        if not copy and np.dtype(dtype) == self.dtype:
            return self
        return device_copy(self._a.astype(dtype))

    def reshape(self, *shape: Any) -> ndarray:
        return _wrap(self._a.reshape(*shape), self)

    def ravel(self) -> ndarray:
        return _wrap(self._a.ravel(), self)

    def item(self) -> Any:
        return self._a.item()


def _reduction(name: str) -> Any:
    def method(self: ndarray, *args: Any, **kwargs: Any) -> ndarray:
        return _wrap(getattr(self._a, name)(*args, **kwargs))
    return method


def _binary(op: Any, reflected: bool = False) -> Any:
    def method(self: ndarray, other: Any) -> ndarray:
        other = _unwrap(other)
        return _wrap(op(other, self._a) if reflected else op(self._a, other))
    return method


for _name in ("max", "min", "sum", "any", "all", "argmax", "argmin", "mean", "cumsum"):
    setattr(ndarray, _name, _reduction(_name))
for _name, _op in {"add": operator.add, "sub": operator.sub, "mul": operator.mul,
                   "truediv": operator.truediv, "floordiv": operator.floordiv,
                   "mod": operator.mod, "matmul": operator.matmul, "and": operator.and_,
                   "or": operator.or_, "xor": operator.xor, "pow": operator.pow}.items():
    setattr(ndarray, f"__{_name}__", _binary(_op))
    setattr(ndarray, f"__r{_name}__", _binary(_op, reflected=True))
for _name, _op in {"eq": operator.eq, "ne": operator.ne, "lt": operator.lt,
                   "le": operator.le, "gt": operator.gt, "ge": operator.ge}.items():
    setattr(ndarray, f"__{_name}__", _binary(_op))
ndarray.__neg__ = lambda self: _wrap(-self._a)  # type: ignore[attr-defined]
ndarray.__abs__ = lambda self: _wrap(abs(self._a))  # type: ignore[attr-defined]
ndarray.__hash__ = None  # type: ignore[assignment]
