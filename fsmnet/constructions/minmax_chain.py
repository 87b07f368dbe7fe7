"""Congruence-chain cascades: one level per step of a chain of congruences.

A congruence π (p ~ q ⇒ pσ ~ qσ, :mod:`fsmnet.constructions.congruences`)
makes the class of the next state a function of the class of the state and
the letter.  A chain of congruences 1 = π_0 ≥ π_1 ≥ … ≥ π_m = identity, each
refining the one before, therefore encodes a state q by one coordinate per
level: at level ℓ, the *position* of q's π_ℓ-class among the π_ℓ-classes
inside q's π_(ℓ−1)-class C.  The coordinates above level ℓ determine C
exactly, and a letter σ sends the π_ℓ-classes inside C to π_ℓ-classes inside
Cσ by a map g that depends only on (σ, C): the dependency function of a
cascade.  The level is a MinMax unit when every such g is

* **constant** (all of C's subclasses go to one): a reset, scalar or matrix;
* **injective**: a matrix unit takes it as part of a permutation; a scalar
  unit only as the identity *on positions*, which the numbering of the
  subclasses must make true.  Equal-position constraints (position of g(s)
  in Cσ = position of s in C) are joined by union-find, two subclasses of one
  class forced to one position refuse the level, and the groups are then
  coloured greedily inside each class (the level may get more values than
  its largest class has subclasses).

Any other g (two subclasses merged, others kept apart) refuses the chain;
then the holonomy cascade is used.  The code is injective, so the cascade
reaches exactly n coordinate tuples, the fewest any cascade can.  It covers
automata that are cascades already (random reset cascades, whose holonomy
cascade of an 88-state one passed the exploration budget), which no other
form here recognizes when they are not products, chains or partially ordered.

The chain is built from the principal congruences (:func:`congruence_chain`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from fsmnet.automata import Automaton
from fsmnet.constructions.congruences import (
    Partition,
    join_principal,
    principal_congruences,
)
from fsmnet.constructions.minmax_cascade import CascadeSpec

__all__ = ["chain_spec", "congruence_chain"]


MAX_JOINS = 4_000
"""Joins tried while building a chain (each a union-find closure and a level check)."""


def congruence_chain(delta: np.ndarray, valid: Callable[[Partition, Partition], bool], *,
                     max_steps: int = 4_000_000) -> list[Partition] | None:
    """π_1 ≥ … ≥ π_m = identity (the universal π_0 left out) whose every level passes
    ``valid(coarse, fine)``, or None (no such chain found within the budgets).

    Built from the bottom, depth first: starting at the identity, the current
    partition is joined with principal congruences θ(p, q), finest first; a join
    whose level is valid is climbed from, and a dead end goes back one step.  The
    chain ends with the universal relation once that level is valid (at once
    when it is binary).  Every congruence is a join of principal ones, and
    finest first keeps the levels small; :data:`MAX_JOINS` bounds the search.
    """
    found = principal_congruences(delta, max_steps=max_steps)
    if found is None:
        return None
    rows, principal = found
    n = int(delta.shape[1])
    order = sorted(principal.items(), key=lambda kv: (-max(kv[0]), kv[0]))
    universal: Partition = (0,) * n
    budget = [MAX_JOINS]

    def climb(current: Partition) -> list[Partition] | None:
        """A valid chain from ``current`` up to the universal relation (depth first)."""
        if valid(universal, current):
            if max(current) + 1 <= 2:  # a binary top level: no smaller one to look for
                return [current]
            fallback: list[Partition] | None = [current]
        else:
            fallback = None
        tried: set[Partition] = set()
        for _, pair in order:
            if current[pair[0]] == current[pair[1]]:
                continue
            budget[0] -= 1
            if budget[0] < 0:
                return fallback
            joined = join_principal(rows, current, pair, max_steps=max_steps)
            if joined is None or max(joined) == 0 or joined in tried:
                continue
            tried.add(joined)
            if valid(joined, current):
                rest = climb(joined)
                if rest is not None:
                    return [current, *rest]
        return fallback

    upward = climb(tuple(range(n)))
    return None if upward is None else upward[::-1]


def chain_spec(automaton: Automaton, *, scalar: bool) -> CascadeSpec | None:
    """The chain cascade of the (minimal) ``automaton``, or None when some level's
    letter maps are neither injective nor constant (for ``scalar``: when the
    identity on positions cannot be arranged), or the congruences are beyond
    their budget."""
    n = automaton.n_states
    if automaton.initial is None or n < 2:
        return None
    delta = np.asarray(automaton.delta, dtype=np.int64)
    chain = congruence_chain(delta, lambda coarse, fine: _numbering(
        delta, coarse, fine, scalar=scalar) is not None)
    if chain is None or len(chain) < 2:  # the identity alone: one level holding the whole state
        return None
    coarse: Partition = (0,) * n
    positions: list[dict[int, int]] = []  # per level: fine class -> position
    sizes: list[int] = []
    tables: list[dict[tuple[int, int], tuple[str, object]]] = []  # (σ, coarse class) -> act
    for fine in chain:
        numbering = _numbering(delta, coarse, fine, scalar=scalar)
        if numbering is None:
            return None
        pos, size = numbering
        acts: dict[tuple[int, int], tuple[str, object]] = {}
        for sym, row in enumerate(delta):
            for c, members in _members(coarse).items():
                image = {pos[fine[q]]: pos[fine[int(row[q])]] for q in members}
                targets = set(image.values())
                if len(targets) == 1:  # also one subclass: a reset needs no numbering
                    acts[(sym, c)] = ("const", targets.pop())
                else:
                    acts[(sym, c)] = ("perm", _extend(image, size))
        positions.append(pos)
        sizes.append(size)
        tables.append(acts)
        coarse = fine
    classes = [(0,) * n, *chain[:-1]]  # the partition each level's prefix decodes
    by_code: dict[tuple[int, ...], int] = {}
    for q in range(n):
        by_code[tuple(positions[lv][chain[lv][q]] for lv in range(len(chain)))] = q
    # The class named by a prefix: any state with that prefix (they share the class).
    prefix_class: list[dict[tuple[int, ...], int]] = [{} for _ in chain]
    for code, q in by_code.items():
        for lv in range(len(chain)):
            prefix_class[lv].setdefault(code[:lv], classes[lv][q])
    initial = next(code for code, q in by_code.items() if q == automaton.initial)

    def action(level: int, symbol: int, above: tuple[int, ...]) -> tuple[str, object]:
        c = prefix_class[level].get(tuple(above))
        if c is None:  # never reached from the initial code: anything total will do
            return ("perm", tuple(range(sizes[level])))
        return tables[level][(symbol, c)]

    return CascadeSpec(sizes=tuple(sizes), initial=initial, action=action,
                       decode=lambda coords: by_code[tuple(coords)],
                       facts={"chain_levels": len(chain)})


def _members(partition: Sequence[int]) -> dict[int, list[int]]:
    out: dict[int, list[int]] = {}
    for q, c in enumerate(partition):
        out.setdefault(c, []).append(q)
    return out


def _extend(image: dict[int, int], size: int) -> tuple[int, ...]:
    """An injective partial map of positions, completed to a permutation of 0..size−1."""
    out = [-1] * size
    for src, dst in image.items():
        out[src] = dst
    free = iter(sorted(set(range(size)) - set(image.values())))
    return tuple(v if v >= 0 else next(free) for v in out)


def _numbering(delta: np.ndarray, coarse: Sequence[int], fine: Sequence[int], *,
               scalar: bool) -> tuple[dict[int, int], int] | None:
    """Positions of the fine classes inside their coarse class, and the level size; None
    when a letter's map on some coarse class is neither injective nor constant, or
    (``scalar``) when no numbering makes every injective map the identity."""
    n = len(coarse)
    parent = {f: f for f in set(fine)}

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    members_of = _members(coarse)
    for row in delta:
        for members in members_of.values():
            image = {fine[q]: fine[int(row[q])] for q in members}
            targets = set(image.values())
            if len(targets) == 1:
                continue  # a reset
            if len(targets) != len(image):
                return None  # merges some subclasses, keeps others apart
            if scalar:
                for src, dst in image.items():
                    parent[find(src)] = find(dst)
    groups: dict[int, list[int]] = {}
    for f in sorted(set(fine)):
        groups.setdefault(find(f) if scalar else f, []).append(f)
    class_of = {fine[q]: coarse[q] for q in range(n)}
    used: dict[int, set[int]] = {}
    pos: dict[int, int] = {}
    for members in groups.values():
        owners = [class_of[f] for f in members]
        if len(set(owners)) != len(owners):
            return None  # two subclasses of one class would need one position
        taken = set().union(*(used.get(c, set()) for c in owners))
        p = 0
        while p in taken:
            p += 1
        for f, c in zip(members, owners):
            pos[f] = p
            used.setdefault(c, set()).add(p)
    return pos, max(pos.values()) + 1
