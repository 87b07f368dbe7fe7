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


# Label traces of a batch for the torch modules' no-gradient forward
# (fsmnet.train.infer).  One kernel body, no helper calls: a call that passes
# arrays costs reference counting even when inlined (10x here).  Reassociation and
# contraction let the dot products vectorize (2x at H = 24); NaN and infinity keep
# their IEEE meaning, so a diverging run gives the labels torch's argmax gives.
DENSE, REAL_DIAG, COMPLEX_PAIRS, HOUSEHOLDER = 0, 1, 2, 3


@njit(cache=True, nogil=True, fastmath={"reassoc", "contract", "nsz", "arcp"})
def label_traces(kind, mats, e_idx, e_val, ell, readout, r_idx, r_val, r_ell, words, h0,
                 labels):  # pragma: no cover - jitted
    """labels[b, t] = first argmax of readout · h_t for t = 0..T, h_t = A[w_{t-1}] h_{t-1}
    rescaled by max|h_t| (a positive factor: no argmax changes).

    ``kind`` DENSE: ``mats`` (S, H, H); with ``ell`` the same matrices as K entries
    per row (ELLPACK, k-major so the row loop is contiguous): row i of A_s is the sum
    over k of ``e_val[s, k, i] · h[e_idx[s, k, i]]`` (padding has value 0).
    Compiled networks' matrices have K = 1-4 nonzeros a row.  REAL_DIAG: ``mats``
    (S, 1, H) diagonals.  COMPLEX_PAIRS: ``mats`` (S, 2, H/2), the pair
    (h[2k], h[2k+1]) times ``mats[s, 0, k] + i·mats[s, 1, k]``.  HOUSEHOLDER:
    A_s = F_n ··· F_1, F_j = I − β k kᵀ with unit keys ``mats[s, j]`` (S, n, H) and
    β = ``e_val[s, 0, j]``: 2nH a step instead of H² (DeltaNet/DeltaProduct).  The
    readout (C, H) likewise, ``r_idx``/``r_val`` (K_r, C) with ``r_ell``.
    """
    batch, length = words.shape
    size = h0.shape[0]
    classes = readout.shape[0]
    h = np.empty(size)
    tmp = np.empty(size)
    score = np.empty(classes)
    for b in range(batch):
        for i in range(size):
            tmp[i] = h0[i]
        for t in range(length + 1):
            if t > 0:
                s = words[b, t - 1]
                if kind == DENSE and ell:
                    for i in range(size):
                        tmp[i] = e_val[s, 0, i] * h[e_idx[s, 0, i]]
                    for k in range(1, e_idx.shape[1]):
                        for i in range(size):
                            tmp[i] += e_val[s, k, i] * h[e_idx[s, k, i]]
                elif kind == DENSE:
                    for i in range(size):
                        acc = 0.0
                        for j in range(size):
                            acc += mats[s, i, j] * h[j]
                        tmp[i] = acc
                elif kind == REAL_DIAG:
                    for i in range(size):
                        tmp[i] = mats[s, 0, i] * h[i]
                elif kind == HOUSEHOLDER:
                    for i in range(size):
                        tmp[i] = h[i]
                    for j in range(mats.shape[1]):  # F_1 first
                        d = 0.0
                        for i in range(size):
                            d += mats[s, j, i] * tmp[i]
                        d *= e_val[s, 0, j]
                        for i in range(size):
                            tmp[i] -= d * mats[s, j, i]
                else:
                    for k in range(size // 2):
                        x, y = h[2 * k], h[2 * k + 1]
                        c, d = mats[s, 0, k], mats[s, 1, k]
                        tmp[2 * k] = c * x - d * y
                        tmp[2 * k + 1] = d * x + c * y
            scale = 0.0
            for i in range(size):
                if abs(tmp[i]) > scale:
                    scale = abs(tmp[i])
            inv = 1.0 / scale if scale > 0.0 else 1.0
            for i in range(size):
                h[i] = tmp[i] * inv
            if r_ell:
                for c in range(classes):
                    score[c] = r_val[0, c] * h[r_idx[0, c]]
                for k in range(1, r_idx.shape[0]):
                    for c in range(classes):
                        score[c] += r_val[k, c] * h[r_idx[k, c]]
            else:
                for c in range(classes):
                    acc = 0.0
                    for j in range(size):
                        acc += readout[c, j] * h[j]
                    score[c] = acc
            best = 0
            for c in range(1, classes):
                # torch.argmax takes the first NaN as the largest; so does this.
                if score[c] > score[best] or (score[c] != score[c] and score[best] == score[best]):
                    best = c
            labels[b, t] = best
    return labels
