"""Training the fixed-point RNN *through* its diagonal iteration (arXiv 2503.10799).

:mod:`fsmnet.train.fp_iteration` reaches the states of
:class:`~fsmnet.train.modules_linear.FixedPointRNN` by K iterations of a diagonal
RNN; here that K-iterated readout is the model that is trained: the loss is the
cross-entropy of :func:`~fsmnet.train.fp_iteration.iterated_logits` with K fixed,
and autograd differentiates through all K scans (every iteration, not the paper's
code's "iterate without gradients, then one differentiated step").

Gradients.  Each iterate is kept as g_t = h_t / c_t with a *detached* positive c_t per
position (fp_iteration's "Scale").  The readout reads h_t / ‖h_t‖, which is the same
function of h_t for every positive constant c_t, and the recurrence for g is the
recurrence for h in rescaled coordinates; so treating c as a constant gives exactly
the gradient of the unscaled iteration.  ``tests/test_fp_iteration.py`` checks this
against autograd of a plain-loop implementation of the same K iterations.

Contraction.  The iteration converges to the exact solve iff every
ρ(N_σ) < 1, N_σ = diag(1 − Λ_σ)(I − Q_σ), and nothing in the parametrization keeps
it there (exact-solve training drives it to 2.3–2.8, docs/experiments.md).  The
option chosen here is a projection after every optimizer step (and before the
first): each E_σ = I − Q_σ is scaled down to spectral norm ≤ ``radius`` < 1.  Then

    ρ(N_σ) ≤ ‖N_σ‖₂ ≤ max(1 − Λ_σ) · ‖E_σ‖₂ < radius,

a bound that holds at every step, not a tendency.  Why this and not the others: a
penalty on ρ only discourages (the end point can still be above 1) and the
gradient of an eigenvalue modulus is ill-conditioned where eigenvalues meet; a
reparametrization would give the module new parameters and a new file format,
while the projection keeps a plain FixedPointRNN whose saved network is unchanged;
and the bound costs S singular value decompositions of H × H per step.  What it
costs in expressiveness: with a scalar Λ = λI, every eigenvalue μ of A = (I − N)⁻¹ Λ
satisfies N v = (1 − λ/μ) v, so ρ(N) < 1 confines μ to the disc |μ − λ| < λ (no
rotation by 90° or more in one step); a per-channel Λ is less confined.

A saved module is its weights (Λ, Q): the network file format has no iteration
count, so a trained-through-iteration module is saved, run and certified as its
exact solve.  Only where the iteration has converged (ρ < 1 and K large enough for
the words' length) is that the model that was trained.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
from torch import nn

from fsmnet.errors import FsmnetError
from fsmnet.train.fp_iteration import check_module, iterated_logits
from fsmnet.train.modules_linear import FixedPointRNN

Tensor = torch.Tensor
IGNORE = -100
"""The label of a position that is not scored (torch's default ``ignore_index``)."""

__all__ = ["IGNORE", "IteratedConfig", "contraction_bound", "masked_cross_entropy",
           "project_contraction", "readout_logits", "train_on_batches"]


def readout_logits(module: Any, words: Tensor, iterations: int | None) -> Tensor:
    """Per-position logits (B, T + 1, C): the module's own recurrence (``iterations``
    None; for a FixedPointRNN the exact solve), else K = ``iterations`` iterations of
    the fixed-point iteration (:func:`~fsmnet.train.fp_iteration.iterated_logits`)."""
    if iterations is None:
        out: Tensor = module.logits(words)
        return out
    return iterated_logits(module, words, iterations)


def masked_cross_entropy(logits: Tensor, labels: Tensor) -> Tensor:
    """Mean cross-entropy over the positions whose label is not :data:`IGNORE`."""
    return nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]),
                                       labels.reshape(-1).to(torch.int64),
                                       ignore_index=IGNORE)


