"""Bounds of a linear-fractional map over a box or a slice of one, compiled by Numba.

For rows M_i and the pivot row d = M_p of a chart matrix M, and a box
lo ≤ y ≤ hi on which d·y stays positive, :func:`ratio_bounds` gives

    min and max over the box of (M_i·y) / (d·y)   for every row i,

and :func:`slice_bounds` the same for (A h)_i / φ·(A h) over the slice box
{φ·h = 1, lo ≤ h ≤ hi}, where each linear minimum is a fractional knapsack
(greedy on c_k / φ_k, Dantzig 1957).  Both use Dinkelbach's iteration
(Dinkelbach 1967, "On nonlinear fractional programming"): for a ratio λ, the
minimum of (M_i − λ d)·y over the box is taken at a vertex (lo_j where the
coefficient is ≥ 0, hi_j elsewhere; on a slice, the knapsack's greedy point);
the ratio there is the next λ, and λ stops falling at the minimum.
Each step costs O(H) per row on a box, O(H log H) on a slice.  The same greedy
gives the slice-box certificate's multipliers (:func:`knapsack_duals`).

The box search calls these hundreds of thousands of times on small matrices,
where NumPy's overhead per call would outweigh the arithmetic.  Nothing here
is trusted: the boxes found are rounded outwards and re-checked in exact
arithmetic by :mod:`fsmnet.proofs.checker.invariants`.
"""

from __future__ import annotations

import numpy as np
from numba import njit

STEPS = 30  # Dinkelbach converges in a few steps on a box (finitely many vertices)


@njit(cache=True)
def _ratio(a: np.ndarray, i: int, sign: float, d: np.ndarray, h: np.ndarray) -> float:
    """(sign·A_i·h) / (d·h)."""
    num = 0.0
    den = 0.0
    for k in range(d.shape[0]):
        num += sign * a[i, k] * h[k]
        den += d[k] * h[k]
    return num / den


@njit(cache=True)
def _extreme(a: np.ndarray, i: int, d: np.ndarray, sign: float, lo: np.ndarray,
             hi: np.ndarray, start: np.ndarray, phi: np.ndarray, on_slice: bool) -> float:
    """min of (sign·A_i·h)/(d·h) over the box, or over the slice box φ·h = 1 when
    ``on_slice``, by Dinkelbach steps from ``start`` (a point of the domain: a start
    outside it could stop below the minimum)."""
    h = start.copy()
    lam = _ratio(a, i, sign, d, h)
    coef = np.empty(d.shape[0])
    for _ in range(STEPS):
        for k in range(d.shape[0]):
            coef[k] = sign * a[i, k] - lam * d[k]
        if on_slice:
            _knapsack_argmin(coef, phi, lo, hi, h)
        else:  # a linear form's minimum over a box: each coordinate at its best end
            for k in range(d.shape[0]):
                h[k] = lo[k] if coef[k] >= 0 else hi[k]
        new = _ratio(a, i, sign, d, h)
        if new >= lam - 1e-15 * (1 + abs(lam)):
            break
        lam = min(lam, new)
    return lam


@njit(cache=True)
def ratio_bounds(m: np.ndarray, p: int, lo: np.ndarray, hi: np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray, float]:
    """(lower, upper, min of d·y): per row i, the bounds of (M_i·y)/(M_p·y) over the box,
    and the least denominator (the caller needs it positive)."""
    d = m[p]
    den_min = 0.0
    for j in range(d.shape[0]):
        den_min += d[j] * lo[j] if d[j] >= 0 else d[j] * hi[j]
    middle = (lo + hi) / 2
    unused = np.empty(0)
    lower = np.empty(m.shape[0])
    upper = np.empty(m.shape[0])
    for i in range(m.shape[0]):
        lower[i] = _extreme(m, i, d, 1.0, lo, hi, middle, unused, False)
        upper[i] = -_extreme(m, i, d, -1.0, lo, hi, middle, unused, False)
    return lower, upper, den_min


@njit(cache=True)
def _knapsack_argmin(c: np.ndarray, phi: np.ndarray, lo: np.ndarray, hi: np.ndarray,
                     h: np.ndarray) -> float:
    """h := a minimizer of c·h over {φ·h = 1, lo ≤ h ≤ hi}: fill g_k = φ_k h_k greedily
    in the order of c_k / φ_k; a coordinate with φ_k = 0 sits at its own best end.
    Returns the optimal dual μ: the ratio c_k / φ_k of the item that fills the slice
    (0 where none is finite)."""
    n = c.shape[0]
    ratio = np.empty(n)
    need = 1.0
    for k in range(n):
        if phi[k] != 0:
            ratio[k] = c[k] / phi[k]
            need -= min(phi[k] * lo[k], phi[k] * hi[k])
        else:
            ratio[k] = np.inf
            h[k] = lo[k] if c[k] >= 0 else hi[k]
    order = np.argsort(ratio)
    filled = 0.0
    mu = ratio[order[0]]  # the first item's, if the slice is never filled
    found = False
    for k in order:
        if phi[k] != 0:
            glo = min(phi[k] * lo[k], phi[k] * hi[k])
            cap = max(phi[k] * lo[k], phi[k] * hi[k]) - glo
            take = min(max(need - filled, 0.0), cap)
            filled += cap
            h[k] = (glo + take) / phi[k]
        if not found and filled >= need - 1e-300:
            mu = ratio[k]
            found = True
    return mu if np.isfinite(mu) else 0.0


@njit(cache=True)
def knapsack_duals(forms: np.ndarray, phi: np.ndarray, lo: np.ndarray, hi: np.ndarray
                   ) -> np.ndarray:
    """Per row c of ``forms``, the optimal dual μ of min c·h over the slice box
    {φ·h = 1, lo ≤ h ≤ hi}: the multiplier a slice-box certificate writes."""
    h = np.empty(forms.shape[1])
    mu = np.empty(forms.shape[0])
    for r in range(forms.shape[0]):
        mu[r] = _knapsack_argmin(forms[r], phi, lo, hi, h)
    return mu


@njit(cache=True)
def slice_bounds(a: np.ndarray, phi: np.ndarray, lo: np.ndarray, hi: np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray, float]:
    """(lower, upper, min of φ·A h): per row i, the bounds of (A h)_i / φ·(A h) over
    the slice box, and the least denominator."""
    n = a.shape[0]
    d = np.zeros(a.shape[1])
    for r in range(n):
        for k in range(a.shape[1]):
            d[k] += phi[r] * a[r, k]
    h = np.empty(a.shape[1])
    _knapsack_argmin(d, phi, lo, hi, h)
    den = 0.0
    for k in range(a.shape[1]):
        den += d[k] * h[k]
    lower = np.empty(n)
    upper = np.empty(n)
    for i in range(n):
        lower[i] = _extreme(a, i, d, 1.0, lo, hi, h, phi, True)
        upper[i] = -_extreme(a, i, d, -1.0, lo, hi, h, phi, True)
    return lower, upper, den
