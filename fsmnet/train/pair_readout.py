"""The multilinear readout of two blocks, normalized, as one autograd node.

For two blocks h⁽⁰⁾, h⁽¹⁾ of size b (the ``bilinear-block`` module with m = 2) the
score of label c is the bilinear form

    z_c = h⁽⁰⁾ᵀ R_c h⁽¹⁾ / (‖h⁽⁰⁾‖ ‖h⁽¹⁾‖),

the same function as :func:`fsmnet.train.modules_block.multilinear` of the unit
blocks.  Autograd records it as ~15 nodes over (N, C·b) tensors, each with a
broadcasting backward; written out, the backward is two GEMMs and one batched
product (with s = 1/(‖h⁽⁰⁾‖‖h⁽¹⁾‖), G the gradient of z and δ = Σ_c G_c z_c):

    ∂/∂h⁽⁰⁾ = s Σ_c G_c R_c h⁽¹⁾ − δ h⁽⁰⁾/‖h⁽⁰⁾‖²   (the forward's R_c h⁽¹⁾, saved)
    ∂/∂h⁽¹⁾ = s Σ_c G_c R_cᵀ h⁽⁰⁾ − δ h⁽¹⁾/‖h⁽¹⁾‖²  = X·R − …, X = (sG) ⊗ h⁽⁰⁾
    ∂/∂R_c = Σ_n s G_c h⁽⁰⁾ h⁽¹⁾ᵀ                   = Xᵀ h⁽¹⁾

(docs/performance.md, "Training modules": 3.3 ms of a 10 ms step before).

>>> import torch
>>> h = torch.tensor([[[2.0, 0.0]], [[0.0, 3.0]]])  # one position: blocks 2e_0 and 3e_1
>>> r = torch.zeros(1, 2, 2); r[0, 0, 1] = 1.0        # z = h0[0]·h1[1] / (2 · 3)
>>> pair_readout(h, r).tolist()
[[1.0]]
"""

from __future__ import annotations

from typing import Any

import torch

Tensor = torch.Tensor
_EPS = 1e-30


def _kernel_ok(h: Tensor) -> bool:
    return not h.is_cuda and h.dtype in (torch.float32, torch.float64)


class _PairReadout(torch.autograd.Function):
    # Block-major states (2, N, b).  The products P = h1·[R_0ᵀ … R_{C-1}ᵀ] (N, C·b) and the
    # backward's two GEMMs run in torch; on a CPU the rest (norms, the C dot products per
    # position, the backward's per-position sums) is one Numba loop each way
    # (fsmnet.train.kernels): as torch ops at C = 3 they were ~20 ops over (C, N, b).
    @staticmethod
    def forward(ctx: Any, h: Tensor, readout: Tensor, labels: Tensor | None) -> Tensor:
        h = h.contiguous()
        n_labels, size = readout.shape[0], readout.shape[1]
        # rows[c·b + i, j] = R[c, i, j]: P[n, c·b + i] = (R_c h1[n])_i.
        rows = readout.reshape(n_labels * size, size)
        p = h[1] @ rows.T  # (N, C·b)
        if _kernel_ok(h):
            from fsmnet.train import kernels

            z_np, norms_np, scale_np = kernels.pair_forward(h.detach().numpy(),
                                                            p.detach().numpy(), _EPS)
            z, norms, scale = (torch.from_numpy(z_np), torch.from_numpy(norms_np),
                               torch.from_numpy(scale_np))
        else:
            norms = torch.linalg.vector_norm(h, dim=-1).clamp_min_(_EPS)  # (2, N)
            scale = (norms[0] * norms[1]).reciprocal_()
            z = (p.view(-1, n_labels, size) * h[0, :, None, :]).sum(dim=-1).T * scale
        ctx.save_for_backward(h, readout, p, norms, scale, z)
        ctx.loss_grad = None
        if labels is not None:
            # The node ends in the cross-entropy (fsmnet.train.losses): its gradient,
            # softmax − one-hot, is known now; the backward scales it.
            from fsmnet.train.losses import label_value_and_grad

            loss, ctx.loss_grad = label_value_and_grad(z, labels)
            return loss
        return z

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor | None, ...]:  # type: ignore[override]
        h, readout, p, norms, scale, z = ctx.saved_tensors
        if ctx.loss_grad is not None:
            grad = ctx.loss_grad * grad
        n_labels, size = readout.shape[0], readout.shape[1]
        rows = readout.reshape(n_labels * size, size)
        if _kernel_ok(h) and grad.dtype == h.dtype:
            from fsmnet.train import kernels

            gh_np, x_np = kernels.pair_backward(h.numpy(), p.numpy(), norms.numpy(),
                                                scale.numpy(), z.numpy(),
                                                grad.detach().contiguous().numpy())
            grad_h, x = torch.from_numpy(gh_np), torch.from_numpy(x_np)
        else:
            gs = grad * scale  # (C, N)
            # δ/‖h_k‖² per block, δ = Σ_c G_c z_c, as a (2, N, 1) column.
            coef = ((grad * z).sum(dim=0) / (norms * norms)).unsqueeze_(-1)
            grad_h = torch.mul(h, coef).neg_()  # the normalization's projection terms
            # ∂/∂h0 += Σ_c sG_c (R_c h1), from the saved products.
            grad_h[0] += (p.view(-1, n_labels, size) * gs.T[:, :, None]).sum(dim=1)
            x = (gs.T[:, :, None] * h[0, :, None, :]).reshape(-1, n_labels * size)
        # ∂/∂h1 += Σ_c R_cᵀ (sG_c h0) = x·rows; ∂/∂R_c[i, j] = Σ_n x[n, c·b + i] h1[n, j].
        grad_h[1].addmm_(x, rows)
        grad_r = (x.T @ h[1]).view_as(readout) if ctx.needs_input_grad[1] else None
        return grad_h, grad_r, None


def pair_readout(h: Tensor, readout: Tensor, labels: Tensor | None = None) -> Tensor:
    """Label-major scores (C, N) of block-major states ``h`` (2, N, b) through ``readout``
    (C, b, b): z_c = h0ᵀ R_c h1 / (‖h0‖ ‖h1‖), a zero block giving 0.  With ``labels``
    (N,) class ids: their mean cross-entropy, computed in the same node."""
    out: Tensor = _PairReadout.apply(h, readout, labels)
    return out
