"""Exact numbers of Q(ζ_M), ζ_M = e^(2πi/M), for the checker (standard library only).

An element is a tuple of Fractions: its coordinates on 1, ζ, ..., ζ^(φ(M)−1),
the canonical form modulo the cyclotomic polynomial Φ_M (so equality is
equality of tuples).  Φ_M is computed here by exact integer division,
Φ_M = (x^M − 1) / Π_{d | M, d < M} Φ_d.

The sign of a real element x = Σ c_k ζ^k is Σ c_k cos(2πk/M) (its imaginary
parts cancel), enclosed between rationals: π between partial sums of Machin's
alternating series π = 16·atan(1/5) − 4·atan(1/239), cos between Taylor
polynomials ± the Lagrange remainder, and cos is decreasing on [0, π].  The
precision doubles until the enclosure excludes 0; x ≠ 0 is known exactly
first, so the loop ends.
"""

from __future__ import annotations

import functools
from fractions import Fraction

from .core import CertificateError

Element = tuple[Fraction, ...]


@functools.cache
def cyclotomic_poly(m: int) -> tuple[int, ...]:
    """Integer coefficients of Φ_m, lowest degree first."""
    num = [-1] + [0] * (m - 1) + [1]  # x^m − 1
    for d in range(1, m):
        if m % d == 0:
            num = _divide(num, list(cyclotomic_poly(d)))
    return tuple(num)


def _divide(num: list[int], den: list[int]) -> list[int]:
    """Exact quotient of integer polynomials (den monic), lowest degree first."""
    num = list(num)
    quotient = [0] * (len(num) - len(den) + 1)
    for i in range(len(quotient) - 1, -1, -1):
        c = num[i + len(den) - 1]
        quotient[i] = c
        for j, dj in enumerate(den):
            num[i + j] -= c * dj
    if any(num):
        raise CertificateError("internal: cyclotomic division left a remainder")
    return quotient


class Field:
    """Q(ζ_M) with reduction modulo Φ_M."""

    def __init__(self, order: int) -> None:
        if not isinstance(order, int) or isinstance(order, bool) or not 1 <= order <= 10_000:
            raise CertificateError(f"field_order must be an integer in 1..10000, got {order!r}")
        self.order = order
        self.phi = cyclotomic_poly(order)
        self.degree = len(self.phi) - 1

    def element(self, powers: dict[int, Fraction]) -> Element:
        """Σ c_k ζ^k (any integer k) in canonical form."""
        folded = [Fraction(0)] * self.order
        for k, c in powers.items():
            folded[k % self.order] += c
        d = self.degree
        for k in range(self.order - 1, d - 1, -1):  # ζ^k = −Σ φ_i ζ^(k−d+i)
            c = folded[k]
            if c:
                folded[k] = Fraction(0)
                for i in range(d):
                    if self.phi[i]:
                        folded[k - d + i] -= c * self.phi[i]
        return tuple(folded[:d])

    def rational(self, q: Fraction) -> Element:
        return self.element({0: q})

    def add(self, x: Element, y: Element) -> Element:
        return tuple(a + b for a, b in zip(x, y))

    def sub(self, x: Element, y: Element) -> Element:
        return tuple(a - b for a, b in zip(x, y))

    def scale(self, x: Element, q: Fraction) -> Element:
        return tuple(a * q for a in x)

    def mul(self, x: Element, y: Element) -> Element:
        prod: dict[int, Fraction] = {}
        for i, a in enumerate(x):
            if a:
                for j, b in enumerate(y):
                    if b:
                        prod[i + j] = prod.get(i + j, Fraction(0)) + a * b
        return self.element(prod)

    def power(self, x: Element, n: int) -> Element:
        out, base = self.rational(Fraction(1)), x
        while n:
            if n & 1:
                out = self.mul(out, base)
            base, n = self.mul(base, base), n >> 1
        return out

    def conjugate(self, x: Element) -> Element:
        return self.element({-k: a for k, a in enumerate(x) if a})

    def real_part(self, x: Element) -> Element:
        return self.scale(self.add(x, self.conjugate(x)), Fraction(1, 2))

    def as_rational(self, x: Element) -> Fraction | None:
        return x[0] if not any(x[1:]) else None

    def sign(self, x: Element) -> int:
        """−1, 0 or 1 of a real element."""
        if not any(x):
            return 0
        if self.conjugate(x) != x:
            raise CertificateError("a compared number is not real")
        bits = 32
        while bits <= 1 << 14:
            lo = hi = Fraction(0)
            for k, c in enumerate(x):
                if c:
                    clo, chi = cos_turn(k, self.order, bits)
                    lo, hi = (lo + c * clo, hi + c * chi) if c > 0 else (lo + c * chi,
                                                                         hi + c * clo)
            if lo > 0:
                return 1
            if hi < 0:
                return -1
            bits *= 2
        raise CertificateError("a sign could not be separated")


@functools.cache
def pi_bounds(bits: int) -> tuple[Fraction, Fraction]:
    """lo ≤ π ≤ hi with hi − lo < 2^−bits (Machin's formula)."""

    def atan_inverse(x: int) -> tuple[Fraction, Fraction]:
        s, n, prev = Fraction(0), 0, None
        while True:
            term = Fraction((-1) ** n, (2 * n + 1) * x ** (2 * n + 1))
            prev, s = s, s + term
            if abs(term) < Fraction(1, 2 ** (bits + 6)):
                return min(prev, s), max(prev, s)  # alternating, decreasing terms
            n += 1

    a_lo, a_hi = atan_inverse(5)
    b_lo, b_hi = atan_inverse(239)
    return 16 * a_lo - 4 * b_hi, 16 * a_hi - 4 * b_lo


def _cos_bounds(t: Fraction, bits: int) -> tuple[Fraction, Fraction]:
    """lo ≤ cos t ≤ hi for rational 0 ≤ t ≤ 4 (Taylor with Lagrange remainder)."""
    s, term, n = Fraction(0), Fraction(1), 0
    while True:
        s += term
        nxt = -term * t * t / ((n + 1) * (n + 2))  # the next even-order term
        n += 2
        # |cos t − partial sum| ≤ t^n / n!  ≤ |nxt| · (n+1)(n+2)/... ; bound directly:
        remainder = abs(nxt)
        if remainder < Fraction(1, 2 ** (bits + 4)) and n > t * t:
            return s - remainder, s + remainder
        term = nxt


@functools.cache
def cos_turn(k: int, m: int, bits: int) -> tuple[Fraction, Fraction]:
    """Rationals enclosing cos(2πk/m)."""
    k %= m
    if 2 * k > m:
        k = m - k  # cos is even and 2π-periodic: the angle is now in [0, π]
    if k == 0:
        return Fraction(1), Fraction(1)
    p_lo, p_hi = pi_bounds(bits + 4)
    t_lo, t_hi = 2 * k * p_lo / m, min(2 * k * p_hi / m, Fraction(4))
    # cos decreases on [0, π]: the enclosure of t gives cos(t_hi) ≤ cos t ≤ cos(t_lo).
    lo, _ = _cos_bounds(t_hi, bits)
    _, hi = _cos_bounds(t_lo, bits)
    return max(lo, Fraction(-1)), min(hi, Fraction(1))
