"""Parallel scans over sequence length for the trainable modules, and their step loops.

Every function here returns the hidden state after every prefix, the empty
prefix included: shape ``(batch, length + 1, ...)``.  Each has a step-by-step
twin (``*_loop``) that the tests compare against, outputs and gradients.

Linear recurrences h_t = A_t h_{t-1} only need h_t up to a positive factor
(every readout of fsmnet is scale-invariant after the final L2 normalization
of :func:`unit`), so intermediate products are rescaled by a *detached*
positive factor to stay in float32 range; by homogeneity that changes neither
the normalized outputs nor their gradients.

* :func:`dense_auto` — what the modules' fast path runs for dense matrices: the
  chunked scan on a GPU, on a CPU the fused recurrence of :mod:`fsmnet.train.fused`
  (one autograd node; :func:`dense_select_loop` is its plain-autograd form).
* :func:`dense_scan` — chunked scan: inside each chunk of C steps the prefix
  products P_k = A_k ··· A_1 are formed for all chunks at once, then one
  sequential pass over the n = T/C chunk summaries carries the state; depth
  C + n ≈ 2√T instead of T.
* :func:`diag_scan` — diagonal (real or complex) recurrences in log space:
  one ``cumsum`` of log-moduli (and of angles), so depth log T inside torch.
* :func:`maxmin_scan` / :func:`scalar_minmax_scan` — Hillis-Steele doubling
  over the associative max-min combines of docs/constructions-minmax.md:
  depth ⌈log₂ T⌉; the ``*_auto`` versions (the modules' fast path) take them on
  a GPU and the loops on a CPU at training lengths, where the doubling's extra work
  loses (the scalar one takes the doubling on a CPU too from
  :data:`SCALAR_SCAN_LENGTH` symbols on).
"""

from __future__ import annotations

import math
from typing import Any

import torch

Tensor = torch.Tensor
_EPS = 1e-30


class _Unit(torch.autograd.Function):
    """h / ‖h‖ with the projection backward (g − u (u·g)) / ‖h‖ written out: three passes
    over the states where autograd's norm-then-divide backward makes seven or more, which
    dominate a CPU training step once the recurrence itself is fused."""

    @staticmethod
    def forward(ctx: Any, h: Tensor) -> Tensor:
        norm = torch.linalg.vector_norm(h, dim=-1, keepdim=True).clamp_min_(_EPS)
        u = h / norm
        ctx.save_for_backward(u, norm)
        return u

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Tensor:  # type: ignore[override]
        u, norm = ctx.saved_tensors
        dot = torch.linalg.vecdot(u, grad, dim=-1).unsqueeze(-1)
        return torch.addcmul(grad, u, dot, value=-1.0).div_(norm)


def unit(h: Tensor) -> Tensor:
    """h / ‖h‖₂ over the last axis (0 stays 0): the scale-free state every readout sees."""
    out: Tensor = _Unit.apply(h)
    return out


def _rescale(x: Tensor, dims: tuple[int, ...]) -> Tensor:
    """Divide by the (detached) largest |entry| over ``dims``: a positive factor."""
    scale = x.detach().abs().amax(dim=dims, keepdim=True).clamp_min(_EPS)
    return x / scale


# ------------------------------------------------------------------ dense
def dense_loop(mats: Tensor, words: Tensor, h0: Tensor) -> Tensor:
    """Step loop: h_t = A[x_t] h_{t-1}; ``mats`` (S, H, H), ``words`` (B, T), ``h0`` (H)."""
    batch, length = words.shape
    h = h0.expand(batch, -1)
    out = [h]
    for t in range(length):
        h = _rescale(torch.einsum("bij,bj->bi", mats[words[:, t]], h), (1,))
        out.append(h)
    return torch.stack(out, dim=1)


