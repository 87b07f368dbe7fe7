"""fsmnet.train.fp_iteration: the fixed-point RNN's states by the paper's diagonal
iteration (arXiv 2503.10799), against independent sources.

* Convergence: the exact-solve states of ``FixedPointRNN.states`` (a matrix inverse and
  a dense recurrence, no iteration), within the a-priori bound of the block lower
  triangular iteration, computed from the module's own ‖N‖ and max Λ.
* K = 1, 2, 3: a sequential numpy loop over k and t of the iteration's definition,
  h_t^(k+1) = Λ_t h_{t-1}^(k+1) + (I − Λ_t)(I − Q_t) h_t^(k), from zeros, unscaled.
* ρ: by hand for diagonal N, and ``fsmnet.nets.fixed_point.spectral_radius`` on the
  module's network form (a separate numpy implementation).
* The scan: a step loop, on random small inputs (Hypothesis).
* Training through K iterations (fsmnet.train.fp_training): the gradients against
  autograd of a plain torch loop of the same K iterations (unscaled, no scan) and
  against central finite differences; the contraction projection against float64
  eigenvalues (``contraction``); a seeded run against a second run.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples

from fsmnet.errors import FsmnetError
from fsmnet.nets.fixed_point import spectral_radius
from fsmnet.train.fp_iteration import (
    affine_scan,
    contraction,
    iterated_logits,
    iterated_states,
)
from fsmnet.train.fp_training import (
    IGNORE,
    IteratedConfig,
    contraction_bound,
    masked_cross_entropy,
    project_contraction,
    train_on_batches,
)
from fsmnet.train.modules_linear import FixedPointRNN


def _module(seed: int, symbols: int = 3, hidden: int = 4) -> FixedPointRNN:
    torch.manual_seed(seed)
    return FixedPointRNN(symbols, 2, hidden).double()


def _contracting(seed: int) -> FixedPointRNN:
    """Λ = sigmoid(−1) ≈ 0.27 everywhere and Q = I − 0.3 R, ‖R‖₂ = 1: ‖N‖₂ ≤ 0.22."""
    module = _module(seed)
    gen = torch.Generator().manual_seed(seed)
    r = torch.randn(3, 4, 4, generator=gen, dtype=torch.float64)
    r = r / torch.linalg.matrix_norm(r, 2)[:, None, None]
    with torch.no_grad():
        module.l.fill_(-1.0)
        module.Q.copy_(torch.eye(4, dtype=torch.float64) - 0.3 * r)
    return module


def _words(seed: int, batch: int, length: int, symbols: int = 3) -> torch.Tensor:
    return torch.randint(0, symbols, (batch, length), generator=torch.Generator().manual_seed(seed))


def _unit(x: np.ndarray) -> np.ndarray:
    return x / np.linalg.norm(x, axis=-1, keepdims=True)


def _reference(module: FixedPointRNN, words: torch.Tensor, iterations: int) -> np.ndarray:
    """The iteration's definition, a loop over k and t in float64 numpy, from zeros."""
    logit = module.l.detach().double().numpy()
    q = module.Q.detach().double().numpy()
    h0 = module.h0.detach().double().numpy()
    lam = 1.0 / (1.0 + np.exp(-logit))
    mix = (1.0 - lam)[:, :, None] * (np.eye(q.shape[1]) - q)
    out = []
    for word in words.tolist():
        old = np.zeros((len(word) + 1, h0.size))
        for _ in range(iterations):
            new = np.zeros_like(old)
            new[0] = h0
            for t, sym in enumerate(word, 1):
                new[t] = lam[sym] * new[t - 1] + mix[sym] @ old[t]
            old = new
        old[0] = h0
        out.append(old)
    return np.array(out)


