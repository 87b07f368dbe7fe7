"""Networks whose states stay ±one-hot: a step is a table look-up.

Linear recurrences.  When every column of every matrix A_a has at most one
non-zero entry and h0 has at most one, every normalized state is ``s·e_j``
(s = ±1) or the zero vector: column j of A_a is ``c·e_i``, so
``A_a(s·e_j) = s·c·e_i`` and normalizing (a division by the largest absolute
entry, |s·c|) gives ``sign(s·c)·e_i`` exactly, in rationals and in float64
alike (the other products are ±0 and add nothing).  A state is coded as the
integer ``s·(j + 1)``, 0 for the zero vector, and its label is the first argmax
of ``s·readout[:, j]`` (``readout @ (s·e_j)`` is that column exactly;
comparisons of floats are exact).

Boolean max-min networks (``minmax-dense``).  When R, x0 and the readout hold
only 1.0 and +0.0, s is all +0.0, x0 has at most one 1 and every column of every
R[σ] at most one: for the state e_q, ``(R ⊗ e_q)_i = max_j min(R[i, j], e_q[j])
= R[i, q]`` (every other term is min(R[i, j], 0) = 0), so the next state is
column q of R[σ], some e_i or the zero vector, and ``⊕ s`` changes nothing; the
zero vector stays zero.  The scores ``readout ⊗ e_q`` are column q of the
readout, so the label is its first argmax, and the zero vector's is 0.  Codes
are ``j + 1`` and 0 as above; max and min only select, so this is the exact
semantics and the float64 one at once.

The exact product exploration (:mod:`fsmnet.proofs.product`) and the scan
engine's tabulation (:mod:`fsmnet.gpu.tabulate`) both read the codes here, from
the stored coordinates when the tensors are sparse (:mod:`fsmnet.nets.sparse`),
so neither forms an H × H matrix.  Building the codes costs O(k·H) look-ups plus
the non-zeros.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from fsmnet.nets.linear import LinearRecurrence
from fsmnet.nets.sparse import first_argmax_of_columns

if TYPE_CHECKING:
    from fsmnet.nets.network import Network

_BASE_METHODS = ("initial_state", "step", "readout", "readout_matrix", "matrices")
"""The LinearRecurrence methods a network's semantics must not override for the
codes to be its semantics (a subclass may still give exact matrices of its own)."""


@dataclass(frozen=True)
class OneHotCodes:
    """``succ[a, j]`` = code of ``A_a e_j``; ``positive[j]``, ``negative[j]`` = label
    index of ``+e_j``, ``-e_j``; the zero vector's label is 0 (argmax of zeros)."""

    succ: np.ndarray
    initial: int
    positive: np.ndarray
    negative: np.ndarray

    @property
    def hidden(self) -> int:
        return int(self.succ.shape[1])

    def step(self, code: int, symbol: int) -> int:
        if code == 0:
            return 0
        target = int(self.succ[symbol, abs(code) - 1])
        return target if code > 0 else -target

    def label(self, code: int) -> int:
        if code == 0:
            return 0
        return int((self.positive if code > 0 else self.negative)[abs(code) - 1])

    def vector(self, code: int) -> np.ndarray:
        """The float64 state a code stands for."""
        h = np.zeros(self.hidden)
        if code:
            h[abs(code) - 1] = 1.0 if code > 0 else -1.0
        return h

    def code_of(self, state: np.ndarray) -> int | None:
        """The code of a float state, or None if it is not ±one-hot or zero."""
        nonzero = np.flatnonzero(state)
        if nonzero.size == 0:
            return 0
        j = int(nonzero[0])
        if nonzero.size > 1 or abs(state[j]) != 1.0:
            return None
        return (j + 1) if state[j] > 0 else -(j + 1)


def one_hot_codes(net: Network, *, exact: bool) -> OneHotCodes | None:
    """The codes of ``net``'s exact (``exact=True``) or float64 semantics, or None when
    no builder's conditions (the module docstring) hold."""
    for build in _BUILDERS:
        codes = build(net, exact)
        if codes is not None:
            return codes
    return None