def dense_select_loop(mats: Tensor, words: Tensor, h0: Tensor) -> Tensor:
    """Step loop without per-step gathers: each step multiplies the state by *every*
    symbol's matrix in one GEMM, (B, H) × (H, S·H), then keeps the symbol's block.

    S times the flops of :func:`dense_loop` but no (B, H, H) copy per step: on a CPU,
    where the loop is memory-bound, this is the fastest exact path for small alphabets.
    """
    n_sym, hidden, _ = mats.shape
    batch, length = words.shape
    cat = mats.reshape(n_sym * hidden, hidden)  # row (s, i) is mats[s, i, :]
    h = h0.expand(batch, -1)
    out = [h]
    for t in range(length):
        every = (h @ cat.T).view(batch, n_sym, hidden)
        h = every.gather(1, words[:, t, None, None].expand(batch, 1, hidden)).squeeze(1)
        h = _rescale(h, (1,))
        out.append(h)
    return torch.stack(out, dim=1)


def dense_auto(mats: Tensor, words: Tensor, h0: Tensor) -> Tensor:
    """The fast dense path: the chunked scan on a GPU; on a CPU, where the scan's
    matrix-matrix products cost H times the loop's matrix-vector work (measured in
    bench/bench_train.py), the fused recurrence of :mod:`fsmnet.train.fused`."""
    if words.is_cuda:
        return dense_scan(mats, words, h0)
    from fsmnet.train.fused import select_recurrence

    return select_recurrence(mats[None], words, h0[None])[:, :, 0]


