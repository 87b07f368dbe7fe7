"""Clouds of reached states, grouped by automaton state: where every search starts.

The float reference semantics runs every word up to a small length and a few
random longer words; each reached state is filed under the automaton state
that the same word reaches.  A float disagreement is only a *candidate*
counterexample: the driver confirms it with the exact reference evaluator.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from fsmnet.automata import Automaton
from fsmnet.nets import Network
from fsmnet.nets.alignment import label_map


@dataclass
class Cloud:
    """Float states per automaton state, and words on which the float run disagreed."""

    states: dict[int, list[np.ndarray]] = field(default_factory=dict)
    candidates: list[list[int]] = field(default_factory=list)


def sample_states(net: Network, automaton: Automaton, *, depth: int = 8,
                  max_per_level: int = 512, walks: int = 64, walk_length: int = 64,
                  seed: int = 0) -> Cloud:
    """States reached on all words up to ``depth`` (at most ``max_per_level`` per
    length, chosen at random beyond) and on ``walks`` random words."""
    sem = net.semantics
    to_auto = label_map(net, automaton)
    out = automaton.output_ids
    rng = np.random.default_rng(seed)
    cloud = Cloud()
    assert automaton.initial is not None

    def visit(h: Any, q: int, word: list[int]) -> None:
        cloud.states.setdefault(q, []).append(np.asarray(h, dtype=np.float64).ravel())
        if to_auto[sem.readout(net, h, False)] != out[q] and len(cloud.candidates) < 16:
            cloud.candidates.append(list(word))

    h0 = sem.initial_state(net, False)
    level: list[tuple[Any, int, list[int]]] = [(h0, automaton.initial, [])]
    visit(h0, automaton.initial, [])
    for _ in range(depth):
        nxt = []
        for h, q, w in level:
            for a in range(automaton.n_symbols):
                h2 = sem.step(net, h, a, False)
                q2 = int(automaton.delta[a, q])
                nxt.append((h2, q2, w + [a]))
        if len(nxt) > max_per_level:
            pick = rng.choice(len(nxt), size=max_per_level, replace=False)
            nxt = [nxt[int(i)] for i in pick]
        for h, q, w in nxt:
            visit(h, q, w)
        level = nxt
    for _ in range(walks):
        h, q, w = h0, automaton.initial, []
        for a in rng.integers(0, automaton.n_symbols, size=walk_length):
            h = sem.step(net, h, int(a), False)
            q = int(automaton.delta[int(a), q])
            w.append(int(a))
            visit(h, q, w)
    return cloud


def pumped_candidates(net: Network, automaton: Automaton, *, max_period: int = 2,
                      max_power: int = 4096, limit: int = 8) -> list[list[int]]:
    """Shortest float-disagreeing prefixes of u^n for every word u up to ``max_period``.

    A perturbed identity or permutation letter drifts slowly (its eigenvalues
    split), so the words that go wrong are long repetitions; random words
    rarely find them.  Candidates only: the caller confirms them exactly.
    """
    from itertools import product

    to_auto = np.array(label_map(net, automaton))
    out = automaton.output_ids
    found: list[list[int]] = []
    for m in range(1, max_period + 1):
        for u in product(range(automaton.n_symbols), repeat=m):
            word = np.tile(np.array(u, dtype=np.int64), max_power // m)
            trace = to_auto[net.label_trace(word)]
            bad = np.flatnonzero(trace != out[automaton.trace(word)])
            if len(bad):
                found.append([int(x) for x in word[:int(bad[0])]])
                if len(found) >= limit:
                    return sorted(found, key=len)
    return sorted(found, key=len)
