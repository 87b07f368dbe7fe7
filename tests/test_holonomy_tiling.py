"""Tiles from the vectorized search, against their definition by brute force:
the maximal proper subsets of P within the family, larger first."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples

from fsmnet.algebra.holonomy.skeleton import _tile_key
from fsmnet.algebra.holonomy.tiling import tiles


def brute_force(sets: list[int]) -> list[tuple[int, ...]]:
    out = []
    for p in sets:
        if bin(p).count("1") <= 1:
            out.append(())
            continue
        inside = [i for i, c in enumerate(sets) if c != p and c & p == c]
        maximal = [i for i in inside
                   if not any(sets[j] != sets[i] and sets[i] & sets[j] == sets[i]
                              for j in inside)]
        out.append(tuple(sorted(maximal, key=lambda i: _tile_key(sets[i]))))
    return out


@settings(max_examples=examples(150))
@given(st.integers(1, 140).flatmap(
    lambda n: st.sets(st.integers(1, (1 << n) - 1), min_size=1, max_size=40)))
def test_tiles_are_the_maximal_proper_subsets(family):
    """Points up to 140, so masks of one, two and three 64-bit words."""
    sets = sorted(family)
    assert tiles(sets, _tile_key) == brute_force(sets)


def test_nested_chain_and_antichain():
    chain = [0b1111, 0b0111, 0b0011, 0b0001]
    assert tiles(chain, _tile_key) == [(1,), (2,), (3,), ()]
    antichain = [0b111, 0b001, 0b010, 0b100]
    assert tiles(antichain, _tile_key) == [(1, 2, 3), (), (), ()]
