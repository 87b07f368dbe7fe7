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


def topological_order(automaton: Automaton, *, skip_constant: bool = False) -> list[int] | None:
    """States in an order along which every letter moves forward or stays (x ≤ f(x)),
    breadth-first among the ready states; None when the transitions have a cycle.
    With ``skip_constant``, letters that are constant maps (resets) are left out."""
    n = automaton.n_states
    delta = np.asarray(automaton.delta)
    rows = [row for row in delta if not (skip_constant and len(set(row.tolist())) == 1)]
    succ = [sorted({int(row[q]) for row in rows} - {q}) for q in range(n)]
    indegree = [0] * n
    for q in range(n):
        for t in succ[q]:
            indegree[t] += 1
    start = [automaton.initial] if automaton.initial is not None else []
    ready = deque(start + [q for q in range(n) if indegree[q] == 0 and q not in start])
    order: list[int] = []
    placed = [False] * n
    while ready:
        q = ready.popleft()
        if indegree[q] != 0 or placed[q]:
            continue
        placed[q] = True
        order.append(q)
        for t in succ[q]:
            indegree[t] -= 1
            if indegree[t] == 0:
                ready.append(t)
    return order if len(order) == n else None


def _bit_maps(maps: np.ndarray) -> np.ndarray | None:
    """Per letter f and unit j < n − 1: the new c_j when no unit above is set, as
    (value from c_j = 0, value from c_j = 1), or None when some f sends part of
    {x > j} to j and part elsewhere, or would swap the bit."""
    k, n = maps.shape
    out = np.zeros((k, max(n - 1, 0), 2), dtype=np.int64)
    for s, f in enumerate(maps):
        for j in range(n - 1):
            later = f[j + 1:] == j
            if later.any() and not later.all():
                return None
            zero, one = int(later.all()), int(f[j] == j)
            if zero == 1 and one == 0:
                return None  # 0 -> 1 and 1 -> 0: a swap, not identity-reset
            out[s, j] = (zero, one)
    return out


def onehot_order_spec(automaton: Automaton) -> CascadeSpec | None:
    """A cascade of n − 1 binary units for an automaton whose letters, resets left
    aside, only move states forward along some order (a *partially ordered*
    automaton, with resets allowed), or None.

    Unit j holds c_j = [x = order[j]] for the first n − 1 states of the order
    (all zero: the last state).  With the units above read at t−1: if some unit
    k < j is set, the state is order[k] and the new c_j is the constant [f(k) = j].
    If none is, the state is order[j] (c_j = 1) or lies further on (c_j = 0); a
    forward letter sends every later state past j, a reset sends all of them to
    the same place, so the new c_j is a function of c_j alone: identity or a
    constant (checked for every letter; a swap or a split refuses).  That is an
    identity-reset cascade with exactly n reached coordinate tuples, where the
    holonomy cascade of a random 40-state acyclic machine has 28.8 million
    parameters and one with a reset to q0 stops past 60 states.
    """
    n = automaton.n_states
    if automaton.initial is None or n < 2:
        return None
    order = topological_order(automaton, skip_constant=True)
    if order is None:
        return None
    rank = np.empty(n, dtype=np.int64)
    rank[order] = np.arange(n)
    maps = rank[np.asarray(automaton.delta, dtype=np.int64)[:, order]]  # f on ranks
    bits = _bit_maps(maps)
    if bits is None:
        return None
    ident = ("perm", (0, 1))

    def action(level: int, symbol: int, above: tuple[int, ...]) -> tuple[str, object]:
        f = maps[symbol]
        for k, bit in enumerate(above):
            if bit:
                return ("const", int(f[k] == level))
        zero, one = (int(v) for v in bits[symbol, level])
        return ident if (zero, one) == (0, 1) else ("const", zero)

    def decode(coords: tuple[int, ...]) -> int:
        for j, bit in enumerate(coords):
            if bit:
                return int(order[j])
        return int(order[n - 1])

    x0 = int(rank[automaton.initial])
    return CascadeSpec(sizes=(2,) * (n - 1), initial=tuple(int(x0 == j) for j in range(n - 1)),
                       action=action, decode=decode,
                       facts={"onehot_order": [int(q) for q in order]})