def dense_scan(mats: Tensor, words: Tensor, h0: Tensor, chunk: int | None = None) -> Tensor:
    """Chunked parallel scan of h_t = A[x_t] h_{t-1} (same result as :func:`dense_loop`
    up to positive factors per position)."""
    batch, length = words.shape
    hidden = h0.shape[-1]
    if length == 0:
        return h0.expand(batch, 1, -1)
    c = chunk or max(1, math.isqrt(length))
    n = -(-length // c)
    pad = n * c - length
    a = mats[words]  # (B, T, H, H)
    if pad:
        eye = torch.eye(hidden, dtype=a.dtype, device=a.device).expand(batch, pad, -1, -1)
        a = torch.cat([a, eye], dim=1)
    a = a.reshape(batch, n, c, hidden, hidden)
    # Prefix products inside every chunk at once: P_k = A_k P_{k-1}.
    prods = [a[:, :, 0]]
    for k in range(1, c):
        prods.append(_rescale(a[:, :, k] @ prods[-1], (-2, -1)))
    p = torch.stack(prods, dim=2)  # (B, n, C, H, H)
    # One pass over the chunk summaries carries the state between chunks.
    g = h0.expand(batch, -1)
    starts = [g]
    for j in range(n - 1):
        g = _rescale(torch.einsum("bij,bj->bi", p[:, j, -1], g), (1,))
        starts.append(g)
    s = torch.stack(starts, dim=1)  # (B, n, H): state entering chunk j
    h = torch.einsum("bnkij,bnj->bnki", p, s).reshape(batch, n * c, hidden)[:, :length]
    return torch.cat([h0.expand(batch, 1, -1), h], dim=1)


# --------------------------------------------------------------- diagonal
def diag_loop(log_mod: Tensor, phase: Tensor, words: Tensor, h0: Tensor,
              complex_pairs: bool) -> Tensor:
    """Step loop of a diagonal recurrence given by log-moduli and phases.

    Real case: ``phase`` holds signs (±1, 0); channel c is multiplied by
    phase·exp(log_mod).  Complex case (``complex_pairs``): channel k is the pair
    (h[2k], h[2k+1]) multiplied by exp(log_mod)·e^{i·phase}.
    """
    batch, length = words.shape
    h = h0.expand(batch, -1)
    out = [h]
    for t in range(length):
        m, p = torch.exp(log_mod[words[:, t]]), phase[words[:, t]]
        if complex_pairs:
            re, im = h[:, 0::2], h[:, 1::2]
            c, s = m * torch.cos(p), m * torch.sin(p)
            h = torch.stack([c * re - s * im, s * re + c * im], dim=2).reshape(batch, -1)
        else:
            h = p * m * h
        h = _rescale(h, (1,))
        out.append(h)
    return torch.stack(out, dim=1)


def diag_scan(log_mod: Tensor, phase: Tensor, words: Tensor, h0: Tensor,
              complex_pairs: bool) -> Tensor:
    """Log-space scan of the same recurrence as :func:`diag_loop` (one cumsum)."""
    batch = words.shape[0]
    zero = torch.zeros(batch, 1, log_mod.shape[1], dtype=log_mod.dtype, device=log_mod.device)
    cum = torch.cat([zero, torch.cumsum(log_mod[words], dim=1)], dim=1)  # (B, T+1, K)
    if complex_pairs:
        re0, im0 = h0[0::2], h0[1::2]
        mod0 = torch.sqrt(re0 * re0 + im0 * im0)
        log0 = torch.log(mod0)
        ang = torch.atan2(im0, re0) + torch.cat([zero, torch.cumsum(phase[words], dim=1)], dim=1)
    else:
        log0 = torch.log(h0.abs())
        sign = torch.cat([torch.ones_like(zero), torch.cumprod(phase[words], dim=1)], dim=1)
    total = log0 + cum
    top = total.detach().amax(dim=-1, keepdim=True)
    top = torch.where(torch.isfinite(top), top, torch.zeros_like(top))
    rel = total - top
    # Channels below e^-80 of the largest are under float32 resolution anyway; making
    # them exactly 0 avoids subnormal floats, which make every later op ~10x slower.
    mag = torch.where(rel < -80.0, torch.zeros_like(rel), torch.exp(rel.clamp_min(-80.0)))
    if complex_pairs:
        return torch.stack([mag * torch.cos(ang), mag * torch.sin(ang)], dim=3).reshape(
            batch, -1, h0.shape[0])
    return torch.sign(h0) * sign * mag


# ----------------------------------------------------------------- max-min
def maxmin_apply(a: Tensor, x: Tensor) -> Tensor:
    """(A ⊗ x)_i = max_j min(A_ij, x_j), batched over leading axes."""
    return torch.minimum(a, x.unsqueeze(-2)).amax(dim=-1)


def maxmin_matmul(a: Tensor, b: Tensor) -> Tensor:
    """(A ⊗ B)_ij = max_k min(A_ik, B_kj), batched over leading axes."""
    return torch.minimum(a.unsqueeze(-1), b.unsqueeze(-3)).amax(dim=-2)


def maxmin_loop(r: Tensor, s: Tensor, x0: Tensor) -> Tensor:
    """x_t = (R_t ⊗ x_{t-1}) ⊕ s_t; ``r`` (B, T, n, n), ``s`` (B, T, n), ``x0`` (n)."""
    batch, length = s.shape[:2]
    x = x0.expand(batch, -1)
    out = [x]
    for t in range(length):
        x = torch.maximum(maxmin_apply(r[:, t], x), s[:, t])
        out.append(x)
    return torch.stack(out, dim=1)


def doubling(first: Any, combine: Any, identity: Any) -> Any:
    """Hillis-Steele inclusive scan along axis 1 of every tensor in ``first``."""
    acc = first
    length = acc[0].shape[1]
    shift = 1
    while shift < length:
        prev = tuple(torch.cat([e[:, :shift], x[:, :-shift]], dim=1)
                     for x, e in zip(acc, identity(shift)))
        acc = combine(prev, acc)  # prev happens first
        shift *= 2
    return acc


def maxmin_scan(r: Tensor, s: Tensor, x0: Tensor) -> Tensor:
    """Log-depth scan of :func:`maxmin_loop`: composes (R, s) maps by doubling.

    "f1, then f2" = (R2 ⊗ R1, (R2 ⊗ s1) ⊕ s2) (docs/constructions-minmax.md).
    """
    batch, length, n = s.shape
    if length == 0:
        return x0.expand(batch, 1, -1)
    big = torch.finfo(s.dtype).max

    def identity(k: int) -> tuple[Tensor, Tensor]:
        eye = torch.full((n, n), -big, dtype=s.dtype, device=s.device)
        eye.fill_diagonal_(big)
        return eye.expand(batch, k, n, n), torch.full((batch, k, n), -big, dtype=s.dtype,
                                                     device=s.device)

    def combine(f1: tuple[Tensor, Tensor], f2: tuple[Tensor, Tensor]) -> tuple[Tensor, Tensor]:
        return maxmin_matmul(f2[0], f1[0]), torch.maximum(maxmin_apply(f2[0], f1[1]), f2[1])

    rr, ss = doubling((r, s), combine, identity)
    x = torch.maximum(maxmin_apply(rr, x0.expand(batch, length, -1)), ss)
    return torch.cat([x0.expand(batch, 1, -1), x], dim=1)


def scalar_minmax_loop(r: Tensor, s: Tensor, x0: Tensor) -> Tensor:
    """Elementwise x_t = max(min(r_t, x_{t-1}), s_t); ``r``, ``s`` (B, T, K), ``x0`` (K)."""
    batch, length = r.shape[:2]
    x = x0.expand(batch, -1)
    out = [x]
    for t in range(length):
        x = torch.maximum(torch.minimum(r[:, t], x), s[:, t])
        out.append(x)
    return torch.stack(out, dim=1)


def scalar_minmax_scan(r: Tensor, s: Tensor, x0: Tensor) -> Tensor:
    """Log-depth scan of :func:`scalar_minmax_loop`:
    "f1, then f2" = (min(r1, r2), max(min(r2, s1), s2))."""
    batch, length, k = r.shape
    if length == 0:
        return x0.expand(batch, 1, -1)
    big = torch.finfo(r.dtype).max

    def identity(m: int) -> tuple[Tensor, Tensor]:
        return (torch.full((batch, m, k), big, dtype=r.dtype, device=r.device),
                torch.full((batch, m, k), -big, dtype=r.dtype, device=r.device))

    def combine(f1: tuple[Tensor, Tensor], f2: tuple[Tensor, Tensor]) -> tuple[Tensor, Tensor]:
        return (torch.minimum(f1[0], f2[0]),
                torch.maximum(torch.minimum(f2[0], f1[1]), f2[1]))

    rr, ss = doubling((r, s), combine, identity)
    x = torch.maximum(torch.minimum(rr, x0), ss)
    return torch.cat([x0.expand(batch, 1, -1), x], dim=1)


def maxmin_auto(r: Tensor, s: Tensor, x0: Tensor) -> Tensor:
    """The fast max-min path: doubling on a GPU; on a CPU the loop, because each
    doubling level forms (B, T, n, n, n) minima where a step forms (B, n, n)
    (bench/bench_train.py measures both)."""
    return maxmin_scan(r, s, x0) if s.is_cuda else maxmin_loop(r, s, x0)


SCALAR_SCAN_LENGTH = 1024
"""From this length on the CPU too runs the scalar doubling, where the loop's per-step
Python overhead dominates (docs/performance.md).  Both only select among their
inputs, so they give the same values bit for bit."""


def scalar_minmax_auto(r: Tensor, s: Tensor, x0: Tensor) -> Tensor:
    """Doubling on a GPU or for long words, the elementwise loop on a CPU at training
    lengths (cheaper there; bench/bench_train.py)."""
    if r.is_cuda or r.shape[1] >= SCALAR_SCAN_LENGTH:
        return scalar_minmax_scan(r, s, x0)
    return scalar_minmax_loop(r, s, x0)
