"""Adapter: a holonomy decomposition seen as a :class:`CascadeSpec` (0-based levels).

:mod:`fsmnet.algebra.holonomy` numbers levels from 1 and returns
``LevelAction(kind, value)`` named tuples; the MinMax compiler wants 0-based
levels and ``(kind, value)`` pairs.  Nothing else is translated.
"""

from __future__ import annotations

from fsmnet.automata import Automaton
from fsmnet.constructions.minmax_cascade import CascadeSpec


def holonomy_spec(automaton: Automaton) -> CascadeSpec:
    """The holonomy cascade of ``automaton``'s semiautomaton, started at encode(q0)."""
    from fsmnet.algebra.holonomy import decompose
    from fsmnet.algebra.holonomy.chains import count_chains

    assert automaton.initial is not None
    hol = decompose(automaton)
    sizes = tuple(int(level.n_points) for level in hol.levels)

    def action(level: int, symbol: int, above: tuple[int, ...]) -> tuple[str, object]:
        act = hol.level_action(level + 1, symbol, above)
        return str(act.kind), act.value

    walker = hol.walker

    def lift(symbol: int, coords: tuple[int, ...]) -> list[tuple[str, object]]:
        # One walk down the chain gives every level (LevelAction is a (kind, value) tuple).
        return walker.actions(symbol, coords)  # type: ignore[return-value]

    def decode(coords: tuple[int, ...]) -> int:
        return int(hol.decode(coords))

    components = [[{"points": int(c.n_tiles),
                    "group_order": None if c.group is None else int(c.group.order())}
                   for c in level.components] for level in hol.levels]
    return CascadeSpec(sizes=sizes, initial=tuple(int(c) for c in hol.encode(automaton.initial)),
                       action=action, decode=decode, facts={"holonomy_components": components,
                              "tile_chains": count_chains(hol)},
                       lift=lift)
