"""LSTM baseline (Hochreiter & Schmidhuber 1997; torch.nn.LSTM) with a linear readout.

Not a registry architecture: an LSTM has no exact semantics in fsmnet, so it has
no ``Network`` form and cannot be saved as a network file, run by the scan
engine or verified.  It is the usual baseline of the seed papers' tables.
"""

from __future__ import annotations

from typing import Any

import torch
from torch import nn

from fsmnet.train.module_base import TrainModule

Tensor = torch.Tensor


class LSTMBaseline(TrainModule, nn.Module):
    """Embedding → one LSTM layer → linear readout; logits after every prefix.

    The empty prefix gets the readout of a learned initial output ``y0``.
    """

    arch = "lstm"

    def __init__(self, n_symbols: int, n_labels: int, hidden: int) -> None:
        super().__init__()
        self.n_symbols, self.n_labels, self.hidden = n_symbols, n_labels, hidden
        self.embed = nn.Embedding(n_symbols, hidden)
        self.lstm = nn.LSTM(hidden, hidden, batch_first=True)
        self.y0 = nn.Parameter(torch.zeros(hidden))
        self.readout = nn.Linear(hidden, n_labels)

    def logits(self, words: Tensor, fast: bool = True) -> Tensor:
        y, _ = self.lstm(self.embed(words.to(torch.int64)))
        y = torch.cat([self.y0.expand(words.shape[0], 1, -1), y], dim=1)
        return self.readout(y)

    def forward(self, words: Tensor | Any) -> Tensor:
        """Label index after every prefix (argmax of the logits); ``words`` as for
        :meth:`fsmnet.train.modules_linear.LinearRNN.forward`."""
        return self._label_trace(words, self._forward)

    def _forward(self, words: Tensor) -> Tensor:
        with torch.no_grad():
            return self.logits(words).argmax(dim=-1)
