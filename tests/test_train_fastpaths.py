"""The CPU fast paths of fsmnet.train equal the step loops they replace.

* ``fused.select_recurrence`` (one autograd node for the dense recurrence, m blocks)
  against ``scan.dense_loop`` run per block: outputs and gradients;
* ``commuting`` (diagonal recurrences through symbol counts) against ``scan.diag_loop``
  and a brute-force count of every prefix;
* ``infer.dense_labels`` (the no-autograd forward) against the argmax of the loop's
  readout, including matrices that grow or shrink by 10^6 a step.
The reference in every case is the plain step loop of fsmnet.train.scan, a second
implementation that follows the recurrence literally.
"""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

torch = pytest.importorskip("torch")

from fsmnet.train import commuting, convert, fused, infer, scan  # noqa: E402

SEEDS = st.integers(0, 2**31 - 1)


@given(st.integers(1, 3), st.integers(1, 3), st.integers(1, 3), st.integers(0, 20),
       st.integers(1, 5), st.sampled_from([1e-7, 1.0, 1e7]), SEEDS)
def test_select_recurrence_equals_the_loop_per_block_with_gradients(m, n_sym, batch, length,
                                                                   size, gain, seed):
    # gain 1e±7: states leave 10^±12 within two steps, so blocks rerun step by step.
    g = torch.Generator().manual_seed(seed)
    mats = gain * torch.randn(m, n_sym, size, size, dtype=torch.float64, generator=g)
    h0 = torch.randn(m, size, dtype=torch.float64, generator=g)
    words = torch.randint(0, n_sym, (batch, length), generator=g)
    weights = torch.randn(batch, length + 1, m, size, dtype=torch.float64, generator=g)
    results = []
    for fast in (True, False):
        a, h = mats.clone().requires_grad_(), h0.clone().requires_grad_()
        if fast:
            out = fused.select_recurrence(a, words, h)
        else:
            out = torch.stack([scan.dense_loop(a[i], words, h[i]) for i in range(m)], dim=2)
        out = scan.unit(out)
        (out * weights).sum().backward()
        grad_a = torch.zeros_like(a) if a.grad is None else a.grad
        results.append((out.detach(), grad_a, h.grad))
    (out_f, ga_f, gh_f), (out_l, ga_l, gh_l) = results
    assert torch.allclose(out_f, out_l, rtol=1e-8, atol=1e-10)
    assert torch.allclose(ga_f, ga_l, rtol=1e-6, atol=1e-8)
    assert torch.allclose(gh_f, gh_l, rtol=1e-6, atol=1e-8)


@given(st.integers(1, 3), st.integers(0, 15), st.sampled_from([2, 3, 20]),
       st.sampled_from([True, False]), SEEDS)
def test_distinct_counts_are_the_prefix_parikh_vectors(batch, length, n_sym, dedupe, seed):
    # n_sym = 20 takes the row-unique branch (the integer key would overflow 62 bits).
    words = torch.randint(0, n_sym, (batch, length), generator=torch.Generator().manual_seed(seed))
    counts, inverse = commuting.distinct_counts(words, n_sym, dedupe=dedupe)
    if dedupe:
        assert len({tuple(r) for r in counts.tolist()}) == counts.shape[0]  # distinct
    else:
        assert counts.shape[0] == batch * (length + 1)
    for b in range(batch):
        for t in range(length + 1):
            seen = Counter(words[b, :t].tolist())  # brute force
            assert counts[inverse[b, t]].tolist() == [seen[s] for s in range(n_sym)]


@given(st.booleans(), st.integers(1, 14), st.integers(1, 3), st.integers(0, 20),
       st.integers(1, 3), st.booleans(), SEEDS)