def test_converges_to_exact_solve_within_the_contraction_bound() -> None:
    # Error after K iterations (block lower triangular, blocks ‖(Λ···Λ) N‖ ≤ λ^{t-s} n):
    # ‖e_t‖ ≤ (n / (1 − λ))^K max_{s≤t} ‖h*_s‖ from the zero start (e⁰ = −h*), and the
    # direction error is at most 2 ‖e_t‖ / ‖h*_t‖.  Float64 rounding adds ~1e-15·T.
    module = _contracting(0)
    words = _words(1, 4, 10)
    mix = (1 - torch.sigmoid(module.l))[:, :, None] * (torch.eye(4) - module.Q)
    n = float(torch.linalg.matrix_norm(mix.detach(), 2).max())
    lam = float(torch.sigmoid(module.l.detach()).max())
    factor = n / (1 - lam)
    assert factor < 0.5 and float(contraction(module).max()) < 1
    with torch.no_grad():
        mats = torch.linalg.inv(torch.eye(4, dtype=torch.float64)
                                + torch.exp(-module.l)[:, :, None] * module.Q)
        h = [module.h0.expand(4, -1)]
        for t in range(words.shape[1]):
            h.append(torch.einsum("bij,bj->bi", mats[words[:, t]], h[-1]))
        sizes = torch.stack(h, 1).norm(dim=-1)  # unscaled ‖h*_t‖ (B, T + 1)
        worst = torch.cummax(sizes, dim=1).values / sizes
        exact = module.states(words)
        for k in (2, 4, 8, 16, 32):
            err = (iterated_states(module, words, k) - exact).norm(dim=-1)
            bound = 2 * factor**k * worst + 1e-12
            assert bool((err[:, 1:] <= bound[:, 1:]).all()), (k, err, bound)
        assert float(err.max()) < 1e-9  # K = 32: converged, not just within a loose bound
        logits = iterated_logits(module, words, 32)
        assert torch.allclose(logits, module.logits(words, fast=False), atol=1e-9)


def test_gradients_converge_to_the_exact_solve_gradients() -> None:
    # The scales are detached positive factors: by homogeneity they leave the gradients of
    # the normalized states exact, and differentiating a contracting iteration gives a
    # contracting iteration for the derivatives, so they converge with the states.
    module = _contracting(6)
    words = _words(7, 3, 8)
    weights = torch.randn(3, 9, 2, generator=torch.Generator().manual_seed(8),
                          dtype=torch.float64)
    params = [module.l, module.Q, module.h0, module.readout]
    exact = torch.autograd.grad((module.logits(words, fast=False) * weights).sum(), params)
    got = torch.autograd.grad((iterated_logits(module, words, 40) * weights).sum(), params)
    for g, e in zip(got, exact, strict=True):
        torch.testing.assert_close(g, e, rtol=1e-9, atol=1e-9)


def test_one_two_three_iterations_match_the_sequential_loop() -> None:
    module = _module(3)  # generic weights: ρ not constrained, K small
    words = _words(4, 3, 7)
    with torch.no_grad():
        for k in (1, 2, 3):
            got = iterated_states(module, words, k).numpy()
            np.testing.assert_allclose(got, _unit(_reference(module, words, k)), atol=1e-12)
        zero = iterated_states(module, words, 0).numpy()
    np.testing.assert_allclose(zero[:, 0], _unit(module.h0.detach().numpy())[None].repeat(3, 0))
    assert not zero[:, 1:].any()


def test_small_lambda_does_not_underflow() -> None:
    # Λ = sigmoid(−30) ≈ 1e-13: the bare product Λ^t is 0 in float32 from t = 3 on, and a
    # cumulative-product scan divides by it.  The result must stay finite and unit-norm.
    module = FixedPointRNN(2, 2, 3)
    with torch.no_grad():
        module.l.fill_(-30.0)
    words = _words(5, 2, 40, symbols=2)
    with torch.no_grad():
        states = iterated_states(module, words, 4)
    assert bool(torch.isfinite(states).all())
    np.testing.assert_allclose(states.norm(dim=-1).numpy(), 1.0, rtol=1e-5)


def test_contraction_flags_a_non_contracting_module() -> None:
    # Q = −I/2 gives N = diag(1 − Λ) · 1.5 I: ρ = 1.5 (1 − λ_min) by hand.
    module = FixedPointRNN(2, 2, 3)
    with torch.no_grad():
        module.Q.copy_(-0.5 * torch.eye(3).expand(2, -1, -1))
        module.l.copy_(torch.tensor([[-3.0, -2.0, -4.0], [2.0, 3.0, 2.5]]))
    lam = 1 / (1 + np.exp(-module.l.detach().double().numpy()))
    by_hand = 1.5 * (1 - lam.min(axis=1))
    rho = contraction(module).numpy()
    np.testing.assert_allclose(rho, by_hand, rtol=1e-12)
    assert rho[0] >= 1 > rho[1]


