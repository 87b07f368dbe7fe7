"""The k-th power of an automaton and of a linear network, for box searches with a
stride (the checker's :mod:`fsmnet.proofs.checker.stride` states the induction).

Where every single matrix of a trained network stretches some direction of the
chart (far from normal) while every product of k of them contracts, boxes close
for words of length k only.  The search then runs unchanged on the power: its
symbols are the words of length k (first letter most significant, the checker's
order), its matrices the products, normalized (a positive scale changes no cone).
Cost: symbols^k images per box and round, so only strides with at most
:data:`MAX_WORDS` words are tried.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import product

import numpy as np

from fsmnet.automata import Automaton

STRIDES = (1, 2, 4)  # tried in order; 1 is the plain search
MAX_WORDS = 256


@dataclass(frozen=True)
class Power:
    """The power automaton and matrices, and the proper nonempty prefixes (matrix and
    the state each one reaches from every state)."""

    stride: int
    automaton: Automaton
    mats: np.ndarray
    prefixes: tuple[tuple[np.ndarray, np.ndarray], ...]


def strides(n_symbols: int) -> list[int]:
    """The strides worth a search for this alphabet."""
    return [k for k in STRIDES if n_symbols ** k <= MAX_WORDS]


def _product(mats: np.ndarray, word: tuple[int, ...]) -> np.ndarray:
    m = np.eye(mats.shape[1])
    for a in word:
        m = mats[a] @ m
        m = m / max(float(np.abs(m).max()), 1e-300)
    return m


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
    prefixes = tuple((_product(mats, w), _reach(automaton, w)) for n in range(1, k)
                     for w in product(range(automaton.n_symbols), repeat=n))
    return Power(k, powered, np.array([_product(mats, w) for w in top]), prefixes)


def prefix_misread(binv: np.ndarray, readout: np.ndarray,
                   boxes: list[tuple[np.ndarray, np.ndarray]], owner: list[int],
                   signs: list[int], right: dict[int, int], pw: Power) -> int | None:
    """A box state from which some proper prefix is read out wrongly (float check, for
    the search), or None."""
    for q, (lo, hi), sg in zip(owner, boxes, signs):
        for m, reach in pw.prefixes:
            r = right[int(reach[q])]
            through = m @ binv
            for c in range(len(readout)):
                if c != r:
                    d = sg * (readout[r] - readout[c]) @ through
                    if np.where(d >= 0, d * lo, d * hi).sum() <= 0:
                        return q
    return None
