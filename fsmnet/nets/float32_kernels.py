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


@njit(cache=True)
def _contract(cur: np.ndarray, h: np.ndarray, start: int, size: int) -> np.ndarray:
    """cur viewed as (len/size, size), each row dotted with h[start:start+size] left to
    right from 0 in float32."""
    out = np.empty(cur.shape[0] // size, dtype=np.float32)
    for k in range(out.shape[0]):
        s = np.float32(0.0)
        for j in range(size):
            s = s + cur[k * size + j] * h[start + j]
        out[k] = s
    return out


@njit(cache=True)
def _block_label(readout: np.ndarray, h: np.ndarray, starts: np.ndarray,
                 sizes: np.ndarray) -> int:
    cur = readout
    for i in range(sizes.shape[0] - 1, -1, -1):  # the last block first
        cur = _contract(cur, h, starts[i], sizes[i])
    best = 0
    for c in range(cur.shape[0]):
        if not np.isfinite(cur[c]):
            return OVERFLOW
        if cur[c] > cur[best]:
            best = c
    return best


@njit(cache=True)
def block_trace(mats: np.ndarray, moffsets: np.ndarray, starts: np.ndarray, sizes: np.ndarray,
                readout: np.ndarray, word: np.ndarray, h: np.ndarray, overflowed: bool,
                out: np.ndarray) -> bool:
    """The block program: block i's matrix for symbol a, row r, column c is
    mats[moffsets[i] + (a·b + r)·b + c] (b = sizes[i]); its state is h[starts[i]:+b].
    Each block is normalized by its own largest entry."""
    over = overflowed
    out[0] = OVERFLOW if over else _block_label(readout, h, starts, sizes)
    for t in range(word.shape[0]):
        a = word[t]
        for i in range(sizes.shape[0]):
            if over:
                break
            b, so = sizes[i], starts[i]
            g = np.empty(b, dtype=np.float32)
            for r in range(b):
                s = np.float32(0.0)
                base = moffsets[i] + (a * b + r) * b
                for c in range(b):
                    s = s + mats[base + c] * h[so + c]
                g[r] = s
                if not np.isfinite(s):
                    over = True
            if not over:
                h[so:so + b] = normalize32(g)
        out[t + 1] = OVERFLOW if over else _block_label(readout, h, starts, sizes)
    return over
