"""Aperiodicity witnesses for ``minmax-scalar`` (docs/theory.md, theorem 4).

A scalar MinMax cascade settles after one period per level, so it exists only
for aperiodic automata.  :func:`periodic_witness` finds, by a shortlex search
of the transition monoid, a word u that cycles some states; with a prefix that
reaches them and a suffix that tells them apart, the outputs along
``prefix · u^j · suffix`` never settle.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Any

from fsmnet.automata import Automaton
from fsmnet.errors import NotExpressible

__all__ = ["NotAperiodic", "PeriodicWitness", "periodic_witness"]


@dataclass(frozen=True)
class PeriodicWitness:
    """A word u that cycles a set of states: q·u^m = q with q·u ≠ q (m ≥ 2).

    With ``prefix`` reaching q from q0 and ``suffix`` telling q and q·u apart,
    the outputs along ``prefix · u^j · suffix`` repeat with period m and never
    settle, which no scalar MinMax cascade can do (docs/theory.md, theorem 4).
    """

    word: tuple[str, ...]
    state: str
    cycle: tuple[str, ...]
    period: int
    prefix: tuple[str, ...]
    suffix: tuple[str, ...]

    def as_dict(self) -> dict[str, Any]:
        return {"word": list(self.word), "state": self.state, "cycle": list(self.cycle),
                "period": self.period, "prefix": list(self.prefix),
                "suffix": list(self.suffix)}


class NotAperiodic(NotExpressible):
    """minmax-scalar refused: the automaton is not aperiodic; ``witness`` says why."""

    def __init__(self, message: str, witness: PeriodicWitness) -> None:
        super().__init__(message)
        self.witness = witness


def periodic_witness(automaton: Automaton, *, limit: int = 500_000) -> PeriodicWitness | None:
    """A shortest word u (shortlex BFS of the transition monoid) acting as a
    non-trivial cycle on some states, or ``None`` when the monoid is aperiodic.

    A transformation t lies in a non-trivial subgroup's cyclic part exactly when
    its functional graph has a cycle of length ≥ 2 (its powers then never
    settle); the monoid is aperiodic iff no element has one.
    """
    n = automaton.n_states
    gens = [tuple(int(v) for v in row) for row in automaton.delta]
    ident = tuple(range(n))
    parent: dict[tuple[int, ...], tuple[tuple[int, ...], int] | None] = {ident: None}
    queue = deque([ident])
    while queue:
        t = queue.popleft()
        cyc = _long_cycle(t)
        if cyc is not None:
            return _witness(automaton, _word(parent, t), cyc)
        for a, g in enumerate(gens):
            nt = tuple(g[x] for x in t)  # t first, then letter a
            if nt not in parent:
                if len(parent) >= limit:
                    raise NotExpressible(f"minmax-scalar: transition monoid larger than "
                                         f"{limit} elements; aperiodicity not decided")
                parent[nt] = (t, a)
                queue.append(nt)
    return None


def _long_cycle(t: tuple[int, ...]) -> list[int] | None:
    """A cycle of length >= 2 of t's functional graph, or None (one pass, O(n))."""
    mark = [0] * len(t)  # 0 unseen, 1 on the current path, 2 finished
    for q in range(len(t)):
        if mark[q]:
            continue
        path = []
        x = q
        while not mark[x]:
            mark[x] = 1
            path.append(x)
            x = t[x]
        if mark[x] == 1 and t[x] != x:  # the path closed a new cycle through x
            cycle = [x]
            while t[cycle[-1]] != x:
                cycle.append(t[cycle[-1]])
            return cycle
        for y in path:
            mark[y] = 2
    return None


def _word(parent: dict[tuple[int, ...], Any], t: tuple[int, ...]) -> list[int]:
    out: list[int] = []
    while parent[t] is not None:
        t, a = parent[t]
        out.append(a)
    return out[::-1]


def _witness(automaton: Automaton, word: list[int], cycle: list[int]) -> PeriodicWitness:
    from fsmnet.automata import distinguishing_word

    q = cycle[0]
    prefix = _path_to(automaton, q)
    found = distinguishing_word(automaton.replace(initial=q), automaton.replace(initial=cycle[1]))
    suffix = found[0] if found is not None else []
    names = automaton.states
    return PeriodicWitness(word=tuple(automaton.decode(word)), state=names[q],
                           cycle=tuple(names[c] for c in cycle), period=len(cycle),
                           prefix=tuple(automaton.decode(prefix)), suffix=tuple(suffix))


def _path_to(automaton: Automaton, target: int) -> list[int]:
    assert automaton.initial is not None
    back: dict[int, tuple[int, int] | None] = {automaton.initial: None}
    queue = deque([automaton.initial])
    while queue and target not in back:
        q = queue.popleft()
        for a in range(automaton.n_symbols):
            nq = int(automaton.delta[a, q])
            if nq not in back:
                back[nq] = (q, a)
                queue.append(nq)
    path: list[int] = []
    node = target
    while back[node] is not None:
        node, a = back[node]  # type: ignore[misc]
        path.append(a)
    return path[::-1]
