"""The fixed-point RNN's states reached by iterating its diagonal RNN (arXiv 2503.10799).

:class:`~fsmnet.train.modules_linear.FixedPointRNN` solves h_t = A(x_t) h_{t-1},
A = (I + (Λ⁻¹ − I) Q)⁻¹, exactly by a matrix inverse.  The paper reaches the same
dense RNN as the fixed point of a *diagonal* one: h = A h_prev is equivalent to
h = Λ h_prev + (I − Λ)(I − Q) h, so over a whole word

    h_t^(k+1) = Λ_t h_{t-1}^(k+1) + N_t h_t^(k),   N_t = (I − Λ_t)(I − Q_t),  t = 1..T,

for k = 0..K−1, each k a diagonal linear recurrence whose input N_t h_t^(k) is known:
one parallel-in-time scan.  Start: h^(0) = 0, as the paper's code starts (so K = 1 is
the diagonal RNN h_t = Λ_t ··· Λ_1 h_0, and K → ∞ the dense one).  Starting from h_0
at every position instead leaves an initial error of h_0 − h_t, which is exponentially
larger than h_t itself wherever the states shrink along the word, and measured slower
(the states' directions, not their sizes, are what the readout reads); from zeros the
initial error is −h_t, of relative size 1 at every position.

Convergence.  The map h^(k) ↦ h^(k+1) is linear and block lower triangular over
positions, with diagonal blocks N_t; so it converges to the exact states for every
start iff every ρ(N_t) < 1 (:func:`contraction` measures ρ(N_σ) per letter).

Scan.  y_t = a_t y_{t-1} + b_t by Hillis-Steele doubling over the affine maps
(``scan.doubling``): ⌈log₂ T⌉ levels, each multiplying spans of a (never dividing),
so a product that underflows is a weight that is below float range anyway.  The
cumulative-product form y_t = P_t (y_0 + Σ b_s / P_s), P_t = a_t ··· a_1, divides by
P_s, which underflows within a few steps when Λ is small; the doubling does not.
Iteration 1, the bare product Λ_t ··· Λ_1 h_0, is one cumulative sum of log Λ instead,
each position divided by its largest channel factor.

Scale.  A readout reads h_t / ‖h_t‖ (:class:`~fsmnet.train.modules_linear.LinearRNN`),
so every position of every iterate is kept as g_t = h_t / c_t with a detached positive
c_t (c_0 = 1); the recurrence for g has coefficient Λ_t c_{t-1}/c_t and the same
input, which is the same iteration in rescaled coordinates.  Positive factors change
neither directions nor, being detached, the gradients of the normalized states
(the argument of :mod:`fsmnet.train.scan`).  A product of coefficients over a span is
at most c_s / c_t, the iterate's own norm ratio, which overflows only where the
unscaled states themselves would.

Cost per iteration: one batched matrix-vector product N_t h_t for every position at
once (B·T·H² multiply-adds) and one doubling scan (B·T·H·⌈log₂ T⌉), depth 1 + ⌈log₂ T⌉;
K iterations cost K times that.  The exact solve inverts S matrices (S·H³) and runs a
dense recurrence of depth T.
"""

from __future__ import annotations

from typing import Any

import torch
from torch import nn

from fsmnet.automata import Automaton
from fsmnet.errors import FsmnetError
from fsmnet.train import scan
from fsmnet.train.data import accuracy
from fsmnet.train.module_base import token_ids
from fsmnet.train.modules_linear import FixedPointRNN

Tensor = torch.Tensor
_EPS = 1e-30

__all__ = ["affine_scan", "check_module", "contraction", "iterated_accuracy",
           "iterated_logits", "iterated_states"]


def check_module(module: Any, iterations: Any) -> None:
    """Refuse, naming the field and value, a module that is not a FixedPointRNN or an
    iteration count that is not an integer ≥ 0 (shared with :mod:`.fp_training`)."""
    if not isinstance(module, FixedPointRNN):
        raise FsmnetError(f"fp_iteration: field 'module' must be a FixedPointRNN "
                          f"(value: {type(module).__name__})")
    if isinstance(iterations, bool) or not isinstance(iterations, int) or iterations < 0:
        raise FsmnetError(f"fp_iteration: field 'iterations' must be an integer ≥ 0 "
                          f"(value: {iterations!r})")


def _logit(module: FixedPointRNN) -> Tensor:
    """l with the module's clamp, so that Λ = sigmoid(l) is the module's own."""
    return module.l.clamp(-module._L, module._L)


def _letters(module: FixedPointRNN, dtype: torch.dtype | None = None) -> tuple[Tensor, Tensor]:
    """Per letter Λ (S, H) and N = diag(1 − Λ)(I − Q) (S, H, H), with the module's clamp
    of the logits.  1 − Λ is sigmoid(−l): no cancellation where Λ is near 1."""
    logit: Tensor = _logit(module)
    q: Tensor = module.Q
    if dtype is not None:
        logit, q = logit.to(dtype), q.to(dtype)
    eye = torch.eye(module.hidden, dtype=q.dtype, device=q.device)
    return torch.sigmoid(logit), torch.sigmoid(-logit)[:, :, None] * (eye - q)


