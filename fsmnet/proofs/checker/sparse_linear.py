"""The ``linear-sparse`` model: a linear model given by its non-zero entries.

The same network as ``linear`` (h' = normalize(A_a h), label = first argmax of
readout @ h), written for networks whose matrices are mostly zeros: a one-hot
network on the 5,040 states of S7 is 10,080 entries instead of 50.8 million,
and its 5,040 states one entry each.

* a matrix is ``{"rows", "cols", "values"}``: entry e is ``values[e]`` at
  (``rows[e]``, ``cols[e]``), in strictly increasing (row, column) order, every
  other entry 0;
* ``h0`` is ``{"index", "values"}`` the same way, ``dim`` the state size;
* a state, as the certificate lists it, is ``[indices, values]``: two lists of
  strings, the indices written as decimal integers in increasing order, the
  values non-zero rationals.

Here a state is the tuple of its (index, value) pairs with non-zero values: two
states are equal exactly when the vectors are.  A step touches only the columns
of the state's entries, and the readout only their labels, so the work is the
entries, not the dimension.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from .core import CertificateError, _vec, is_index

State = tuple[tuple[int, Fraction], ...]
Columns = list[list[tuple[int, Fraction]]]


def sparse_columns(m: Any, n_rows: int, n_cols: int, what: str) -> Columns:
    """Column j -> its (row, value) entries, after checking the order and the ranges."""
    rows, cols, values = m["rows"], m["cols"], _vec(m["values"])
    if not len(rows) == len(cols) == len(values):
        raise CertificateError(f"{what}: rows, cols and values differ in length")
    out: Columns = [[] for _ in range(n_cols)]
    previous = -1
    for i, j, v in zip(rows, cols, values):
        if not (is_index(i, n_rows) and is_index(j, n_cols)):
            raise CertificateError(f"{what}: entry ({i!r}, {j!r}) outside {n_rows} x {n_cols}")
        flat = i * n_cols + j
        if flat <= previous:
            raise CertificateError(f"{what}: entries not in increasing (row, column) order "
                                   f"at ({i}, {j})")
        previous = flat
        if v:
            out[j].append((i, v))
    return out


def _normalized(entries: dict[int, Fraction]) -> State:
    kept = sorted((i, v) for i, v in entries.items() if v)
    scale = max((abs(v) for _, v in kept), default=Fraction(0))
    return tuple(kept) if scale == 0 else tuple((i, v / scale) for i, v in kept)


def state_index(text: Any, dim: int) -> int:
    if not isinstance(text, str) or not text.isdigit() or str(int(text)) != text:
        raise CertificateError(f"a state index must be a decimal integer string, got {text!r}")
    j = int(text)
    if j >= dim:
        raise CertificateError(f"state index {j} outside dimension {dim}")
    return j


class SparseLinear:
    """The parsed model: per-symbol columns, h0, readout columns, sizes."""

    def __init__(self, model: dict[str, Any], k: int, n_labels: int) -> None:
        dim = model["dim"]
        if not is_index(dim, dim + 1) or dim == 0:
            raise CertificateError(f"dim must be a positive integer, got {dim!r}")
        if len(model["matrices"]) != k:
            raise CertificateError("one matrix per symbol is required")
        self.dim, self.n_labels = dim, n_labels
        self.columns = [sparse_columns(m, dim, dim, f"matrix {a}")
                        for a, m in enumerate(model["matrices"])]
        self.readout = sparse_columns(model["readout"], n_labels, dim, "readout")
        self.h0 = _normalized(sparse_vector(model["h0"], dim, "h0"))

    def step(self, h: State, a: int) -> State:
        acc: dict[int, Fraction] = {}
        cols = self.columns[a]
        for j, v in h:
            for i, q in cols[j]:
                acc[i] = acc.get(i, Fraction(0)) + q * v
        return _normalized(acc)

    def label(self, h: State) -> int:
        """The first argmax of readout @ h over all labels, the zero scores included."""
        scores: dict[int, Fraction] = {}
        for j, v in h:
            for c, r in self.readout[j]:
                scores[c] = scores.get(c, Fraction(0)) + r * v
        nonzero = {c: s for c, s in scores.items() if s}
        top = max(nonzero.values(), default=None)
        if len(nonzero) < self.n_labels and (top is None or top < 0):
            return next(c for c in range(self.n_labels) if c not in nonzero)  # a 0 wins
        return min(c for c, s in nonzero.items() if s == top)

    def state(self, x: Any) -> State:
        return sparse_state(x, self.dim, "linear-sparse")


def sparse_vector(v: Any, dim: int, what: str) -> dict[int, Fraction]:
    """``{"index", "values"}``: increasing indices below ``dim``, one value each."""
    index, values = v["index"], _vec(v["values"])
    if len(index) != len(values) or any(not is_index(j, dim) for j in index) or \
            any(b <= a for a, b in zip(index, index[1:])):
        raise CertificateError(f"{what}: indices must be increasing and below dim, one a value")
    return dict(zip(index, values))


def sparse_state(x: Any, dim: int, model: str) -> State:
    """A state as the certificate lists it: [indices, values], decimal index strings in
    increasing order, non-zero values."""
    if not (isinstance(x, list) and len(x) == 2 and all(isinstance(p, list) for p in x)
            and len(x[0]) == len(x[1])):
        raise CertificateError(f"a {model} state is [indices, values] of equal length")
    index = [state_index(t, dim) for t in x[0]]
    values = _vec(x[1])
    if any(b <= a for a, b in zip(index, index[1:])) or any(not v for v in values):
        raise CertificateError(f"a {model} state lists increasing indices with "
                               "non-zero values")
    return tuple(zip(index, values))
