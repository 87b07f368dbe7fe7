"""Sparse tensors of a network: coordinates and values of the non-zero entries.

One-hot constructions on n states hold n·k non-zeros in a k×n×n tensor: on
the 5,040 states of S7 that is 10,080 entries in 406 MB of float64.  A
:class:`SparseTensor` keeps only the entries (COO: one column of coordinates
per entry, sorted in row-major order, no repeats), and a file stores it as two
tensors, ``NAME:indices`` (int64, ndim × nnz) and ``NAME:values`` (float64,
nnz), with the shape in the header (docs/formats.md, "Sparse tensors").

COO rather than CSR: it is one layout for every rank (the 3-way ``W`` and the
2-way ``readout``), and :meth:`SparseTensor.matrices` hands SciPy's CSR to the
consumers that multiply.  The mathematics never changes: the dense tensor is
``to_dense()``, entries absent from the coordinates are ``+0.0`` (a stored
``-0.0`` stays an entry, so dense → sparse → dense gives back every bit).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from fsmnet.errors import NetworkFileError

INDICES, VALUES = ":indices", ":values"
"""Suffixes of the two file tensors of a sparse tensor ``NAME``."""

DENSE_TO_SPARSE_RATIO = 8
"""A tensor is stored sparse when that is at least this many times smaller than
dense: small networks stay dense (format version 1, readable by every fsmnet and
by any safetensors reader), large one-hot ones shrink by the ratio n/4."""


@dataclass(frozen=True, eq=False)
class SparseTensor:
    """The non-zero entries of a float64 tensor of ``shape``.

    ``indices[:, e]`` are the coordinates of entry e and ``values[e]`` its value;
    coordinates are sorted in row-major order and distinct.  Build one with
    :func:`sparse_tensor` (which checks all of that and names the field when it
    fails) or :meth:`from_dense`.
    """

    shape: tuple[int, ...]
    indices: np.ndarray = field(repr=False)
    values: np.ndarray = field(repr=False)

    def __post_init__(self) -> None:
        for arr in (self.indices, self.values):
            arr.setflags(write=False)

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def nnz(self) -> int:
        return int(self.values.size)

    @property
    def dtype(self) -> np.dtype[Any]:
        return self.values.dtype

    @property
    def size(self) -> int:
        """Entries of the dense tensor."""
        return int(np.prod(self.shape, dtype=np.int64))

    @property
    def nbytes(self) -> int:
        """Bytes stored (coordinates and values)."""
        return int(self.indices.nbytes + self.values.nbytes)

    def to_dense(self) -> np.ndarray:
        out = np.zeros(self.shape, dtype=np.float64)
        out[tuple(self.indices)] = self.values
        return out

    @classmethod
    def from_dense(cls, array: np.ndarray) -> SparseTensor:
        arr = np.asarray(array, dtype=np.float64)
        # -0.0 is kept as an entry, so that to_dense() gives back every bit.
        coords = np.nonzero((arr != 0) | np.signbit(arr))  # row-major order, distinct
        return cls(tuple(int(s) for s in arr.shape),
                   np.array(coords, dtype=np.int64).reshape(arr.ndim, -1), arr[coords])

    def matrices(self, axis: int) -> list[Any]:
        """The slices along ``axis`` of a 3-way tensor as SciPy CSR matrices over the
        two other axes in their order (``W[:, :, a]`` for ``axis=2``)."""
        from scipy.sparse import csr_array

        if self.ndim != 3:
            raise ValueError(f"matrices() needs a 3-way tensor (shape {self.shape})")
        rows, cols = (i for i in range(3) if i != axis)
        shape = (self.shape[rows], self.shape[cols])
        out = []
        for a in range(self.shape[axis]):
            mask = self.indices[axis] == a
            out.append(csr_array((self.values[mask], (self.indices[rows][mask],
                                                      self.indices[cols][mask])), shape=shape))
        return out


def sparse_tensor(shape: tuple[int, ...], indices: np.ndarray, values: np.ndarray, *,
                  source: str = "<network>", name: str = "tensor") -> SparseTensor:
    """A validated :class:`SparseTensor`; :class:`NetworkFileError` naming ``source``,
    the file tensor and the value for anything that is not one."""
    where = f"{source}: field '{name}{INDICES}'"
    if any(isinstance(s, bool) or not isinstance(s, (int, np.integer)) or s < 0
           for s in shape):
        raise NetworkFileError(f"{source}: field 'sparse.{name}': a shape is a list of "
                               f"non-negative integers (value: {list(shape)!r})")
    ndim = len(shape)
    if indices.dtype != np.int64 or indices.ndim != 2 or indices.shape[0] != ndim:
        raise NetworkFileError(f"{where}: must be int64 of shape ({ndim}, nnz) "
                               f"(value: {indices.dtype} {indices.shape})")
    if values.dtype != np.float64 or values.ndim != 1 or values.size != indices.shape[1]:
        raise NetworkFileError(f"{source}: field '{name}{VALUES}': must be float64 of shape "
                               f"({indices.shape[1]},) (value: {values.dtype} {values.shape})")
    if not np.all(np.isfinite(values)):
        bad = values[~np.isfinite(values)][0]
        raise NetworkFileError(f"{source}: field '{name}{VALUES}': NaN or infinite entry "
                               f"(value: {bad})")
    bounds = np.array(shape, dtype=np.int64)[:, None]
    outside = np.flatnonzero(np.any((indices < 0) | (indices >= bounds), axis=0))
    if outside.size:
        e = int(outside[0])
        raise NetworkFileError(f"{where}: entry {e} lies outside the shape {tuple(shape)} "
                               f"(value: {tuple(int(x) for x in indices[:, e])})")
    if values.size > 1:
        flat = np.ravel_multi_index(tuple(indices), tuple(int(s) for s in shape))
        order = np.diff(flat)
        if np.any(order <= 0):
            e = int(np.flatnonzero(order <= 0)[0]) + 1
            what = "repeats an earlier entry" if order[e - 1] == 0 else \
                "is out of row-major order"
            raise NetworkFileError(f"{where}: entry {e} {what} "
                                   f"(value: {tuple(int(x) for x in indices[:, e])})")
    return SparseTensor(tuple(int(s) for s in shape), np.array(indices), np.array(values))


def _sparse_pays(shape: tuple[int, ...], nnz: int) -> bool:
    dense = 8 * int(np.prod(shape, dtype=np.int64))
    return 8 * (len(shape) + 1) * nnz * DENSE_TO_SPARSE_RATIO <= dense


def stored_bytes(shape: tuple[int, ...], nnz: int) -> int:
    """Bytes a float64 tensor of ``shape`` with ``nnz`` non-zeros takes as
    :func:`compact` stores it."""
    if _sparse_pays(shape, nnz):
        return 8 * (len(shape) + 1) * nnz
    return 8 * int(np.prod(shape, dtype=np.int64))


def compact(tensor: SparseTensor) -> np.ndarray | SparseTensor:
    """``tensor`` as it should be stored: sparse when that is at least
    :data:`DENSE_TO_SPARSE_RATIO` times smaller than dense, else dense."""
    return tensor if _sparse_pays(tensor.shape, tensor.nnz) else tensor.to_dense()


def coo(shape: tuple[int, ...], indices: np.ndarray, values: np.ndarray) -> SparseTensor:
    """A :class:`SparseTensor` from distinct coordinates in any order (sorted here)."""
    idx = np.asarray(indices, dtype=np.int64).reshape(len(shape), -1)
    order = np.argsort(np.ravel_multi_index(tuple(idx), shape), kind="stable")
    return SparseTensor(tuple(shape), idx[:, order],
                        np.asarray(values, dtype=np.float64)[order])


def encode(tensors: Mapping[str, np.ndarray | SparseTensor]) -> tuple[
        dict[str, np.ndarray], dict[str, list[int]]]:
    """The file tensors and the header's ``sparse`` field of a network's tensors."""
    arrays: dict[str, np.ndarray] = {}
    shapes: dict[str, list[int]] = {}
    for name, tensor in tensors.items():
        if isinstance(tensor, SparseTensor):
            arrays[name + INDICES] = np.ascontiguousarray(tensor.indices)
            arrays[name + VALUES] = np.ascontiguousarray(tensor.values)
            shapes[name] = list(tensor.shape)
        else:
            arrays[name] = np.ascontiguousarray(tensor)
    return arrays, shapes


def decode(arrays: Mapping[str, np.ndarray], shapes: Any,
           source: str) -> dict[str, np.ndarray | SparseTensor]:
    """The inverse of :func:`encode`, checked: every sparse tensor of the header has
    both file tensors, and no ``:`` tensor is left without a header entry."""
    if not isinstance(shapes, dict) or not all(isinstance(v, list) for v in shapes.values()):
        raise NetworkFileError(f"{source}: field 'sparse': must map tensor names to shapes "
                               f"(value: {shapes!r:.80})")
    out: dict[str, np.ndarray | SparseTensor] = {}
    for name, shape in shapes.items():
        parts = [arrays.get(name + suffix) for suffix in (INDICES, VALUES)]
        if any(p is None for p in parts) or name in arrays:
            missing = [name + s for s, p in zip((INDICES, VALUES), parts) if p is None]
            shown = f"missing {missing}" if missing else "also stored dense"
            raise NetworkFileError(f"{source}: field 'sparse.{name}': {shown} "
                                   f"(value: {sorted(arrays)})")
        out[name] = sparse_tensor(tuple(shape), parts[0], parts[1],  # type: ignore[arg-type]
                                  source=source, name=name)
    for key, arr in arrays.items():
        if ":" in key:
            name, _, part = key.rpartition(":")
            if name not in shapes or ":" + part not in (INDICES, VALUES):
                raise NetworkFileError(f"{source}: field '{key}': a sparse part whose tensor "
                                       f"the header's 'sparse' field does not name "
                                       f"(value: {sorted(shapes)})")
        else:
            out[key] = arr
    return out


def columns(matrix: np.ndarray | SparseTensor) -> list[list[tuple[int, float]]]:
    """Column j of a dense or sparse matrix as its (row, value) non-zeros, rows in order."""
    if isinstance(matrix, SparseTensor):
        rows, cols = matrix.indices
        values = matrix.values
    else:
        rows, cols = np.nonzero(matrix)
        values = matrix[rows, cols]
    out: list[list[tuple[int, float]]] = [[] for _ in range(matrix.shape[1])]
    order = np.lexsort((rows, cols))
    for i, j, x in zip(rows[order].tolist(), cols[order].tolist(), values[order].tolist()):
        if x != 0:
            out[j].append((i, x))
    return out


def first_argmax_of_columns(matrix: np.ndarray | SparseTensor, sign: int) -> np.ndarray:
    """For each column j, the first row index of the largest entry of ``sign·M[:, j]``
    (``np.argmax``'s choice, zeros included), without forming a dense sparse matrix.

    Comparisons of float64 values are exact and negation is exact, so this is the
    readout of the state ``sign·e_j`` in exact and in float arithmetic alike.
    """
    if not isinstance(matrix, SparseTensor):
        return np.argmax(sign * np.asarray(matrix), axis=0).astype(np.int64)
    rows, cols = matrix.indices
    vals = sign * matrix.values
    n_rows, n_cols = matrix.shape
    order = np.lexsort((rows, cols))  # column by column, rows ascending
    rows, cols, vals = rows[order], cols[order], vals[order]
    counts = np.bincount(cols, minlength=n_cols)
    # The first row missing from column j holds an implicit 0: rows are distinct and
    # ascending, so it is the first position p of the column whose row is not p.
    position = np.arange(rows.size) - np.concatenate(([0], np.cumsum(counts)))[cols]
    first_missing = counts.copy()
    gap = rows != position
    np.minimum.at(first_missing, cols[gap], position[gap])
    has_zero = counts < n_rows
    best = np.where(has_zero, 0.0, -np.inf)
    np.maximum.at(best, cols, vals)
    first = np.where(has_zero & (best == 0), first_missing, n_rows)
    top = vals == best[cols]  # ±0.0 compare equal, as np.argmax treats them
    np.minimum.at(first, cols[top], rows[top])
    return first.astype(np.int64)
