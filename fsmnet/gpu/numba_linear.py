"""Numba kernel for linear-recurrence networks: h_t = A[x_t] h_{t-1}.

On two cores a parallel scan of H×H matrices costs H³ a symbol against H² for
the sequential chase, so the CPU path is the sequential mat-vec, renormalized
every step by its largest entry (exactly as the reference evaluator does, so
the readouts are the same floats).
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def run_linear(mats, readout, symbols, h, outputs):  # pragma: no cover - jitted
    """Returns the last (normalized) state; writes argmax labels if ``outputs`` non-empty."""
    size = h.shape[0]
    classes = readout.shape[0]
    write = outputs.shape[0] > 0
    tmp = np.empty(size)
    for t in range(symbols.shape[0]):
        a = mats[symbols[t]]
        scale = 0.0
        for i in range(size):
            acc = 0.0
            for j in range(size):
                acc += a[i, j] * h[j]
            tmp[i] = acc
            if abs(acc) > scale:
                scale = abs(acc)
        if scale > 0.0:
            for i in range(size):
                h[i] = tmp[i] / scale
        else:
            for i in range(size):
                h[i] = tmp[i]
        if write:
            best = 0
            best_score = -np.inf
            for c in range(classes):
                sc = 0.0
                for j in range(size):
                    sc += readout[c, j] * h[j]
                if sc > best_score:
                    best_score = sc
                    best = c
            outputs[t] = best
    return h
