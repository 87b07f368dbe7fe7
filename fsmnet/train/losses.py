"""Cross-entropy of every prefix's label as one autograd node, labels grouped by row.

The training loss is the mean over the N = B·(T + 1) prefixes of
lse(z_n) − z_n[y_n].  When many prefixes share a logit row (the diagonal classes read
out each distinct symbol-count vector once, :mod:`fsmnet.train.commuting`), the sum
regroups over the D distinct rows with w[c, d] = how many prefixes of row d have label c:

    loss = (1/N) Σ_d ( n_d · lse(z_d) − Σ_c w[c, d] z_d[c] ),   n_d = Σ_c w[c, d],
    ∂loss/∂z_d[c] = (n_d · softmax(z_d)[c] − w[c, d]) / N,

the same function as ``torch.nn.functional.cross_entropy`` of the gathered (N, C)
logits, with no gather.  The gradient is written out (softmax − counts), computed
with the loss, and the logits are taken label-major, (C, D).  At C = 3 torch's
log-softmax over rows of 3 costs ~0.3 ms forward and backward for 4,160 rows; on a
CPU the loss and its gradient are one Numba kernel (:mod:`fsmnet.train.kernels`,
~50 µs), elsewhere a dozen label-major torch ops (docs/performance.md, "Training
modules").

>>> import torch
>>> z = torch.tensor([[0.0, 2.0], [1.0, 0.0]], requires_grad=True)
>>> y = torch.tensor([1, 0])
>>> loss = cross_entropy(z, y)
>>> bool(torch.isclose(loss, torch.nn.functional.cross_entropy(z, y)))
True
"""

from __future__ import annotations

from typing import Any

import torch

Tensor = torch.Tensor


def _kernel_ok(*tensors: Tensor) -> bool:
    """The Numba kernels of fsmnet.train.kernels take CPU float32/float64 arrays."""
    return all(not t.is_cuda and t.dtype in (torch.float32, torch.float64) for t in tensors)


def grouped_value_and_grad(zt: Tensor, weights: Tensor, total: int) -> tuple[Tensor, Tensor]:
    """The grouped loss (a 0-d tensor) and its gradient with respect to ``zt``, both
    without autograd: for nodes that end in the loss (fsmnet.train.commuting)."""
    zt = zt.detach()
    if _kernel_ok(zt, weights) and zt.dtype == weights.dtype:
        from fsmnet.train import kernels

        value, grad_np = kernels.grouped_ce(zt.contiguous().numpy(),
                                            weights.contiguous().numpy(), total)
        return zt.new_tensor(value), torch.from_numpy(grad_np)
    top = torch.nan_to_num_(zt.amax(0, keepdim=True), 0.0, 0.0, 0.0)
    e = torch.exp(zt - top)
    s = e.sum(0, keepdim=True)
    n = weights.sum(0, keepdim=True)
    lse = torch.log(s).add_(top)
    loss = (torch.dot(n.view(-1), lse.view(-1))
            - torch.dot(weights.reshape(-1), zt.reshape(-1))) / total
    # softmax·n − w, already divided by N; the backward only scales it.
    return loss, e.mul_(n / s).sub_(weights).div_(total)


class _GroupedCrossEntropy(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, zt: Tensor, weights: Tensor, total: int) -> Tensor:
        loss, grad = grouped_value_and_grad(zt, weights, total)
        ctx.save_for_backward(grad)
        return loss

    @staticmethod
    def backward(ctx: Any, grad_out: Tensor) -> tuple[Tensor | None, ...]:  # type: ignore[override]
        (grad,) = ctx.saved_tensors
        return grad * grad_out, None, None


def label_value_and_grad(zt: Tensor, labels: Tensor) -> tuple[Tensor, Tensor]:
    """:func:`grouped_value_and_grad` with one label per column (``labels`` (N,))."""
    zt, labels = zt.detach(), labels.to(torch.int64)
    if _kernel_ok(zt):
        from fsmnet.train import kernels

        value, grad_np = kernels.label_ce(zt.contiguous().numpy(), labels.contiguous().numpy(),
                                          labels.shape[0])
        return zt.new_tensor(value), torch.from_numpy(grad_np)
    weights = torch.zeros_like(zt).scatter_(0, labels[None], 1.0)
    return grouped_value_and_grad(zt, weights, labels.shape[0])


class _LabelCrossEntropy(torch.autograd.Function):
    """One label per column: on a CPU :func:`fsmnet.train.kernels.label_ce`."""

    @staticmethod
    def forward(ctx: Any, zt: Tensor, labels: Tensor) -> Tensor:
        loss, grad = label_value_and_grad(zt, labels)
        ctx.save_for_backward(grad)
        return loss

    @staticmethod
    def backward(ctx: Any, grad_out: Tensor) -> tuple[Tensor | None, ...]:  # type: ignore[override]
        (grad,) = ctx.saved_tensors
        return grad * grad_out, None


def grouped_cross_entropy(zt: Tensor, weights: Tensor, total: int) -> Tensor:
    """(1/total) Σ_d Σ_c weights[c, d] · (lse(zt[:, d]) − zt[c, d]): label-major logits
    ``zt`` (C, D) and label counts ``weights`` (C, D) of the same dtype."""
    out: Tensor = _GroupedCrossEntropy.apply(zt, weights, int(total))
    return out


def label_counts(rows: Tensor, labels: Tensor, n_rows: int, n_labels: int,
                 dtype: torch.dtype) -> Tensor:
    """(C, D) how often label c occurs among the positions whose row is d (``rows`` and
    ``labels`` of one shape, integer)."""
    flat = labels.reshape(-1).to(torch.int64) * n_rows + rows.reshape(-1).to(torch.int64)
    counts = torch.bincount(flat, minlength=n_rows * n_labels)
    return counts.view(n_labels, n_rows).to(dtype)


def cross_entropy(logits: Tensor, labels: Tensor) -> Tensor:
    """Mean cross-entropy of ``logits`` (..., C) against integer ``labels`` (...): the
    same function as ``torch.nn.functional.cross_entropy`` over the flattened positions,
    one autograd node with the softmax − one-hot backward."""
    n_labels = logits.shape[-1]
    zt = logits.reshape(-1, n_labels).T.contiguous()
    return label_major_cross_entropy(zt, labels.reshape(-1))


def label_major_cross_entropy(zt: Tensor, labels: Tensor) -> Tensor:
    """:func:`cross_entropy` of label-major logits ``zt`` (C, N) against ``labels`` (N,)."""
    out: Tensor = _LabelCrossEntropy.apply(zt, labels.to(torch.int64))
    return out
