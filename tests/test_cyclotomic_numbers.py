"""Exact cyclotomic numbers: field identities, decided signs checked against mpmath."""

from __future__ import annotations

from fractions import Fraction

import mpmath
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples

from fsmnet.nets.cyclotomic import cyclotomic_field


def test_golden_ratio_identity() -> None:
    # 2cos(2π/5) = (√5 − 1)/2 is a root of x² + x − 1 (classical identity).
    k = cyclotomic_field(5)
    c = k.element({1: 1, 4: 1})
    assert c * c + c - 1 == 0
    assert c.is_real() and not k.element({1: 1}).is_real()
    assert Fraction(618, 1000) < c < Fraction(619, 1000)


def test_imaginary_unit_and_rationals() -> None:
    k = cyclotomic_field(12)
    i = k.element({3: 1})
    assert i * i == -1
    half = k.element({2: 1}).real_part()  # cos(π/3) = 1/2
    assert half == Fraction(1, 2) and half.rational() == Fraction(1, 2)
    assert hash(half) == hash(Fraction(1, 2))
    sin_30 = k.element({1: 1}).imag_part()  # sin(π/6) = 1/2
    assert sin_30 == Fraction(1, 2)
    s = k.element({2: 1}).imag_part()  # sin(π/3) = √3/2
    assert s * s == Fraction(3, 4) and s > 0 and -s < 0 and abs(-s) == s


@settings(max_examples=examples(120))
@given(st.sampled_from([3, 5, 7, 8, 12, 15, 20, 60]),
       st.dictionaries(st.integers(0, 59), st.fractions(-100, 100, max_denominator=50).filter(
           lambda q: abs(q) < 100), max_size=6))
def test_sign_matches_high_precision(order: int, powers: dict[int, Fraction]) -> None:
    k = cyclotomic_field(order)
    x = k.element(powers).real_part()
    mpmath.mp.dps = 60
    value = mpmath.fsum(mpmath.mpf(q.numerator) / q.denominator
                        * mpmath.cos(2 * mpmath.pi * e / order) for e, q in powers.items())
    if abs(value) < mpmath.mpf(10) ** -40:
        # Either exactly zero (decided by coordinates) or tiny; both are fine
        # as long as a zero value really is the zero element.
        if x.is_zero():
            assert x.sign() == 0
        return
    assert x.sign() == (1 if value > 0 else -1)
    assert abs(float(x) - float(value)) < 1e-9 * (1 + abs(float(value)))


@given(st.sampled_from([5, 7, 12, 15]),
       st.dictionaries(st.integers(0, 20), st.integers(-5, 5), min_size=1, max_size=5))
def test_inverse(order: int, powers: dict[int, int]) -> None:
    k = cyclotomic_field(order)
    x = k.element(powers)
    assume(not x.is_zero())
    assert x * x.inverse() == 1
    assert (x / x) == 1 and (3 / x) * x == 3
