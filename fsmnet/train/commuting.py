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
_FLOOR = -40.0  # log of the smallest channel kept, relative to the largest
_CUT = math.exp(_FLOOR + 1e-3)  # exp of a clamped channel is under this: zeroed


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
    words = words.to(torch.int64)
    base = length + 1
    if dedupe is None:
        dedupe = torch.is_grad_enabled() or dedupe_pays(batch, length, n_symbols)
    if dedupe and n_symbols * base.bit_length() <= 62:
        # Exact integer key Σ_s c_s·base^s (counts are < base), summed along the word
        # straight from the symbols; a 1-D unique is far cheaper than one over rows.
        radix = base ** torch.arange(n_symbols, device=words.device, dtype=torch.int64)
        keys = torch.zeros(batch, base, dtype=torch.int64, device=words.device)
        torch.cumsum(radix[words], dim=1, out=keys[:, 1:])
        uniq, inverse = torch.unique(keys, return_inverse=True)
        return (uniq[:, None] // radix) % base, inverse
    counts = torch.zeros(batch, base, n_symbols, dtype=torch.int64, device=words.device)
    if length:
        counts[:, 1:] = torch.nn.functional.one_hot(words, n_symbols).cumsum(1)
    flat = counts.view(-1, n_symbols)
    if not dedupe:
        return flat, torch.arange(flat.shape[0], device=words.device).view(batch, base)
    distinct, inverse = torch.unique(flat, dim=0, return_inverse=True)
    return distinct, inverse.view(batch, base)


def dedupe_pays(batch: int, length: int, n_symbols: int) -> bool:
    """At most half of the B·(T + 1) prefixes can have distinct count vectors."""
    return 2 * _distinct_bound(batch, length, n_symbols) <= batch * (length + 1)


def _distinct_bound(batch: int, length: int, n_symbols: int) -> int:
    """At most min(B, C(t + S − 1, S − 1)) distinct count vectors after t symbols."""
    total = 0
    for t in range(length + 1):
        ways = math.comb(t + n_symbols - 1, n_symbols - 1)
        if ways >= batch:
            return total + batch * (length + 1 - t)
        total += ways
    return total


class _CountReadout(torch.autograd.Function):
    """unit(h) for count vectors, or its readout u·Rᵀ, with the backward written out.

    On a CPU each pass over the (D, H) states costs about as much as its arithmetic,
    so the passes are what is minimized.  With u = h/‖h‖, g the gradient of u,
    L_k = log|h_k| and a_k = angle(h_k): ∂/∂L_k = Σ_{parts of k} u·g − |u_k|² (u·g)
    and ∂/∂a_k = u_re g_im − u_im g_re; the tables' gradients are [c, 1]ᵀ times those.
    With the readout, g = g_logits·R, so the first term regroups as
    Σ_c R_c,k · ([c, 1] ⊙ g_logits,c / ‖h‖)ᵀ h and the second as ([c, 1] ⊙ (u·g)/‖h‖²)ᵀ |h|²:
    two GEMMs that only *read* the saved states (D × 4(S+1) and D × (S+1) left factors),
    and the readout's own gradient is the ones-column block of the first.
    """

    @staticmethod
    def forward(ctx: Any, log_mod: Tensor, log0: Tensor, angles: Tensor | None,
                angle0: Tensor | None, readout: Tensor | None, sign: Tensor | None,
                c: Tensor, zero: Tensor | None, pattern: Tensor | None) -> Tensor:
        ones = torch.ones(c.shape[0], 1, dtype=c.dtype, device=c.device)
        c1 = torch.cat([c, ones], dim=1)  # the last column carries log|h0|
        # Log-modulus of every channel (D, K): one GEMM with the counts.
        total = c1 @ torch.cat([log_mod, log0[None]])
        if zero is not None:
            total.masked_fill_(c @ zero > 0, float("-inf"))
        top = total.amax(dim=1, keepdim=True)
        top.masked_fill_(~torch.isfinite(top), 0.0)
        total.sub_(top)
        # Channels below e^-40 (2^-57) of the largest are far under float32 resolution
        # (2^-23) in every readout; making them exactly 0 keeps the backward's products
        # out of subnormal floats, each of which costs a microcode assist.  They are
        # clamped *before* exp and zeroed after: exp of −∞ or of a large negative number
        # takes the library's slow path, 25-40x slower per element (measured).
        mag = total.clamp_min_(_FLOOR).exp_()
        torch.threshold_(mag, _CUT, 0.0)
        sq = mag * mag
        norm = sq.sum(dim=1, keepdim=True).sqrt_().clamp_min_(1e-30)
        if angles is None:
            if sign is not None:
                mag.mul_(sign if pattern is None else torch.index_select(sign, 0, pattern))
            h = mag
        else:
            assert angle0 is not None
            angle = c1 @ torch.cat([angles, angle0[None]])
            h = torch.stack([mag * torch.cos(angle), mag * torch.sin(angle)], dim=-1).view(
                c.shape[0], -1)
        ctx.complex = angles is not None
        if readout is None:
            u = h.div_(norm)
            ctx.save_for_backward(u, c1, None, None, None, None)
            return u
        logits = (h @ readout.T).div_(norm)
        ctx.save_for_backward(h, c1, readout, logits, sq, norm)
        return logits

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor | None, ...]:  # type: ignore[override]
        h, c1, readout, logits, sq, norm = ctx.saved_tensors
        if readout is None:
            return _unit_backward(ctx.complex, h, c1, grad)
        n_cols, n_labels = c1.shape[1], grad.shape[1]
        dot = torch.linalg.vecdot(logits, grad, dim=1).unsqueeze(1)  # u·g, C wide
        left = (c1[:, :, None] * (grad / norm)[:, None, :]).view(c1.shape[0], -1)
        first = (left.T @ h).view(n_cols, n_labels, -1)  # Σ_d c1 g_c/‖h‖ h
        second = (c1 * (dot / (norm * norm))).T @ sq  # Σ_d c1 (u·g)/‖h‖² |h|²
        grad_r = first[-1]  # the ones column: Σ_d g_c u
        if not ctx.complex:
            g_log = torch.einsum("sck,ck->sk", first, readout) - second
            return g_log[:-1], g_log[-1], None, None, grad_r, None, None, None, None
        f = first.view(n_cols, n_labels, -1, 2)
        r = readout.view(n_labels, -1, 2)
        g_log = (torch.einsum("sck,ck->sk", f[..., 0], r[..., 0])
                 + torch.einsum("sck,ck->sk", f[..., 1], r[..., 1]) - second)
        g_ang = (torch.einsum("sck,ck->sk", f[..., 0], r[..., 1])
                 - torch.einsum("sck,ck->sk", f[..., 1], r[..., 0]))
        return g_log[:-1], g_log[-1], g_ang[:-1], g_ang[-1], grad_r, None, None, None, None


