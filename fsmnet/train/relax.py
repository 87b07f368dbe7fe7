"""Straight-through max-min: the forward pass is the exact max-min recurrence, the
backward pass the gradient of a smooth one.

A max-min network's subgradient reaches one entry per output: (A ⊗ x)_i =
max_j min(A_ij, x_j) passes its gradient to the single selected A_ij or x_j, so a
weight that is never selected never moves, and a fresh start rarely finds the
one-hot solution (the minmax-dense column of docs/experiments.md, "Train until
proved", fit its training words on two of seven tasks before this).  With
temperature τ > 0, max is replaced by τ·logsumexp(·/τ) and min by
−τ·logsumexp(−·/τ), which pass gradient to every entry in proportion to how close it
is to being selected.  The value used is still the hard one:

    y = hard + (soft − soft.detach())

so the labels, the loss's value and the saved network are exactly the max-min
semantics (the float32 reference), and only the gradient is the soft recurrence's
(the straight-through estimator).  Cost: one extra step loop over the sequence, in
float32, during training only.
"""

from __future__ import annotations

import torch

Tensor = torch.Tensor


def soft_apply(a: Tensor, x: Tensor, tau: float) -> Tensor:
    """τ-smooth (A ⊗ x)_i = max_j min(A_ij, x_j), batched over leading axes."""
    low = -tau * torch.logaddexp(-a / tau, -x.unsqueeze(-2) / tau)
    return tau * torch.logsumexp(low / tau, dim=-1)


def soft_loop(r: Tensor, s: Tensor, x0: Tensor, tau: float) -> Tensor:
    """τ-smooth x_t = (R_t ⊗ x_{t-1}) ⊕ s_t; shapes as fsmnet.train.scan.maxmin_loop."""
    batch, length = s.shape[:2]
    x = x0.expand(batch, -1)
    out = [x]
    for t in range(length):
        x = tau * torch.logaddexp(soft_apply(r[:, t], x, tau) / tau, s[:, t] / tau)
        out.append(x)
    return torch.stack(out, dim=1)


def straight_through(hard: Tensor, soft: Tensor) -> Tensor:
    """``hard``'s values with ``soft``'s gradient."""
    return hard + (soft - soft.detach())
