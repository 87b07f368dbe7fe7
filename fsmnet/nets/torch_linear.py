"""Torch module for linear-recurrence networks (imported only by ``to_torch``)."""

from __future__ import annotations

import numpy as np
import torch


class LinearRecurrenceModule(torch.nn.Module):
    """h_t = A[x_t] h_{t-1}, renormalized; output argmax(readout @ h_t).

    The parameters are trainable tensors initialised with the compiled weights.
    ``forward(words)`` takes (batch, length) int64 symbol indices and returns the
    readout index after every prefix, shape (batch, length + 1).  ``scores``
    returns the readout scores themselves, for training.
    """

    def __init__(self, matrices: np.ndarray, h0: np.ndarray, readout: np.ndarray) -> None:
        super().__init__()
        self.A = torch.nn.Parameter(torch.tensor(np.asarray(matrices), dtype=torch.float64))
        self.h0 = torch.nn.Parameter(torch.tensor(np.asarray(h0), dtype=torch.float64))
        self.readout = torch.nn.Parameter(torch.tensor(np.asarray(readout), dtype=torch.float64))

    def scores(self, words: torch.Tensor) -> torch.Tensor:
        batch, length = words.shape
        h = self.h0.expand(batch, -1)
        out = [h @ self.readout.T]
        for t in range(length):
            h = torch.einsum("bij,bj->bi", self.A[words[:, t]], h)
            # Positive rescaling changes no argmax and keeps h in range.
            h = h / h.abs().amax(dim=1, keepdim=True).clamp_min(1e-300)
            out.append(h @ self.readout.T)
        return torch.stack(out, dim=1)

    def forward(self, words: torch.Tensor) -> torch.Tensor:
        return self.scores(words).argmax(dim=-1)
