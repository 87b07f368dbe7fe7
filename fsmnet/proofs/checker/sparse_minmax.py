"""The ``minmax-sparse`` model: a non-negative ``minmax-dense`` model by its non-zeros.

The network is ``minmax-dense`` (x' = (R_a ⊗ x) ⊕ s_a with ⊗ max-min and ⊕ max;
label = first argmax of readout ⊗ x), restricted to non-negative values, and
written by its non-zero entries: a one-hot max-min network on the 5,040 states
of S7 is 10,080 entries of R instead of 50.8 million, and its states one entry
each.

Why the restriction makes absent entries harmless: when R, s, x0 and the
readout are ≥ 0, every state is ≥ 0 (max and min of non-negative numbers), so a
term ``min(R[i, j], x[j])`` with R[i, j] = 0 or x[j] = 0 is 0, the least value
anything takes.  ``(R ⊗ x)_i`` is then the largest ``min(R[i, j], x[j])`` over
the entries where both are non-zero, and 0 when there is none; the scores
likewise.  The checker refuses a negative value anywhere in the model or in a
state.

* ``R``: one ``{"rows", "cols", "values"}`` per symbol, as in ``linear-sparse``;
* ``s``: one ``{"index", "values"}`` per symbol, ``x0`` the same, ``dim`` the
  state size, ``readout`` a matrix like R (labels × dim);
* a state is ``[indices, values]``, as in ``linear-sparse``.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from .core import CertificateError, is_index
from .sparse_linear import State, sparse_columns, sparse_state, sparse_vector


def _non_negative(values: Any, what: str) -> None:
    for v in values:
        if v < 0:
            raise CertificateError(f"minmax-sparse: {what} has a negative value {v} "
                                   f"(the model is for non-negative networks)")


class SparseMinMax:
    """The parsed model: per-symbol columns of R, offsets, x0, readout columns."""

    def __init__(self, model: dict[str, Any], k: int, n_labels: int) -> None:
        dim = model["dim"]
        if not is_index(dim, dim + 1) or dim == 0:
            raise CertificateError(f"dim must be a positive integer, got {dim!r}")
        if len(model["R"]) != k or len(model["s"]) != k:
            raise CertificateError("minmax-sparse: need R and s per symbol")
        self.dim, self.n_labels = dim, n_labels
        self.columns = [sparse_columns(m, dim, dim, f"R {a}") for a, m in enumerate(model["R"])]
        self.offsets = [sparse_vector(v, dim, f"s {a}") for a, v in enumerate(model["s"])]
        self.readout = sparse_columns(model["readout"], n_labels, dim, "readout")
        x0 = sparse_vector(model["x0"], dim, "x0")
        for a, columns in enumerate(self.columns):
            _non_negative((v for column in columns for _, v in column), f"R {a}")
            _non_negative(self.offsets[a].values(), f"s {a}")
        _non_negative((v for column in self.readout for _, v in column), "readout")
        _non_negative(x0.values(), "x0")
        self.x0: State = tuple(sorted((j, v) for j, v in x0.items() if v))

    def step(self, x: State, a: int) -> State:
        out: dict[int, Fraction] = {}
        columns = self.columns[a]
        for j, v in x:
            for i, r in columns[j]:
                m = min(r, v)
                if m > out.get(i, 0):
                    out[i] = m
        for i, v in self.offsets[a].items():
            if v > out.get(i, 0):
                out[i] = v
        return tuple(sorted(out.items()))

    def label(self, x: State) -> int:
        """The first argmax of the scores; every score is ≥ 0, so when the best is 0
        every score is 0 and label 0 wins."""
        scores: dict[int, Fraction] = {}
        for j, v in x:
            for c, r in self.readout[j]:
                m = min(r, v)
                if m > scores.get(c, 0):
                    scores[c] = m
        top = max(scores.values(), default=Fraction(0))
        return 0 if top == 0 else min(c for c, s in scores.items() if s == top)

    def state(self, x: Any) -> State:
        h = sparse_state(x, self.dim, "minmax-sparse")
        _non_negative((v for _, v in h), "a state")
        return h
