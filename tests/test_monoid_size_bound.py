"""The lower bound on a transition monoid's size that ``fsmnet info`` checks against its
limits before enumerating anything (:func:`fsmnet.algebra.monoid.size_lower_bound`)."""

from __future__ import annotations

from math import comb

import numpy as np
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from fsmnet.algebra.monoid import TransitionMonoid, size_lower_bound
from fsmnet.algebra.monoid_bound import _BOUND_CELLS


def _stirling2(n: int, k: int) -> int:
    """Partitions of n points into k blocks (the recurrence S(n,k) = k S(n-1,k) + S(n-1,k-1))."""
    table = [[1 if i == j == 0 else 0 for j in range(k + 1)] for i in range(n + 1)]
    for i in range(1, n + 1):
        for j in range(1, k + 1):
            table[i][j] = j * table[i - 1][j] + table[i - 1][j - 1]
    return table[n][k]


@st.composite
def transformations(draw: st.DrawFn) -> np.ndarray:
    n = draw(st.integers(min_value=1, max_value=7))
    k = draw(st.integers(min_value=1, max_value=3))
    return draw(arrays(np.int64, (k, n), elements=st.integers(min_value=0, max_value=n - 1)))


@given(transformations())
def test_the_bound_never_exceeds_the_size(gens: np.ndarray) -> None:
    # Expected: the exact size from libsemigroups' Konieczny, identity included.
    bound = size_lower_bound(gens)
    assert 1 <= bound.elements <= TransitionMonoid(generators=gens).size
    assert bound.elements == bound.images * bound.kernels


def test_the_bound_is_a_whole_d_class_of_the_full_transformation_monoid() -> None:
    # A cycle, a transposition and a collapse generate T_n, whose rank-r D-class has
    # C(n, r) image sets and S(n, r) kernels (Howie, Fundamentals of Semigroup Theory,
    # 1995, section 2.2); the walk passes every rank, so the bound is the largest.
    for n in range(3, 8):
        cycle = list(range(1, n)) + [0]
        swap = [1, 0] + list(range(2, n))
        collapse = [0, 0] + list(range(2, n))
        bound = size_lower_bound([cycle, swap, collapse])
        want = max(comb(n, r) * _stirling2(n, r) for r in range(1, n))
        assert bound.elements == want, (n, bound)


def test_the_work_stays_within_the_budget_and_the_target_stops_it() -> None:
    from fsmnet.automata.resolve import load

    gens = load("random:n=20,k=3,seed=1").minimal().delta
    whole = size_lower_bound(gens)
    assert whole.work <= _BOUND_CELLS
    small = size_lower_bound(gens, budget=20_000)
    assert small.work <= 20_000 and 1 < small.elements <= whole.elements
    stopped = size_lower_bound(gens, target=1000)
    assert stopped.elements > 1000 and stopped.work < whole.work


def test_a_group_gets_the_trivial_bound_for_free() -> None:
    # Permutations only: every element has full rank, no orbit is explored.
    bound = size_lower_bound([[1, 2, 3, 0], [1, 0, 2, 3]])
    assert (bound.elements, bound.work) == (1, 0)
