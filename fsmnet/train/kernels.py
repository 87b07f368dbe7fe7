"""Numba kernels for the small integer and per-label work of a CPU training step.

At batch 64 a CPU training step of a diagonal class is bound by the number of
torch ops, not by arithmetic: inside a step each op on a small tensor costs
10-30 µs (the dispatcher's code and data are out of cache after the big passes),
and finding the distinct count vectors (keys, per-length sort, ids, scatter,
decode, label counts) took ~16 ops, the cross-entropy over label-major logits ~14
(docs/performance.md, "Training modules").  Each is one kernel here, a loop over
B·(T + 1) prefixes or D·C logits, the same function (tests/test_train_losses.py
compares them with torch and brute force).

The kernels compile on first use (``cache=True`` keeps the machine code on disk).
"""

from __future__ import annotations

import numpy as np
from numba import njit

_GOLDEN = np.uint64(11400714819323198485)  # 2^64 / φ: Fibonacci hashing


@njit(cache=True, nogil=True)
def count_table(words, labels, n_symbols, n_labels, bits, with_labels, like):  # pragma: no cover
    """Distinct Parikh vectors of every prefix of ``words`` (B, T) and their label counts.

    Returns ``c1t`` (S + 1, D) of the dtype of ``like``, the counts of vector d in column d
    and a last row of ones; ``inverse`` (B, T + 1) int64, the vector of each prefix;
    ``weights`` (C, D), how often label c occurs among the prefixes of vector d (zeros
    unless ``with_labels``); ``parity`` (D,) int64, Σ_s (c_s mod 2)·2^s.  Vectors are
    numbered in order of first occurrence, prefix length first, then batch row.
    Prefixes of different lengths never share a vector (Σ_s c_s = t), so each length
    has its own open-addressing table of the packed keys Σ_s c_s·2^(bits·s).
    """
    batch, length = words.shape
    log_size = 1
    while (1 << log_size) < 2 * batch:
        log_size += 1
    size = 1 << log_size
    shift = np.uint64(64 - log_size)
    slot_key = np.zeros(size, np.int64)
    slot_id = np.zeros(size, np.int64)
    slot_gen = np.full(size, -1, np.int64)
    key = np.zeros(batch, np.int64)
    inverse = np.empty((batch, length + 1), np.int64)
    n_distinct = 0
    for t in range(length + 1):
        for b in range(batch):
            if t > 0:
                key[b] += np.int64(1) << (bits * words[b, t - 1])
            k = key[b]
            h = np.int64((np.uint64(k) * _GOLDEN) >> shift)
            while True:
                if slot_gen[h] != t:
                    slot_gen[h] = t
                    slot_key[h] = k
                    slot_id[h] = n_distinct
                    n_distinct += 1
                    break
                if slot_key[h] == k:
                    break
                h = (h + 1) & (size - 1)
            inverse[b, t] = slot_id[h]
    c1t = np.ones((n_symbols + 1, n_distinct), like.dtype)
    weights = np.zeros((n_labels, n_distinct), like.dtype)
    parity = np.zeros(n_distinct, np.int64)
    seen = np.zeros(n_distinct, np.bool_)
    mask = (np.int64(1) << bits) - 1
    key[:] = 0
    for t in range(length + 1):
        for b in range(batch):
            if t > 0:
                key[b] += np.int64(1) << (bits * words[b, t - 1])
            d = inverse[b, t]
            if with_labels:
                weights[labels[b, t], d] += 1.0
            if not seen[d]:
                seen[d] = True
                p = 0
                for s in range(n_symbols):
                    c = (key[b] >> (bits * s)) & mask
                    c1t[s, d] = c
                    p |= (c & 1) << s
                parity[d] = p
    return c1t, inverse, weights, parity


# Reassociation and contraction let the loops over columns vectorize; NaN and infinity
# keep their IEEE meaning (a diverged run reports a NaN loss, as torch's would).
_FAST = {"reassoc", "contract", "nsz", "arcp"}


@njit(cache=True, nogil=True, fastmath=_FAST)
def grouped_ce(zt, weights, total):  # pragma: no cover - jitted
    """Σ_d Σ_c w[c, d]·(lse(zt[:, d]) − zt[c, d]) / total and its gradient
    (n_d·softmax(zt[:, d]) − w[:, d]) / total, n_d = Σ_c w[c, d], for label-major
    logits ``zt`` (C, D).  The loss is summed in float64."""
    n_labels, n_rows = zt.shape
    top = zt[0].copy()
    for c in range(1, n_labels):
        for d in range(n_rows):
            top[d] = max(top[d], zt[c, d])
    for d in range(n_rows):
        if not np.isfinite(top[d]):
            top[d] = 0.0
    grad = np.empty_like(zt)
    s = np.zeros_like(top)
    n = np.zeros_like(top)
    acc = 0.0
    for c in range(n_labels):
        for d in range(n_rows):
            e = np.exp(zt[c, d] - top[d])
            grad[c, d] = e
            s[d] += e
            n[d] += weights[c, d]
            acc -= np.float64(weights[c, d] * zt[c, d])
    inv_total = 1.0 / total
    for d in range(n_rows):
        acc += np.float64(n[d] * (np.log(s[d]) + top[d]))
        s[d] = n[d] / s[d] * inv_total
    for c in range(n_labels):
        for d in range(n_rows):
            grad[c, d] = grad[c, d] * s[d] - weights[c, d] * inv_total
    return acc * inv_total, grad


