"""Krohn-Rhodes holonomy decomposition of a finite semiautomaton.

:func:`decompose` turns a semiautomaton (an :class:`~fsmnet.automata.Automaton`,
whose outputs are ignored, or a list of transformations) into a
:class:`Holonomy` cascade of permutation-reset levels, following Egri-Nagy &
Nehaniv, *Computational holonomy decomposition of transformation semigroups*
(arXiv 1508.06345), as implemented in the GAP package SgpDec.

Examples
--------
>>> from fsmnet.algebra.holonomy import decompose, check_action
>>> h = decompose([[1, 2, 0], [1, 0, 2], [0, 0, 2]])      # T_3
>>> [[(c.n_tiles, c.group.order()) for c in lv.components] for lv in h.levels]
[[(3, 6)], [(2, 2)]]
>>> h.decode(h.lift(0).apply(h.encode(2))) == 0            # 2·(012) = 0
True
>>> check_action(h).passed
True
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from fsmnet.algebra.holonomy.cascade import (
    DUMMY,
    CascadeTransformation,
    Component,
    Holonomy,
    Level,
    LevelAction,
)
from fsmnet.algebra.holonomy.checks import (
    CheckResult,
    check_action,
    check_emulation,
    check_groups_divide,
)
from fsmnet.algebra.holonomy.navigation import Navigation, build_navigation
from fsmnet.algebra.holonomy.result import (
    ComponentSummary,
    DecomposeResult,
    GroupSummary,
    LevelSummary,
    format_levels,
    summarize,
)
from fsmnet.algebra.holonomy.skeleton import Skeleton, build_skeleton
from fsmnet.algebra.holonomy.tile_groups import holonomy_group
from fsmnet.errors import SpecError

__all__ = [
    "DUMMY",
    "CascadeTransformation",
    "CheckResult",
    "Component",
    "ComponentSummary",
    "DecomposeResult",
    "GroupSummary",
    "Holonomy",
    "Level",
    "LevelAction",
    "LevelSummary",
    "Navigation",
    "Skeleton",
    "build_navigation",
    "build_skeleton",
    "check_action",
    "check_emulation",
    "check_groups_divide",
    "decompose",
    "format_levels",
    "summarize",
]


def _generators(source: Any) -> tuple[int, list[list[int]], tuple[str, ...]]:
    from fsmnet.automata.automaton import Automaton

    if isinstance(source, Automaton):
        return source.n_states, [list(map(int, row)) for row in source.delta], source.symbols
    if isinstance(source, (str, bytes)) or not isinstance(source, Sequence) or not source:
        raise SpecError("expected an Automaton or a non-empty list of transformations",
                        source="<holonomy>", field="generators", value=type(source).__name__)
    gens = [list(t) if isinstance(t, Sequence) else t for t in source]
    first = gens[0]
    if not isinstance(first, list):
        raise SpecError("a transformation is a list of ints", source="<holonomy>",
                        field="generators[0]", value=first)
    return len(first), gens, tuple(f"g{i}" for i in range(len(gens)))


def decompose(source: Any, *, symbols: Sequence[str] | None = None) -> Holonomy:
    """The holonomy decomposition of a semiautomaton.

    Parameters
    ----------
    source
        An :class:`~fsmnet.automata.Automaton` (its transition table is used;
        initial state and outputs are ignored) or a non-empty list of
        transformations of ``{0..n-1}`` given as image lists (``t[x] = x·t``).
    symbols
        Names for the letters; defaults to the automaton's symbols or
        ``g0, g1, ...``.

    Returns
    -------
    Holonomy
        The cascade; see :mod:`fsmnet.algebra.holonomy.cascade`.

    Raises
    ------
    SpecError
        If the input is not a valid semiautomaton.
    """
    n, gens, names = _generators(source)
    if symbols is not None:
        names = tuple(symbols)
        if len(names) != len(gens) or len(set(names)) != len(names):
            raise SpecError("need one distinct name per letter", source="<holonomy>",
                            field="symbols", value=list(names))
    sk = build_skeleton(n, gens)
    nav = build_navigation(sk)
    n_levels = sk.max_depth - 1
    levels = []
    slot: dict[int, tuple[int, int]] = {}
    tile_pos: dict[int, dict[int, int]] = {}
    for d in range(1, n_levels + 1):
        comps = []
        offset = 0
        reps = sorted(r for c, r in enumerate(sk.representatives)
                      if sk.class_depth[c] == d and sk.size(r) > 1)
        for r in reps:
            tiles = sk.tiles[r]
            comps.append(Component(representative=sk.as_set(r),
                                   tiles=tuple(sk.as_set(t) for t in tiles),
                                   group=holonomy_group(sk, nav, r), offset=offset))
            slot[r] = (d - 1, len(comps) - 1)
            tile_pos[r] = {sk.sets[t]: i for i, t in enumerate(tiles)}
            offset += len(tiles)
        levels.append(Level(level=d, components=tuple(comps), n_points=offset))
    return Holonomy(skeleton=sk, navigation=nav, levels=tuple(levels), symbols=names,
                    _slot=slot, _tile_pos=tile_pos)
