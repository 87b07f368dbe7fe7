"""Label traces of dense linear recurrences without autograd (what ``forward`` runs on a CPU).

``module(words)`` (the label index after every prefix, what ``Network.to_torch()``
users call) needs no gradient, so the recurrence h_t = A[x_t] h_{t-1} can run
with two preallocated ops per step: one GEMM of the state with every symbol's
matrix, (B, H) × (H, S·H), and one ``index_select`` of each row's symbol.  The
state is rescaled only every k steps, with k chosen so that nothing can leave
float range in between: with M = max(1, max_s ‖A_s‖_∞), every entry after j
unscaled steps from a state of max-norm 1 is at most M^j, so M^k ≤ 10^30 rules
out overflow; a block whose end state is below 10^-30·M^k anywhere may have passed
through tiny values, and is run again with the per-step rescale of the step loop.
The readout is then one GEMM over all positions; every rescale is by a positive
factor, so no argmax changes.

>>> import torch
>>> mats = torch.tensor([[[0., 1.], [1., 0.]], [[1., 0.], [0., 1.]]])
>>> dense_labels(mats, torch.tensor([[0, 1, 0]]), torch.tensor([1., 0.]), torch.eye(2))
tensor([[0, 1, 1, 0]])
"""

from __future__ import annotations

import math

import torch

Tensor = torch.Tensor
_RANGE = 1e30


def rescale_period(mats: Tensor, limit: int = 16) -> tuple[int, float]:
    """(k, M): steps between rescales and the growth bound per step."""
    grow = max(1.0, float(mats.detach().abs().sum(dim=-1).amax())) if mats.numel() else 1.0
    if not math.isfinite(grow):
        return 1, grow
    k = limit if grow == 1.0 else int(math.log(_RANGE) / math.log(grow) + 1e-9)
    return max(1, min(limit, k)), grow


def dense_states(mats: Tensor, words: Tensor, h0: Tensor) -> Tensor:
    """States (T + 1, B, H) of h_t = A[x_t] h_{t-1}, each up to a positive factor."""
    # Flush subnormals to zero meanwhile: float32 products of near-zero matrix entries
    # (Householder noise ~1e-22) land below 1.2e-38 in the every-symbol GEMM, and each
    # such value costs a microcode assist (symmetric:4 deltaproduct: 1.6x slower).
    # Only values under 1.2e-38 (of a max-norm-1 state) change; restored to torch's
    # default (off) after.
    flushed = torch.set_flush_denormal(True)
    try:
        return _dense_states(mats, words, h0)
    finally:
        if flushed:
            torch.set_flush_denormal(False)


def _dense_states(mats: Tensor, words: Tensor, h0: Tensor) -> Tensor:
    n_sym, hidden, _ = mats.shape
    batch, length = words.shape
    with torch.no_grad():
        fwd = mats.permute(2, 0, 1).reshape(hidden, n_sym * hidden)
        rows = (torch.arange(batch, device=words.device) * n_sym)[None, :] + words.T.to(
            torch.int64)
        states = mats.new_empty(length + 1, batch, hidden)
        states[0] = h0 / h0.abs().amax().clamp_min(1e-30)  # max-norm 1: the bound's start
        every = mats.new_empty(batch, n_sym * hidden)
        flat = every.view(batch * n_sym, hidden)
        period, grow = rescale_period(mats)
        start = 0
        while start < length:
            end = min(length, start + period)
            for t in range(start, end):
                torch.mm(states[t], fwd, out=every)
                torch.index_select(flat, 0, rows[t], out=states[t + 1])
            scale = states[end].abs().amax(dim=1, keepdim=True)
            low = float(scale.min())
            if not (math.isfinite(float(scale.max())) and low >= grow ** (end - start) / _RANGE):
                # Possibly out of range in between (or a zero state): redo step by step.
                for t in range(start, end):
                    torch.mm(states[t], fwd, out=every)
                    nxt = states[t + 1]
                    torch.index_select(flat, 0, rows[t], out=nxt)
                    nxt.div_(nxt.abs().amax(dim=1, keepdim=True).clamp_min_(1e-30))
            else:
                states[end].div_(scale)
            start = end
        return states


def dense_labels(mats: Tensor, words: Tensor, h0: Tensor, readout: Tensor) -> Tensor:
    """argmax(readout · h_t) after every prefix, (B, T + 1) int64 (ties: the first label)."""
    with torch.no_grad():
        states = dense_states(mats, words, h0)
        scores = states.view(-1, states.shape[-1]) @ readout.T
        return scores.argmax(dim=-1).view(states.shape[0], -1).T