@njit(cache=True, nogil=True, fastmath=_FAST)
def label_ce(zt, labels, total):  # pragma: no cover - jitted
    """:func:`grouped_ce` with one label per column: ``labels`` (N,) class ids."""
    n_labels, n_rows = zt.shape
    top = zt[0].copy()
    for c in range(1, n_labels):
        for d in range(n_rows):
            top[d] = max(top[d], zt[c, d])
    for d in range(n_rows):
        if not np.isfinite(top[d]):
            top[d] = 0.0
    grad = np.empty_like(zt)
    s = np.zeros_like(top)
    for c in range(n_labels):
        for d in range(n_rows):
            e = np.exp(zt[c, d] - top[d])
            grad[c, d] = e
            s[d] += e
    inv_total = 1.0 / total
    acc = 0.0
    for d in range(n_rows):
        y = labels[d]
        acc += np.float64(np.log(s[d]) + top[d] - zt[y, d])
        s[d] = inv_total / s[d]
    for c in range(n_labels):
        for d in range(n_rows):
            grad[c, d] = grad[c, d] * s[d]
    for d in range(n_rows):
        grad[labels[d], d] -= inv_total
    return acc * inv_total, grad


@njit(cache=True, nogil=True)
def sign_rows(parity, negative, sign0):  # pragma: no cover - jitted
    """Channel signs (K, D) of real diagonal states: sign(h0_k)·Π_s sign(d_sk)^{c_s},
    which depends only on the parity pattern p_d = Σ_s (c_s mod 2)·2^s of vector d
    (``parity`` (D,), ``negative`` (S, K) the channels where d_sk < 0).  One table row
    per pattern that occurs, then one pick per vector."""
    n_sym, width = negative.shape
    n_rows = parity.shape[0]
    n_patterns = 1 << n_sym
    table = np.empty((n_patterns, width), sign0.dtype)
    done = np.zeros(n_patterns, np.bool_)
    out = np.empty((width, n_rows), sign0.dtype)
    for d in range(n_rows):
        p = parity[d]
        if not done[p]:
            done[p] = True
            for k in range(width):
                flips = 0
                for s in range(n_sym):
                    if (p >> s) & 1 and negative[s, k]:
                        flips += 1
                table[p, k] = -sign0[k] if flips & 1 else sign0[k]
        for k in range(width):
            out[k, d] = table[p, k]
    return out


@njit(cache=True, nogil=True, fastmath=_FAST)
def pair_forward(h, p, eps):  # pragma: no cover - jitted
    """The non-GEMM part of the two-block readout (fsmnet.train.pair_readout): block
    norms (2, N), s = 1/(‖h0‖‖h1‖) (N,) and the label-major scores
    z[c, n] = s·Σ_i p[n, c·b + i]·h0[n, i], from the block-major states ``h`` (2, N, b)
    and the products p[n, c·b + i] = (R_c h1[n])_i (N, C·b)."""
    n_rows, size = h.shape[1], h.shape[2]
    n_labels = p.shape[1] // size
    norms = np.empty((2, n_rows), h.dtype)
    scale = np.empty(n_rows, h.dtype)
    z = np.empty((n_labels, n_rows), h.dtype)
    for n in range(n_rows):
        a = 0.0
        b = 0.0
        for i in range(size):
            a += h[0, n, i] * h[0, n, i]
            b += h[1, n, i] * h[1, n, i]
        a = max(np.sqrt(a), eps)
        b = max(np.sqrt(b), eps)
        norms[0, n] = a
        norms[1, n] = b
        s = 1.0 / (a * b)
        scale[n] = s
        for c in range(n_labels):
            acc = 0.0
            for i in range(size):
                acc += p[n, c * size + i] * h[0, n, i]
            z[c, n] = acc * s
    return z, norms, scale


@njit(cache=True, nogil=True, fastmath=_FAST)
def pair_backward(h, p, norms, scale, z, grad):  # pragma: no cover - jitted
    """The non-GEMM part of the two-block readout's backward.  With gs = s·G and
    δ = Σ_c G_c z_c: grad_h (2, N, b) holds ∂/∂h0 = Σ_c gs_c (R_c h1) − δ h0/‖h0‖² and
    −δ h1/‖h1‖² (the caller adds the GEMM x·R to the second block), and
    x[n, c·b + i] = gs_c·h0[n, i] (N, C·b), the left factor of both GEMMs."""
    n_rows, size = h.shape[1], h.shape[2]
    n_labels = p.shape[1] // size
    grad_h = np.empty_like(h)
    x = np.empty_like(p)
    for n in range(n_rows):
        dot = 0.0
        for c in range(n_labels):
            dot += grad[c, n] * z[c, n]
        c0 = dot / (norms[0, n] * norms[0, n])
        c1 = dot / (norms[1, n] * norms[1, n])
        for i in range(size):
            grad_h[0, n, i] = -c0 * h[0, n, i]
            grad_h[1, n, i] = -c1 * h[1, n, i]
        for c in range(n_labels):
            gs = grad[c, n] * scale[n]
            for i in range(size):
                grad_h[0, n, i] += gs * p[n, c * size + i]
                x[n, c * size + i] = gs * h[0, n, i]
    return grad_h, x
