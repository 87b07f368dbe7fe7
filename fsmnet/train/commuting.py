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
H-wide work is done once per distinct count vector.  For training,
:func:`count_loss` goes to the loss in the same node: the cross-entropy grouped by
count vector (no gather of the logits), the vectors and their label counts from one
Numba kernel (:func:`fsmnet.train.kernels.count_table`).  Same values as the step
loop :func:`fsmnet.train.scan.diag_loop` up to a positive factor per position (and
rounding), gradients included (tests/test_train_modules.py, tests/test_train_losses.py).

>>> import torch
>>> counts, inverse = distinct_counts(torch.tensor([[0, 1], [1, 0]]), 2)
>>> counts.tolist(), inverse.tolist()
([[0, 0], [1, 0], [0, 1], [1, 1]], [[0, 1, 3], [0, 2, 3]])
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
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
    bits = max(1, length.bit_length())  # a count is at most T
    if dedupe and n_symbols * bits <= 62:
        # Exact integer key Σ_s c_s·2^(bits·s), summed along the word straight from the
        # symbols; decoded by shifts and masks (int64 // and % cost 3x more).  Prefixes of
        # different lengths never share a count vector (Σ_s c_s = t), so the distinct keys
        # are found per length: one batched sort of (T + 1) rows of B keys, 2-3x cheaper
        # than one sort of all B·(T + 1).
        dev = words.device
        shifts = bits * torch.arange(n_symbols, device=dev, dtype=torch.int64)
        keys = torch.zeros(base, batch, dtype=torch.int64, device=dev)
        torch.cumsum(torch.bitwise_left_shift(1, shifts)[words.T], dim=0, out=keys[1:])
        ordered, perm = keys.sort(dim=1)
        first = torch.ones(base, batch, dtype=torch.bool, device=dev)
        torch.ne(ordered[:, 1:], ordered[:, :-1], out=first[:, 1:])
        ids = first.view(-1).cumsum(0).sub_(1).view(base, batch)
        inverse = torch.empty(batch, base, dtype=torch.int64, device=dev)
        inverse.T.scatter_(1, perm, ids)  # written through the transpose: (B, T + 1) rows
        uniq = ordered.view(-1)[first.view(-1)]
        counts = torch.bitwise_right_shift(uniq[:, None], shifts).bitwise_and_((1 << bits) - 1)
        return counts, inverse
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
    so the passes are what is minimized, and every big tensor is channel-major, (K, D)
    with the D count vectors contiguous: reductions over channels and products with a
    per-vector factor then run along contiguous rows (over rows of 64 channels they
    cost 2-5x more).  With u = h/‖h‖, g the gradient of u, L_k = log|h_k| and
    a_k = angle(h_k): ∂/∂L_k = Σ_{parts of k} u·g − |u_k|² (u·g) and
    ∂/∂a_k = u_re g_im − u_im g_re; the tables' gradients are [c, 1]ᵀ times those.
    With the readout, g = g_logits·R, so the first term regroups as
    Σ_c R_c,k · ([c, 1] ⊙ g_logits,c / ‖h‖) h and the second as ([c, 1] ⊙ (u·g)/‖h‖²) |h|²:
    two GEMMs that only *read* the saved states ((S+1)·C × D and (S+1) × D left factors),
    and the readout's own gradient is the ones-row block of the first.
    """

    @staticmethod
    def forward(ctx: Any, log_mod: Tensor, log0: Tensor, angles: Tensor | None,
                angle0: Tensor | None, readout: Tensor | None, sign: Tensor | None,
                c1t: Tensor, zero: Tensor | None, pattern: Tensor | None,
                label_major: bool, weights: Tensor | None = None, n_total: int = 0) -> Tensor:
        # c1t (S + 1, D): the counts and a row of ones, which carries log|h0| (and angle h0).
        # Log-modulus of every channel (K, D): one GEMM with the counts.
        total = torch.addmm(log0[:, None], log_mod.T, c1t[:-1])  # + log|h0|: the ones row
        if zero is not None:
            total.masked_fill_(zero.T @ c1t[:-1] > 0, float("-inf"))
        top = torch.nan_to_num_(total.amax(dim=0, keepdim=True), 0.0, 0.0, 0.0)
        total.sub_(top)
        # Channels below e^-40 (2^-57) of the largest are far under float32 resolution
        # (2^-23) in every readout; making them exactly 0 keeps the backward's products
        # out of subnormal floats, each of which costs a microcode assist.  They are
        # clamped *before* exp and zeroed after: exp of −∞ or of a large negative number
        # takes the library's slow path, 25-40x slower per element (measured).
        mag = total.clamp_min_(_FLOOR).exp_()
        torch.threshold_(mag, _CUT, 0.0)
        sq = mag * mag
        norm = sq.sum(dim=0, keepdim=True).sqrt_().clamp_min_(1e-30)  # (1, D)
        ctx.complex = angles is not None
        ctx.label_major = label_major
        ctx.fold = None
        if angles is None:
            if sign is not None and sign.dim() == 2 and pattern is None:
                mag.mul_(sign)  # every vector's signs, (K, D), from fsmnet.train.kernels
            elif sign is not None and pattern is not None:
                mag.mul_(torch.index_select(sign.T, 1, pattern))
            elif sign is not None and readout is None:
                mag.mul_(sign[:, None])
            elif sign is not None:
                # One sign row for every vector: it goes into the readout's columns,
                # (mag ⊙ s)·Rᵀ = mag·(R ⊙ s)ᵀ, a (C, H) product instead of a (K, D) pass.
                assert readout is not None
                ctx.fold = sign
                readout = readout * sign
            h = mag
        else:
            assert angle0 is not None
            angle = torch.addmm(angle0[:, None], angles.T, c1t[:-1])
            h = torch.stack([mag * torch.cos(angle), mag * torch.sin(angle)], dim=1).view(
                -1, c1t.shape[1])  # rows 2k, 2k + 1: the real and imaginary part of pair k
        if readout is None:
            u = h.div_(norm)
            ctx.save_for_backward(u, c1t, None, None, None, None)
            return u.T
        logits = torch.mm(readout, h).div_(norm)  # (C, D)
        ctx.save_for_backward(h, c1t, readout, logits, sq, norm)
        ctx.loss_grad = None
        if weights is not None:
            # The node ends in the grouped cross-entropy (fsmnet.train.losses): its
            # gradient, softmax·n − w, is known now; the backward scales it.
            from fsmnet.train.losses import grouped_value_and_grad

            loss, ctx.loss_grad = grouped_value_and_grad(logits, weights, n_total)
            return loss
        return logits if label_major else logits.T

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor | None, ...]:  # type: ignore[override]
        h, c1t, readout, logits, sq, norm = ctx.saved_tensors
        none = (None,) * 7
        if readout is None:
            return (*_unit_backward(ctx.complex, h, c1t, grad.T), *none)
        if ctx.loss_grad is not None:
            g = ctx.loss_grad * grad
        else:
            g = grad if ctx.label_major else grad.T.contiguous()  # (C, D)
        n_rows, n_labels = c1t.shape[0], g.shape[0]
        dot = (logits * g).sum(dim=0, keepdim=True)  # u·g per vector, (1, D)
        left = (c1t[:, None, :] * (g / norm)[None]).view(n_rows * n_labels, -1)
        first = (left @ h.T).view(n_rows, n_labels, -1)  # Σ_d c1 g_c/‖h‖ h
        second = (c1t * (dot / (norm * norm))) @ sq.T  # Σ_d c1 (u·g)/‖h‖² |h|²
        grad_r = first[-1]  # the ones row: Σ_d g_c u
        if not ctx.complex:
            g_log = (first * readout).sum(dim=1) - second
            if ctx.fold is not None:  # readout was R ⊙ s and h was mag: d/dR = s ⊙ d/d(R ⊙ s)
                grad_r = grad_r * ctx.fold
            return g_log[:-1], g_log[-1], None, None, grad_r, *none
        f = first.view(n_rows, n_labels, -1, 2)
        r = readout.view(n_labels, -1, 2)
        f_re, f_im, r_re, r_im = f[..., 0], f[..., 1], r[..., 0], r[..., 1]
        g_log = (f_re * r_re + f_im * r_im).sum(dim=1) - second
        g_ang = (f_re * r_im - f_im * r_re).sum(dim=1)
        return g_log[:-1], g_log[-1], g_ang[:-1], g_ang[-1], grad_r, *none


def _unit_backward(complex_pairs: bool, u: Tensor, c1t: Tensor, grad: Tensor
                   ) -> tuple[Tensor | None, ...]:
    """Backward of the unit states themselves (no readout), channel-major ``u`` and
    ``grad`` (H, D): the gradients of log_mod, log0, angles, angle0 and (None) the
    readout."""
    dot = (u * grad).sum(dim=0, keepdim=True)
    if not complex_pairs:
        both = c1t @ torch.addcmul(grad, u, dot, value=-1.0).mul_(u).T
        return both[:-1], both[-1], None, None, None
    pair, gp = u.view(-1, 2, u.shape[1]), grad.reshape(-1, 2, u.shape[1])
    re, im, g_re, g_im = pair[:, 0], pair[:, 1], gp[:, 0], gp[:, 1]
    both = c1t @ (re * g_re + im * g_im - (re * re + im * im) * dot).T
    ang = c1t @ (re * g_im - im * g_re).T
    return both[:-1], both[-1], ang[:-1], ang[-1], None


def count_states(log_mod: Tensor, phase: Tensor | None, counts: Tensor, h0: Tensor,
                 complex_pairs: bool, readout: Tensor | None = None,
                 label_major: bool = False) -> Tensor:
    """Unit states (D, H) for the count vectors ``counts`` (D, S), or with ``readout``
    (C, H) their logits u·Rᵀ (D, C; (C, D) if ``label_major``), computed in the same
    autograd node.

    ``log_mod``/``phase`` (S, K) as in :func:`fsmnet.train.scan.diag_loop`: the real
    case multiplies channel k by phase·exp(log_mod) (phase a sign, 0 allowed), the
    complex case channel pair k by exp(log_mod)·e^{i·phase}; ``phase`` None: real and
    every transition positive.  A log-modulus of −∞ (a zero transition) zeroes its
    channel once the symbol has occurred.
    """
    c1t = torch.ones(counts.shape[1] + 1, counts.shape[0], dtype=log_mod.dtype,
                     device=log_mod.device)
    c1t[:-1] = counts.T
    return _states(log_mod, phase, c1t, h0, complex_pairs, readout, label_major, counts, None)


def _states(log_mod: Tensor, phase: Tensor | None, c1t: Tensor, h0: Tensor, complex_pairs: bool,
            readout: Tensor | None, label_major: bool, counts: Tensor | None,
            parity: Tensor | None, weights: Tensor | None = None, total: int = 0) -> Tensor:
    """:func:`count_states` from ``c1t`` (S + 1, D), the counts with a row of ones, and
    either the integer ``counts`` or each vector's ``parity`` pattern Σ_s (c_s mod 2)·2^s;
    with label counts ``weights`` (C, D), the grouped cross-entropy of the logits."""
    dead = torch.isneginf(log_mod)
    if not complex_pairs and phase is not None:  # None: every real transition positive
        dead = dead | (phase == 0)
    zero = None
    if bool(dead.any()):
        # 0·(−∞) would be NaN in the product: take such channels out, mask them after.
        log_mod = log_mod.masked_fill(dead, 0.0)
        zero = dead.to(c1t.dtype)
    if complex_pairs:
        assert phase is not None
        re0, im0 = h0[0::2], h0[1::2]
        log0 = 0.5 * torch.log(re0 * re0 + im0 * im0)
        out: Tensor = _CountReadout.apply(log_mod, log0, phase, torch.atan2(im0, re0), readout,
                                          None, c1t, zero, None, label_major, weights, total)
        return out
    sign0 = torch.sign(h0).detach()
    sign, pattern = (sign0, None) if phase is None else _signs(phase.detach(), sign0, counts,
                                                               parity, c1t)
    out = _CountReadout.apply(log_mod, torch.log(h0.abs()), None, None, readout, sign, c1t,
                              zero, pattern, label_major, weights, total)
    return out


_NUMPY = {torch.float32: np.float32, torch.float64: np.float64}


def count_loss(log_mod: Tensor, phase: Tensor | None, words: Tensor, labels: Tensor,
               h0: Tensor, complex_pairs: bool, readout: Tensor) -> Tensor:
    """Mean cross-entropy of every prefix's label (``labels`` (B, T + 1) class ids), the
    logits read out once per distinct count vector and the loss grouped by vector
    (:func:`fsmnet.train.losses.grouped_cross_entropy`): no (N, C) gather, no log-softmax
    over N rows.  On a CPU the distinct vectors and their label counts come from one
    Numba kernel (:func:`fsmnet.train.kernels.count_table`).  ``phase`` None: a real
    class whose transitions are all positive (no sign or zero checks).  The same
    function as the cross-entropy of the step loop's logits."""
    from fsmnet.train import losses

    n_sym, n_labels = log_mod.shape[0], readout.shape[0]
    bits = max(1, words.shape[1].bit_length())
    if words.is_cuda or n_sym * bits > 62 or log_mod.dtype not in _NUMPY:
        counts, inverse = distinct_counts(words, n_sym)
        weights = losses.label_counts(inverse, labels, counts.shape[0], n_labels, log_mod.dtype)
        zt = count_states(log_mod, phase, counts, h0, complex_pairs, readout, label_major=True)
        return losses.grouped_cross_entropy(zt, weights, labels.numel())
    from fsmnet.train import kernels

    c1t, _, weights, parity = kernels.count_table(
        words.to(torch.int64).contiguous().numpy(), labels.to(torch.int64).contiguous().numpy(),
        n_sym, n_labels, bits, True, np.empty(0, _NUMPY[log_mod.dtype]))
    return _states(log_mod, phase, torch.from_numpy(c1t), h0, complex_pairs, readout, True,
                   None, torch.from_numpy(parity), torch.from_numpy(weights), labels.numel())


