"""The orbit of X, computed a block of sets at a time with NumPy bit matrices
(fsmnet/algebra/holonomy/orbit.py), against an independent brute-force closure.

Independent source: a breadth-first closure over ``frozenset`` images written
out here (Python sets, no bitmasks), which numbers the images in the order
(set, letter) that the skeleton documents; and ``np.packbits`` of the
transposed boolean matrix for the bit-matrix transpose.
"""

from __future__ import annotations

from collections import deque

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from fsmnet.algebra.holonomy import orbit as orbit_module
from fsmnet.algebra.holonomy.orbit import DecompositionTooLarge, _by_points, _by_sets, orbit


def closure(n, gens, cap=None):
    """BFS over frozensets: (sets, successor rows, parents), images numbered in visit order;
    None once more than ``cap`` sets are found."""
    full = frozenset(range(n))
    sets, number, succ, parent = [full], {full: 0}, [], [None]
    queue = deque([0])
    while queue:
        i = queue.popleft()
        row = []
        for g, t in enumerate(gens):
            img = frozenset(t[x] for x in sets[i])
            if img not in number:
                number[img] = len(sets)
                sets.append(img)
                if cap is not None and len(sets) > cap:
                    return None
                parent.append((i, g))
                queue.append(number[img])
            row.append(number[img])
        succ.append(tuple(row))
    return sets, succ, parent


def as_mask(points):
    return sum(1 << x for x in points)


@st.composite
def semiautomata(draw, max_states=90):
    """Letters of three kinds: random maps (up to 14 points: larger ones make orbits of
    millions of sets), permutations (above 14 points, ones that keep a core), and
    *core* maps, which map a core of 4 to 8 points into itself and either permute
    the other points or send them into the core.  Above 32 points (the NumPy
    blocks) the orbit then stays below 2 * 2^8 + 1 sets, yet its sets span every
    byte of the bitmask."""
    n = draw(st.integers(1, max_states))
    k = draw(st.integers(1, 3))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    core = rng.choice(n, draw(st.integers(min(n, 4), min(n, 8))), replace=False)
    outside = np.setdiff1d(np.arange(n), core)
    gens = []
    for _ in range(k):
        kind = draw(st.sampled_from(["random", "permutation", "core", "core"]))
        if kind == "random" and n <= 14:
            t = rng.integers(0, n, n)
        elif kind == "permutation":  # above 14 points, one that keeps the core
            t = rng.permutation(n) if n <= 14 else np.arange(n)
            if n > 14:
                t[core], t[outside] = rng.permutation(core), rng.permutation(outside)
        else:
            t = np.arange(n)
            t[core] = rng.choice(core, len(core))
            t[outside] = (rng.choice(core, len(outside)) if draw(st.booleans())
                          else rng.permutation(outside))
        gens.append(tuple(int(x) for x in t))
    return n, gens


@given(semiautomata(), st.sampled_from([(4096, 8), (8, 1), (24, 8)]))
def test_orbit_equals_brute_force_closure(case, block):
    # (BLOCK, _SMALL_BLOCK): the default; blocks of 8 always by NumPy; blocks of 24
    # with the one-at-a-time images below 8 queued sets (both ways in one orbit).
    n, gens = case
    want = closure(n, gens, cap=3000)  # keep the brute force short
    assume(want is not None)
    want_sets, want_succ, want_parent = want
    old = orbit_module.BLOCK, orbit_module._SMALL_BLOCK
    orbit_module.BLOCK, orbit_module._SMALL_BLOCK = block  # small blocks: many boundaries
    try:
        sets, index, succ, parent = orbit(n, gens, 10**6)
    finally:
        orbit_module.BLOCK, orbit_module._SMALL_BLOCK = old
    assert sets == [as_mask(s) for s in want_sets]
    assert index == {m: i for i, m in enumerate(sets)}
    assert succ == want_succ
    assert parent == want_parent


@pytest.mark.parametrize("small", [1, 10**9])  # always block images; always one at a time
def test_the_limit_is_exact_either_way(small, monkeypatch):
    rng = np.random.default_rng(3)
    n = 40
    gens = [tuple(int(x) for x in rng.integers(0, n, n)) for _ in range(2)]
    size = len(closure(n, gens)[0])
    assert size > 100  # the brute force: enough sets to cross several blocks
    monkeypatch.setattr(orbit_module, "BLOCK", 16)
    monkeypatch.setattr(orbit_module, "_SMALL_BLOCK", small)
    assert len(orbit(n, gens, size)[0]) == size  # exactly the limit: accepted
    for limit in (1, 5, size - 1):
        with pytest.raises(DecompositionTooLarge, match=f"more than {limit:,} sets"):
            orbit(n, gens, limit)


def test_a_large_orbit_equals_brute_force_closure():
    # random:n=45,k=2,seed=1, minimal: 38 states (the NumPy blocks), 86,734 image sets
    # (tests/test_holonomy_scale.py); small enough for the brute force.
    import fsmnet

    a = fsmnet.load("random:n=45,k=2,seed=1").minimal()
    gens = [tuple(int(x) for x in row) for row in a.delta]
    want_sets, want_succ, want_parent = closure(a.n_states, gens)
    sets, _, succ, parent = orbit(a.n_states, gens, 10**6)
    assert len(sets) == 86_734
    assert sets == [as_mask(s) for s in want_sets]
    assert succ == want_succ and parent == want_parent


@given(st.integers(1, 40), st.integers(1, 200), st.integers(0, 2**32 - 1))
def test_bit_matrix_transpose_equals_packbits_of_the_transpose(sets8, points, seed):
    rng = np.random.default_rng(seed)
    width = (points + 7) // 8
    bits = rng.random((8 * sets8, points)) < 0.3
    rows = np.packbits(bits, axis=1, bitorder="little")
    assert rows.shape == (8 * sets8, width)
    by_points = _by_points(rows)
    assert np.array_equal(by_points[:points], np.packbits(bits.T, axis=1, bitorder="little"))
    assert not by_points[points:].any()  # the padding points are in no set
    assert np.array_equal(_by_sets(by_points), rows)
