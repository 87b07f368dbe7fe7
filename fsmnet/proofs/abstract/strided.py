"""The k-th power of an automaton and of a linear network, for box searches with a
stride (the checker's :mod:`fsmnet.proofs.checker.stride` states the induction).

Where every single matrix of a trained network stretches some direction of the
chart (far from normal) while every product of k of them contracts, boxes close
for words of length k only.  The search then runs unchanged on the power: its
symbols are the words of length k (first letter most significant, the checker's
order), its matrices the products, normalized (a positive scale changes no cone).
Cost: symbols^k images per box and round, so only strides with at most
:data:`MAX_WORDS` words are tried.  For ``--float32`` each word also carries the
search's estimate of how far a float32 run of it strays (the recursion of
:mod:`fsmnet.proofs.checker.stride`, in floats and generous); the checker's own
bound decides.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import product

import numpy as np

from fsmnet.automata import Automaton

STRIDES = (1, 2, 4, 8)  # tried in order; 1 is the plain search
MAX_WORDS = 256
MAX_ROUNDS = 60  # Kleene rounds of a strided search (the plain one allows 200)


@dataclass(frozen=True)
class Power:
    """The power automaton and matrices, and the proper nonempty prefixes (matrix and
    the state each one reaches from every state)."""

    stride: int
    automaton: Automaton
    mats: np.ndarray
    prefixes: tuple[tuple[np.ndarray, np.ndarray], ...]
    errors: np.ndarray | None = None  # per word: the float32 stray E_w, scaled as mats
    prefix_errors: tuple[tuple[np.ndarray, float], ...] = ()  # per prefix: (E_w, V_w)


def strides(n_symbols: int) -> list[int]:
    """The strides worth a search for this alphabet."""
    return [k for k in STRIDES if n_symbols ** k <= MAX_WORDS]


def _product(mats: np.ndarray, word: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray, float]:
    """(A_w, E_w, V_w), all divided by one positive scale (A_w's largest entry, step by
    step, so nothing overflows)."""
    from fsmnet.proofs.abstract.rounding import U32, gamma

    n = mats.shape[1]
    m, e, v = np.eye(n), np.zeros(n), 1.0
    for a in word:
        err = (gamma(n) + U32) * np.abs(mats[a]).sum(1) * 1.01 + 1e-40
        m, e = mats[a] @ m, np.abs(mats[a]) @ e + err * v
        v = v * (float(np.abs(mats[a]).sum(1).max()) + float(err.max()))
        scale = max(float(np.abs(m).max()), 1e-300)
        m, e, v = m / scale, e / scale, v / scale
    return m, e, v


def _reach(automaton: Automaton, word: tuple[int, ...]) -> np.ndarray:
    q = np.arange(automaton.n_states)
    for a in word:
        q = automaton.delta[a, q]
    return np.asarray(q)


def power(automaton: Automaton, mats: np.ndarray, k: int) -> Power:
    """The k-th power (k = 1: the inputs themselves)."""
    if k == 1:
        return Power(1, automaton, np.asarray(mats), ())
    top = list(product(range(automaton.n_symbols), repeat=k))
    delta = np.array([_reach(automaton, w) for w in top])
    powered = Automaton(delta=delta, symbols=tuple(",".join(map(str, w)) for w in top),
                        initial=automaton.initial, outputs=automaton.outputs,
                        name=f"{automaton.name}^{k}")
    short = [w for n in range(1, k) for w in product(range(automaton.n_symbols), repeat=n)]
    runs = [_product(mats, w) for w in short]
    full = [_product(mats, w) for w in top]
    return Power(k, powered, np.array([m for m, _, _ in full]),
                 tuple((m, _reach(automaton, w)) for (m, _, _), w in zip(runs, short)),
                 np.array([e for _, e, _ in full]), tuple((e, v) for _, e, v in runs))


def prefix_misread(binv: np.ndarray, readout: np.ndarray,
                   boxes: list[tuple[np.ndarray, np.ndarray]], owner: list[int],
                   signs: list[int], right: dict[int, int], pw: Power,
                   float32: bool = False) -> int | None:
    """A box state from which some proper prefix is read out wrongly (float check, for
    the search; with ``float32``, less the float32 stray of the prefix and the readout's
    rounding, doubled), or None."""
    from fsmnet.proofs.abstract.rounding import gamma

    n = len(binv)
    for q, (lo, hi), sg in zip(owner, boxes, signs):
        reach_q = float((np.abs(binv) @ np.maximum(np.abs(lo), np.abs(hi))).max())
        for (m, reach), (err, grow) in zip(pw.prefixes, pw.prefix_errors):
            r = right[int(reach[q])]
            through = m @ binv
            for c in range(len(readout)):
                if c != r:
                    d = sg * (readout[r] - readout[c])
                    loss = 0.0 if not float32 else 2 * reach_q * (
                        float(np.abs(d) @ err) + gamma(n) * grow * float(
                            (np.abs(readout[r]) + np.abs(readout[c])).sum()))
                    dd = d @ through
                    if np.where(dd >= 0, dd * lo, dd * hi).sum() <= loss:
                        return q
    return None
