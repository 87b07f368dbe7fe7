"""fixed-point: conjugated permutation encodings, exact convergence proofs."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples

from fsmnet.automata import Automaton, load
from fsmnet.constructions import compile_automaton
from fsmnet.errors import NetworkFileError, NotExpressible
from fsmnet.nets.fixed_point import (
    FIXED_POINT,
    charpoly,
    converges_exactly,
    iterate_fixed_point,
    schur_stable,
    spectral_radius,
)
from fsmnet.nets.network import Network, load_network


def _agrees(net: Network, a: Automaton, word: np.ndarray, exact: bool = False) -> bool:
    return bool(np.array_equal(net.label_trace(word, exact=exact), a.output_ids[a.trace(word)]))


def _check(net: Network, a: Automaton, seed: int, exact_len: int = 40) -> None:
    word = np.random.default_rng(seed).integers(0, a.n_symbols, 2000)
    assert net.labels == a.labels
    assert _agrees(net, a, word)
    assert _agrees(net, a, word[:exact_len], exact=True)
    for sym in range(a.n_symbols):
        if net.params["h0"].shape[0] <= 8:
            assert converges_exactly(net, sym)  # exact proof that ρ < 1
        else:  # Faddeev-LeVerrier takes minutes on the tuned rationals: sympy over QQ
            assert _schur_stable_qq(FIXED_POINT.iteration_matrix(net, sym, exact=True))


def _schur_stable_qq(m: np.ndarray) -> bool:
    from sympy import QQ
    from sympy.polys.matrices import DomainMatrix

    n = m.shape[0]
    dm = DomainMatrix([[QQ(x.numerator, x.denominator) for x in row] for row in m], (n, n), QQ)
    a = [Fraction(int(c.numerator), int(c.denominator)) for c in reversed(dm.charpoly())]
    while len(a) > 1:  # Schur-Cohn, each reduced polynomial made monic (digits stay small)
        d = len(a) - 1
        a = [x / a[d] for x in a]
        if abs(a[0]) >= 1:
            return False
        a = [a[i] - a[0] * a[d - i] for i in range(1, d + 1)]
    return True


# In the default run parity covers the sign channel (an odd letter) and cyclic:3 and
# modadd:5 the even groups; cyclic:4 and shellgame:3 (odd letters too) spend much
# longer in the tuning search, so they run with -m slow.
@pytest.mark.parametrize("spec", ["parity", "cyclic:3", "modadd:5",
                                  pytest.param("cyclic:4", marks=pytest.mark.slow),
                                  pytest.param("shellgame:3", marks=pytest.mark.slow),
                                  pytest.param("symmetric:3", marks=pytest.mark.slow)])
def test_families(spec: str) -> None:
    a = load(spec).minimal()
    net = compile_automaton(a, "fixed-point")
    _check(net, a, seed=3)
    # the iteration really reaches A h (float measurement) where it is fast enough
    h = net.params["h0"]
    mats = FIXED_POINT.matrices_float(net)
    for sym in range(a.n_symbols):
        if spectral_radius(net, sym) < 0.99:
            fixed, its = iterate_fixed_point(net, sym, h, tol=1e-13)
            assert its >= 1
            assert np.allclose(fixed, mats[sym] @ h, rtol=1e-9, atol=1e-9)


def test_design_example_radius() -> None:
    # docs/constructions-deltaproduct-fixedpoint.md, the worked example:
    # A⁻¹ = [[1, 1], [−3, −2]], Λ = diag(0.9, 0.1).  M = I − ΛA⁻¹ =
    # [[0.1, −0.9], [0.3, 1.2]]: trace 1.3, det 0.39, so the eigenvalues are
    # (1.3 ± √0.13)/2 by the quadratic formula; the larger is 0.8303.
    b = np.array([[1, 1], [-3, -2]], dtype=float)
    m = np.eye(2) - np.diag([0.9, 0.1]) @ b
    closed_form = (1.3 + math.sqrt(0.13)) / 2
    assert abs(max(abs(np.linalg.eigvals(m))) - closed_form) < 1e-12
    assert round(closed_form, 2) == 0.83
    exact = np.array([[Fraction(1, 10), Fraction(-9, 10)], [Fraction(3, 10), Fraction(6, 5)]],
                     dtype=object)
    assert charpoly(exact) == [Fraction(39, 100), Fraction(-13, 10), 1]
    assert schur_stable(charpoly(exact))


@given(st.integers(2, 6), st.integers(0, 10**6))
def test_one_hot_radius_at_least_one(n: int, seed: int) -> None:
    # docs/constructions-deltaproduct-fixedpoint.md: a monomial encoding of a
    # non-identity permutation never converges.
    rng = np.random.default_rng(seed)
    perm = rng.permutation(n)
    if np.all(perm == np.arange(n)):
        perm = np.roll(perm, 1)
    p = np.zeros((n, n))
    p[perm, np.arange(n)] = 1
    d = rng.uniform(0.2, 3.0, n)  # monomial: A = P D
    lam = [Fraction(int(x), 1000) for x in rng.integers(1, 1000, n)]
    b = np.linalg.inv(p * d)
    m = np.eye(n) - np.array([float(x) for x in lam])[:, None] * b
    assert max(abs(np.linalg.eigvals(m))) >= 1 - 1e-9  # float measurement
    # exact: with D = I, M is rational; Schur-Cohn must refuse stability
    m_exact = np.array([[Fraction(int(i == j)) - lam[i] * int(p[j, i]) for j in range(n)]
                        for i in range(n)], dtype=object)
    assert not schur_stable(charpoly(m_exact))


@given(st.lists(st.complex_numbers(max_magnitude=3, allow_nan=False, allow_infinity=False),
                min_size=1, max_size=5))
def test_schur_cohn_against_numpy_roots(roots: list[complex]) -> None:
    # Real polynomials: close the roots under conjugation; skip near-circle cases.
    full = roots + [r.conjugate() for r in roots if abs(r.imag) > 1e-9]
    mags = [abs(r) for r in full]
    assume(all(abs(m - 1) >= 1e-3 for m in mags))
    coeffs = np.real(np.poly(full))[::-1]  # a_0..a_d
    exact = [Fraction(float(c)) for c in coeffs]
    # recompute the roots of the *rounded* polynomial for the reference
    ref = np.roots(np.array([float(c) for c in exact[::-1]]))
    assume(all(abs(abs(r) - 1) >= 1e-6 for r in ref))
    assert schur_stable(exact) == bool(np.all(np.abs(ref) < 1))


@st.composite
def permutation_automata(draw: st.DrawFn) -> Automaton:
    n = draw(st.integers(1, 4))
    k = draw(st.integers(1, 2))
    perms = [draw(st.permutations(list(range(n)))) for _ in range(k)]
    outputs = [draw(st.integers(0, 2)) for _ in range(n)]
    return Automaton(delta=np.array(perms).reshape(k, n), symbols=[f"s{i}" for i in range(k)],
                     initial=0, outputs=outputs)


@settings(max_examples=examples(3))
@given(permutation_automata(), st.integers(0, 1000))
def test_random_permutation_automata(a: Automaton, seed: int) -> None:
    net = compile_automaton(a, "fixed-point")
    _check(net, a.minimal(), seed=seed, exact_len=25)


def test_not_expressible() -> None:
    # letter b merges two states but is no reset, and letter a cycles 0 -> 1 -> 2 -> 0,
    # so neither behavioural construction applies (resets: the flip-flop,
    # tests/test_certify_fixed_point.py; partially ordered automata such as contains:ab:
    # tests/test_fixed_point_acyclic.py)
    cyclic_merge = Automaton(delta=np.array([[1, 2, 0], [0, 0, 2]]), symbols=["a", "b"],
                             initial=0, outputs=[0, 1, 2])
    with pytest.raises(NotExpressible, match=r"reset: letter 'a' is neither.*acyclic: the "
                       r"transitions have the cycle.*'b' maps states.*invertible"):
        compile_automaton(cyclic_merge, "fixed-point")
    # parity's letter is a transposition: odd, so no sign channel means no encoding
    with pytest.raises(NotExpressible, match="odd"):
        compile_automaton("parity", "fixed-point", sign_channel=False)


def test_exact_header_roundtrip_and_tamper(tmp_path) -> None:
    a = load("cyclic:3").minimal()
    net = compile_automaton(a, "fixed-point")
    path = tmp_path / "fp.safetensors"
    net.save(path)
    back = load_network(path)
    assert _agrees(back, a, np.random.default_rng(1).integers(0, 3, 50), exact=True)
    q = np.array(net.params["Q"])
    q[1, 0, 0] = np.nextafter(q[1, 0, 0], 10.0)
    # A tampered tensor under the header is refused when the network is made.
    with pytest.raises(NetworkFileError, match="rounded"):
        Network(arch="fixed-point", params=dict(net.params, Q=q), symbols=net.symbols,
                labels=net.labels, exact=net.exact)
