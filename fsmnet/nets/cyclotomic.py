"""Exact numbers of a cyclotomic field Q(ζ_M), ζ_M = e^(2πi/M), with decided comparisons.

Rotation blocks of order p ∉ {1, 2, 4} have irrational entries (Niven), so
exact evaluation of such networks (docs/constructions.md, "Exact weights") needs
exact algebraic arithmetic.  Every entry of those networks lies in one
cyclotomic field, so a number is stored as its coordinates on the basis
1, ζ, ..., ζ^(d-1) (d = φ(M)) with rational coefficients, reduced modulo the
cyclotomic polynomial Φ_M.  That form is canonical, so equality and "is zero"
are decided by comparing coefficients.

The sign of a *real* element is decided by interval arithmetic that cannot
be wrong: cos(2πk/M) is enclosed between rationals (π from Machin's formula,
whose alternating series brackets its value; cos and sin from Taylor
polynomials with the Lagrange remainder), and the precision doubles until the
enclosure of x excludes 0.  This terminates because x ≠ 0 is known exactly
beforehand (a non-zero coefficient vector).
"""

from __future__ import annotations

import functools
import math
import numbers
from fractions import Fraction
from typing import Any

Rational = Fraction | int


@functools.cache
def pi_enclosure(bits: int) -> tuple[Fraction, Fraction]:
    """Rationals lo <= π <= hi, hi - lo < 2^-bits (Machin: π = 16 atan(1/5) − 4 atan(1/239))."""

    def atan_inv(x: int) -> tuple[Fraction, Fraction]:
        # Alternating series with decreasing terms: consecutive partial sums
        # bracket the value.
        total, n = Fraction(0), 0
        while True:
            term = Fraction(1, (2 * n + 1) * x ** (2 * n + 1))
            nxt = total + term if n % 2 == 0 else total - term
            if term < Fraction(1, 2 ** (bits + 8)):
                return min(total, nxt), max(total, nxt)
            total, n = nxt, n + 1

    lo5, hi5 = atan_inv(5)
    lo239, hi239 = atan_inv(239)
    return 16 * lo5 - 4 * hi239, 16 * hi5 - 4 * lo239


def _down(x: Fraction, bits: int) -> Fraction:
    return Fraction(math.floor(x * 2**bits), 2**bits)


def _up(x: Fraction, bits: int) -> Fraction:
    return Fraction(math.ceil(x * 2**bits), 2**bits)


def _taylor(theta: Fraction, bits: int, first: int) -> tuple[Fraction, Fraction]:
    """Σ (−1)^j θ^(2j+first)/(2j+first)! and a bound on the remainder (θ ≥ 0)."""
    total, j = Fraction(0), 0
    term = theta**first / math.factorial(first)
    eps = Fraction(1, 2 ** (bits + 4))
    while True:
        total += term if j % 2 == 0 else -term
        j += 1
        n = 2 * j + first
        term = term * theta * theta / ((n - 1) * n)
        # Lagrange: every derivative of cos/sin is bounded by 1, so the error
        # after this partial sum is at most the next term's magnitude.
        if term < eps:
            return total, term


