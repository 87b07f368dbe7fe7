"""Exact exploration of the product of a network and an automaton.

Starting from (h0, q0), every symbol is applied to every reached pair, in
exact arithmetic (the architecture's ``exact=True`` semantics: Fractions with
projective normalization for linear networks, max/min selections for MinMax).
Breadth-first order makes the first disagreement a *shortest* counterexample.

If the set of reached pairs closes up, it is a proof for all lengths: by
induction on |w|, the pair (h_w, q_w) is in the set, and every pair in the set
has readout(h) = λ(q).  If it does not close within the budget the answer is
"unknown" from this method (never "proved").
"""

from __future__ import annotations

from collections import deque
from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any

import numpy as np

from fsmnet.automata import Automaton
from fsmnet.nets import Network


@dataclass(frozen=True)
class ProductExploration:
    """Outcome of :func:`explore_product`.

    Attributes
    ----------
    status
        ``"closed"`` (every reachable pair agrees: a proof), ``"mismatch"``
        (``word`` reaches a pair whose outputs differ), or ``"budget"``.
    states
        The distinct exact network states reached, in discovery order.
    pairs
        (network-state index, automaton state) per reached pair.
    transitions
        ``transitions[p][a]`` = index of the pair reached from pair p on symbol a
        (complete only when ``status == "closed"``).
    word
        The shortest disagreeing word (symbol indices), for ``"mismatch"``.
    """

    status: str
    states: list[Any]
    pairs: list[tuple[int, int]]
    transitions: list[list[int]]
    word: list[int] | None = None


def freeze(state: Any) -> Hashable:
    """A hashable, exact key for a network state (arrays become nested tuples)."""
    if isinstance(state, np.ndarray):
        return ("nd", state.shape, tuple(freeze(x) for x in state.ravel()))
    if isinstance(state, (list, tuple)):
        return tuple(freeze(x) for x in state)
    if isinstance(state, float):
        return state  # MinMax values are exact selections of stored floats
    return state


def label_map(net: Network, automaton: Automaton) -> list[int]:
    """For each network label index, the automaton label index (-1 if unknown)."""
    index = {(type(lab).__name__, lab): i for i, lab in enumerate(automaton.labels)}
    return [index.get((type(lab).__name__, lab), -1) for lab in net.labels]


def explore_product(net: Network, automaton: Automaton, *, max_states: int = 20_000,
                    progress: Any = None) -> ProductExploration:
    """Breadth-first exploration of (network state, automaton state) pairs, exactly.

    Parameters
    ----------
    net, automaton
        Same alphabet, in the same order (checked by the caller).
    max_states
        Budget on distinct network states; beyond it the status is ``"budget"``.
    progress
        Optional callable ``progress(n_pairs)`` for a progress display.
    """
    sem = net.semantics
    to_auto = label_map(net, automaton)
    assert automaton.initial is not None
    out_ids = automaton.output_ids
    delta = automaton.delta
    k = automaton.n_symbols

    state_index: dict[Hashable, int] = {}
    states: list[Any] = []
    pair_index: dict[tuple[int, int], int] = {}
    pairs: list[tuple[int, int]] = []
    parent: list[tuple[int, int] | None] = []
    readouts: list[int] = []

    def intern(h: Any) -> int:
        key = freeze(h)
        idx = state_index.get(key)
        if idx is None:
            idx = len(states)
            state_index[key] = idx
            states.append(h)
            readouts.append(sem.readout(net, h, True))
        return idx

    def word_to(p: int) -> list[int]:
        word: list[int] = []
        while parent[p] is not None:
            prev, sym = parent[p]  # type: ignore[misc]
            word.append(sym)
            p = prev
        return word[::-1]

    h0 = intern(sem.initial_state(net, True))
    pair_index[(h0, automaton.initial)] = 0
    pairs.append((h0, automaton.initial))
    parent.append(None)
    transitions: list[list[int]] = []
    queue = deque([0])
    while queue:
        p = queue.popleft()
        h_idx, q = pairs[p]
        if to_auto[readouts[h_idx]] != out_ids[q]:
            return ProductExploration("mismatch", states, pairs, transitions, word_to(p))
        row = []
        for a in range(k):
            h_next = sem.step(net, states[h_idx], a, True)
            n_idx = intern(h_next)
            if len(states) > max_states:
                return ProductExploration("budget", states, pairs, transitions)
            target = (n_idx, int(delta[a, q]))
            t = pair_index.get(target)
            if t is None:
                t = len(pairs)
                pair_index[target] = t
                pairs.append(target)
                parent.append((p, a))
                queue.append(t)
            row.append(t)
        # Pairs are dequeued in index order, so row p is appended at position p.
        transitions.append(row)
        if progress is not None and p % 512 == 0:
            progress(len(pairs))
    return ProductExploration("closed", states, pairs, transitions)