def _signs(phase: Tensor, sign0: Tensor, counts: Tensor | None, parity: Tensor | None,
           c1t: Tensor) -> tuple[Tensor, Tensor | None]:
    """Channel signs of the real case: sign(h0)·Π_s sign(d_s)^{c_s} depends only on the
    parities of the counts, so it is a table over the 2^S parity patterns (one row
    pick per count vector instead of (D, K) integer arithmetic).  Returns the table
    and each count vector's row (None: one row, sign(h0), for every vector); given the
    ``parity`` patterns on a CPU, the (K, D) signs of every vector themselves (and None).
    The patterns are ``parity`` when given, else computed from ``counts`` (or ``c1t``)."""
    negative = phase < 0
    if not bool(negative.any()):
        return sign0, None
    n_sym = phase.shape[0]
    if parity is not None and n_sym <= 12 and not phase.is_cuda and sign0.dtype in _NUMPY:
        from fsmnet.train import kernels

        # (K, D) signs in one kernel call (the table ops and a gather were ~15 torch ops).
        rows = kernels.sign_rows(parity.numpy(), negative.numpy(), sign0.contiguous().numpy())
        return torch.from_numpy(rows), None
    if counts is None and (parity is None or n_sym > 12):
        counts = c1t[:-1].T.to(torch.int64)
    if n_sym <= 12:
        bits = torch.arange(1 << n_sym, device=phase.device)[:, None] >> torch.arange(
            n_sym, device=phase.device) & 1  # (2^S, S) every parity pattern
        if parity is None:
            assert counts is not None
            parity = (counts & 1).to(torch.int64) @ (1 << torch.arange(n_sym,
                                                                        device=phase.device))
        pattern = parity
    else:  # too many patterns: one per count vector
        assert counts is not None
        bits, pattern = (counts & 1).to(torch.int64), torch.arange(counts.shape[0],
                                                                   device=phase.device)
    flips = (bits.to(phase.dtype) @ negative.to(phase.dtype)).to(torch.int64) & 1
    return sign0 * (1 - 2 * flips).to(phase.dtype), pattern