def test_contraction_matches_the_network_form() -> None:
    module = FixedPointRNN(4, 2, 5)  # default init: some letters above 1, some below
    net = module.to_network()
    expected = [spectral_radius(net, s) for s in range(4)]
    np.testing.assert_allclose(contraction(module).numpy(), expected, rtol=1e-9)


def test_bad_input_is_refused() -> None:
    module = FixedPointRNN(2, 2, 3)
    for bad in (-1, 1.5, True):
        with pytest.raises(FsmnetError, match="iterations"):
            iterated_states(module, [[0, 1]], bad)  # type: ignore[arg-type]
    with pytest.raises(FsmnetError, match="module"):
        contraction(torch.nn.Linear(2, 2))  # type: ignore[arg-type]


@settings(max_examples=examples(30), deadline=None)
@given(st.integers(1, 3), st.integers(0, 9), st.integers(1, 4), st.integers(0, 2**32 - 1))
def test_scan_matches_the_step_loop(batch: int, length: int, hidden: int, seed: int) -> None:
    gen = torch.Generator().manual_seed(seed)
    a = 4 * torch.rand(batch, length, hidden, generator=gen, dtype=torch.float64) - 2
    b = torch.randn(batch, length, hidden, generator=gen, dtype=torch.float64)
    y0 = torch.randn(hidden, generator=gen, dtype=torch.float64)
    y = [y0.expand(batch, -1)]
    for t in range(length):
        y.append(a[:, t] * y[-1] + b[:, t])
    expected = torch.stack(y, dim=1)
    got = affine_scan(a, b, y0)
    scale = max(1.0, float(expected.abs().max()))
    assert got.shape == expected.shape
    assert math.isclose(float((got - expected).abs().max()) / scale, 0.0, abs_tol=1e-12)


def _loop_logits(module: FixedPointRNN, words: torch.Tensor, iterations: int) -> torch.Tensor:
    """The K iterations as their definition reads, in torch (autograd), one position at a
    time from zeros, unscaled, normalized only for the readout."""
    eye = torch.eye(module.hidden, dtype=module.Q.dtype)
    lam = torch.sigmoid(module.l)
    mix = (1 - lam)[:, :, None] * (eye - module.Q)
    batch, length = words.shape
    start = module.h0.expand(batch, -1)
    old = [torch.zeros_like(start)] * (length + 1)
    for _ in range(iterations):
        new = [start]
        for t in range(length):
            sym = words[:, t]
            new.append(lam[sym] * new[-1] + torch.einsum("bij,bj->bi", mix[sym], old[t + 1]))
        old = new
    h = torch.stack([start, *old[1:]], dim=1)
    return (h / h.norm(dim=-1, keepdim=True)) @ module.readout.T


def _grads(loss: torch.Tensor, params: list[torch.Tensor]) -> list[torch.Tensor]:
    got = torch.autograd.grad(loss, params, allow_unused=True)
    return [torch.zeros_like(p) if g is None else g for g, p in zip(got, params, strict=True)]


def test_gradients_through_k_iterations_match_the_plain_loop() -> None:
    module = _module(11)  # generic weights: ρ not constrained, the iterates grow and shrink
    words = _words(12, 3, 6)
    weights = torch.randn(3, 7, 2, generator=torch.Generator().manual_seed(13),
                          dtype=torch.float64)
    params = [module.l, module.Q, module.h0, module.readout]
    for k in (1, 2, 3):
        got = _grads((iterated_logits(module, words, k) * weights).sum(), params)
        want = _grads((_loop_logits(module, words, k) * weights).sum(), params)
        for g, w in zip(got, want, strict=True):
            torch.testing.assert_close(g, w, rtol=1e-9, atol=1e-12)
        # Q first enters at the second iteration: a gradient that flows through it.
        assert (float(got[1].abs().max()) > 1e-6) == (k > 1)


