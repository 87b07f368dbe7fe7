"""The dense recurrence h_t = A[x_t] h_{t-1} as one autograd node with a hand-written backward.

On a CPU the step loop of a training step is bound by the number of torch ops,
not by arithmetic: at batch 64 and H = 64 one step is ~0.8 M multiply-adds, a few
microseconds, while autograd records ~10 ops per step (a (B, H, H) gather among
them) and replays ~15 more backwards, each with its own allocation and dispatch
(docs/performance.md, "Training modules").  :func:`select_recurrence` runs the
same sequential recurrence with two preallocated ops per step forward and three
backward (and a rescale, or a division, every k steps), for m independent blocks
at once (block-diagonal transitions):

* forward: one batched GEMM of the state with *every* symbol's matrix,
  (m, B, b) × (m, b, S·b), then ``index_select`` of each row's symbol (no gather
  of matrices), then a detached positive rescale per block;
* backward (reverse mode of the same recurrence): λ_{t-1} = g_{t-1} + A[x_t]ᵀ μ_t
  with μ_t = λ_t / c_t (c_t the forward's detached scale, 1 except at the end of a
  rescale period, where alone the division runs), again one GEMM and one pick per
  step, and the add; the gradient of the matrices is then, per symbol, *one* GEMM over
  every step where that symbol was read, Σ_{b,t: x_bt = s} μ_t[b] h_{t-1}[b]ᵀ.

The states are those of the step loop :func:`fsmnet.train.scan.dense_loop` (run
per block) up to one positive factor per position and block, so every
scale-invariant readout (the modules normalize each block) gets the same outputs
and gradients; tests/test_train_modules.py compares them, gradients included.

>>> import torch
>>> mats = torch.tensor([[[0., 1.], [1., 0.]], [[1., 0.], [0., 1.]]])
>>> select_recurrence(mats[None], torch.tensor([[0, 1, 0]]), torch.tensor([[1., 0.]]))[0, :, 0]
tensor([[1., 0.],
        [0., 1.],
        [0., 1.],
        [1., 0.]])
"""

from __future__ import annotations

import math
from typing import Any

import torch

Tensor = torch.Tensor
_EPS = 1e-30
_RANGE = 1e12  # how far a value may drift between two rescales


def _period(mats: Tensor, limit: int = 16) -> tuple[int, float]:
    """(k, M): steps between rescales, and M = max(1, max_s ‖A_s‖_∞, max_s ‖A_sᵀ‖_∞).

    Forward, every state of a block is checked directly (max-norm within 10^±12 of the
    block's normalized start, finite), else the block is rerun with a rescale per step.
    Backward, the adjoint of an unscaled step grows by at most ‖A_sᵀ‖_∞, so k with
    M^k ≤ 10^12 keeps it, like the states, far inside float32's 10^±38.
    """
    a = mats.detach().abs()
    grow = max(1.0, float(a.sum(dim=-1).amax()), float(a.sum(dim=-2).amax())) \
        if mats.numel() else 1.0
    if not math.isfinite(grow):
        return 1, grow
    k = limit if grow == 1.0 else int(math.log(_RANGE) / math.log(grow) + 1e-9)
    return max(1, min(limit, k)), grow


def _low_high(peaks: Tensor) -> tuple[float, float]:
    """(min, max) of ``peaks`` in one reduction and one synchronization."""
    both = torch.stack(torch.aminmax(peaks)).tolist()
    return float(both[0]), float(both[1])


