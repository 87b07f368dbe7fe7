"""The holonomy cascade: levels, components, coordinates and lifted letters.

Level ``d`` (1 = top) is the disjoint union of the tile sets of the
representatives at depth ``d``; each representative's tiles form one
:class:`Component` (a "slot"), numbered from the component's ``offset``.  A
state is a tuple of one point per level (docs/holonomy.md, "What it computes").

The action of a letter at level ``d`` is a function of the letter and of the
coordinates of levels ``1..d-1`` only, read *before* the update: this is
:meth:`Holonomy.level_action`, and it is all a cascade compiler needs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

from sympy.combinatorics import PermutationGroup

from fsmnet.algebra.holonomy.chains import ChainWalker
from fsmnet.algebra.holonomy.navigation import Navigation
from fsmnet.algebra.holonomy.skeleton import Skeleton, Transformation, image_mask
from fsmnet.errors import SpecError

__all__ = ["DUMMY", "CascadeTransformation", "Component", "Holonomy", "Level", "LevelAction"]

DUMMY = 0
"""The coordinate of a level that a chain skips (its depth jumps past the level)."""


class LevelAction(NamedTuple):
    """What one letter does at one level, given the coordinates above.

    ``("perm", p)``: the permutation ``p`` of the level's points (a tuple,
    ``p[i]`` is the image of point ``i``; it moves only one component's points).
    ``("const", v)``: the constant map to point ``v`` (a reset).
    """

    kind: str
    value: tuple[int, ...] | int

    def apply(self, point: int) -> int:
        """The image of a point of the level."""
        if self.kind == "perm":
            return self.value[point]  # type: ignore[index]
        return self.value  # type: ignore[return-value]


@dataclass(frozen=True)
class Component:
    """One representative's slot in a level: its tiles and holonomy group.

    Attributes
    ----------
    representative
        The representative set ``R``.
    tiles
        The tiles of ``R``; tile ``i`` is the level's point ``offset + i``.
    group
        ``H(R)`` acting on ``0..len(tiles)-1``, or ``None`` when it is trivial
        (an identity-reset component).
    offset
        The level point of tile 0.
    """

    representative: frozenset[int]
    tiles: tuple[frozenset[int], ...]
    group: PermutationGroup | None
    offset: int

    @property
    def n_tiles(self) -> int:
        return len(self.tiles)

    @property
    def points(self) -> range:
        """The level points of this component."""
        return range(self.offset, self.offset + len(self.tiles))

    @property
    def is_reset(self) -> bool:
        """True when the holonomy group is trivial (only identity and resets act here)."""
        return self.group is None


@dataclass(frozen=True)
class Level:
    """Level ``level`` (1 = top) of the cascade: components placed side by side."""

    level: int
    components: tuple[Component, ...]
    n_points: int

    def component_of_point(self, point: int) -> int:
        """Index of the component holding a level point."""
        for k, comp in enumerate(self.components):
            if point in comp.points:
                return k
        raise ValueError(f"no point {point} at level {self.level}")


@dataclass(frozen=True, eq=False)
class Holonomy:
    """A holonomy decomposition of a semiautomaton (built by :func:`decompose`).

    Attributes
    ----------
    skeleton, navigation
        The underlying skeleton and navigation words.
    levels
        The levels, top first.
    symbols
        Names of the letters, in generator order.
    """

    skeleton: Skeleton
    navigation: Navigation
    levels: tuple[Level, ...]
    symbols: tuple[str, ...]
    _slot: dict[int, tuple[int, int]] = field(repr=False)  # rep set -> (level index, comp)
    _tile_pos: dict[int, dict[int, int]] = field(repr=False)  # rep set -> tile mask -> i
    _cache: dict = field(default_factory=dict, repr=False)

    # -------------------------------------------------------------- basics
    @property
    def n_states(self) -> int:
        return self.skeleton.n_states

    @property
    def n_levels(self) -> int:
        return len(self.levels)

    @property
    def generators(self) -> tuple[Transformation, ...]:
        return self.skeleton.generators

    def symbol_index(self, symbol: int | str) -> int:
        """Index of a letter given by name or index."""
        if isinstance(symbol, str) and symbol in self.symbols:
            return self.symbols.index(symbol)
        if isinstance(symbol, int) and not isinstance(symbol, bool) \
                and 0 <= symbol < len(self.symbols):
            return symbol
        raise SpecError("unknown letter", source="<holonomy>", field="symbol", value=symbol)

    def __repr__(self) -> str:
        # Short on purpose: the dataclass default printed every table (kilobytes).
        parts = []
        for lv in self.levels:
            comps = [f"{c.n_tiles}" + ("" if c.group is None else f"|{c.group.order()}")
                     for c in lv.components[:6]]
            more = f" +{len(lv.components) - 6}" if len(lv.components) > 6 else ""
            parts.append(f"{lv.level}:[{' '.join(comps)}{more}]")
        return (f"<Holonomy: {self.n_states} states, {len(self.symbols)} letters, "
                f"{self.n_levels} levels {' '.join(parts)} (tiles|group order)>")

    def _repr_svg_(self) -> str | None:
        """The cascade picture for Jupyter (None without Graphviz ``dot``)."""
        from fsmnet.algebra.holonomy.dot import holonomy_to_dot, n_nodes
        from fsmnet.automata.render import repr_svg

        return repr_svg(holonomy_to_dot(self), n_nodes(self))

    def _repr_html_(self) -> str:
        """A card for Jupyter: one row per level and the cascade picture."""
        from fsmnet.algebra.holonomy.dot import holonomy_to_dot, n_nodes
        from fsmnet.automata.render import repr_html

        rows = [(f"level {lv.level}", f"{lv.n_points} points, " + ", ".join(
            f"{c.n_tiles} tiles/" + ("reset" if c.group is None else f"order {c.group.order()}")
            for c in lv.components)) for lv in self.levels]
        return repr_html(repr(self), rows, holonomy_to_dot(self), n_nodes(self))

    def component(self, level: int, index: int) -> Component:
        """Component ``index`` of level ``level`` (1-based level)."""
        return self.levels[level - 1].components[index]

    # ------------------------------------------------------------- chains
    @property
    def walker(self) -> ChainWalker:
        """The memoized chain steps (:mod:`fsmnet.algebra.holonomy.chains`)."""
        hit = self._cache.get("walker")
        if hit is None:
            hit = self._cache["walker"] = ChainWalker(self)
        return hit  # type: ignore[no-any-return]

    def _coordinate(self, p: int, tile: int) -> int:
        """Level point of the chain step ``P ⊃ tile`` (at level depth(P))."""
        return self.walker.coordinate(p, tile)

    def _chain_prefix(self, coords: Sequence[int], depth: int) -> list[int]:
        """The chain that ``coords`` encode, down to its first set of depth ``>= depth``."""
        return self.walker.chain(coords, depth)

    def _codes_of_chain(self, chain: Sequence[int]) -> tuple[int, ...]:
        coords = [DUMMY] * self.n_levels
        for p, tile in zip(chain, chain[1:], strict=False):
            coords[self.skeleton.depth(p) - 1] = self._coordinate(p, tile)
        return tuple(coords)

    def _check_length(self, coords: Sequence[int]) -> None:
        if len(coords) != self.n_levels:
            raise SpecError(f"need one coordinate per level ({self.n_levels})",
                            source="<holonomy>", field="coords", value=list(coords))

    def _check_state(self, state: int) -> None:
        if isinstance(state, bool) or not isinstance(state, int) \
                or not 0 <= state < self.n_states:
            raise SpecError("state out of range", source="<holonomy>", field="state",
                            value=state)

    def encode(self, state: int) -> tuple[int, ...]:
        """The canonical coordinates of a state: at each step, the first tile containing it."""
        self._check_state(state)
        sk = self.skeleton
        chain = [0]
        while sk.size(chain[-1]) > 1:
            chain.append(sk.first_tile_containing(chain[-1], 1 << state))
        return self._codes_of_chain(chain)

    def decode(self, coords: Sequence[int]) -> int:
        """The state that a coordinate tuple encodes (skipped levels are ignored)."""
        self._check_length(coords)
        chain = self._chain_prefix(coords, self.skeleton.max_depth)
        return self.skeleton.sets[chain[-1]].bit_length() - 1

    def all_codes(self, state: int) -> list[tuple[int, ...]]:
        """Every valid coordinate tuple of a state: one per tile chain ``X ⊃ ... ⊃ {state}``."""
        self._check_state(state)
        sk = self.skeleton
        bit = 1 << state
        out: list[tuple[int, ...]] = []
        stack = [[0]]
        while stack:
            chain = stack.pop()
            last = chain[-1]
            if sk.size(last) == 1:
                out.append(self._codes_of_chain(chain))
                continue
            for t in reversed(sk.tiles[last]):
                if sk.sets[t] & bit:
                    stack.append(chain + [t])
        return out

    def is_valid(self, coords: Sequence[int]) -> bool:
        """Whether a tuple is a valid code (skipped levels hold :data:`DUMMY`)."""
        try:
            self._check_length(coords)
            chain = self._chain_prefix(coords, self.skeleton.max_depth)
        except SpecError:
            return False
        return tuple(coords) == self._codes_of_chain(chain)

    # ------------------------------------------------------------- lifting
    def level_action(self, level: int, symbol: int | str,
                     coords_above: Sequence[int]) -> LevelAction:
        """The action of a letter at ``level`` given the coordinates of the levels above.

        Parameters
        ----------
        level
            1-based level.
        symbol
            The letter (name or index).
        coords_above
            The coordinates of levels ``1..level-1`` (before the update).
        """
        if not 1 <= level <= self.n_levels:
            raise SpecError("no such level", source="<holonomy>", field="level", value=level)
        s = self.symbol_index(symbol)
        if len(coords_above) != level - 1:
            raise SpecError(f"need the {level - 1} coordinates above level {level}",
                            source="<holonomy>", field="coords_above", value=list(coords_above))
        key = (level, s, tuple(coords_above))
        hit = self._cache.get(key)
        if hit is None:
            hit = self._cache[key] = self.walker.level_action(level, s, key[2])
        return hit  # type: ignore[no-any-return]

    def level_actions(self, symbol: int | str, coords: Sequence[int]) -> list[LevelAction]:
        """The actions of a letter at every level on a full coordinate tuple, from one
        walk down its chain (``level_action`` for each level, at the cost of one)."""
        self._check_length(coords)
        return self.walker.actions(self.symbol_index(symbol), coords)

    def _slot_permutation(self, d: int, p: int, t: Transformation, q: int) -> tuple[int, ...]:
        sk = self.skeleton
        nav = self.navigation
        rep = sk.representative(p)
        _, k = self._slot[rep]
        level = self.levels[d - 1]
        offset = level.components[k].offset
        perm = list(range(level.n_points))
        pos = self._tile_pos[rep]
        for i, tile in enumerate(sk.tiles[rep]):
            mask = image_mask(image_mask(image_mask(sk.sets[tile], nav.from_maps[p]), t),
                              nav.to_maps[q])
            perm[offset + i] = offset + pos[mask]
        return tuple(perm)

    def lift(self, symbol: int | str) -> CascadeTransformation:
        """The cascade transformation of a letter."""
        return CascadeTransformation(holonomy=self, symbol=self.symbol_index(symbol))

    def dependency_table(self, level: int) -> dict[tuple[int, tuple[int, ...]], LevelAction]:
        """``(letter, coordinates above) -> action`` for every valid prefix of ``level``.

        The prefixes are those of all valid codes; the lifted letters map valid
        codes to valid codes, so a cascade started on a valid code never
        leaves this table.
        """
        prefixes = {code[: level - 1] for x in range(self.n_states) for code in self.all_codes(x)}
        return {(s, p): self.level_action(level, s, p)
                for s in range(len(self.symbols)) for p in sorted(prefixes)}


@dataclass(frozen=True, eq=False)
class CascadeTransformation:
    """A letter lifted to the cascade: one dependency function per level."""

    holonomy: Holonomy
    symbol: int

    def level_action(self, level: int, coords_above: Sequence[int]) -> LevelAction:
        """The action at ``level`` (1-based) given the coordinates above it."""
        return self.holonomy.level_action(level, self.symbol, coords_above)

    def apply(self, coords: Sequence[int]) -> tuple[int, ...]:
        """Update every level from the coordinates above it, read before the update."""
        self.holonomy._check_length(coords)
        old = tuple(coords)
        return tuple(self.level_action(d, old[: d - 1]).apply(old[d - 1])
                     for d in range(1, len(old) + 1))
