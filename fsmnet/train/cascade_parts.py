"""The parts of the trainable MinMax cascade that the MinMax paper (arXiv 2605.06384,
seed summary 004) names, each a choice of :class:`fsmnet.train.modules_minmax.MinMaxCascade`:

* **controller** (:data:`CONTROLLERS`): what maps a step's inputs (the letter's
  one-hot and the lower layers' window) to the units' gates r, s.  ``affine`` is one
  Linear layer; ``mlp`` is the paper's feed-forward controller with LayerNorm and a
  residual connection.  A sigmoid of one affine function thresholds a single
  hyperplane per gate, so it cannot compute the XOR of two lower units; the
  compiled cascade's controllers are lookup tables over the lower units' discrete
  coordinates (docs/constructions-minmax.md), and an MLP with a hidden layer can
  separate any finite set of such points.
* **window** K (:func:`causal_window`): layer ℓ at step t reads the layers below at
  t−1, …, t−K.  K = 1 is the one-step lag; the controller's first linear map over
  the window is a learned causal convolution of width K, the paper's convolution,
  and like the lag it never reads the layers below at t (docs/theory.md, "Update
  order matters": reading them at t makes every letter idempotent).
* **output gate**: the readout reads σ(W [e_t ‖ x_t]) ⊙ x_t instead of x_t.
* **init** (:data:`INITS`): ``asymmetric`` starts the reset gate's bias at +2 and the
  set gate's at −2, so that every unit first keeps its state (s < x < r: the
  identity, where the paper shows the state gradient is exactly 1); ``default``
  leaves torch's initialization.
"""

from __future__ import annotations

from collections.abc import Callable

import torch
from torch import nn

Tensor = torch.Tensor


class AffineController(nn.Linear):
    """gates = W x + b: a Linear layer (its weights keep a Linear's names), whose
    output layer is itself."""

    @property
    def out(self) -> nn.Linear:
        return self


class MLPController(nn.Module):
    """gates = W₃ (h + GELU(W₂ h)) + b₃ with h = GELU(LayerNorm(W₁ x + b₁))."""

    def __init__(self, n_in: int, n_out: int) -> None:
        super().__init__()
        width = max(16, 2 * n_out)
        self.inp = nn.Linear(n_in, width)
        self.norm = nn.LayerNorm(width)
        self.mid = nn.Linear(width, width)
        self.out = nn.Linear(width, n_out)

    def forward(self, x: Tensor) -> Tensor:
        h = nn.functional.gelu(self.norm(self.inp(x)))
        return self.out(h + nn.functional.gelu(self.mid(h)))  # type: ignore[no-any-return]


CONTROLLERS: dict[str, Callable[[int, int], nn.Module]] = {
    "affine": AffineController,
    "mlp": MLPController,
}


def _asymmetric(controller: nn.Module) -> None:
    out = controller.out
    assert isinstance(out, nn.Linear)
    half = out.bias.shape[0] // 2
    with torch.no_grad():
        out.bias[:half] = 2.0    # r ≈ 0.88: keep
        out.bias[half:] = -2.0   # s ≈ 0.12: do not set


INITS: dict[str, Callable[[nn.Module], None]] = {
    "default": lambda controller: None,
    "asymmetric": _asymmetric,
}


def causal_window(trace: Tensor, window: int) -> Tensor:
    """The lower layers' inputs to steps t = 1..T: from ``trace`` (B, T+1, k), the
    states x_0..x_T, the (B, T, k·window) concatenation of x_{t−1}, …, x_{t−window}
    (x_0 stands in before the start)."""
    length = trace.shape[1] - 1
    parts = []
    for back in range(1, window + 1):
        shifted = trace[:, :length]  # x_{t-1} for t = 1..T
        if back > 1:
            pad = trace[:, :1].expand(-1, back - 1, -1)
            shifted = torch.cat([pad, trace[:, :max(0, length - back + 1)]], dim=1)[:, :length]
        parts.append(shifted)
    return torch.cat(parts, dim=-1)