class _SelectRecurrence(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, mats: Tensor, h0: Tensor, words: Tensor, by_block: bool) -> Tensor:
        m, n_sym, size, _ = mats.shape
        batch, length = words.shape
        # h @ fwd[g]: column s·b + i is (A_s h)_i; mu @ bwd[g]: column s·b + j is (A_sᵀ mu)_j.
        fwd = mats.permute(0, 3, 1, 2).reshape(m, size, n_sym * size)
        # rows[t]: the row of (g, b, x_bt) in the (m·B·S, b) view of every symbol's product.
        base = (torch.arange(m, device=words.device)[:, None] * batch
                + torch.arange(batch, device=words.device)[None, :]) * n_sym
        rows = (base[None] + words.T[:, None, :]).reshape(length, m * batch)
        states = mats.new_empty(length + 1, m, batch, size)
        states[0] = h0[:, None, :]
        scales = mats.new_ones(length, m, batch, 1)
        every = mats.new_empty(m, batch, n_sym * size)
        flat = every.view(m * batch * n_sym, size)
        period, _ = _period(mats)
        scaled: list[int] = []  # the steps whose scale is not 1 (the backward divides there)
        t = 0
        while t < length:
            # Step 0 is rescaled alone (h0 may have any norm); later blocks of ``period``
            # steps are rescaled at their end only, if nothing left range (see _period).
            end = min(length, t + (period if t else 1))
            for u in range(t, end):
                torch.bmm(states[u], fwd, out=every)
                torch.index_select(flat, 0, rows[u], out=states[u + 1].view(m * batch, size))
            last = states[end]
            scale = scales[end - 1]
            if end - t > 1:
                # Every state of the block, directly: max-norms within 10^±12 and finite.
                peaks = states[t + 1:end + 1].abs().amax(dim=-1, keepdim=True)
                low, high = _low_high(peaks)
                redo = not (math.isfinite(high) and high <= _RANGE and low >= 1 / _RANGE)
                scale.copy_(peaks[-1])  # the last state's max-norms
            else:
                torch.amax(last.abs(), dim=2, keepdim=True, out=scale)
                redo = False
            if redo:
                scaled.extend(range(t, end))
                for u in range(t, end):  # maybe out of range in between: step by step
                    torch.bmm(states[u], fwd, out=every)
                    nxt = states[u + 1]
                    torch.index_select(flat, 0, rows[u], out=nxt.view(m * batch, size))
                    torch.amax(nxt.abs(), dim=2, keepdim=True, out=scales[u])
                    nxt.div_(scales[u].clamp_min_(_EPS))
            else:  # scales[t:end - 1] stay 1
                scaled.append(end - 1)
                last.div_(scale.clamp_min_(_EPS))
            t = end
        ctx.save_for_backward(mats, states, scales, rows, words)
        ctx.by_block = by_block
        ctx.scaled = set(scaled)
        # A contiguous (B, T + 1, m, b) copy: the readout's reductions over the last axis
        # run several times faster on it than on the strided view (measured); by block,
        # (m, T + 1, B, b): each block one contiguous matrix for a GEMM readout.
        if by_block:
            return states.permute(1, 0, 2, 3).contiguous()
        return states.permute(2, 0, 1, 3).contiguous()

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor | None, ...]:  # type: ignore[override]
        mats, states, scales, rows, words = ctx.saved_tensors
        m, n_sym, size, _ = mats.shape
        length = rows.shape[0]
        batch = words.shape[0]
        g = grad.permute(1, 0, 2, 3) if ctx.by_block else grad.permute(1, 2, 0, 3)  # (T+1, m, B, b)
        bwd = mats.permute(0, 2, 1, 3).reshape(m, size, n_sym * size)
        mu = mats.new_empty(length, m, batch, size)
        every = mats.new_empty(m, batch, n_sym * size)
        flat = every.view(m * batch * n_sym, size)
        pick = mats.new_empty(m, batch, size)
        lam = mats.new_empty(m, batch, size)
        scaled = ctx.scaled
        if length:
            # μ_t = λ_t / c_t, and c_t = 1 except at the ends of rescale periods: elsewhere
            # λ_t is written straight into μ's slot (two ops a step fewer).
            torch.div(g[length], scales[length - 1], out=mu[length - 1])
        else:
            lam.copy_(g[0])
        for t in range(length, 0, -1):
            torch.bmm(mu[t - 1], bwd, out=every)
            torch.index_select(flat, 0, rows[t - 1], out=pick.view(m * batch, size))
            if t > 1 and t - 2 not in scaled:
                torch.add(g[t - 1], pick, out=mu[t - 2])
            else:
                torch.add(g[t - 1], pick, out=lam)
                if t > 1:
                    torch.div(lam, scales[t - 2], out=mu[t - 2])
        grad_h0 = lam.sum(1)
        grad_mats = torch.zeros_like(mats) if ctx.needs_input_grad[0] else None
        if length and grad_mats is not None:
            # Steps sorted by the symbol read (one gather of μ and of h_{t-1}, ~0.2 ms at
            # T = B = H = 64, where an index_copy_ per step cost 1 ms): then the gradient
            # of A_s is one GEMM over a contiguous slice, Σ_{b,t: x_bt = s} μ_t[b] h_{t-1}[b]ᵀ.
            symbols = words.T.reshape(-1)
            order = torch.argsort(symbols, stable=True)
            mu_s = torch.index_select(mu.permute(1, 0, 2, 3).reshape(m, -1, size), 1, order)
            prev_s = torch.index_select(states[:-1].permute(1, 0, 2, 3).reshape(m, -1, size), 1,
                                        order)
            start = 0
            for s, count in enumerate(torch.bincount(symbols, minlength=n_sym).tolist()):
                if count:
                    piece = slice(start, start + count)
                    grad_mats[:, s] = torch.bmm(mu_s[:, piece].transpose(1, 2),
                                                prev_s[:, piece])
                start += count
        return grad_mats, grad_h0, None, None


def select_recurrence(mats: Tensor, words: Tensor, h0: Tensor, by_block: bool = False
                      ) -> Tensor:
    """States (B, T + 1, m, b) of m independent recurrences h⁽ᵍ⁾_t = A_g[x_t] h⁽ᵍ⁾_{t-1},
    each up to a positive factor per position; ``by_block``: laid out (m, T + 1, B, b).

    ``mats`` (m, S, b, b), ``words`` (B, T) integer symbol ids, ``h0`` (m, b).
    """
    out: Tensor = _SelectRecurrence.apply(mats, h0, words.to(torch.int64), by_block)
    return out
