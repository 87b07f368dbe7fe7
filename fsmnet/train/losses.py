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

The regularizers at the end (:func:`regularization`, ``TrainConfig.regularizers``, off
by default) favour networks a proof can reach: a margin on the logit gap, letters'
singular values pulled to 0 or 1, and contraction of the directions the readout
ignores (docs/training.md, "Regularizers").

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


# ------------------------------------------------------------------ regularizers
REGULARIZERS = ("margin", "margin_target", "moduli", "contraction")
"""The keys of ``TrainConfig.regularizers``: three weights (0 = off, the default) and the
margin's target.  Each favours networks that a proof can reach (docs/training.md,
"Regularizers")."""

MARGIN_TARGET = 0.1
"""The default normalized gap the margin hinge asks of every prefix."""


def check_regularizers(values: dict[str, float]) -> dict[str, float]:
    """``values`` with the default target filled in; a
    :class:`~fsmnet.errors.SpecError` naming an unknown key or a value that is not a
    finite number >= 0."""
    from fsmnet.errors import SpecError

    unknown = sorted(set(values) - set(REGULARIZERS))
    if unknown:
        raise SpecError(f"unknown regularizer(s); known: {', '.join(REGULARIZERS)}",
                        source="regularizers", value=unknown)
    out = {"margin_target": MARGIN_TARGET}
    for key, value in values.items():
        if (isinstance(value, bool) or not isinstance(value, (int, float))
                or not 0 <= value < float("inf")):
            raise SpecError("must be a finite number >= 0", source="regularizers",
                            field=key, value=value)
        out[key] = float(value)
    return out


def logit_scale(module: Any) -> Tensor:
    """What the margin divides the logit gap by: the readout's Frobenius norm where the
    logits are linear in it (the linear classes and the block class, whose states are
    normalized, so the gap over it is a distance to the decision boundary up to √2),
    the temperature of max-min modules (the gap in score units, scores in [0, 1]),
    else 1."""
    readout = getattr(module, "readout", None)
    if getattr(module, "arch", "") == "minmax-dense":
        from fsmnet.train.modules_minmax import TEMPERATURE

        return torch.tensor(float(TEMPERATURE))
    if isinstance(readout, torch.nn.Parameter):
        return torch.linalg.vector_norm(readout).clamp_min(1e-30)
    return torch.tensor(1.0)


def margin_penalty(module: Any, words: Tensor, labels: Tensor, target: float) -> Tensor:
    """mean over the prefixes of relu(target − (z_y − max_{c≠y} z_c) / s): a hinge on the
    gap between the right label's logit and the best other one, ``s`` =
    :func:`logit_scale`.  A float32 proof needs every reachable state strictly inside
    its label's region; cross-entropy alone is content with a small gap."""
    z = module.logits(words)
    if z.shape[-1] < 2:
        return z.sum() * 0.0
    y = labels.to(torch.int64).unsqueeze(-1)
    right = z.gather(-1, y).squeeze(-1)
    others = z.scatter(-1, y, float("-inf")).amax(-1)
    gap = (right - others) / logit_scale(module).to(z)
    return torch.relu(target - gap).mean()


def _zero(module: Any) -> Tensor:
    first = next(iter(module.parameters()), None)
    return torch.zeros(()) if first is None else first.new_zeros(())


def _r2_matrices(rho: Tensor, theta: Tensor) -> Tensor:
    """(S, H, H) of the 2×2 rotation-scaling blocks e^ρ·rot(θ), channel k on (2k, 2k+1)."""
    s, k = rho.shape
    m = torch.exp(rho)
    c, d = m * torch.cos(theta), m * torch.sin(theta)
    out = rho.new_zeros(s, k, 2, k, 2)
    idx = torch.arange(k)
    out[:, idx, 0, idx, 0], out[:, idx, 0, idx, 1] = c, -d
    out[:, idx, 1, idx, 0], out[:, idx, 1, idx, 1] = d, c
    return out.reshape(s, 2 * k, 2 * k)