def _linear_codes(net: Network, exact: bool) -> OneHotCodes | None:
    sem = net.semantics
    cls: Any = type(sem)
    if not isinstance(sem, LinearRecurrence) or any(
            getattr(cls, name) is not getattr(LinearRecurrence, name) for name in _BASE_METHODS):
        return None
    h0 = np.asarray(net.params["h0"], dtype=np.float64)
    first = np.flatnonzero(h0)
    if first.size > 1:
        return None
    entries = _entries(net, sem, exact=exact)
    k, hidden = len(net.symbols), h0.size
    succ = _successors(entries, k, hidden)
    if succ is None:
        return None
    initial = 0 if first.size == 0 else int(np.sign(h0[first[0]])) * int(first[0] + 1)
    readout = net.stored["readout"]
    return OneHotCodes(succ=succ, initial=initial,
                       positive=first_argmax_of_columns(readout, 1),
                       negative=first_argmax_of_columns(readout, -1))


def _boolean(values: np.ndarray) -> bool:
    """Every value is 1.0 or +0.0 (a −0.0 would make states the codes do not name)."""
    v = np.asarray(values, dtype=np.float64)
    return bool(np.all((v == 1.0) | ((v == 0.0) & ~np.signbit(v))))


def _boolean_codes(net: Network, exact: bool) -> OneHotCodes | None:
    """minmax-dense with Boolean tensors: max and min only select, so ``exact`` changes
    nothing."""
    from fsmnet.nets.minmax import DenseMinMax
    from fsmnet.nets.sparse import SparseTensor

    if not isinstance(net.semantics, DenseMinMax):
        return None
    stored = net.stored
    r, readout = stored["R"], stored["readout"]
    values = {name: t.values if isinstance(t, SparseTensor) else t
              for name, t in stored.items()}
    if not all(_boolean(values[name]) for name in ("R", "x0", "readout")) or \
            np.any(values["s"] != 0) or np.any(np.signbit(values["s"])):
        return None
    first = np.flatnonzero(values["x0"])
    if first.size > 1:
        return None
    k, hidden = r.shape[0], r.shape[1]
    sym, row, col = r.indices if isinstance(r, SparseTensor) else np.nonzero(r)
    ones = values["R"] != 0 if isinstance(r, SparseTensor) else np.ones(sym.size, dtype=bool)
    succ = _successors((sym[ones], row[ones], col[ones], np.ones(int(ones.sum()))), k, hidden)
    if succ is None:
        return None
    positive = first_argmax_of_columns(readout, 1)
    return OneHotCodes(succ=succ, initial=0 if first.size == 0 else int(first[0] + 1),
                       positive=positive, negative=positive)


_BUILDERS = (_linear_codes, _boolean_codes)
"""Who may give codes: linear recurrences (±one-hot columns) and Boolean max-min nets."""


def _entries(net: Network, sem: Any, *, exact: bool) -> tuple[np.ndarray, ...]:
    """(symbol, row, column, sign) of every non-zero matrix entry: from the stored
    entries when the semantics reads them sparse, else from the dense matrices.  Only
    the sign of a column's single non-zero entry matters."""
    stored = sem.matrix_entries(net, exact)
    if stored is not None:
        sym, row, col, val = stored
        signs = _signs(val)
        keep = signs != 0
        return sym[keep], row[keep], col[keep], signs[keep].astype(np.float64)
    own_exact = type(sem).matrices_exact is not LinearRecurrence.matrices_exact
    if not (exact and own_exact):
        # the float64 matrices, or exact ones that are the float64 values as rationals
        mats = np.asarray(sem.matrices(net, False), dtype=np.float64)
        where = np.nonzero(mats)
        return (*where, np.sign(mats[where]))
    # Exact matrices of their own (CP factors, Householder products).
    flat = np.asarray(sem.matrices(net, True), dtype=object)
    signs = _signs(flat.ravel()).reshape(flat.shape)
    where = np.nonzero(signs)
    return (*where, signs[where].astype(np.float64))


def _signs(values: np.ndarray) -> np.ndarray:
    """The signs (−1, 0, 1) of float64 values or exact rationals (a Fraction's is its
    numerator's, which no rounding can turn into 0)."""
    if values.dtype != object:
        return np.sign(values).astype(np.int64)
    return np.array([(x > 0) - (x < 0) for x in values.tolist()], dtype=np.int64)


def _successors(entries: tuple[np.ndarray, ...], k: int, hidden: int) -> np.ndarray | None:
    """succ[a, j] = sign·(i + 1) for the one entry (a, i, j) of column j of A_a, 0 for an
    empty column; None when a column holds two entries."""
    sym, row, col, sign = entries
    slot = sym.astype(np.int64) * hidden + col
    if np.unique(slot).size != slot.size:
        return None
    succ = np.zeros(k * hidden, dtype=np.int64)
    succ[slot] = sign.astype(np.int64) * (row.astype(np.int64) + 1)
    return succ.reshape(k, hidden)