def _unit_backward(complex_pairs: bool, u: Tensor, c1: Tensor, grad: Tensor
                   ) -> tuple[Tensor | None, ...]:
    """Backward of the unit states themselves (no readout)."""
    dot = torch.linalg.vecdot(u, grad, dim=1).unsqueeze(1)
    if not complex_pairs:
        both = c1.T @ torch.addcmul(grad, u, dot, value=-1.0).mul_(u)
        return both[:-1], both[-1], None, None, None, None, None, None, None
    pair, gp = u.view(u.shape[0], -1, 2), grad.reshape(u.shape[0], -1, 2)
    re, im, g_re, g_im = pair[..., 0], pair[..., 1], gp[..., 0], gp[..., 1]
    both = c1.T @ (re * g_re + im * g_im - (re * re + im * im) * dot)
    ang = c1.T @ (re * g_im - im * g_re)
    return both[:-1], both[-1], ang[:-1], ang[-1], None, None, None, None, None


def count_states(log_mod: Tensor, phase: Tensor, counts: Tensor, h0: Tensor,
                 complex_pairs: bool, readout: Tensor | None = None) -> Tensor:
    """Unit states (D, H) for the count vectors ``counts`` (D, S), or with ``readout``
    (C, H) their logits u·Rᵀ (D, C), computed in the same autograd node.

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
        out: Tensor = _CountReadout.apply(log_mod, log0, phase, torch.atan2(im0, re0), readout,
                                          None, c, zero, None)
        return out
    sign, pattern = _signs(phase.detach(), torch.sign(h0).detach(), counts)
    out = _CountReadout.apply(log_mod, torch.log(h0.abs()), None, None, readout, sign, c, zero,
                              pattern)
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