def test_count_states_equal_the_diagonal_loop_with_gradients(complex_pairs, n_sym, batch,
                                                             length, k, zeros, seed):
    # n_sym > 12 takes the per-vector sign branch; ``zeros`` puts exact zero transitions
    # in (log-modulus −∞, or sign 0), which must zero their channel once read.
    g = torch.Generator().manual_seed(seed)
    width = 2 * k if complex_pairs else k
    log_mod = torch.randn(n_sym, k, dtype=torch.float64, generator=g)
    if complex_pairs:
        phase = torch.randn(n_sym, k, dtype=torch.float64, generator=g)
    else:
        phase = torch.sign(torch.randn(n_sym, k, dtype=torch.float64, generator=g))
    if zeros:
        dead = torch.rand(n_sym, k, generator=g) < 0.3
        if complex_pairs:
            log_mod = log_mod.masked_fill(dead, float("-inf"))
        else:
            phase = phase.masked_fill(dead, 0.0)
    h0 = torch.randn(width, dtype=torch.float64, generator=g)
    words = torch.randint(0, n_sym, (batch, length), generator=g)
    weights = torch.randn(batch, length + 1, width, dtype=torch.float64, generator=g)
    results = []
    for fast in (True, False):
        lm = log_mod.clone().requires_grad_()
        ph = phase.clone().requires_grad_(complex_pairs)
        h = h0.clone().requires_grad_()
        if fast:
            counts, inverse = commuting.distinct_counts(words, n_sym)
            out = commuting.count_states(lm, ph, counts, h, complex_pairs)[inverse]
        else:
            out = scan.unit(scan.diag_loop(lm, ph, words, h, complex_pairs))
        (out * weights).sum().backward()
        grads = [torch.nan_to_num(x.grad) if x.grad is not None else torch.zeros_like(x)
                 for x in ((lm, ph, h) if complex_pairs else (lm, h))]
        results.append((out.detach(), grads))
    assert torch.allclose(results[0][0], results[1][0], rtol=1e-8, atol=1e-10)
    if not zeros:  # d/d log|d| at d = 0 is 0·∞ in the loop: no reference gradient there
        for fast_grad, loop_grad in zip(results[0][1], results[1][1]):
            assert torch.allclose(fast_grad, loop_grad, rtol=1e-6, atol=1e-8)


@given(st.integers(1, 4), st.integers(1, 3), st.integers(0, 60), st.integers(1, 6),
       st.sampled_from([1e-6, 1e-2, 1.0, 1e2, 1e6]), SEEDS)
def test_inference_labels_equal_the_loop_argmax(n_sym, batch, length, hidden, gain, seed):
    # gain 1e±6: the state grows or shrinks by ~10^6 a step (the kernel rescales each).
    g = torch.Generator().manual_seed(seed)
    mats = gain * torch.randn(n_sym, hidden, hidden, dtype=torch.float64, generator=g)
    h0 = torch.randn(hidden, dtype=torch.float64, generator=g)
    readout = torch.randn(3, hidden, dtype=torch.float64, generator=g)
    words = torch.randint(0, n_sym, (batch, length), generator=g)
    got = infer.dense_labels(mats, words, h0, readout)
    scores = scan.unit(scan.dense_loop(mats, words, h0)) @ readout.T
    assert torch.equal(got, scores.argmax(dim=-1))


def test_distinct_bound_counts_compositions_then_the_batch():
    # brute force: every word over 2 symbols up to length 3 gives 1 + 2 + 3 + 4 vectors
    assert commuting._distinct_bound(100, 3, 2) == 10
    # batch 2: min(2, t + 1) per length t = 1 + 2 + 2 + 2
    assert commuting._distinct_bound(2, 3, 2) == 7


def test_rescale_period_follows_the_growth_bound():
    # training (fused): 10^k ≤ 10^12 -> 12 steps at M = 10, 2 at 10^6; M counts column sums
    assert fused._period(torch.full((1, 1, 2, 2), 5.0)) == (12, 10.0)
    assert fused._period(torch.full((1, 1, 1, 1), 1e6)) == (2, 1e6)
    assert fused._period(torch.tensor([[[[1.0, 0.0], [4.0, 0.0]]]]))[1] == 5.0


@pytest.mark.parametrize("shape", [(5, 70), (64, 6)])
@pytest.mark.parametrize("arch", ["bilinear-full", "bilinear-cp", "deltaproduct",
                                  "fixed-point", "bilinear-block", "bilinear-r2",
                                  "bilinear-real-diag", "bilinear-positive-diag"])
def test_module_forward_equals_the_argmax_of_the_loop_logits(arch, shape):
    # (64, 6): the diagonal forward reads out distinct count vectors (few of them);
    # (5, 70): it takes the log-space scan (nearly every prefix distinct).
    torch.manual_seed(3)
    module = convert.build(arch, 3, 3, 8)
    words = torch.randint(0, 3, shape, generator=torch.Generator().manual_seed(3))
    with torch.no_grad():
        want = module.logits(words, fast=False).argmax(dim=-1)
    assert torch.equal(module(words), want)
