"""Fixed-point radius search at larger hidden sizes (issue 11, §4).

Independent sources: the exact stability claim is computed two ways (the
Faddeev-LeVerrier polynomial in Fractions of fsmnet.nets.fixed_point, and
sympy's integer characteristic polynomial after scaling by 2^E), and must
agree; nested principal minors are checked with exact integer determinants
(Bareiss); a matrix L·U with L unit lower and U upper triangular with a
positive diagonal has every leading principal minor positive (the minors are
the products of U's leading diagonal entries).
"""

from __future__ import annotations

import time
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fsmnet.constructions.fixed_point as fp
from fsmnet.automata import load
from fsmnet.constructions import compile_automaton
from fsmnet.errors import NotExpressible
from fsmnet.nets.fixed_point import charpoly, schur_stable


def _slow(lam: list[Fraction], b: np.ndarray) -> bool:
    n = len(lam)
    m = [[Fraction(int(i == j)) - lam[i] * int(b[i, j]) for j in range(n)] for i in range(n)]
    return schur_stable(charpoly(np.array(m, dtype=object)))


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 6).flatmap(lambda n: st.tuples(
    st.lists(st.lists(st.integers(-2, 2), min_size=n, max_size=n), min_size=n, max_size=n),
    st.lists(st.integers(1, 1023), min_size=n, max_size=n),
    st.lists(st.integers(10, 14), min_size=n, max_size=n))))
def test_scaled_integer_charpoly_agrees(case) -> None:
    rows, nums, exps = case
    b = np.array(rows, dtype=np.int64)
    lam = [min(Fraction(p, 2**e), Fraction(1023, 1024)) for p, e in zip(nums, exps)]
    old = fp._EXACT_CHAIN
    try:
        fp._EXACT_CHAIN = 0  # force the integer (sympy) path
        fast = fp._proved_stable(lam, b)
    finally:
        fp._EXACT_CHAIN = old
    assert fast == _slow(lam, b)


def test_both_verdicts_occur() -> None:
    # I − Λ·I with λ = 1/2: radius 1/2, stable; with b = −I: radius 3/2, not.
    half = [Fraction(1, 2)] * 3
    assert fp._proved_stable(half, np.eye(3, dtype=np.int64)) is True
    assert fp._proved_stable(half, -np.eye(3, dtype=np.int64)) is False


def test_greedy_chain_has_positive_nested_minors() -> None:
    rng = np.random.default_rng(0)
    n = 20
    lower = np.tril(rng.integers(-2, 3, (n, n)), -1) + np.eye(n, dtype=np.int64)
    upper = np.triu(rng.integers(-2, 3, (n, n)), 1) + np.diag(rng.integers(1, 4, n))
    perm = rng.permutation(n)
    b = (lower @ upper)[np.ix_(perm, perm)]  # the chain exists (perm⁻¹), hidden by perm
    order = fp.positive_minor_chain(b)
    assert order is not None and sorted(order) == list(range(n))
    for k in range(1, n + 1):
        idx = order[:k]
        assert fp._int_det([[int(b[r, c]) for c in idx] for r in idx]) > 0


def test_large_hidden_size_is_refused_quickly() -> None:
    # A_5 by generators has 60 states: the exact radius proof would take hours.
    a = load("alternating:5,gens").minimal()
    start = time.process_time()
    with pytest.raises(NotExpressible, match="hidden size 60"):
        compile_automaton(a, "fixed-point")
    assert time.process_time() - start < 5
