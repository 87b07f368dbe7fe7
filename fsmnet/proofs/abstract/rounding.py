"""The ``--float32`` rounding model: which float32 executions a certificate covers.

Covered (checked by :mod:`fsmnet.proofs.checker.invariants`, ``float32-step``):
the *step semantics* of a linear recurrence run in float32,

    g = fl(A32 · h),   h' = fl(g / max_i |g_i|),   label = first argmax fl(R32 · h),

where A32 and R32 are the float32 roundings (to nearest) of the exact model,
h0 is rounded to float32 and normalized in float32 (assumed: the file's
largest |h0| entry is at least 2⁻⁸, so its underflow stays below 2⁻¹⁴⁰ of the
normalized state), and every dot product may
be summed in **any order**, with or without fused multiply-add, with gradual
underflow (Higham's bound |fl(a·h) − a·h| ≤ γ_n |a|·|h| with γ_n = nu/(1 − nu),
u = 2⁻²⁴, plus 2⁻¹⁵⁰ per product for underflow).  Outward rounding: every
bound is added to the side that weakens the claim.

Not covered: fast-path scans that multiply the matrices of several symbols
first (A_{x_t} ⋯ A_{x_1}, as the parallel scan of :mod:`fsmnet.gpu` does)
and normalize only now and then, iterative solvers (the fixed-point
iteration itself; only the solved matrix A is covered), float16/bfloat16,
and any run that skips the normalization.

This module holds the search side only: approximate float widening so that
the boxes found absorb the rounding error; soundness is the checker's.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any

import numpy as np

U32 = 2.0 ** -24


def gamma(n: int) -> float:
    return n * U32 / (1 - n * U32)


def round32(x: Any) -> float:
    """Nearest float32 of a rational (through its double, as the checker does)."""
    return float(np.float32(float(Fraction(x))))


class Float32Model:
    """Float32 matrices and the widening of one chart step for the search."""

    def __init__(self, mats_exact: Any, readout_exact: Any, h0: Any = None) -> None:
        self.h0 = None if h0 is None else np.asarray(h0, dtype=np.float64)  # as filed
        self.mats32 = np.vectorize(round32, otypes=[np.float64])(np.asarray(mats_exact,
                                                                             dtype=object))
        self.readout32 = np.vectorize(round32, otypes=[np.float64])(
            np.asarray(readout_exact, dtype=object))

    def chart_widening(self, a: np.ndarray, b: np.ndarray, binv: np.ndarray, p: int,
                       err: np.ndarray | None = None
                       ) -> Callable[[np.ndarray, np.ndarray, float], np.ndarray]:
        """The float estimate (generous) of one step's rounding error in chart
        coordinates, as a function of the box (lo, hi) and the image's least
        denominator; ``err`` replaces the one-step error of ``a`` (a stride's word:
        :mod:`.strided`).  What depends on the symbol only is computed here, once."""
        if err is None:
            err = (gamma(len(a)) + U32) * np.abs(a).sum(1) * 1.01 + 1e-40
        abs_binv = np.abs(binv)
        spread = np.abs(b) @ err
        pivot_spread = float(np.abs(b[p]) @ err)

        def widening(lo: np.ndarray, hi: np.ndarray, den: float) -> np.ndarray:
            t = np.maximum(np.abs(lo), np.abs(hi))
            big = max(float((abs_binv @ t).max()), 1e-300)
            out: np.ndarray = 2.0 * big * (spread + t * pivot_spread) / max(den, 1e-300)
            return out

        return widening

    def slice_error(self, a: np.ndarray, phi: np.ndarray, lo: np.ndarray, hi: np.ndarray,
                    den: float, image: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
        """The same for a slice box {φ·h = 1, lo ≤ h ≤ hi}: the checker's margin
        N (|e_k| + |t_k| |φ|·|e|) over the image's denominator, doubled (t: the image)."""
        err = (gamma(len(a)) + U32) * np.abs(a).sum(1) * 1.01 + 1e-40
        big = max(float(np.abs(lo).max()), float(np.abs(hi).max()))
        t = np.maximum(np.abs(image[0]), np.abs(image[1])) * 1.01
        out: np.ndarray = 2.0 * big * (err + t * float(np.abs(phi) @ err)) / max(den, 1e-300)
        return out
