"""Linear models as the invariant methods read them, and their float32 rounding model.

A ``linear`` model (``network.model``) is h' = normalize(A_a h), label = first
argmax of readout @ h.  :func:`read_linear` parses one; :func:`read_executed`
parses the model a ``box-invariant`` or ``zonotope-invariant`` certificate
covers under its ``rounding``: the exact model for ``exact``, and for
``float32-step`` the float32 matrices ``model32``, checked here to be the
float32 roundings of the exact model (the error bounds below are about those).

The ``float32-step`` bounds (used by :mod:`.invariants` and :mod:`.zonotope`):
with |h| ≤ 1 after normalization, each float32 step lies within e of s·A h with
|e_r| ≤ c1 Σ_j |A_rj| + 2 (H + s_max + 1) 2⁻¹⁴⁹ (:func:`step_error32`), h0's
float32 rounding within γ₂|h0| + H0_ABS of h0 (:func:`h0_radius32`), and a
readout margin loses at most :func:`readout_loss32`.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from .core import CertificateError
from .fields import Matrix, Vector, matrix, vector

U32 = Fraction(1, 2**24)  # unit roundoff of float32
TINY = Fraction(1, 2**149)  # smallest float32 subnormal
# Underflow in rounding h0 to float32 and normalizing it, relative to the normalized
# state; assumes the file's largest |h0| entry is at least 2^-8 (documented).
H0_ABS = Fraction(1, 2**140)
# Round to nearest sends every magnitude from the midpoint between the largest float32
# (2^128 − 2^104) and 2^128 upwards to infinity.
F32_LIMIT = Fraction(2**128 - 2**103)
H0_MIN = Fraction(1, 2**8)  # the smallest largest-|h0| entry H0_ABS is derived for


def _gamma(n: int) -> Fraction:
    return n * U32 / (1 - n * U32)


@dataclass(frozen=True)
class LinearModel:
    """h' = normalize(A_a h) with A_a = ``matrices[a]``; label = first argmax of readout @ h."""

    matrices: tuple[Matrix, ...]
    h0: Vector
    readout: Matrix

    @property
    def dim(self) -> int:
        return len(self.h0)

    def fits(self, n_symbols: int, n_labels: int) -> bool:
        """One matrix per symbol, each row of dim entries, and one readout row per label
        (what the box methods require; zonotopes also require readout rows of dim
        entries: :func:`require_fit` with ``readout``)."""
        dim = self.dim
        return len(self.matrices) == n_symbols and len(self.readout) == n_labels and all(
            len(row) == dim for m in self.matrices for row in m)


def read_linear(model: dict[str, Any]) -> LinearModel:
    """The numbers of a ``linear`` model (its type and sizes are the caller's to check)."""
    return LinearModel(tuple(matrix(m) for m in model["matrices"]), vector(model["h0"]),
                       matrix(model["readout"]))


def require_fit(model: LinearModel, n_symbols: int, n_labels: int, readout: bool = False
                ) -> None:
    """Refuse a model that does not fit the automaton and labels (with ``readout``, also
    a readout row that is not dim entries)."""
    if not model.fits(n_symbols, n_labels) or (
            readout and any(len(row) != model.dim for row in model.readout)):
        raise CertificateError("model and automaton sizes differ")


def _round32(x: Fraction) -> Fraction:
    """Round to the nearest float32 (x is a double in the models this is used on)."""
    try:
        return Fraction(struct.unpack("f", struct.pack("f", float(x)))[0])
    except OverflowError:
        raise CertificateError(f"float32: the model number {float(x):.6g} rounds to "
                               "infinity in float32") from None


def _is_float32(x: Fraction) -> bool:
    """x is exactly a finite float32 value (float(x) rounds, so equality is the test)."""
    try:
        return _round32(x) == x
    except (OverflowError, struct.error):
        return False


