"""Trainable block-diagonal bilinear RNN with a multilinear readout (arXiv 2505.21749).

h⁽ⁱ⁾_t = W_i[x_t] h⁽ⁱ⁾_{t-1} for m independent blocks of size b_i, and
score_c = readout[c] contracted with h⁽⁰⁾ ⊗ ··· ⊗ h⁽ᵐ⁻¹⁾ (each block
normalized), the ``bilinear-block`` semantics of fsmnet/nets/bilinear_block.py.
The paper's block-diagonal model reads out linearly from the concatenated
state; the multilinear readout is fsmnet's (it is what reads a direct product
from its factors), kept here so that a trained module is a ``bilinear-block``
network.  The readout has C·Π b_i entries, so keep m small.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import torch
from torch import nn

from fsmnet.train import scan
from fsmnet.train.module_base import TrainModule, _np, _p

Tensor = torch.Tensor


def multilinear(readout: Tensor, hs: list[Tensor]) -> Tensor:
    """``score[..., c] = Σ readout[c, i₀, …, i_{m-1}] · Π_k hs[k][..., i_k]``, contracted one
    block at a time, the last by one GEMM (an m + 1-operand einsum forms the outer
    product of the blocks first: N·Π b_k entries instead of N·C·Π_{k<m-1} b_k)."""
    lead = hs[0].shape[:-1]
    n = math.prod(lead)
    t = hs[-1].reshape(n, -1) @ readout.reshape(-1, readout.shape[-1]).T
    for h in reversed(hs[:-1]):
        t = torch.linalg.vecdot(t.view(n, -1, h.shape[-1]), h.reshape(n, 1, -1))
    return t.view(*lead, readout.shape[0])


class BilinearBlock(TrainModule, nn.Module):
    """m blocks of size ``hidden // blocks`` (the last one takes the remainder)."""

    arch = "bilinear-block"

    def __init__(self, n_symbols: int, n_labels: int, hidden: int, blocks: int = 2,
                 sizes: list[int] | None = None) -> None:
        super().__init__()
        if sizes is None:
            m = max(1, int(blocks))
            base = max(1, hidden // m)
            sizes = [base] * (m - 1) + [max(1, hidden - base * (m - 1))]
        self.sizes = [int(b) for b in sizes]
        self.n_symbols, self.n_labels = int(n_symbols), int(n_labels)
        self.hidden = sum(self.sizes)
        self.W = nn.ParameterList(nn.Parameter(torch.randn(n_symbols, b, b) / math.sqrt(b))
                                  for b in self.sizes)
        self.h0 = nn.ParameterList(nn.Parameter(torch.randn(b)) for b in self.sizes)
        self.readout = nn.Parameter(torch.randn(n_labels, *self.sizes))

    def _repr_options(self) -> dict[str, Any]:
        return {"sizes": self.sizes}

    def logits(self, words: Tensor, fast: bool = True) -> Tensor:
        words = words.to(torch.int64)
        if fast and self._fused(words):
            return self._fused_logits(words)
        else:
            run = scan.dense_auto if fast else scan.dense_loop
            hs = [scan.unit(run(w, words, h)) for w, h in zip(self.W, self.h0)]
        return multilinear(self.readout, hs)

    def _fused(self, words: Tensor) -> bool:
        """The CPU's fused path: two or more blocks, all of one size."""
        return not words.is_cuda and len(set(self.sizes)) == 1 and len(self.sizes) > 1

    def _fused_logits(self, words: Tensor) -> Tensor:
        """Every block in one recurrence (:func:`fsmnet.train.fused.select_recurrence`
        with the blocks stacked), so the CPU runs one sequential loop, not one per block;
        the readout is multilinear, so it reads the unnormalized blocks and divides the
        C scores by the product of the block norms instead of normalizing every block
        (two blocks: one autograd node, :func:`fsmnet.train.pair_readout.pair_readout`)."""
        from fsmnet.train.fused import select_recurrence

        if len(self.sizes) == 2:
            zt = self._pair_scores(words)  # (C, N), positions (t, b)
            return zt.view(zt.shape[0], words.shape[1] + 1, words.shape[0]).permute(2, 1, 0)
        h = select_recurrence(torch.stack(list(self.W)), words, torch.stack(list(self.h0)))
        norms = torch.linalg.vector_norm(h, dim=-1).clamp_min(1e-30).prod(dim=-1)
        return multilinear(self.readout, list(h.unbind(-2))) / norms[..., None]

    def _pair_scores(self, words: Tensor, labels: Tensor | None = None) -> Tensor:
        """Two equal blocks: label-major scores (C, (T + 1)·B), position (t, b) at column
        t·B + b, through one recurrence laid out by block and one readout node (with
        ``labels`` (B, T + 1): the loss, from the same node)."""
        from fsmnet.train.fused import select_recurrence
        from fsmnet.train.pair_readout import pair_readout

        h = select_recurrence(torch.stack(list(self.W)), words, torch.stack(list(self.h0)),
                              by_block=True)
        flat = None if labels is None else labels.T.reshape(-1)  # column order (t, b)
        return pair_readout(h.view(2, -1, self.sizes[0]), self.readout, flat)

    def loss(self, words: Tensor, labels: Tensor) -> Tensor:
        """Mean cross-entropy of every prefix's label (``labels`` (B, T + 1)): the same
        function as ``cross_entropy(logits(words))``, the loss one autograd node
        (fsmnet.train.losses) or, for two equal blocks on a CPU, computed inside the
        readout's node from the label-major scores."""
        from fsmnet.train import losses

        words = words.to(torch.int64)
        if self._fused(words) and len(self.sizes) == 2:
            return self._pair_scores(words, labels)
        return losses.cross_entropy(self.logits(words), labels)

    def forward(self, words: Tensor | Any) -> Tensor:
        """Label index after every prefix: the float32 reference execution on a CPU
        (fsmnet.train.infer.reference_labels), the argmax of the logits on a GPU.
        ``words`` as for :meth:`fsmnet.train.modules_linear.LinearRNN.forward`."""
        return self._label_trace(words, self._forward)

    def _forward(self, words: Tensor) -> Tensor:
        with torch.no_grad():
            if not words.is_cuda and not self.readout.is_cuda:
                from fsmnet.train import infer

                return infer.reference_labels(self, words)
            return self.logits(words).argmax(dim=-1)

    def to_params(self) -> dict[str, np.ndarray]:
        out = {"readout": _np(self.readout)}
        for i, (w, h) in enumerate(zip(self.W, self.h0)):
            out[f"W.{i}"] = np.ascontiguousarray(np.moveaxis(_np(w), 0, 2))
            out[f"h0.{i}"] = _np(h)
        return out

    @classmethod
    def from_params(cls, params: dict[str, np.ndarray], n_symbols: int, n_labels: int,
                    **options: Any) -> BilinearBlock:
        sizes = [int(np.asarray(params[f"h0.{i}"]).shape[0])
                 for i in range(sum(1 for k in params if k.startswith("h0.")))]
        module = cls(n_symbols, n_labels, sum(sizes), sizes=sizes)
        module.W = nn.ParameterList(_p(np.moveaxis(params[f"W.{i}"], 2, 0))
                                    for i in range(len(sizes)))
        module.h0 = nn.ParameterList(_p(params[f"h0.{i}"]) for i in range(len(sizes)))
        module.readout = _p(params["readout"])
        return module