class CyclotomicField:
    """Q(ζ_M): the reduction modulus Φ_M and cached rational enclosures of ζ^k."""

    def __init__(self, order: int) -> None:
        import sympy

        if order < 1:
            raise ValueError(f"cyclotomic order must be positive (value: {order})")
        x = sympy.Symbol("x")
        poly = sympy.Poly(sympy.cyclotomic_poly(order, x), x)
        self.order = order
        # Low-to-high integer coefficients of the monic Φ_M.
        self.modulus = tuple(int(c) for c in reversed(poly.all_coeffs()))
        self.degree = len(self.modulus) - 1
        self._enclosures: dict[int, list[tuple[Fraction, Fraction, Fraction, Fraction]]] = {}
        self._int_enclosures: dict[int, list[tuple[int, int]]] = {}

    def reduce_int(self, coeffs: dict[int, int] | list[int]) -> list[int]:
        """Canonical integer coordinates of Σ c_k ζ^k (Φ_M is monic with integer
        coefficients, so integer inputs stay integers)."""
        folded = [0] * self.order
        items = coeffs.items() if isinstance(coeffs, dict) else enumerate(coeffs)
        for k, c in items:
            folded[k % self.order] += c
        d, mod = self.degree, self.modulus
        for k in range(self.order - 1, d - 1, -1):
            c = folded[k]
            if c:
                folded[k] = 0
                base = k - d
                for i in range(d):
                    if mod[i]:
                        folded[base + i] -= c * mod[i]
        return folded[:d]

    def reduce(self, coeffs: dict[int, Fraction] | list[Fraction]) -> tuple[Fraction, ...]:
        """Canonical rational coordinates of Σ c_k ζ^k (any integer exponents k)."""
        items = dict(coeffs.items() if isinstance(coeffs, dict) else enumerate(coeffs))
        den = math.lcm(1, *(Fraction(c).denominator for c in items.values()))
        num = self.reduce_int({k: int(Fraction(c) * den) for k, c in items.items()})
        return tuple(Fraction(x, den) for x in num)

    def element(self, powers: dict[int, Rational]) -> Cyclotomic:
        """Σ q_k ζ^k from exponent -> rational coefficient."""
        items = {k: Fraction(q) for k, q in powers.items()}
        den = math.lcm(1, *(q.denominator for q in items.values()))
        return Cyclotomic._make(self, self.reduce_int({k: int(q * den) for k, q in
                                                       items.items()}), den)

    def enclosures(self, bits: int) -> list[tuple[Fraction, Fraction, Fraction, Fraction]]:
        """Per basis power k < d: rationals (cos_lo, cos_hi, sin_lo, sin_hi) of 2πk/M."""
        if bits not in self._enclosures:
            pi_lo, pi_hi = pi_enclosure(bits + 8)
            out = []
            for k in range(self.degree):
                lo, hi = 2 * k * pi_lo / self.order, 2 * k * pi_hi / self.order
                mid = _down((lo + hi) / 2, bits + 8)
                # cos and sin are 1-Lipschitz: the θ-uncertainty adds at most this.
                slack = max(hi - mid, mid - lo)
                bounds = []
                for first in (0, 1):
                    value, rem = _taylor(mid, bits + 8, first)
                    bounds += [_down(value - rem - slack, bits + 4),
                               _up(value + rem + slack, bits + 4)]
                out.append((bounds[0], bounds[1], bounds[2], bounds[3]))
            self._enclosures[bits] = out
        return self._enclosures[bits]

    def cos_enclosures_int(self, bits: int) -> list[tuple[int, int]]:
        """(lo, hi) integers with lo/2^(bits+4) <= cos(2πk/M) <= hi/2^(bits+4), k < d."""
        key = -bits
        if key not in self._int_enclosures:
            scale = 2 ** (bits + 4)
            self._int_enclosures[key] = [(int(lo * scale), int(hi * scale))
                                         for lo, hi, _, _ in self.enclosures(bits)]
        return self._int_enclosures[key]


@functools.cache
def cyclotomic_field(order: int) -> CyclotomicField:
    """The (shared) field Q(ζ_order)."""
    return CyclotomicField(order)


