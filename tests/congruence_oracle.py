"""The brute-force congruence enumeration that fsmnet/constructions/congruences.py
replaced, kept as the oracle of tests/test_bilinear_block.py and the baseline of
bench/bench_expressivity.py.

Every one of the n(n-1)/2 principal congruences is closed with every letter,
then every pair of congruences found is joined (and closed again) until
nothing new appears: the definitions, with no shortcut.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np

Partition = tuple[int, ...]


def _brute_close(delta: np.ndarray, parent: list[int],
                 pending: list[tuple[int, int]]) -> Partition:
    def find(x: int) -> int:
        while parent[x] != x:
            x = parent[x]
        return x

    while pending:
        p, q = pending.pop()
        rp, rq = find(p), find(q)
        if rp != rq:
            parent[rp] = rq
            pending.extend((int(delta[s, p]), int(delta[s, q])) for s in range(delta.shape[0]))
    seen: dict[int, int] = {}
    return tuple(seen.setdefault(find(x), len(seen)) for x in range(len(parent)))


def brute_force_congruences(delta: np.ndarray) -> set[Partition]:
    """All non-trivial congruences (neither identity nor universal), by definition."""
    n = delta.shape[1]
    identity, universal = tuple(range(n)), (0,) * n
    found = {_brute_close(delta, list(range(n)), [(p, q)]) for p, q in combinations(range(n), 2)}
    found.discard(universal)
    frontier = list(found)
    while frontier:
        new = []
        for a in frontier:
            for b in list(found):
                first_a: dict[int, int] = {}
                first_b: dict[int, int] = {}
                pending = []
                for x in range(n):
                    pending.append((x, first_a.setdefault(a[x], x)))
                    pending.append((x, first_b.setdefault(b[x], x)))
                c = _brute_close(delta, list(range(n)), pending)
                if c != universal and c not in found:
                    found.add(c)
                    new.append(c)
        frontier = new
    found.discard(identity)
    return found