def affine_scan(a: Tensor, b: Tensor, y0: Tensor) -> Tensor:
    """y_t = a_t ⊙ y_{t-1} + b_t for t = 1..T by doubling; ``a``, ``b`` (B, T, H), ``y0``
    (H) or (B, H).  Returns (B, T + 1, H), y_0 first."""
    batch, length, hidden = b.shape
    start = y0.expand(batch, hidden)
    if length == 0:
        return start[:, None]

    def identity(k: int) -> tuple[Tensor, Tensor]:
        return (torch.ones(batch, k, hidden, dtype=b.dtype, device=b.device),
                torch.zeros(batch, k, hidden, dtype=b.dtype, device=b.device))

    def combine(first: tuple[Tensor, Tensor], then: tuple[Tensor, Tensor]
                ) -> tuple[Tensor, Tensor]:
        # "first, then": y ↦ a₂(a₁ y + b₁) + b₂
        return then[0] * first[0], then[0] * first[1] + then[1]

    prod, shift = scan.doubling((a.expand_as(b), b), combine, identity)
    return torch.cat([start[:, None], prod * start[:, None] + shift], dim=1)


def iterated_states(module: FixedPointRNN, words: Any, iterations: int) -> Tensor:
    """Unit-norm states (B, T + 1, H) after ``iterations`` = K iterations of the diagonal
    fixed-point iteration (module docstring), the empty prefix first (h_0 / ‖h_0‖);
    K = 0 is the zero start (zero vectors after h_0, so all logits 0 there).  ``words``:
    (B, T) or (T,) symbol ids."""
    check_module(module, iterations)
    tokens, _ = token_ids(words, module.n_symbols, module.h0.device)
    batch, length = tokens.shape
    h0 = module.h0
    start = h0.expand(batch, 1, -1)
    if iterations == 0 or length == 0:  # the zero start: no direction yet
        return torch.cat([scan.unit(start), torch.zeros_like(h0).expand(batch, length, -1)],
                         dim=1)
    lam, mix = _letters(module)
    mix_t = mix[tokens]  # (B, T, H, H)
    # Iteration 1 from zeros is the diagonal RNN h_t = Λ_t ··· Λ_1 h_0: in log space, each
    # position divided by the largest channel factor e^{top_t} (c_t), so Λ near 0 cannot
    # underflow it; channels e^-80 below that are 0 (no subnormals, as in scan.diag_scan).
    cum = torch.cumsum(nn.functional.logsigmoid(_logit(module))[tokens], dim=1)
    top = cum.detach().amax(dim=-1, keepdim=True)  # (B, T, 1)
    rel = cum - top
    g = torch.where(rel < -80.0, torch.zeros_like(rel), torch.exp(rel.clamp_min(-80.0))) * h0
    one = torch.ones(batch, 1, 1, dtype=h0.dtype, device=h0.device)
    # c_{t-1}/c_t, with c_0 = 1 (top_0 = 0): h_0 itself is the start of every scan.
    ratio = torch.exp(torch.cat([torch.zeros_like(one), top[:, :-1]], dim=1) - top)
    lam_t = lam[tokens]
    for k in range(iterations):
        if k:
            drive = torch.einsum("btij,btj->bti", mix_t, g)
            g = affine_scan(lam_t * ratio, drive, h0)[:, 1:]
        norm = torch.linalg.vector_norm(g.detach(), dim=-1, keepdim=True).clamp_min(_EPS)
        # c_t ← c_t · ‖g_t‖ (c_0 = 1 stays), so c_{t-1}/c_t picks up ‖g_{t-1}‖ / ‖g_t‖.
        ratio = ratio * torch.cat([one, norm[:, :-1]], dim=1) / norm
        g = g / norm
    return scan.unit(torch.cat([start, g], dim=1))


def iterated_logits(module: FixedPointRNN, words: Any, iterations: int) -> Tensor:
    """Per-position logits (B, T + 1, C) of the iterated states, read out as
    :meth:`LinearRNN.logits` reads the exact ones: W · h_t / ‖h_t‖."""
    return iterated_states(module, words, iterations) @ module.readout.T


def iterated_accuracy(module: FixedPointRNN, automaton: Automaton, length: int,
                      iterations: int, *, words: int = 256, seed: int = 1234) -> float:
    """:func:`fsmnet.train.data.accuracy` (the same words for the same ``seed``, the
    empty prefix excluded) of the argmax of :func:`iterated_logits`."""
    check_module(module, iterations)

    def labels(tokens: Tensor) -> Tensor:
        return iterated_logits(module, tokens, iterations).argmax(dim=-1)

    return accuracy(labels, automaton, length, words=words, seed=seed,
                    device=str(module.h0.device))


def contraction(module: FixedPointRNN) -> Tensor:
    """Per letter ρ((I − Λ_σ)(I − Q_σ)) (S,), float64 eigenvalues of the float32
    weights (a measurement, not a proof): the iteration converges on every word iff
    every entry is below 1."""
    check_module(module, 0)
    with torch.no_grad():
        _, mix = _letters(module, torch.float64)
        return torch.linalg.eigvals(mix).abs().amax(dim=-1)