def _mix_norms(module: FixedPointRNN, dtype: torch.dtype) -> Tensor:
    logit = module.l.detach().clamp(-module._L, module._L).to(dtype)
    e = torch.eye(module.hidden, dtype=dtype) - module.Q.detach().to(dtype)
    return torch.linalg.matrix_norm(torch.sigmoid(-logit)[:, :, None] * e, ord=2)


def contraction_bound(module: FixedPointRNN) -> Tensor:
    """Per letter ‖(I − Λ_σ)(I − Q_σ)‖₂ (S,), float64: an upper bound on the
    contraction factor ρ that :func:`~fsmnet.train.fp_iteration.contraction` measures."""
    check_module(module, 0)
    with torch.no_grad():
        return _mix_norms(module, torch.float64)


def project_contraction(module: FixedPointRNN, radius: float) -> None:
    """In place: scale each I − Q_σ down to spectral norm ≤ ``radius`` (those already
    inside are untouched), so that every ρ(N_σ) < ``radius`` (module docstring)."""
    check_module(module, 0)
    if not 0.0 < radius < 1.0:
        raise FsmnetError(f"fp_training: field 'radius' must be in (0, 1) (value: {radius!r})")
    with torch.no_grad():
        eye = torch.eye(module.hidden, dtype=module.Q.dtype, device=module.Q.device)
        e = eye - module.Q
        norm = torch.linalg.matrix_norm(e.double(), ord=2)
        # The factor is computed in float64 and shaved by 1e-6 so that float32 rounding
        # of the scaled matrix cannot land it just above the radius.
        scale = torch.clamp(radius * (1 - 1e-6) / norm.clamp_min(1e-300), max=1.0)
        module.Q.copy_(eye - e * scale.to(e.dtype)[:, None, None])


@dataclass
class IteratedConfig:
    """``iterations``: K of the trained readout (None: the module's own recurrence);
    ``radius``: the contraction projection (None: off; FixedPointRNN only)."""

    iterations: int | None
    steps: int = 1000
    lr: float = 0.01
    seed: int = 0
    radius: float | None = None
    clip: float = 1.0
    threads: int = 1


Sample = Callable[[np.random.Generator], tuple[np.ndarray, np.ndarray]]
"""A batch: (B, T) symbol ids and (B, T + 1) labels (:data:`IGNORE` where unscored)."""


def train_on_batches(module: Any, sample: Sample, config: IteratedConfig,
                     progress: Callable[[int, float], None] | None = None
                     ) -> tuple[list[float], float]:
    """Adam on :func:`masked_cross_entropy` of :func:`readout_logits` over
    ``config.steps`` batches ``sample(rng)``, ``rng = numpy.random.default_rng(seed)``;
    gradients clipped to norm ``clip`` as ``fsmnet.train.loop.train`` clips them.
    Deterministic on the CPU for a fixed seed and thread count (the caller seeds the
    module's initialization).  Returns the per-step losses and the seconds taken."""
    if config.iterations is not None or config.radius is not None:
        check_module(module, 0 if config.iterations is None else config.iterations)
    torch.set_num_threads(max(1, int(config.threads)))
    torch.use_deterministic_algorithms(True)
    rng = np.random.default_rng(config.seed)
    if config.radius is not None:
        project_contraction(module, config.radius)
    opt = torch.optim.Adam(module.parameters(), lr=config.lr)
    losses: list[float] = []
    began = time.perf_counter()
    for step in range(config.steps):
        words, labels = sample(rng)
        loss = masked_cross_entropy(readout_logits(module, torch.as_tensor(words),
                                                   config.iterations),
                                    torch.as_tensor(labels))
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(module.parameters(), config.clip)
        opt.step()
        if config.radius is not None:
            project_contraction(module, config.radius)
        losses.append(float(loss.detach()))
        if progress is not None:
            progress(step, losses[-1])
    return losses, time.perf_counter() - began
