"""bilinear-cp: exact factors, rank ≤ the three easy bounds (recomputed here by brute force)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
import sympy
from bilinear_helpers import FAMILIES, assert_simulates, small_automata
from hypothesis import given
from hypothesis import strategies as st

import fsmnet
from fsmnet.constructions.bilinear_cp import integer_rank_factorization
from fsmnet.errors import NotExpressible, SpecError


def brute_bounds(a):
    """The three bounds straight from their definitions (docs/constructions.md), sympy for ranks."""
    n, k = a.n_states, a.n_symbols
    w = np.zeros((n, n, k), dtype=int)
    for s in range(k):
        for j in range(n):
            w[a.delta[s, j], j, s] = 1
    image = sum(len({int(a.delta[s, j]) for j in range(n)}) for s in range(k))
    transitions = sum(len({int(a.delta[s, j]) for s in range(k)}) for j in range(n))
    slices = sum(sympy.Matrix(w[i].tolist()).rank() for i in range(n))
    return w, {"image": image, "transitions": transitions, "slices": slices}


def exact_tensor(net):
    """Σ_r U ⊗ Z ⊗ V in Fractions, written out with loops (independent of the library)."""
    u, v, z = (net.params[k] for k in ("U", "V", "Z"))
    n, k = u.shape[0], v.shape[0]
    out = np.zeros((n, n, k), dtype=object)
    for i in range(n):
        for j in range(n):
            for s in range(k):
                out[i, j, s] = sum((Fraction(u[i, r]) * Fraction(z[j, r]) * Fraction(v[s, r])
                                    for r in range(u.shape[1])), Fraction(0))
    return out


@given(small_automata(max_states=5), st.sampled_from(["best", "image", "transitions", "slices"]),
       st.integers(0, 2**32 - 1))
def test_random_automata_exact_and_bounded(automaton, start, seed):
    minimal = automaton.minimal()
    net = fsmnet.compile(automaton, "bilinear-cp", bounds=start, search=False)
    w, bounds = brute_bounds(minimal)
    assert np.array_equal(exact_tensor(net), w)
    rank = net.params["U"].shape[1]
    assert net.options["rank"] == rank
    assert net.options["bounds"] == bounds
    if start == "best":
        assert all(rank <= b for b in bounds.values())
    else:
        assert rank == bounds[start]
    assert_simulates(net, minimal, seed, length=500)


@pytest.mark.parametrize("spec", FAMILIES)
def test_families(spec):
    minimal = fsmnet.load(spec).minimal()
    net = fsmnet.compile(spec, "bilinear-cp", search_seconds=0.5)
    w, bounds = brute_bounds(minimal)
    assert np.array_equal(exact_tensor(net), w)
    assert net.options["rank"] <= min(bounds.values())
    # Lower bound: the rank of the mode-3 unfolding (symbols × n²) bounds any CP rank.
    assert net.options["rank"] >= sympy.Matrix(w.reshape(-1, w.shape[2]).T.tolist()).rank()
    assert_simulates(net, minimal, seed=len(spec))


def test_search_beats_easy_bounds_on_modadd3():
    # Every easy bound of modadd:3 is 9 (each symbol is a permutation); Q[Z_3] ≅ Q × Q(ω)
    # has multiplication rank 1 + 3 = 4 over Q, so a much smaller rank exists.
    net = fsmnet.compile("modadd:3", "bilinear-cp", search_seconds=5)
    assert net.options["bounds"] == {"image": 9, "transitions": 9, "slices": 9}
    assert net.options["rank"] < 9
    assert_simulates(net, fsmnet.load("modadd:3").minimal(), seed=3)


def test_requested_rank_pads_or_refuses():
    net = fsmnet.compile("parity", "bilinear-cp", rank=6, search=False)
    assert net.params["U"].shape == (2, 6)
    assert_simulates(net, fsmnet.load("parity").minimal(), seed=1)
    # parity's mode-1 unfolding has rank 2, so rank 1 is impossible.
    with pytest.raises(NotExpressible, match="rank 1"):
        fsmnet.compile("parity", "bilinear-cp", rank=1)
    with pytest.raises(SpecError, match="bounds"):
        fsmnet.compile("parity", "bilinear-cp", bounds="smallest")


@given(st.integers(1, 6), st.integers(1, 6), st.data())
def test_integer_rank_factorization(rows, cols, data):
    m = np.array(data.draw(st.lists(st.lists(st.integers(-2, 2), min_size=cols, max_size=cols),
                                    min_size=rows, max_size=rows)))
    basis, coeffs = integer_rank_factorization(m)
    assert basis.dtype == np.int64 and coeffs.dtype == np.int64
    assert np.array_equal(basis @ coeffs, m)
    assert basis.shape[1] == sympy.Matrix(m.tolist()).rank()


_DOUBLES = st.floats(allow_nan=False, allow_infinity=False, width=64).filter(
    lambda x: abs(x) < 1e100)  # a product of three stays finite in the float check


@given(st.integers(0, 4), st.integers(0, 4), st.integers(1, 3), st.data())
def test_exact_cp_matrices_of_arbitrary_doubles_match_fraction_arithmetic(
        hidden, rank, symbols, data):
    # Second algorithm: U diag(V[s]) Zᵀ in Fraction arithmetic, term by term.  The
    # doubles include subnormals, ±0 and exponents far apart (the scaled-integer
    # path must shift every factor to one common power of two without loss).
    from fsmnet.nets.bilinear import _dyadic_cp_matrices

    def draw(rows, cols):
        return np.array(data.draw(st.lists(_DOUBLES, min_size=rows * cols,
                                           max_size=rows * cols)),
                        dtype=np.float64).reshape(rows, cols)

    u, v, z = draw(hidden, rank), draw(symbols, rank), draw(hidden, rank)
    got = _dyadic_cp_matrices(u, v, z)
    assert got.shape == (symbols, hidden, hidden)
    for s in range(symbols):
        for i in range(hidden):
            for j in range(hidden):
                want = sum((Fraction(u[i, r]) * Fraction(v[s, r]) * Fraction(z[j, r])
                            for r in range(rank)), Fraction(0))
                assert got[s, i, j] == want and isinstance(got[s, i, j], Fraction)
