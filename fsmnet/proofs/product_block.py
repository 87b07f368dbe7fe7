"""An integer fast path for the exact product exploration of bilinear-block networks.

A ``bilinear-block`` network (fsmnet/nets/bilinear_block.py) runs m blocks
side by side, h⁽ⁱ⁾ ← normalize(W.i[:, :, σ] h⁽ⁱ⁾), and reads out argmax of a
multilinear contraction of the block states.  When every column of every
block matrix has at most one nonzero entry and every h0.i has at most one,
each normalized exact block state is ``s·e_j`` (s = ±1) or the zero vector,
exactly as for :func:`fsmnet.proofs.product.one_hot_model`: normalize divides
by the largest absolute entry, so ``normalize(W (s·e_j)) = s·sign(c)·e_i`` when
column j of W is ``c·e_i``.  A state is then the tuple of integer codes
``s·(j+1)`` (0 for the zero vector), a step is a table look-up per block, and
the readout of a state is ``Π s_k · readout[:, j_0, ..., j_{m-1}]`` (all zeros
when one block is zero), whose first argmax is the semantics' exact one (the
stored floats are rationals, and comparing or negating them is exact).

This is the exact semantics, not an approximation; the generic path (dense
Fraction mat-vecs, ``fast_paths=False``) gives the same exploration, which
tests/test_bilinear_block.py checks.  Without it, proving a one-block network
of 120 states with 120 letters costs 14,400 dense 120×120 Fraction mat-vecs.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np

from fsmnet.nets import Network
from fsmnet.nets.bilinear_block import BlockBilinear, block_count
from fsmnet.nets.linear import _argmax_exact


def _successors(w: np.ndarray) -> list[list[int]] | None:
    """table[a][j] = ±(i + 1) when column j of W[:, :, a] is c·e_i (sign of c), 0 if zero;
    None when a column has two nonzero entries or a value is not finite."""
    mats = np.moveaxis(np.asarray(w, dtype=np.float64), 2, 0)  # (|Σ|, b, b)
    if not np.all(np.isfinite(mats)) or np.any(np.count_nonzero(mats, axis=1) > 1):
        return None
    where = np.abs(mats).argmax(axis=1)
    signs = np.sign(np.take_along_axis(mats, where[:, None, :], axis=1)[:, 0, :])
    return [[int(x) for x in row] for row in (signs * (where + 1)).astype(np.int64)]


def _code(h0: np.ndarray) -> int | None:
    nonzero = np.flatnonzero(h0)
    if nonzero.size > 1 or not np.all(np.isfinite(h0)):
        return None
    return 0 if nonzero.size == 0 else int(np.sign(h0[nonzero[0]])) * int(nonzero[0] + 1)


def block_one_hot_model(net: Network) -> dict[str, Any] | None:
    """The fast state model's parts (initial, step, readout, key, materialize) for a
    bilinear-block net whose block states stay ±one-hot, or None."""
    if type(net.semantics) is not BlockBilinear:  # a subclass may change the semantics
        return None
    m = block_count(net.params)
    tables, sizes, codes = [], [], []
    for i in range(m):
        table = _successors(net.params[f"W.{i}"])
        code = _code(np.asarray(net.params[f"h0.{i}"], dtype=np.float64))
        if table is None or code is None:
            return None
        tables.append(table)
        sizes.append(int(net.params[f"h0.{i}"].shape[0]))
        codes.append(code)
    raw = np.asarray(net.params["readout"], dtype=np.float64)
    if not np.all(np.isfinite(raw)):
        return None
    zero = Fraction(0)
    n_labels = raw.shape[0]

    def step(state: tuple[int, ...], a: int) -> tuple[int, ...]:
        return tuple(0 if c == 0 else (t[a][c - 1] if c > 0 else -t[a][-c - 1])
                     for c, t in zip(state, tables))

    def read(state: tuple[int, ...]) -> int:
        if any(c == 0 for c in state):
            return _argmax_exact(np.array([zero] * n_labels, dtype=object))
        negative = sum(c < 0 for c in state) % 2 == 1
        where: tuple[Any, ...] = (slice(None), *(abs(c) - 1 for c in state))
        column = raw[where]
        # float64 comparison and negation are exact, and np.argmax takes the first
        # maximum, as the exact argmax does: the same label as the Fraction scores.
        return int(np.argmax(-column if negative else column))

    def materialize(state: tuple[int, ...]) -> tuple[np.ndarray, ...]:
        out = []
        for c, b in zip(state, sizes):
            h = np.full(b, zero, dtype=object)
            if c:
                h[abs(c) - 1] = Fraction(1 if c > 0 else -1)
            out.append(h)
        return tuple(out)

    return {"initial": tuple(codes), "step": step, "readout": read,
            "key": lambda s: s, "materialize": materialize}
