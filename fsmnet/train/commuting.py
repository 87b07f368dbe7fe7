"""Diagonal recurrences through symbol counts: one GEMM instead of a scan.

Diagonal transitions commute, so for one-hot inputs the state after a prefix
depends only on how often each symbol occurs in it (its Parikh vector c ∈ ℕ^S):

    log |h_t| = log |h_0| + Σ_s c_s · log |d_s|
    sign(h_t) = sign(h_0) · Π_s sign(d_s)^{c_s}        (real channels)
    angle(h_t) = angle(h_0) + Σ_s c_s · θ_s            (complex pairs)

so the log-moduli (and angles) of every prefix are one (N, S) × (S, K) matrix
product with the integer count matrix, and prefixes with equal counts have equal
states.  :func:`distinct_counts` finds the distinct count vectors of a batch
(at training lengths 2–10 over 3 symbols, a 64-word batch has ≤ 181 of them for
704 prefixes; at length 64, 2454 for 4160) and :func:`count_states` computes the
states of those only; the module reads them out and gathers the logits, so the
H-wide work is done once per distinct count vector.  Same values as the step loop
:func:`fsmnet.train.scan.diag_loop` up to a positive factor per position (and
rounding), gradients included (tests/test_train_modules.py).

>>> import torch
>>> counts, inverse = distinct_counts(torch.tensor([[0, 1], [1, 0]]), 2)
>>> counts.tolist(), inverse.tolist()
([[0, 0], [1, 0], [0, 1], [1, 1]], [[0, 1, 3], [0, 2, 3]])
"""

from __future__ import annotations

import math
from typing import Any

import torch

Tensor = torch.Tensor


def distinct_counts(words: Tensor, n_symbols: int, dedupe: bool | None = None
                    ) -> tuple[Tensor, Tensor]:
    """(D, S) int64 distinct Parikh vectors of every prefix (the empty one included) and
    (B, T + 1) the index of each prefix's vector among them.

    ``dedupe=False`` skips the search (D = B·(T + 1), each prefix its own row).  The
    default searches when gradients are on (the backward repeats the H-wide work the
    search saves) or when at most half the prefixes can be distinct (a count of
    compositions bounds them); a forward pass over long random words (64 × 200: 10,494
    distinct of 12,864) is faster without the sort (bench/bench_train.py).
    """
    batch, length = words.shape
    counts = torch.zeros(batch, length + 1, n_symbols, dtype=torch.int64, device=words.device)
    if length:
        counts[:, 1:] = torch.nn.functional.one_hot(words.to(torch.int64), n_symbols).cumsum(1)
    flat = counts.view(-1, n_symbols)
    if dedupe is None:
        dedupe = (torch.is_grad_enabled()
                  or 2 * _distinct_bound(batch, length, n_symbols) <= flat.shape[0])
    if not dedupe:
        return flat, torch.arange(flat.shape[0], device=words.device).view(batch, length + 1)
    base = length + 1
    if n_symbols * (base.bit_length()) <= 62:
        # Exact integer key (counts are < base): a 1-D unique is far cheaper than rows.
        radix = base ** torch.arange(n_symbols, device=words.device, dtype=torch.int64)
        keys, inverse = torch.unique(flat @ radix, return_inverse=True)
        distinct = (keys[:, None] // radix) % base
    else:
        distinct, inverse = torch.unique(flat, dim=0, return_inverse=True)
    return distinct, inverse.view(batch, length + 1)


def _distinct_bound(batch: int, length: int, n_symbols: int) -> int:
    """At most min(B, C(t + S − 1, S − 1)) distinct count vectors after t symbols."""
    total = 0
    for t in range(length + 1):
        ways = math.comb(t + n_symbols - 1, n_symbols - 1)
        if ways >= batch:
            return total + batch * (length + 1 - t)
        total += ways
    return total


class _CountUnit(torch.autograd.Function):
    """unit(h) for count vectors, with the backward written out (fewer passes over the
    (D, H) states than autograd's: on a CPU each pass costs as much as the arithmetic).

    With u = h/‖h‖, g the gradient of u and L_k = log|h_k|, a_k = angle(h_k):
    ∂/∂L_k = Σ_{parts of k} g·u − |u_k|² (u·g) and ∂/∂a_k = u_re g_im − u_im g_re;
    the gradients of the per-symbol tables are cᵀ times those (one GEMM each).
    """

    @staticmethod
    def forward(ctx: Any, log_mod: Tensor, log0: Tensor, angles: Tensor | None,
                angle0: Tensor | None, sign: Tensor | None, c: Tensor, zero: Tensor | None,
                flips: Tensor | None) -> Tensor:
        # Log-modulus of every channel (D, K): one GEMM with the counts.
        total = torch.addmm(log0, c, log_mod)
        if zero is not None:
            total.masked_fill_(c @ zero > 0, float("-inf"))
        top = total.amax(dim=1, keepdim=True)
        top.masked_fill_(~torch.isfinite(top), 0.0)
        total.sub_(top)
        # Channels below e^-80 of the largest are under float32 resolution anyway; making
        # them exactly 0 avoids subnormal floats, which make every later op ~10x slower.
        mag = torch.threshold_(total, -80.0, float("-inf")).exp_()
        norm = torch.linalg.vector_norm(mag, dim=1, keepdim=True).clamp_min_(1e-30)
        mag.div_(norm)
        if angles is None:
            if sign is not None:
                mag.mul_(sign if flips is None else sign[flips])
            ctx.save_for_backward(mag, c)
            ctx.complex = False
            return mag
        assert angle0 is not None
        angle = torch.addmm(angle0, c, angles)
        out = torch.stack([mag * torch.cos(angle), mag * torch.sin(angle)], dim=-1)
        ctx.save_for_backward(out, c)
        ctx.complex = True
        return out.reshape(c.shape[0], -1)

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor | None, ...]:  # type: ignore[override]
        u, c = ctx.saved_tensors
        if not ctx.complex:
            dot = torch.linalg.vecdot(u, grad, dim=1).unsqueeze(1)
            g_log = torch.addcmul(grad, u, dot, value=-1.0).mul_(u)
            return c.T @ g_log, g_log.sum(0), None, None, None, None, None, None
        g = grad.reshape(u.shape)
        dot = torch.linalg.vecdot(u.flatten(1), grad, dim=1)[:, None]
        re, im, g_re, g_im = u[..., 0], u[..., 1], g[..., 0], g[..., 1]
        g_log = re * g_re + im * g_im - (re * re + im * im) * dot
        g_ang = re * g_im - im * g_re
        return (c.T @ g_log, g_log.sum(0), c.T @ g_ang, g_ang.sum(0), None, None, None, None)


