"""Tile chains and level actions, memoized per set: the hot path of cascade compilers.

A coordinate tuple encodes a tile chain ``X = P_0 ⊃ P_1 ⊃ ... ⊃ {x}``; the
action of a letter at level ``d`` is read off three chains: the encoded one,
its image under the letter, and the *completed* image chain (docs/holonomy.md,
"What it computes").  Every step of those chains is a function of one or two
sets of the skeleton only:

* the chain's next set after ``P`` with coordinate ``c`` (the tile ``c`` of
  ``P``'s representative carried by ``FromRep(P)``);
* the image ``P·s`` (the skeleton's successor table: no set arithmetic);
* the first tile of ``P`` containing a set ``Q`` (completion);
* the coordinate of a chain step ``P ⊃ T`` (``T`` carried back by ``ToRep(P)``);
* the permutation of a slot (the identity, without computing it, when the
  holonomy group is trivial: the permutation is then one of the generators
  of that trivial group).

:class:`ChainWalker` caches each of these, so a level action costs a few
dictionary look-ups per level instead of set images of every chain member
under full transformations (too slow for 200-level cascades), and
:meth:`ChainWalker.actions` returns the actions of *all* levels from one
walk down the chain, where asking level by level walks it once per level.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from fsmnet.algebra.holonomy.skeleton import image_mask
from fsmnet.errors import SpecError

if TYPE_CHECKING:
    from fsmnet.algebra.holonomy.cascade import Holonomy, LevelAction

__all__ = ["ChainWalker", "count_chains"]


class ChainWalker:
    """Memoized chain steps of one decomposition (built once per :class:`Holonomy`)."""

    def __init__(self, hol: Holonomy) -> None:
        from fsmnet.algebra.holonomy.cascade import LevelAction

        self._action = LevelAction
        self.hol = hol
        sk = hol.skeleton
        self.sk = sk
        n_sets = len(sk.sets)
        self.depth = [sk.class_depth[c] for c in sk.class_of]
        self.rep = [sk.representatives[c] for c in sk.class_of]
        self.n_levels = len(hol.levels)
        # Per representative: (level index, offset, n_tiles, trivial group).
        self.slot: dict[int, tuple[int, int, int, bool]] = {}
        for rep, (lvl, k) in hol._slot.items():
            comp = hol.levels[lvl].components[k]
            self.slot[rep] = (lvl, comp.offset, comp.n_tiles, comp.group is None)
        self._n_sets = n_sets
        self._child: dict[tuple[int, int], int] = {}
        self._coord: dict[tuple[int, int], int] = {}
        self._first: dict[tuple[int, int], int] = {}
        self._perm: dict[tuple[int, int, int], LevelAction] = {}
        self._const: dict[tuple[int, int], LevelAction] = {}
        self._identity: dict[int, LevelAction] = {}
        self._cache_rows: list[list[LevelAction]] | None = None

    # ------------------------------------------------------------ steps
    def child(self, p: int, c: int) -> int:
        """The chain's set after ``P`` (set ``p``) when its level holds point ``c``."""
        key = (p, c)
        hit = self._child.get(key)
        if hit is None:
            sk = self.sk
            rep = self.rep[p]
            _, offset, n_tiles, _ = self.slot[rep]
            if isinstance(c, bool) or not isinstance(c, int) or not 0 <= c - offset < n_tiles:
                raise SpecError(f"coordinate must be a point of the component "
                                f"({offset}..{offset + n_tiles - 1})", source="<holonomy>",
                                field=f"coords[{self.depth[p] - 1}]", value=c)
            tile = sk.sets[sk.tiles[rep][c - offset]]
            hit = self._child[key] = sk.index(image_mask(tile, self.hol.navigation.from_maps[p]))
        return hit

    def image(self, p: int, s: int) -> int:
        """The number of ``P·s``: the successor table, or a singleton's image."""
        sk = self.sk
        if p < sk.n_orbit:
            return sk.successors[p][s]
        x = sk.sets[p].bit_length() - 1  # a singleton outside the orbit
        return sk.index(1 << sk.generators[s][x])

    def first_tile(self, p: int, q: int) -> int:
        """The first tile of set ``p`` (canonical order) containing set ``q``."""
        key = (p, q)
        hit = self._first.get(key)
        if hit is None:
            hit = self._first[key] = self.sk.first_tile_containing(p, self.sk.sets[q])
        return hit

    def coordinate(self, p: int, tile: int) -> int:
        """The level point of the chain step ``P ⊃ tile`` (at level depth(P))."""
        key = (p, tile)
        hit = self._coord.get(key)
        if hit is None:
            sk = self.sk
            rep = self.rep[p]
            _, offset, _, _ = self.slot[rep]
            mask = image_mask(sk.sets[tile], self.hol.navigation.to_maps[p])
            hit = self._coord[key] = offset + self.hol._tile_pos[rep][mask]
        return hit

    def const(self, d: int, v: int) -> LevelAction:
        key = (d, v)
        hit = self._const.get(key)
        if hit is None:
            hit = self._const[key] = self._action("const", v)
        return hit

    def permutation(self, d: int, p: int, s: int, q: int) -> LevelAction:
        """The slot permutation of ``s`` carrying ``p`` onto the equivalent ``q``."""
        lvl, _, _, trivial = self.slot[self.rep[p]]
        if trivial:  # FromRep(p)·s·ToRep(q) generates H(R), which is trivial
            hit = self._identity.get(d)
            if hit is None:
                n = self.hol.levels[lvl].n_points
                hit = self._identity[d] = self._action("perm", tuple(range(n)))
            return hit
        key = (p, s, q)
        got = self._perm.get(key)
        if got is None:
            got = self._perm[key] = self._action(
                "perm", self.hol._slot_permutation(d, p, self.sk.generators[s], q))
        return got

    # ------------------------------------------------------------ chains
    def chain(self, coords: Sequence[int], depth: int | None = None) -> list[int]:
        """The chain that ``coords`` encode, down to its first set of depth >= ``depth``
        (the singleton when ``depth`` is None)."""
        dep = self.depth
        stop = self.sk.max_depth if depth is None else depth
        cur = 0
        out = [0]
        while dep[cur] < stop:
            cur = self.child(cur, coords[dep[cur] - 1])
            out.append(cur)
        return out

    def complete(self, images: Sequence[int]) -> list[int]:
        """A tile chain from X through every set of a decreasing list (a dominating
        chain): between consecutive sets it always takes the first tile containing
        the next set, so each step depends only on the two sets; that is what makes
        the action at a level a function of the levels above."""
        cur = 0
        out = [0]
        for q in images:
            while cur != q:
                cur = self.first_tile(cur, q)
                out.append(cur)
        return out

    def level_action(self, d: int, s: int, above: Sequence[int]) -> LevelAction:
        """The action of letter ``s`` at level ``d`` given the coordinates above."""
        chain = self.chain(above, d)
        images = [self.image(c, s) for c in chain]
        last = chain[-1]
        sk = self.sk
        if self.depth[last] == d and sk.class_of[images[-1]] == sk.class_of[last]:
            return self.permutation(d, last, s, images[-1])
        done = self.complete(images)
        for p, nxt in zip(done, done[1:], strict=False):
            if self.depth[p] == d:
                return self.const(d, self.coordinate(p, nxt))
        return self.const(d, 0)

    def actions(self, s: int, coords: Sequence[int]) -> list[LevelAction]:
        """The actions of letter ``s`` at every level on a full coordinate tuple.

        Equal to ``[level_action(d, s, coords[:d-1]) for d in 1..L]``: the chain
        down to depth d is a prefix of the whole chain, and so is its completed
        image (depths grow strictly along a chain, and in a reset at level d
        the image of the cut set lies deeper than d).
        """
        chain = self.chain(coords)
        images = [self.image(c, s) for c in chain]
        done = self.complete(images)
        dep = self.depth
        coordinate = self.coordinate
        reset_at = {dep[p]: coordinate(p, nxt) for p, nxt in zip(done, done[1:], strict=False)}
        class_of = self.sk.class_of
        consts = self._const_rows()
        out = []
        m = 0
        for d in range(1, self.n_levels + 1):
            while dep[chain[m]] < d:
                m += 1
            last = chain[m]
            if dep[last] == d and class_of[images[m]] == class_of[last]:
                out.append(self.permutation(d, last, s, images[m]))
            else:
                out.append(consts[d - 1][reset_at.get(d, 0)])
        return out

    def _const_rows(self) -> list[list[LevelAction]]:
        """``rows[d-1][v]``: the reset to point v at level d, made once."""
        rows = self._cache_rows
        if rows is None:
            rows = self._cache_rows = [[self.const(lv.level, v) for v in range(lv.n_points)]
                                       for lv in self.hol.levels]
        return rows

    def lift(self, s: int, coords: Sequence[int]) -> tuple[int, ...]:
        """The image of a coordinate tuple under letter ``s``."""
        return tuple(act.apply(c) for act, c in zip(self.actions(s, coords), coords))


def count_chains(hol: Holonomy) -> int:
    """The number of tile chains from X down to a singleton: the number of valid
    codes of all states together (``sum(len(hol.all_codes(x)))``), by dynamic
    programming over the tiles instead of listing them.  A cascade started on
    a valid code reaches at most this many coordinate tuples."""
    sk = hol.skeleton
    count: dict[int, int] = {}
    for i in sorted(range(len(sk.sets)), key=lambda j: sk.sets[j].bit_count()):
        count[i] = 1 if sk.sets[i].bit_count() <= 1 else sum(count[t] for t in sk.tiles[i])
    return count[0]
