"""Adapter: a holonomy decomposition seen as a :class:`CascadeSpec` (0-based levels).

:mod:`fsmnet.algebra.holonomy` numbers levels from 1 and returns
``LevelAction(kind, value)`` named tuples; the MinMax compiler wants 0-based
levels and ``(kind, value)`` pairs.  Nothing else is translated, except that
the orbit of image sets can be counted first against a limit
(:class:`HolonomyTooLarge`), since the decomposition's tiles cost grows with
the square of that count.
"""

from __future__ import annotations

from fsmnet.algebra.holonomy.skeleton import DecompositionTooLarge
from fsmnet.automata import Automaton
from fsmnet.constructions.minmax_cascade import CascadeSpec

__all__ = ["HolonomyTooLarge", "count_image_sets", "holonomy_spec"]


class HolonomyTooLarge(DecompositionTooLarge):
    """The holonomy orbit has more image sets than the limit: refused before decomposing.

    ``states`` and ``image_sets`` are what was counted (``image_sets`` is the limit
    plus one: the count stops there), ``limit`` the limit's value.
    """

    def __init__(self, message: str, *, states: int, image_sets: int, limit: int) -> None:
        super().__init__(message)
        self.states = states
        self.image_sets = image_sets
        self.limit = limit


def count_image_sets(automaton: Automaton, limit: int) -> int | None:
    """The number of image sets of the state set under the letters (the holonomy orbit,
    full set included), or None when there are more than ``limit``."""
    from fsmnet.algebra.holonomy.orbit import orbit

    gens = [tuple(int(x) for x in row) for row in automaton.delta]
    try:
        return len(orbit(automaton.n_states, gens, limit)[0])
    except DecompositionTooLarge:
        return None


def holonomy_spec(automaton: Automaton, *, image_set_limit: int | None = None) -> CascadeSpec:
    """The holonomy cascade of ``automaton``'s semiautomaton, started at encode(q0).

    With ``image_set_limit``, the orbit is counted first and
    :class:`HolonomyTooLarge` raised past the limit, before the decomposition.
    """
    from fsmnet.algebra.holonomy import decompose
    from fsmnet.algebra.holonomy.chains import count_chains

    assert automaton.initial is not None
    if image_set_limit is not None and count_image_sets(automaton, image_set_limit) is None:
        n = automaton.n_states
        raise HolonomyTooLarge(
            f"the holonomy orbit of this {n}-state automaton has more than "
            f"{image_set_limit:,} image sets (limit image_sets = {image_set_limit:,}, "
            f"counted before the decomposition, whose tiles grow with the square of "
            f"that number); the plain holonomy cascade is not attempted",
            states=n, image_sets=image_set_limit + 1, limit=image_set_limit)
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