def count_states(log_mod: Tensor, phase: Tensor, counts: Tensor, h0: Tensor,
                 complex_pairs: bool) -> Tensor:
    """Unit states (D, H) for the count vectors ``counts`` (D, S).

    ``log_mod``/``phase`` (S, K) as in :func:`fsmnet.train.scan.diag_loop`: the real
    case multiplies channel k by phase·exp(log_mod) (phase a sign, 0 allowed), the
    complex case channel pair k by exp(log_mod)·e^{i·phase}.  A log-modulus of −∞
    (a zero transition) zeroes its channel once the symbol has occurred.
    """
    c = counts.to(log_mod.dtype)
    dead = torch.isneginf(log_mod)
    if not complex_pairs:
        dead = dead | (phase == 0)
    zero = None
    if bool(dead.any()):
        # 0·(−∞) would be NaN in the product: take such channels out, mask them after.
        log_mod = log_mod.masked_fill(dead, 0.0)
        zero = dead.to(c.dtype)
    if complex_pairs:
        re0, im0 = h0[0::2], h0[1::2]
        log0 = 0.5 * torch.log(re0 * re0 + im0 * im0)
        out: Tensor = _CountUnit.apply(log_mod, log0, phase, torch.atan2(im0, re0), None, c,
                                       zero, None)
        return out
    sign, pattern = _signs(phase.detach(), torch.sign(h0).detach(), counts)
    out = _CountUnit.apply(log_mod, torch.log(h0.abs()), None, None, sign, c, zero, pattern)
    return out


def _signs(phase: Tensor, sign0: Tensor, counts: Tensor) -> tuple[Tensor, Tensor | None]:
    """Channel signs of the real case: sign(h0)·Π_s sign(d_s)^{c_s} depends only on the
    parities of the counts, so it is a table over the 2^S parity patterns (one row
    pick per count vector instead of (D, K) integer arithmetic).  Returns the table
    and each count vector's row (None: one row, sign(h0), for every vector)."""
    negative = phase < 0
    if not bool(negative.any()):
        return sign0, None
    n_sym = phase.shape[0]
    odd = (counts & 1).to(torch.int64)
    if n_sym <= 12:
        bits = torch.arange(1 << n_sym, device=phase.device)[:, None] >> torch.arange(
            n_sym, device=phase.device) & 1  # (2^S, S) every parity pattern
        pattern = odd @ (1 << torch.arange(n_sym, device=phase.device))
    else:  # too many patterns: one per count vector
        bits, pattern = odd, torch.arange(counts.shape[0], device=phase.device)
    flips = (bits.to(phase.dtype) @ negative.to(phase.dtype)).to(torch.int64) & 1
    return sign0 * (1 - 2 * flips).to(phase.dtype), pattern
