"""The (max, min) algebra of fsmnet.nets.minmax: products, steps, exact composition, scans.

Independent sources: the products are checked against the textbook definition
written out as explicit loops here; composition against applying the steps one
after the other; associativity and idempotence are theorems (a distributive
lattice is a semiring; max(min(r, max(min(r, x), s)), s) = max(min(r, x), s)).
"""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from fsmnet.nets.minmax import (
    BOTTOM,
    SCALAR_IDENTITY,
    TOP,
    affine_identity,
    affine_step,
    compose_affine,
    compose_scalar,
    maxmin_matmul,
    maxmin_matvec,
    scalar_step,
    scan_affine,
    scan_scalar,
)

# Small integer values plus the two infinities: ties and the identity elements
# are where a wrong formula shows up.
values = st.one_of(st.integers(-3, 5).map(float), st.sampled_from([TOP, BOTTOM]))
steps = st.tuples(values, values)


def loop_matvec(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Definition: (A ⊗ x)_i = max_j min(A_ij, x_j), written as loops."""
    return np.array([max(min(a[i, j], x[j]) for j in range(a.shape[1]))
                     for i in range(a.shape[0])])


def matrices(n: int) -> st.SearchStrategy[np.ndarray]:
    return st.lists(values, min_size=n * n, max_size=n * n).map(
        lambda v: np.array(v).reshape(n, n))


def vectors(n: int) -> st.SearchStrategy[np.ndarray]:
    return st.lists(values, min_size=n, max_size=n).map(np.array)


@st.composite
def affine_steps(draw: st.DrawFn, n: int) -> tuple[np.ndarray, np.ndarray]:
    return draw(matrices(n)), draw(vectors(n))


# ------------------------------------------------------------------ scalars
@given(steps, steps, steps)
def test_scalar_composition_is_associative(f: tuple, g: tuple, h: tuple) -> None:
    left = compose_scalar(compose_scalar(f, g), h)
    right = compose_scalar(f, compose_scalar(g, h))
    assert left == right


@given(steps, steps, values)
def test_scalar_composition_matches_sequential_steps(f: tuple, g: tuple, x: float) -> None:
    r, s = compose_scalar(f, g)
    assert scalar_step(r, s, x) == scalar_step(g[0], g[1], scalar_step(f[0], f[1], x))


@given(steps, values)
def test_scalar_step_is_idempotent(f: tuple, x: float) -> None:
    # Theorem (docs/theory.md, theorem 4): f∘f = f, both as a function and as a pair.
    once = scalar_step(f[0], f[1], x)
    assert scalar_step(f[0], f[1], once) == once
    r, s = compose_scalar(f, f)
    assert scalar_step(r, s, x) == once


@given(steps, values)
def test_scalar_identity(f: tuple, x: float) -> None:
    assert scalar_step(*SCALAR_IDENTITY, x) == x
    assert scalar_step(*compose_scalar(SCALAR_IDENTITY, f), x) == scalar_step(*f, x)
    assert scalar_step(*compose_scalar(f, SCALAR_IDENTITY), x) == scalar_step(*f, x)


def test_reset_and_hold_units_of_the_construction() -> None:
    # docs/constructions-minmax.md: reset to v when r < s = v; identity on 1..k when r >= k, s <= 1.
    k = 4
    for x in range(1, k + 1):
        assert scalar_step(0.0, 3.0, float(x)) == 3.0
        assert scalar_step(float(k), 1.0, float(x)) == float(x)


@given(st.lists(steps, min_size=0, max_size=40), values)
def test_scalar_scan_matches_recurrence(seq: list, x0: float) -> None:
    r = np.array([f[0] for f in seq], dtype=np.float64)
    s = np.array([f[1] for f in seq], dtype=np.float64)
    rr, ss = scan_scalar(r, s)
    x = x0
    for t, (rt, st_) in enumerate(seq):
        x = scalar_step(rt, st_, x)
        assert scalar_step(rr[t], ss[t], x0) == x


# ------------------------------------------------------------------ matrices
@given(st.integers(1, 4).flatmap(lambda n: st.tuples(matrices(n), vectors(n))))
def test_matvec_matches_definition(pair: tuple) -> None:
    a, x = pair
    assert np.array_equal(maxmin_matvec(a, x), loop_matvec(a, x))


@given(st.integers(1, 4).flatmap(lambda n: st.tuples(matrices(n), matrices(n), vectors(n))))
def test_matmul_is_the_composition_of_matvecs(triple: tuple) -> None:
    a, b, x = triple
    assert np.array_equal(maxmin_matvec(maxmin_matmul(a, b), x),
                          loop_matvec(a, loop_matvec(b, x)))
    # and each column of A ⊗ B is A ⊗ (column of B)
    prod = maxmin_matmul(a, b)
    for j in range(b.shape[1]):
        assert np.array_equal(prod[:, j], loop_matvec(a, b[:, j]))


@given(st.integers(1, 4).flatmap(lambda n: st.tuples(matrices(n), matrices(n), matrices(n))))
def test_matmul_is_associative(triple: tuple) -> None:
    a, b, c = triple
    assert np.array_equal(maxmin_matmul(maxmin_matmul(a, b), c),
                          maxmin_matmul(a, maxmin_matmul(b, c)))


@given(st.integers(1, 4).flatmap(
    lambda n: st.tuples(affine_steps(n), affine_steps(n), affine_steps(n), vectors(n))))
def test_affine_composition_is_associative_and_sequential(args: tuple) -> None:
    f, g, h, x = args
    left = compose_affine(compose_affine(f, g), h)
    right = compose_affine(f, compose_affine(g, h))
    assert np.array_equal(left[0], right[0]) and np.array_equal(left[1], right[1])
    seq = affine_step(*h, affine_step(*g, affine_step(*f, x)))
    assert np.array_equal(affine_step(*left, x), seq)


@given(st.integers(1, 4).flatmap(lambda n: st.tuples(affine_steps(n), vectors(n))))
def test_affine_identity(args: tuple) -> None:
    f, x = args
    ident = affine_identity(len(x))
    assert np.array_equal(affine_step(*ident, x), x)
    both = compose_affine(ident, f)
    assert np.array_equal(affine_step(*both, x), affine_step(*f, x))


@given(st.integers(1, 3).flatmap(
    lambda n: st.tuples(st.lists(affine_steps(n), min_size=1, max_size=20), vectors(n))))
def test_affine_scan_matches_recurrence(args: tuple) -> None:
    seq, x0 = args
    rr, ss = scan_affine(np.array([f[0] for f in seq]), np.array([f[1] for f in seq]))
    x = x0
    for t, f in enumerate(seq):
        x = affine_step(*f, x)
        assert np.array_equal(affine_step(rr[t], ss[t], x0), x)


def test_one_hot_permutation_and_reset() -> None:
    # A max-min permutation matrix moves a one-hot vector like the permutation;
    # an all-bottom matrix with s = e_v resets to e_v (docs/constructions-minmax.md).
    perm = [2, 0, 1]
    r = np.zeros((3, 3))
    r[perm, [0, 1, 2]] = 1.0
    for p in range(3):
        e = np.eye(3)[p]
        assert np.array_equal(affine_step(r, np.zeros(3), e), np.eye(3)[perm[p]])
        assert np.array_equal(affine_step(np.zeros((3, 3)), np.eye(3)[1], e), np.eye(3)[1])
