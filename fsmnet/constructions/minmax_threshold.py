"""Threshold cascades: n − 1 binary scalar units for an automaton on an ordered chain.

Number the states 0..n−1 along a total order and encode state x by the bits
b_j = [x ≥ j], j = 1..n−1 (unit j−1 holds b_j).  A letter f that is
*monotone* (x ≤ y ⇒ f(x) ≤ f(y)) sends b to b' with
b'_j = [f(x) ≥ j] = [x ≥ m_j], m_j = min{x : f(x) ≥ j}: the set is upward
closed.  So b'_j is a constant (no such x: 0; m_j = 0: 1), the old b_j itself
(m_j = j: identity), or the old b_{m_j} of a unit *above* (m_j < j: a reset to
a value the controller reads at t−1).  When no letter needs m_j > j (a bit
below), the encoding is a cascade of identity-reset scalar units: every
letter acts by identity or constants, so the automaton is aperiodic and
:func:`threshold_spec` gives a :class:`CascadeSpec` with exactly n reached
coordinate tuples (no redundancy).

This covers machines whose letters only move states forward along a chain or
reset them: counters with a cap (``atleast:k``), each track of the MinMax
paper's Sequences task (its holonomy cascade of 9 states already reaches more
than 20,000 tuples: the images of "advance only from i" are many subsets).
The order is searched among a few candidates (breadth-first from q0, state
index); none fits → None, and the holonomy cascade is used.
"""

from __future__ import annotations

from collections import deque

import numpy as np

from fsmnet.automata import Automaton
from fsmnet.constructions.minmax_cascade import CascadeSpec


def _bfs_order(automaton: Automaton) -> list[int]:
    assert automaton.initial is not None
    delta = np.asarray(automaton.delta)
    order, seen, queue = [], {automaton.initial}, deque([automaton.initial])
    while queue:
        q = queue.popleft()
        order.append(q)
        for row in delta:
            if int(row[q]) not in seen:
                seen.add(int(row[q]))
                queue.append(int(row[q]))
    return order + [q for q in range(automaton.n_states) if q not in seen]


def _thresholds(maps: np.ndarray) -> list[list[int]] | None:
    """m_j per letter and j = 1..n−1 (−1: none, so b'_j = 0), or None when some letter
    is not monotone or needs a bit below (m_j > j)."""
    n = maps.shape[1]
    out = []
    for f in maps:
        if np.any(np.diff(f) < 0):
            return None
        row = []
        for j in range(1, n):
            hits = np.nonzero(f >= j)[0]
            m = int(hits[0]) if hits.size else -1
            if m > j:
                return None
            row.append(m)
        out.append(row)
    return out


def threshold_spec(automaton: Automaton) -> CascadeSpec | None:
    """The threshold cascade of ``automaton`` (see the module docs), or None."""
    n = automaton.n_states
    if automaton.initial is None or n < 2:
        return None
    delta = np.asarray(automaton.delta, dtype=np.int64)
    for order in (_bfs_order(automaton), list(range(n))):
        rank = np.empty(n, dtype=np.int64)
        rank[order] = np.arange(n)
        maps = rank[delta[:, order]]  # letter f on ranks: rank(δ(order[x]))
        m = _thresholds(maps)
        if m is not None:
            return _spec(automaton, order, m)
    return None


def _spec(automaton: Automaton, order: list[int], m: list[list[int]]) -> CascadeSpec:
    n = len(order)
    ident = ("perm", (0, 1))

    def action(level: int, symbol: int, above: tuple[int, ...]) -> tuple[str, object]:
        mj = m[symbol][level]  # level = j − 1
        if mj < 0:
            return ("const", 0)
        if mj == 0:
            return ("const", 1)
        if mj == level + 1:
            return ident
        return ("const", int(above[mj - 1]))  # b_{m_j}, a unit above

    def decode(coords: tuple[int, ...]) -> int:
        return int(order[sum(coords)])  # reached codes are 1…1 0…0

    x0 = order.index(automaton.initial)  # type: ignore[arg-type]
    return CascadeSpec(sizes=(2,) * (n - 1), initial=tuple(int(x0 >= j) for j in range(1, n)),
                       action=action, decode=decode,
                       facts={"threshold_order": [int(q) for q in order]})