def check_float32_magnitudes(mats32: Any, readout32: Any, h0: Any) -> None:
    """Nothing in the float32 step overflows, so the rounding model (relative errors and
    underflow, no infinities) holds on every word.

    A normalized state has ‖h‖∞ ≤ 1 (each entry is fl(g_i / max|g|), and rounding
    is monotone), so every product and partial sum of a row's dot product is at
    most (1 + γ_n) Σ_j |a_j| + n·2⁻¹⁴⁹ in magnitude (Higham, Lemma 3.1 and its
    underflow term), in any summation order; below F32_LIMIT none is infinite.
    h0's float32 rounding must be finite and its largest entry at least H0_MIN,
    the assumption behind H0_ABS.
    """
    dim = len(h0)
    grow = 1 + _gamma(dim)
    for what, rows in (("transition", [r for m in mats32 for r in m]), ("readout", readout32)):
        for row in rows:
            bound = grow * sum((abs(x) for x in row), Fraction(0)) + dim * TINY
            if bound >= F32_LIMIT:
                raise CertificateError(f"float32-step: a {what} row sums to {float(bound):.4g} "
                                       "in magnitude: its float32 dot product can overflow")
    big = max((abs(x) for x in h0), default=Fraction(0))
    if big >= F32_LIMIT:
        raise CertificateError(f"float32-step: h0 entry {float(big):.4g} is infinite in float32")
    if big < H0_MIN:
        raise CertificateError(f"float32-step: the largest |h0| entry {float(big):.4g} is below "
                               "2^-8, outside the rounding model of h0")


def read_executed(cert: dict[str, Any]) -> tuple[LinearModel, bool]:
    """(the linear model the claim is about, whether it is the float32 step): the exact
    model, or for ``float32-step`` the float32 one of ``model32`` (checked to be the
    float32 rounding of the exact model, and free of overflow)."""
    model = cert["network"]["model"]
    if model.get("type") != "linear":
        raise CertificateError("this domain is for linear models")
    exact = read_linear(model)
    rounding = cert["rounding"]
    if rounding == "float32-step":
        m32 = cert["model32"]
        mats32 = tuple(matrix(m) for m in m32["matrices"])
        readout32 = matrix(m32["readout"])
        if mats32 != tuple(_rounded(m) for m in exact.matrices) or \
                readout32 != _rounded(exact.readout):
            raise CertificateError("model32 is not the float32 rounding of the model")
        check_float32_magnitudes(mats32, readout32, exact.h0)
        return LinearModel(mats32, exact.h0, readout32), True
    if rounding != "exact":
        raise CertificateError(f"unknown rounding model {rounding!r}")
    return exact, False


def _rounded(m: Matrix) -> Matrix:
    return tuple(tuple(_round32(x) for x in row) for row in m)


def readout_loss32(right: Sequence[Fraction], rival: Sequence[Fraction],
                   scale: Fraction, dim: int) -> Fraction:
    """What float32 evaluation can take off the margin (right − rival)·h, |h| ≤ scale.

    Each of the two scores is a dot product of ``dim`` terms: γ_dim times the sum
    of |weights| (any summation order), plus the underflow of every product.
    """
    tot = sum((abs(x) + abs(y) for x, y in zip(right, rival)), Fraction(0))
    return scale * (_gamma(dim) * tot + 2 * dim * TINY)


def step_error32(step: Matrix, dim: int) -> list[Fraction]:
    """Per coordinate r, the bound on |e_r| of one float32 step with ``step`` (|h| ≤ 1)."""
    c1 = _gamma(dim) + U32 * (1 + _gamma(dim))
    rows = [sum((abs(x) for x in row), Fraction(0)) for row in step]
    s_max = (1 + _gamma(dim)) * max(rows) + dim * TINY
    return [c1 * r + (dim + s_max + 1) * TINY * 2 for r in rows]


def h0_radius32(h0: Vector) -> list[Fraction]:
    """Per entry, how far h0's normalized float32 rounding lies from h0 (up to a common
    positive scale)."""
    g2 = _gamma(2)
    return [g2 * abs(x) + H0_ABS for x in h0]
