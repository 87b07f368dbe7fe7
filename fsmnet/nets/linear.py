"""Shared semantics of every architecture whose step is h_t = A(x_t) h_{t-1}.

Bilinear (full, CP, block, diagonal), DeltaProduct and fixed-point networks all
reduce, for one-hot inputs, to one matrix per symbol.  Subclasses say how to
build those matrices from their tensors; stepping, projective renormalization,
the argmax readout, exact arithmetic and the torch module live here once.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from math import lcm
from typing import TYPE_CHECKING

import numpy as np

from fsmnet.nets.semantics import require_stored, require_tensor

if TYPE_CHECKING:
    from fsmnet.nets.network import Network


def to_fractions(array: np.ndarray) -> np.ndarray:
    """Exact rational copy of a float array (every float64 is a rational)."""
    flat = [Fraction(float(x)) for x in np.asarray(array, dtype=np.float64).ravel()]
    return np.array(flat, dtype=object).reshape(np.shape(array))


def normalize(h: np.ndarray) -> np.ndarray:
    """Divide by the largest absolute entry: a positive rescaling, so no readout
    (argmax of a linear map) changes, and nothing over- or underflows."""
    scale = max((abs(x) for x in h.ravel()), default=0)
    if scale == 0:
        return h
    return h / scale


def integer_matrices(mats: np.ndarray) -> list[list[list[int]]] | None:
    """Each rational matrix times the least common multiple of its denominators, as
    rows of Python ints; None if an entry is not rational (a cyclotomic weight)."""
    out = []
    for m in mats:
        if not all(isinstance(x, (Fraction, int)) for x in m.ravel()):
            return None
        d = lcm(*(Fraction(x).denominator for x in m.ravel()))
        out.append([[int(Fraction(x) * d) for x in row] for row in m])
    return out


def _integer_vector(state: np.ndarray) -> list[int] | None:
    """The rational ``state`` times the least common multiple of its denominators
    (a positive scale), or None if an entry is not rational."""
    if not all(isinstance(x, (Fraction, int)) for x in state):
        return None
    common = lcm(*(Fraction(x).denominator for x in state))
    return [int(Fraction(x) * common) for x in state]


def integer_step(rows: list[list[int]], state: np.ndarray) -> np.ndarray | None:
    """normalize(A·state) computed on integers: A = rows / D and state = v / L for
    positive D and L, so A·state = (rows·v) / (D·L) has the direction of rows·v, and
    normalizing divides by the largest entry either way.  The same Fractions as the
    rational product, without a gcd per product and sum.  None where the state is
    not rational or the image is zero (the caller's general path handles both)."""
    v = _integer_vector(state)
    if v is None:
        return None
    w = [sum(a * b for a, b in zip(row, v)) for row in rows]
    scale = max(abs(x) for x in w)
    if scale == 0:
        return None
    return np.array([Fraction(x, scale) for x in w], dtype=object)


def integer_argmax(rows: list[list[int]], state: np.ndarray) -> int | None:
    """The first argmax of R·state on integers (R = rows / D, state = v / L: a positive
    scale of the scores, so the same argmax and the same ties); None if the state is
    not rational."""
    v = _integer_vector(state)
    if v is None:
        return None
    scores = [sum(a * b for a, b in zip(row, v)) for row in rows]
    return max(range(len(scores)), key=lambda i: (scores[i], -i))


class LinearRecurrence:
    """Base semantics: per-symbol matrices, initial vector, linear argmax readout.

    Subclasses set ``arch`` and implement :meth:`matrices_float` (shape
    ``(n_symbols, H, H)``) and :meth:`validate_tensors`; they may override
    :meth:`matrices_exact` when the float tensors are not the exact weights.
    """

    arch = "linear"
    sparse_tensors: frozenset[str] = frozenset()
    """Tensors this architecture reads when stored sparse (fsmnet.nets.sparse)."""

    # ---------------------------------------------------------------- hooks
    def validate_tensors(self, params: Mapping[str, np.ndarray], n_symbols: int,
                         source: str) -> int:
        """Check the architecture's own tensors; return the hidden size H."""
        raise NotImplementedError

    def matrices_float(self, net: Network) -> np.ndarray:
        raise NotImplementedError

    def matrices_exact(self, net: Network) -> np.ndarray:
        """Exact per-symbol matrices (object arrays of Fractions by default)."""
        return to_fractions(self.matrices_float(net))

    def matrix_entries(self, net: Network, exact: bool) -> tuple[np.ndarray, ...] | None:
        """(symbol, row, column, value) of the non-zero entries of the exact (values
        exact rationals) or float64 matrices, read without forming a dense matrix when
        the tensors are stored sparse; None otherwise."""
        return None

    # ------------------------------------------------------------ protocol
    def validate(self, params: Mapping[str, np.ndarray], n_symbols: int, n_labels: int,
                 source: str) -> None:
        hidden = self.validate_tensors(params, n_symbols, source)
        require_tensor(params, "h0", (hidden,), source)
        require_stored(params, "readout", (n_labels, hidden), source)

    def hidden_size(self, net: Network) -> int:
        return int(net.params["h0"].shape[0])

    def matrices(self, net: Network, exact: bool) -> np.ndarray:
        if exact:
            return net.cached("matrices_exact", lambda: self.matrices_exact(net))
        return net.cached("matrices_float", lambda: self.matrices_float(net))

    def initial_state(self, net: Network, exact: bool) -> np.ndarray:
        # Normalized like every later state, so equal projective states are equal.
        h0 = net.params["h0"]
        return normalize(to_fractions(h0) if exact else np.array(h0, dtype=np.float64))

    def step(self, net: Network, state: np.ndarray, symbol: int, exact: bool) -> np.ndarray:
        if exact:
            rows = net.cached("matrices_integer",
                              lambda: integer_matrices(self.matrices(net, True)))
            if rows is not None:
                stepped = integer_step(rows[symbol], state)
                if stepped is not None:
                    return stepped
        return normalize(self.matrices(net, exact)[symbol].dot(state))

    def readout_matrix(self, net: Network, exact: bool) -> np.ndarray:
        if exact:
            return net.cached("readout_exact", lambda: to_fractions(net.params["readout"]))
        return net.params["readout"]

    def readout(self, net: Network, state: np.ndarray, exact: bool) -> int:
        if exact:
            rows = net.cached("readout_integer",
                              lambda: integer_matrices(self.readout_matrix(net, True)[None]))
            if rows is not None:
                label = integer_argmax(rows[0], state)
                if label is not None:
                    return label
        scores = self.readout_matrix(net, exact).dot(state)
        return int(np.argmax(scores)) if not exact else _argmax_exact(scores)


def _argmax_exact(scores: np.ndarray) -> int:
    best = 0
    for i in range(1, len(scores)):
        if scores[i] > scores[best]:
            best = i
    return best