def test_gradient_of_the_loss_matches_finite_differences() -> None:
    module = _module(14)
    words = _words(15, 2, 5)
    labels = torch.randint(0, 2, (2, 6), generator=torch.Generator().manual_seed(16))
    labels[:, 0] = IGNORE
    params = [module.l, module.Q, module.h0, module.readout]
    gen = torch.Generator().manual_seed(17)
    direction = [torch.randn(p.shape, generator=gen, dtype=torch.float64) for p in params]

    def loss() -> torch.Tensor:
        return masked_cross_entropy(iterated_logits(module, words, 3), labels)

    grads = _grads(loss(), params)
    analytic = sum(float((g * d).sum()) for g, d in zip(grads, direction, strict=True))
    eps = 1e-6
    values = []
    with torch.no_grad():
        for sign in (1, -1):
            for p, d in zip(params, direction, strict=True):
                p.add_(sign * eps * d)
            values.append(float(loss()))
            for p, d in zip(params, direction, strict=True):
                p.sub_(sign * eps * d)
    numeric = (values[0] - values[1]) / (2 * eps)
    assert abs(analytic) > 1e-3
    assert math.isclose(analytic, numeric, rel_tol=1e-6), (analytic, numeric)


def _random_batches(symbols: int, labels: int, length: int):  # type: ignore[no-untyped-def]
    def sample(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        return (rng.integers(0, symbols, (8, length)), rng.integers(0, labels, (8, length + 1)))
    return sample


def _expanding(seed: int) -> FixedPointRNN:
    """Q = −I/2 + noise: N = diag(1 − Λ)(1.5 I + …), ρ > 1 for most letters."""
    torch.manual_seed(seed)
    module = FixedPointRNN(3, 2, 4)
    with torch.no_grad():
        module.l.fill_(-2.0)
        module.Q.add_(-1.5 * torch.eye(4))
    return module


def test_projection_keeps_rho_below_the_radius_while_training() -> None:
    radius = 0.9
    sample = _random_batches(3, 2, 6)
    free, held = _expanding(20), _expanding(20)
    assert float(contraction(held).max()) > 1  # the projection has something to do
    train_on_batches(free, sample, IteratedConfig(iterations=2, steps=4, seed=1))
    train_on_batches(held, sample, IteratedConfig(iterations=2, steps=4, seed=1,
                                                  radius=radius))
    assert float(contraction(free).max()) > 1
    rho = contraction(held)  # float64 eigenvalues, not the SVD the projection uses
    assert float(rho.max()) < radius
    assert bool((contraction_bound(held) >= rho - 1e-12).all())
    assert float(contraction_bound(held).max()) < radius


@settings(max_examples=examples(20), deadline=None)
@given(st.integers(0, 2**31 - 1), st.floats(0.05, 0.99), st.floats(0.1, 3.0))
def test_projection_bounds_every_letter(seed: int, radius: float, spread: float) -> None:
    torch.manual_seed(seed)
    module = FixedPointRNN(3, 2, 5)
    with torch.no_grad():
        module.Q.mul_(spread)
        module.l.mul_(spread)
    before = module.Q.detach().clone()
    eye = torch.eye(5)
    inside = torch.linalg.matrix_norm((eye - before).double(), ord=2) <= radius * (1 - 1e-6)
    project_contraction(module, radius)
    # Letters already inside are untouched; the others are scaled onto the radius.
    assert torch.equal(module.Q.detach()[inside], before[inside])
    norms = torch.linalg.matrix_norm((eye - module.Q.detach()).double(), ord=2)
    assert bool((norms <= radius).all())
    rho = contraction(module)
    assert bool((rho < radius).all())
    assert bool((contraction_bound(module) >= rho - 1e-9).all())


def test_training_through_iterations_is_deterministic() -> None:
    sample = _random_batches(3, 2, 5)

    def run(seed: int) -> tuple[list[float], list[torch.Tensor]]:
        torch.manual_seed(seed)
        module = FixedPointRNN(3, 2, 4)
        losses, _ = train_on_batches(module, sample, IteratedConfig(iterations=3, steps=3,
                                                                    seed=seed, radius=0.9))
        return losses, [p.detach().clone() for p in module.parameters()]

    (la, pa), (lb, pb), (lc, _) = run(2), run(2), run(3)
    assert la == lb and all(torch.equal(x, y) for x, y in zip(pa, pb, strict=True))
    assert la != lc


def test_bad_training_input_is_refused() -> None:
    with pytest.raises(FsmnetError, match="radius"):
        project_contraction(FixedPointRNN(2, 2, 3), 1.0)
    with pytest.raises(FsmnetError, match="module"):
        train_on_batches(torch.nn.Linear(2, 2), _random_batches(2, 2, 3),
                         IteratedConfig(iterations=2, steps=1))
