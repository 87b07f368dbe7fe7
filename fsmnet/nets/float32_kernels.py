"""The plain loops of the float32 reference step (:mod:`fsmnet.nets.float32`), compiled by
Numba so that 10^6 symbols take milliseconds.

Every variable here is a float32 and Numba compiles without ``fastmath``, so each
product, sum and quotient is one IEEE float32 operation, rounded to nearest, in
the order written: no reassociation and no fused multiply-add (LLVM contracts
a*b+c only under fast-math flags).  ``tests/test_float32_reference.py`` holds
these loops to a second implementation in pure Python (float32 emulated by
``struct``), bit for bit.
"""

from __future__ import annotations

import numpy as np
from numba import njit

OVERFLOW = -1


@njit(cache=True)
def normalize32(g: np.ndarray) -> np.ndarray:
    """g / max_i |g_i| in float32 (the zero vector unchanged)."""
    m = np.float32(0.0)
    for i in range(g.shape[0]):
        a = abs(g[i])
        if a > m:
            m = a
    if m == np.float32(0.0):
        return g
    out = np.empty_like(g)
    for i in range(g.shape[0]):
        out[i] = g[i] / m
    return out


@njit(cache=True)
def _dot_rows(a: np.ndarray, h: np.ndarray, out: np.ndarray) -> bool:
    """out_i = Σ_j a[i, j] h[j], left to right in float32; False if a result is not finite."""
    finite = True
    for i in range(a.shape[0]):
        s = np.float32(0.0)
        for j in range(a.shape[1]):
            s = s + a[i, j] * h[j]
        out[i] = s
        if not np.isfinite(s):
            finite = False
    return finite


@njit(cache=True)
def _label(readout: np.ndarray, h: np.ndarray, scores: np.ndarray) -> int:
    if not _dot_rows(readout, h, scores):
        return OVERFLOW
    best = 0
    for c in range(1, scores.shape[0]):
        if scores[c] > scores[best]:
            best = c
    return best


@njit(cache=True)
def linear_trace(mats: np.ndarray, readout: np.ndarray, word: np.ndarray, h: np.ndarray,
                 overflowed: bool, out: np.ndarray) -> bool:
    """Labels of h (out[0]) and after every symbol of ``word`` (out[1:]); ``h`` is updated
    in place to the last state.  Returns whether the run has overflowed."""
    scores = np.empty(readout.shape[0], dtype=np.float32)
    g = np.empty_like(h)
    over = overflowed
    out[0] = OVERFLOW if over else _label(readout, h, scores)
    for t in range(word.shape[0]):
        if not over:
            if _dot_rows(mats[word[t]], h, g):
                h[:] = normalize32(g)
            else:
                over = True
        out[t + 1] = OVERFLOW if over else _label(readout, h, scores)
    return over


@njit(cache=True)
def step_state(mats: np.ndarray, symbol: int, h: np.ndarray, out: np.ndarray) -> bool:
    """out = the next float32 state after ``symbol``; False (out unspecified) on overflow."""
    g = np.empty_like(h)
    if not _dot_rows(mats[symbol], h, g):
        return False
    out[:] = normalize32(g)
    return True


@njit(cache=True)
def label_of(readout: np.ndarray, h: np.ndarray) -> int:
    """The float32 label of state ``h`` (OVERFLOW if a score is not finite)."""
    return _label(readout, h, np.empty(readout.shape[0], dtype=np.float32))
