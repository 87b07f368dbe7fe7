"""Method ``box-invariant``: a set per automaton state, closed under every symbol,
read out correctly with a strict margin; every inclusion re-checked in Fractions.

Domains (``cert["domain"]``):

* ``chart-box`` (linear models).  The certificate gives a basis B, its
  inverse, a pivot p and per state q a box [lo_q, hi_q] with lo_p = hi_p = 1.
  K_q = {λ B⁻¹ y : λ > 0, lo_q ≤ y ≤ hi_q} is a cone (positive scaling changes
  neither the normalization nor the argmax).  Checked here, with
  M_a = B A_a B⁻¹ computed here:
    1. B B⁻¹ = I;
    2. h0 ∈ K_q0 (for ``float32-step``: the whole box of float32 roundings of h0);
    3. for every boxed q and symbol a, with t = δ(a, q) boxed too:
       min_box M_p·y > 0, min_box (M_i − lo_t,i M_p)·y ≥ 0 and
       min_box (hi_t,i M_p − M_i)·y ≥ 0 for i ≠ p — then A_a K_q ⊆ K_t;
    4. every rival c of the right label r: min_box ((R_r − R_c) B⁻¹)·y > 0.
  The minimum of a linear form over a box is exact interval arithmetic.
  A box may carry ``"sign": -1``: its set is −K (the cone over the box, negated),
  so a state set and its negative (a parity network's even and odd states) share
  one chart.  With s_q the sign of box q, condition 2 is s_q0 h0 ∈ K_q0, 3 is
  checked for s_q s_t M_a and 4 for s_q (R_r − R_c): A_a (s_q K_q) ⊆ s_t K_t is
  A_a K_q ⊆ s_q s_t K_t, and argmax over −K reads the negated scores.
  ``"stride": k``: 3 is checked for every word of length k instead of every
  symbol (the successors list one box per word, :mod:`.stride`), and 4 also
  for A_w K_q and the state δ(q, w) of every word w with 0 < |w| < k; for
  ``float32-step`` with the stray of a float32 run of w
  (:func:`.stride.word_error32`) in place of one step's error.
* ``minmax-box`` (minmax-dense models).  x ↦ (R_a ⊗ x) ⊕ s_a is monotone, so
  the image of the box [lo, hi] lies in [f(lo), f(hi)]; checked: x0 in the
  box of q0, [f(lo_q), f(hi_q)] ⊆ box of δ(a, q), and the readout's lowest
  right score beats the highest rival score (strictly for a rival listed
  before the right label, as argmax takes the first maximum).

Rounding model ``float32-select`` (minmax-box only): every number of the
model (R, s, readout, x0) is checked here to be exactly a float32 value.  A
max-min step and readout only select and compare among those numbers, so a
float32 run computes exactly what the exact run computes and the exact claim
covers it (any evaluation order: max and min need no rounding).

Rounding model ``float32-step`` (chart-box only): the claim also covers
h_t = fl(fl(A h_{t-1}) / max_i |fl(A h_{t-1})_i|) with the float32 matrices
``model32`` (checked here to be the float32 roundings of the exact model),
every dot product in any order (with or without FMA, gradual underflow
included), and labels = first argmax of fl(R h).  Each step then lies within
e of s·A h with |e| ≤ c1 |A| 1 + c2 (|h| ≤ 1 after normalization), which is
added to every condition of 3 and 4, scaled by N_q = max over K_q's chart of
‖B⁻¹ y‖∞ (so that y_p ≥ 1 / N_q when ‖h‖∞ = 1).
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .chart_box import check_chart
from .core import CertificateError
from .linear_model import H0_ABS, TINY, U32, _gamma, check_float32_magnitudes, readout_loss32
from .minmax_box import _maxmin_apply, check_minmax
from .slice_box import check_slice

# Moved to .linear_model and the domain modules; still importable from here.
__all__ = ["H0_ABS", "TINY", "U32", "_gamma", "_maxmin_apply", "check_float32_magnitudes",
           "check_invariants", "readout_loss32"]

DOMAINS: dict[str, Callable[[dict[str, Any]], str]] = {
    "chart-box": check_chart, "slice-box": check_slice, "minmax-box": check_minmax}


def check_invariants(cert: dict[str, Any]) -> str:
    """Re-check a ``box-invariant`` certificate; a one-line summary or CertificateError."""
    check = DOMAINS.get(cert["domain"])
    if check is None:
        raise CertificateError(f"unknown invariant domain {cert['domain']!r}")
    return check(cert)
