"""Brute-force oracles shared by the snapping tests (test_snap_states, test_snap_blocks):
the automaton's table against a network's exact labels on every short word, and the
closure of exact state directions multiplied out in Fractions, independent of the code
under test."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from fractions import Fraction

Vector = list[Fraction]


def wrong_words(net, automaton, length: int) -> list[tuple[int, ...]]:
    """Words up to ``length`` whose exact label differs from the automaton's output."""
    index = {lab: i for i, lab in enumerate(net.labels)}
    bad = []
    for n in range(length + 1):
        for w in itertools.product(range(automaton.n_symbols), repeat=n):
            want = automaton.labels[automaton.output_ids[automaton.trace(list(w))[-1]]]
            if net.label_trace(list(w), exact=True)[-1] != index[want]:
                bad.append(w)
    return bad


def reached_directions(automaton, start: Vector,
                       image: Callable[[Vector, int], Vector]) -> dict[int, Vector]:
    """From ``start`` at the initial state, follow every transition with ``image(v, a)``;
    assert that each letter maps each reached state's vector onto a positive multiple
    of the vector first reached at its successor.  Returns per state that vector."""
    directions = {int(automaton.initial): start}
    frontier = [int(automaton.initial)]
    while frontier:
        q = frontier.pop()
        for a in range(automaton.n_symbols):
            got = image(directions[q], a)
            r = int(automaton.delta[a][q])
            if r not in directions:
                directions[r] = got
                frontier.append(r)
                continue
            target = directions[r]
            j = next(i for i, x in enumerate(target) if x != 0)
            ratio = got[j] / target[j]
            assert ratio > 0 and all(x == ratio * y for x, y in zip(got, target)), (q, a)
    return directions


def mat_vec(rows: list[list[Fraction]], v: Vector) -> Vector:
    return [sum((m * x for m, x in zip(row, v)), Fraction(0)) for row in rows]