class Cyclotomic:
    """An exact element of Q(ζ_M); arithmetic with ints and Fractions mixes in.

    Stored as integer coordinates ``num`` over a common positive denominator
    ``den`` (in lowest terms), which keeps products in integer arithmetic.
    Comparisons (<, >, abs) are defined for real elements only and are exact.
    """

    __slots__ = ("field", "num", "den", "_inverse")

    def __init__(self, field: CyclotomicField, coeffs: tuple[Fraction, ...]) -> None:
        den = math.lcm(1, *(Fraction(c).denominator for c in coeffs))
        self._set(field, [int(Fraction(c) * den) for c in coeffs], den)

    def _set(self, field: CyclotomicField, num: list[int], den: int) -> None:
        g = math.gcd(den, *num)
        if g > 1:
            num, den = [x // g for x in num], den // g
        self.field, self.num, self.den = field, tuple(num), den
        self._inverse: Cyclotomic | None = None

    @classmethod
    def _make(cls, field: CyclotomicField, num: list[int], den: int) -> Cyclotomic:
        out = cls.__new__(cls)
        out._set(field, num, den)
        return out

    @property
    def coeffs(self) -> tuple[Fraction, ...]:
        """Rational coordinates on 1, ζ, ..., ζ^(d-1)."""
        return tuple(Fraction(x, self.den) for x in self.num)

    # ------------------------------------------------------------ helpers
    def _lift(self, other: Any) -> Cyclotomic | None:
        if isinstance(other, Cyclotomic):
            if other.field.order != self.field.order:
                raise ValueError(f"mixing Q(ζ_{self.field.order}) and Q(ζ_{other.field.order})")
            return other
        if isinstance(other, numbers.Rational):
            q = Fraction(other)
            return Cyclotomic._make(self.field, [q.numerator] + [0] * (len(self.num) - 1),
                                    q.denominator)
        return None

    def is_zero(self) -> bool:
        return not any(self.num)

    def rational(self) -> Fraction | None:
        """The value as a Fraction when it is rational, else ``None``."""
        return Fraction(self.num[0], self.den) if not any(self.num[1:]) else None

    def conjugate(self) -> Cyclotomic:
        m = self.field.order
        return Cyclotomic._make(self.field, self.field.reduce_int(
            {(-k) % m: c for k, c in enumerate(self.num) if c}), self.den)

    def real_part(self) -> Cyclotomic:
        return (self + self.conjugate()) / 2

    def imag_part(self) -> Cyclotomic:
        """(x − x̄)/(2i); needs 4 | M so that i = ζ^(M/4) is in the field."""
        m = self.field.order
        if m % 4:
            raise ValueError(f"imaginary parts need 4 | M (value: M = {m})")
        minus_i = self.field.element({3 * m // 4: 1})
        return (self - self.conjugate()) * minus_i / 2

    def is_real(self) -> bool:
        return self.num == self.conjugate().num

    def abs_bound(self) -> Fraction:
        """A rational upper bound on |x| (|ζ^k| = 1); zero only for x = 0."""
        return Fraction(sum(abs(c) for c in self.num), self.den)

    def _enclose(self, bits: int) -> tuple[int, int]:
        """Integers lo <= x·den·2^(bits+4) <= hi for a real element x."""
        # The real element equals its real part Σ c_k cos(2πk/M); enclose it.
        lo = hi = 0
        for c, (clo, chi) in zip(self.num, self.field.cos_enclosures_int(bits)):
            if c > 0:
                lo, hi = lo + c * clo, hi + c * chi
            elif c < 0:
                lo, hi = lo + c * chi, hi + c * clo
        return lo, hi

    def sign(self) -> int:
        """−1, 0 or 1 for a real element, decided exactly."""
        if self.is_zero():
            return 0
        if not self.is_real():
            raise ValueError("only real cyclotomic numbers can be compared")
        bits = 64
        while bits <= 1 << 16:
            lo, hi = self._enclose(bits)
            if lo > 0:
                return 1
            if hi < 0:
                return -1
            bits *= 2
        raise ArithmeticError("sign not separated at 65536 bits")  # pragma: no cover

    def approximation(self, rel_bits: int = 64) -> Fraction:
        """A rational within a relative 2^-rel_bits of a real element (0 for 0): a
        starting point for rounding, which is then decided by :meth:`sign`."""
        if self.is_zero():
            return Fraction(0)
        if not self.is_real():
            raise ValueError("only real cyclotomic numbers can be approximated")
        bits = 64
        while bits <= 1 << 16:
            lo, hi = self._enclose(bits)
            # Once 0 is excluded, min(|lo|, |hi|) <= |x·den·2^(bits+4)| bounds the error.
            if (lo > 0 or hi < 0) and (hi - lo) << rel_bits <= min(abs(lo), abs(hi)):
                return Fraction(lo + hi, 2 * self.den * 2 ** (bits + 4))
            bits *= 2
        raise ArithmeticError("not approximated at 65536 bits")  # pragma: no cover

    def inverse(self) -> Cyclotomic:
        """1/x by the extended Euclidean algorithm modulo Φ_M."""
        if self._inverse is None:
            if self.is_zero():
                raise ZeroDivisionError("division by a zero cyclotomic number")
            self._inverse = Cyclotomic(self.field, self.field.reduce(
                _poly_inverse(list(self.coeffs), [Fraction(c) for c in self.field.modulus])))
        return self._inverse

    # --------------------------------------------------------- arithmetic
    def __add__(self, other: Any) -> Any:
        o = self._lift(other)
        if o is None:
            return NotImplemented
        den = math.lcm(self.den, o.den)
        fa, fb = den // self.den, den // o.den
        return Cyclotomic._make(self.field, [a * fa + b * fb for a, b in zip(self.num, o.num)],
                                den)

    __radd__ = __add__

    def __neg__(self) -> Cyclotomic:
        return Cyclotomic._make(self.field, [-a for a in self.num], self.den)

    def __sub__(self, other: Any) -> Any:
        o = self._lift(other)
        return NotImplemented if o is None else self + (-o)

    def __rsub__(self, other: Any) -> Any:
        o = self._lift(other)
        return NotImplemented if o is None else o + (-self)

    def __mul__(self, other: Any) -> Any:
        if isinstance(other, numbers.Rational):
            q = Fraction(other)
            return Cyclotomic._make(self.field, [a * q.numerator for a in self.num],
                                    self.den * q.denominator)
        o = self._lift(other)
        if o is None:
            return NotImplemented
        d = len(self.num)
        if self.is_zero() or o.is_zero():
            return Cyclotomic._make(self.field, [0] * d, 1)
        prod = [0] * (2 * d - 1)
        for i, a in enumerate(self.num):
            if a:
                for j, b in enumerate(o.num):
                    if b:
                        prod[i + j] += a * b
        return Cyclotomic._make(self.field, self.field.reduce_int(prod), self.den * o.den)

    __rmul__ = __mul__

    def __truediv__(self, other: Any) -> Any:
        if isinstance(other, numbers.Rational):
            q = Fraction(other)
            if not q:
                raise ZeroDivisionError("division by zero")
            sign = 1 if q > 0 else -1
            return Cyclotomic._make(self.field, [a * q.denominator * sign for a in self.num],
                                    self.den * abs(q.numerator))
        o = self._lift(other)
        return NotImplemented if o is None else self * o.inverse()

    def __rtruediv__(self, other: Any) -> Any:
        o = self._lift(other)
        return NotImplemented if o is None else o * self.inverse()

    # --------------------------------------------------------- comparison
    def __eq__(self, other: object) -> bool:
        o = self._lift(other)
        if o is None:
            return NotImplemented
        return self.num == o.num and self.den == o.den

    def __hash__(self) -> int:
        r = self.rational()
        return hash(r) if r is not None else hash((self.field.order, self.num, self.den))

    def __lt__(self, other: Any) -> bool:
        return (self - other).sign() < 0

    def __le__(self, other: Any) -> bool:
        return (self - other).sign() <= 0

    def __gt__(self, other: Any) -> bool:
        return (self - other).sign() > 0

    def __ge__(self, other: Any) -> bool:
        return (self - other).sign() >= 0

    def __abs__(self) -> Cyclotomic:
        return -self if self.sign() < 0 else self

    def __float__(self) -> float:
        """Approximate real part (for display; never used in a decision)."""
        m = self.field.order
        return float(sum(float(Fraction(c, self.den)) * math.cos(2 * math.pi * k / m)
                         for k, c in enumerate(self.num)))

    def __repr__(self) -> str:
        terms = [f"{c}*z^{k}" if k else str(c) for k, c in enumerate(self.coeffs) if c]
        return f"({' + '.join(terms) or '0'} in Q(zeta_{self.field.order}))"


def _poly_inverse(a: list[Fraction], m: list[Fraction]) -> list[Fraction]:
    """u with u·a ≡ 1 (mod m) over Q (m irreducible, a ≢ 0); low-to-high coefficients."""

    def trim(p: list[Fraction]) -> list[Fraction]:
        while p and p[-1] == 0:
            p.pop()
        return p

    def sub_mul(p: list[Fraction], q: list[Fraction], c: Fraction, shift: int) -> list[Fraction]:
        out = p + [Fraction(0)] * max(0, len(q) + shift - len(p))
        for i, x in enumerate(q):
            out[i + shift] -= c * x
        return trim(out)

    # Invariant: s_r * a ≡ r (mod m) for both rows.
    r0, s0 = trim(list(m)), [Fraction(0)]
    r1, s1 = trim(list(a)), [Fraction(1)]
    while len(r1) > 1:
        q_r, q_s = r0, s0
        while len(q_r) >= len(r1):
            c, shift = q_r[-1] / r1[-1], len(q_r) - len(r1)
            q_r, q_s = sub_mul(q_r, r1, c, shift), sub_mul(q_s, s1, c, shift)
        r0, s0, r1, s1 = r1, s1, q_r, q_s
    return [x / r1[0] for x in s1]
