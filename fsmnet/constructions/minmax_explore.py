"""The reachable part of a coordinate cascade × automaton, and its prefix tables.

:func:`explore` runs a breadth-first search of (coordinate tuple, automaton
state) pairs from (encode(q0), q0) and records, per level, the action of every
letter on every *reached prefix*.  Prefixes are numbered as they are first
reached (a trie: the prefix of length j+1 is a child of the prefix of length j
through coordinate j), so a table entry is keyed by a small integer, not by a
tuple of up to L coordinates: for 200-level cascades building and hashing
those tuples cost O(L²) per reached state.

:func:`prefix_codes` turns the trie into the network's table rows: mixed-radix
codes when every dense table fits (file format 1), else the trie's own
numbers chained by prefix links (file format 2, :mod:`fsmnet.nets.minmax_cascade`).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from fsmnet.algebra.holonomy.skeleton import DecompositionTooLarge
from fsmnet.automata import Automaton
from fsmnet.constructions.minmax_limits import LIMITS
from fsmnet.errors import FsmnetError, NotExpressible
from fsmnet.nets.minmax_cascade import MAX_TABLE

Action = tuple[str, Any]
"""``("perm", permutation of 0..k-1)``, ``("const", point)``, or ``("map", any map of
0..k-1 into itself)``: a matrix unit carries any map f by R[f(p), p] = 1, which a
one-unit cascade over the states uses (:mod:`fsmnet.constructions.minmax_dense_unit`)."""

__all__ = ["Action", "CascadeTooLarge", "Tabulated", "explore", "prefix_codes"]

MAX_STEPS = LIMITS.max_steps
"""The default exploration budget (:attr:`MinMaxLimits.max_steps
<fsmnet.constructions.minmax_limits.MinMaxLimits.max_steps>`), under its old name."""


class CascadeTooLarge(DecompositionTooLarge):
    """The cascade reaches more coordinate tuples than the construction's budget: a
    size limit of the construction (so "unknown" for expressivity), not a theorem."""


@dataclass(frozen=True)
class Tabulated:
    """What :func:`explore` found.

    Attributes
    ----------
    actions
        Per level: ``(symbol, prefix id) -> action``, the prefix being the
        coordinates of the levels above.
    parents, coords
        Per prefix length j+1: the id of each prefix's parent (length j) and
        its last coordinate; the empty prefix is id 0 of length 0.
    reached
        The full prefix id of every reached coordinate tuple, in BFS order.
    outputs
        The automaton output id that each full prefix decodes to.
    """

    actions: list[dict[tuple[int, int], Action]]
    parents: list[list[int]]
    coords: list[list[int]]
    reached: list[int]
    outputs: dict[int, int]
    moves: dict[tuple[int, int], int] | None = None
    """With ``record_moves``: (full prefix id, symbol) -> the full prefix id the lifted
    step reaches (the cascade's own transition function on its reached tuples)."""
    states: dict[int, int] | None = None
    """With ``record_moves``: full prefix id -> the automaton state it decodes to."""

    @property
    def rows(self) -> list[int]:
        """How many reached prefixes there are of each length 0..L."""
        return [1] + [len(p) for p in self.parents]


def explore(sizes: Sequence[int], initial: tuple[int, ...],
            lift: Callable[[int, tuple[int, ...]], Sequence[Action]],
            decode: Callable[[tuple[int, ...]], int], automaton: Automaton, *,
            max_steps: int | None = None, record_moves: bool = False) -> Tabulated:
    """BFS of (coordinates, automaton state) pairs from (initial, q0).

    ``lift(symbol, coords)`` gives the action of ``symbol`` at every level
    (each a function of the levels above only); ``max_steps`` (default
    :data:`MAX_STEPS`) bounds the lifted steps, reached pairs × letters, scaled
    down past ``LIMITS.work_levels`` levels.
    ``record_moves`` also keeps the lifted transitions and decoded states
    (:attr:`Tabulated.moves`, :attr:`Tabulated.states`).

    Raises
    ------
    FsmnetError
        If a reached tuple decodes to a state whose output differs from the
        automaton's: the decomposition would then be wrong.
    CascadeTooLarge
        Beyond :data:`MAX_STEPS` lifted steps.
    """
    assert automaton.initial is not None
    budget = MAX_STEPS if max_steps is None else max_steps
    n_levels = len(sizes)
    # A lifted step costs one action per level: past work_levels levels the step
    # budget shrinks in proportion, so that a refusal comes as fast at 200 levels
    # as at 20.
    work = LIMITS.work_levels
    steps = budget if n_levels <= work else budget * work // n_levels
    n_sym = automaton.n_symbols
    labels = automaton.output_ids
    delta = [[int(x) for x in row] for row in automaton.delta]
    actions: list[dict[tuple[int, int], Action]] = [{} for _ in range(n_levels)]
    children: list[dict[tuple[int, int], int]] = [{} for _ in range(n_levels)]
    parents: list[list[int]] = [[] for _ in range(n_levels)]
    coords_of: list[list[int]] = [[] for _ in range(n_levels)]
    path_of: dict[tuple[int, ...], list[int]] = {}
    outputs: dict[int, int] = {}
    reached: list[int] = []
    pending: list[tuple[int, int, tuple[int, ...]]] = []  # (full id, symbol, new coords)
    decoded: dict[int, int] = {}
    start = (tuple(initial), automaton.initial)
    seen = {start}
    queue = deque([start])
    while queue:
        coords, q = queue.popleft()
        path = path_of.get(coords)
        if path is None:  # the trie path of the prefixes: ids of lengths 0..L
            path = [0]
            for lv, c in enumerate(coords):
                key = (path[-1], c)
                node = children[lv].get(key)
                if node is None:
                    node = children[lv][key] = len(parents[lv])
                    parents[lv].append(path[-1])
                    coords_of[lv].append(c)
                path.append(node)
            path_of[coords] = path
            state = decode(coords)
            outputs[path[-1]] = int(labels[state])
            decoded[path[-1]] = int(state)
        if outputs[path[-1]] != labels[q]:
            raise FsmnetError(f"cascade coordinates {coords} decode to state "
                              f"{decode(coords)} but the automaton is in {q} with "
                              f"another output: the decomposition is inconsistent")
        reached.append(path[-1])
        for sym in range(n_sym):
            # Tuples that share all but their last coordinate share every action:
            # read them back rather than walk the chain again.
            acts: Sequence[Action]
            if n_levels and (sym, path[n_levels - 1]) in actions[n_levels - 1]:
                acts = [actions[lv][(sym, path[lv])] for lv in range(n_levels)]
            else:
                acts = lift(sym, coords)
                # Record the actions on new (symbol, prefix) keys, deepest first: a
                # key already there means every shorter prefix's key is there too.
                for lv in range(n_levels - 1, -1, -1):
                    key = (sym, path[lv])
                    if key in actions[lv]:
                        break
                    actions[lv][key] = acts[lv]
            new = [int(arg) if kind == "const" else int(arg[c])
                   for (kind, arg), c in zip(acts, coords)]
            pair = (tuple(new), delta[sym][q])
            if record_moves:
                pending.append((path[-1], sym, pair[0]))
            if pair not in seen:
                if len(seen) * n_sym > steps:
                    scaled = (f" ({steps:,} at {n_levels} levels)" if steps < budget
                              else "")
                    raise CascadeTooLarge(
                        f"the holonomy cascade of this {automaton.n_states}-state automaton "
                        f"reaches more than {steps // n_sym:,} (coordinates, state) pairs "
                        f"(one per tile chain in use) with {n_sym} letters, beyond the "
                        f"construction's budget of {budget:,} steps{scaled} (option "
                        f"max_steps); it stops here")
                seen.add(pair)
                queue.append(pair)
    moves = None
    if record_moves:  # every target was reached, so its trie path is known by now
        moves = {(src, sym): path_of[new][-1] for src, sym, new in pending}
    return Tabulated(actions=actions, parents=parents, coords=coords_of, reached=reached,
                     outputs=outputs, moves=moves, states=decoded if record_moves else None)


def prefix_codes(sizes: Sequence[int], tab: Tabulated, n_sym: int,
                 prefix_index: bool | None) -> tuple[list[list[int]], list[int], list[np.ndarray]]:
    """Per prefix length j: the table row of every prefix id; the table rows per
    length; and the prefix links (empty: mixed radix).

    By default mixed-radix codes are kept when every dense table fits and the
    dense tables are at most 4 times the linked ones (or 65,536 entries):
    format 1, which every consumer reads.  Otherwise, or with ``prefix_index``
    True, the trie's ids are the rows and the links chain them (format 2),
    unreached entries sent to 0.
    """
    n = len(sizes)
    dense = [int(np.prod(sizes[:lv], dtype=np.float64)) for lv in range(n + 1)]
    fits = dense[n] <= MAX_TABLE and all(d * n_sym * k * k <= MAX_TABLE
                                         for d, k in zip(dense, sizes))
    if prefix_index is False and not fits:
        raise NotExpressible(f"mixed-radix cascade tables would be too large "
                             f"(levels of {list(sizes)} points)")
    # By default mixed radix only where it is not much larger than the linked
    # layout: dense tables of a 130-state reset cascade held 28 million entries
    # for 16,000 reached codes, and the proof's certificate carried them all.
    rows = tab.rows
    dense_size = sum(d * n_sym for d in dense[:n]) + dense[n]
    linked_size = sum(r * (n_sym + int(k)) for r, k in zip(rows, sizes)) + rows[n]
    compact = dense_size <= max(1 << 16, 4 * linked_size)
    if prefix_index is False or (prefix_index is None and fits and compact):
        codes: list[list[int]] = [[0]]
        for j in range(n):
            above = codes[-1]
            codes.append([above[p] * int(sizes[j]) + c
                          for p, c in zip(tab.parents[j], tab.coords[j])])
        return codes, dense, []
    links = []
    for j in range(n):
        link = np.zeros((tab.rows[j], int(sizes[j])), dtype=np.int64)
        link[np.array(tab.parents[j], dtype=np.int64),
             np.array(tab.coords[j], dtype=np.int64)] = np.arange(len(tab.parents[j]))
        links.append(link)
    return [list(range(r)) for r in tab.rows], tab.rows, links
