"""Tests of the holonomy skeleton and navigation words against brute force."""

from __future__ import annotations

from functools import cache
from itertools import combinations

import pytest
from holonomy_oracles import brute_images, enumerate_semigroup, semiautomata
from hypothesis import given

from fsmnet.algebra.holonomy.navigation import build_navigation, word_transformation
from fsmnet.algebra.holonomy.skeleton import build_skeleton, members
from fsmnet.errors import SpecError


def _brute_subduction(n, gens):
    """A <= B iff A ⊆ B·s for some s in S^1 (definition, by enumeration)."""
    elems = list(enumerate_semigroup(n, gens)) + [tuple(range(n))]
    ext = brute_images(n, gens) | {frozenset([x]) for x in range(n)}

    def leq(a, b):
        return any(a <= frozenset(s[x] for x in b) for s in elems)

    return ext, leq


@given(semiautomata(max_states=5))
def test_skeleton_matches_brute_force(case):
    n, gens = case
    sk = build_skeleton(n, gens)
    ext, leq = _brute_subduction(n, gens)
    # Image set and extended image set (source: the definition, by enumerating S).
    assert set(sk.image_sets) == brute_images(n, gens)
    assert set(sk.extended_image_sets) == ext
    # Equivalence classes are the subduction equivalence classes on the image set
    # (a singleton that is not an image is a class of its own: docs/holonomy.md).
    images = brute_images(n, gens)
    for a in images:
        for b in images:
            same = leq(a, b) and leq(b, a)
            assert sk.equivalent(sk.index(a), sk.index(b)) == same
    # Tiles: maximal proper subsets within the extended image set (brute force).
    for p in ext:
        if len(p) < 2:
            continue
        proper = [c for c in ext if c < p]
        maximal = {c for c in proper if not any(c < d for d in proper)}
        assert set(sk.tiles_of(p)) == maximal

    # Depth: 1 + longest chain of strict subduction from X (singletons: the greatest).
    @cache
    def height_from_top(a):
        above = [b for b in ext if leq(a, b) and not leq(b, a)]
        return 1 + max((height_from_top(b) for b in above), default=0)

    deepest = max((height_from_top(a) for a in ext if len(a) > 1), default=0)
    for a in ext:
        expected = height_from_top(a) if len(a) > 1 else deepest + 1
        assert sk.depth(sk.index(a)) == expected


@given(semiautomata(max_states=6))
def test_navigation_words(case):
    n, gens = case
    sk = build_skeleton(n, gens)
    nav = build_navigation(sk)
    for i in range(sk.n_orbit):
        rep = sk.representative(i)
        r_pts, p_pts = members(sk.sets[rep]), members(sk.sets[i])
        u = word_transformation(nav.from_words[i], sk.generators, n)
        v = word_transformation(nav.to_words[i], sk.generators, n)
        assert u == nav.from_maps[i] and v == nav.to_maps[i]
        assert set(u[x] for x in r_pts) == set(p_pts)  # R·FromRep(P) = P
        assert set(v[x] for x in p_pts) == set(r_pts)  # P·ToRep(P) = R
        assert all(v[u[x]] == x for x in r_pts)  # FromRep·ToRep = 1 on R
        assert all(u[v[x]] == x for x in p_pts)  # ToRep·FromRep = 1 on P


@pytest.mark.parametrize("n", [3, 4, 5])
def test_full_transformation_skeleton(n):
    # T_n maps X onto every non-empty subset, and all k-subsets are equivalent
    # (S_n is inside): so the classes are the sizes, the depth of a k-set is
    # n - k + 1, and the tiles of a k-set are its (k-1)-subsets.
    from holonomy_oracles import full_transformation_generators

    sk = build_skeleton(n, full_transformation_generators(n))
    assert sk.n_orbit == 2**n - 1
    assert len(sk.classes) == n
    for k in range(2, n + 1):
        for p in combinations(range(n), k):
            i = sk.index(p)
            assert sk.depth(i) == n - k + 1
            assert set(sk.tiles_of(p)) == {frozenset(c) for c in combinations(p, k - 1)}
    assert sk.max_depth == n


def test_tile_that_is_not_an_image_of_its_set():
    # X = {0,1,2,3}; a maps X onto P = {0,1,2}; c maps X onto {0,1} but P onto {0}.
    # {0,1} is a tile of P although no element of S maps P onto it (checked by
    # enumeration): tiles come from the whole image set, not from P's images.
    a = [0, 1, 2, 2]
    c = [0, 0, 0, 1]
    sk = build_skeleton(4, [a, c])
    p = frozenset({0, 1, 2})
    assert set(sk.tiles_of(p)) == {frozenset({0, 1}), frozenset({2})}
    images_of_p = {frozenset(s[x] for x in p) for s in enumerate_semigroup(4, [a, c])}
    assert frozenset({0, 1}) not in images_of_p


def test_bad_generators_raise_spec_error():
    with pytest.raises(SpecError, match="generators\\[1\\]"):
        build_skeleton(3, [[0, 1, 2], [0, 3, 1]])
    with pytest.raises(SpecError):
        build_skeleton(3, [])
    with pytest.raises(SpecError):
        build_skeleton(2, [[0, 1, 1]])