def letter_blocks(module: Any) -> list[tuple[Tensor, Tensor]]:
    """Per block of a linear module: (its per-letter transition matrices (S, b, b), the
    rows (m, b) whose span is what the readout reads of it).  One block for the linear
    classes (the readout (C, H)); for ``bilinear-block`` block i's rows are the
    mode-i unfolding of the multilinear readout.  Empty for max-min modules (their
    states take finitely many values already) and the LSTM."""
    from fsmnet.train.modules_block import BilinearBlock
    from fsmnet.train.modules_linear import LinearRNN

    if isinstance(module, BilinearBlock):
        out = []
        for i, w in enumerate(module.W):
            unfolded = module.readout.movedim(i + 1, 0).reshape(w.shape[-1], -1)
            out.append((w, unfolded.T))
        return out
    if not isinstance(module, LinearRNN):
        return []
    if module.complex_pairs:  # bilinear-r2: log-moduli ρ and angles θ
        return [(_r2_matrices(*module.log_phase()), module.readout)]
    if module.diagonal:
        log_mod, phase = module.log_phase()
        return [(torch.diag_embed(torch.exp(log_mod) * phase), module.readout)]
    return [(module.matrices(), module.readout)]


def moduli_penalty(module: Any) -> Tensor:
    """mean over every letter's singular values σ of min(σ, |σ − 1|)²: each pulled to the
    nearer of 0 and 1.  The singular values are the eigenvalue moduli for normal
    matrices (diagonals, rotations, permutations, orthogonal projections), and
    every automaton has a network of this form with all of them in {0, 1} (a
    partial isometry per letter: column j is e_{δ(j,σ)} over √|its preimage|), whose
    normalized states are finitely many: what an exact or float32 exploration
    proves.  Moduli strictly between, or above 1, make states drift or blow up."""
    blocks = letter_blocks(module)
    if not blocks:
        return _zero(module)
    sigmas = torch.cat([torch.linalg.svdvals(m).reshape(-1) for m, _ in blocks])
    return torch.minimum(sigmas, (sigmas - 1).abs()).square().mean()


def null_projector(rows: Tensor) -> Tensor:
    """I − Q Qᵀ, Q an orthonormal basis (reduced QR) of the span of ``rows`` (m, b): the
    projector onto the directions that ``rows`` ignore (zero when m ≥ b and the rows
    span everything)."""
    b = rows.shape[-1]
    eye = torch.eye(b, dtype=rows.dtype, device=rows.device)
    if rows.shape[0] >= b:
        return eye * 0.0
    q, _ = torch.linalg.qr(rows.T)
    return eye - q @ q.T


def contraction_penalty(module: Any) -> Tensor:
    """mean over blocks and letters of ‖P A(σ) P‖_F² / ‖A(σ)‖_F², P = :func:`null_projector`
    of what the readout reads: the part of each letter that keeps a component the
    readout ignores among the ignored directions.  Such a component can drift or grow
    unseen for many steps (training never sees it, a proof must bound it); with
    P A P = 0 it vanishes or shows in the labels after one step."""
    terms = []
    for mats, rows in letter_blocks(module):
        p = null_projector(rows).to(mats.dtype)
        kept = (p @ mats @ p).square().sum((-2, -1))
        terms.append(kept / mats.square().sum((-2, -1)).clamp_min(1e-30))
    if not terms:
        return _zero(module)
    return torch.cat(terms).mean()


def regularization(module: Any, words: Tensor, labels: Tensor,
                   weights: dict[str, float]) -> Tensor:
    """The weighted sum of the regularizers that ``weights`` turns on (a 0-d tensor; 0
    when none is): margin · :func:`margin_penalty` + moduli · :func:`moduli_penalty`
    + contraction · :func:`contraction_penalty`."""
    total = _zero(module)
    if weights.get("margin", 0.0) > 0:
        target = weights.get("margin_target", MARGIN_TARGET)
        total = total + weights["margin"] * margin_penalty(module, words, labels, target)
    if weights.get("moduli", 0.0) > 0:
        total = total + weights["moduli"] * moduli_penalty(module)
    if weights.get("contraction", 0.0) > 0:
        total = total + weights["contraction"] * contraction_penalty(module)
    return total
