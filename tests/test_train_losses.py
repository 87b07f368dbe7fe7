"""The fused training losses equal what they replace, values and gradients.

* ``losses`` (cross-entropy as one node, grouped by row; the Numba kernels and the
  torch-op fallback): against ``torch.nn.functional.cross_entropy`` of the gathered
  logits, and ``torch.autograd.gradcheck`` in float64;
* ``pair_readout`` (the two-block multilinear readout as one node): gradcheck, and
  against ``modules_block.multilinear`` of the unit blocks (autograd's version);
* ``kernels.count_table``: against a brute-force count of every prefix;
* every module's ``loss(words, labels)``: against torch's cross-entropy of the step
  loop's logits (``logits(fast=False)``), gradients of every parameter included.
The references are torch's own functions and the plain step loops, independent of
the code under test.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

torch = pytest.importorskip("torch")

from fsmnet.train import convert, kernels, losses  # noqa: E402
from fsmnet.train.modules_block import multilinear  # noqa: E402
from fsmnet.train.pair_readout import pair_readout  # noqa: E402
from fsmnet.train.scan import unit  # noqa: E402

SEEDS = st.integers(0, 2**31 - 1)


@pytest.mark.parametrize("kernel", [True, False])
def test_grouped_cross_entropy_gradcheck(kernel, monkeypatch):
    if not kernel:  # the torch-op path (what a GPU runs)
        monkeypatch.setattr(losses, "_kernel_ok", lambda *t: False)
    g = torch.Generator().manual_seed(1)
    z = torch.randn(3, 9, dtype=torch.float64, generator=g, requires_grad=True)
    w = torch.randint(0, 3, (3, 9), generator=g).double()
    assert torch.autograd.gradcheck(lambda x: losses.grouped_cross_entropy(x, w, 17), (z,))
    y = torch.randint(0, 3, (11,), generator=g)
    zz = torch.randn(3, 11, dtype=torch.float64, generator=g, requires_grad=True)
    assert torch.autograd.gradcheck(lambda x: losses.label_major_cross_entropy(x, y), (zz,))


@given(st.integers(1, 40), st.integers(1, 5), st.sampled_from([1.0, 30.0]), st.booleans(),
       st.booleans(), SEEDS)
def test_cross_entropy_equals_torch(n, n_labels, gain, kernel, grouped, seed):
    g = torch.Generator().manual_seed(seed)
    logits = gain * torch.randn(n, n_labels, dtype=torch.float64, generator=g)
    labels = torch.randint(0, n_labels, (n,), generator=g)
    want_x = logits.clone().requires_grad_()
    want = torch.nn.functional.cross_entropy(want_x, labels)
    want.backward()
    got_x = logits.clone().requires_grad_()
    patch = pytest.MonkeyPatch()
    if not kernel:
        patch.setattr(losses, "_kernel_ok", lambda *t: False)
    try:
        if grouped:  # rows grouped: every row its own group, weights the one-hot labels
            w = torch.zeros(n_labels, n, dtype=torch.float64)
            w[labels, torch.arange(n)] = 1.0
            got = losses.grouped_cross_entropy(got_x.T, w, n)
        else:
            got = losses.cross_entropy(got_x, labels)
        got.backward()
    finally:
        patch.undo()
    assert torch.allclose(got, want, rtol=1e-10, atol=1e-12)
    assert torch.allclose(got_x.grad, want_x.grad, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("kernel", [True, False])
def test_pair_readout_gradcheck_and_equals_the_multilinear_readout(kernel, monkeypatch):
    if not kernel:  # the torch-op path (what a GPU runs)
        from fsmnet.train import pair_readout as module

        monkeypatch.setattr(module, "_kernel_ok", lambda h: False)
    g = torch.Generator().manual_seed(2)
    h = torch.randn(2, 7, 4, dtype=torch.float64, generator=g, requires_grad=True)
    r = torch.randn(3, 4, 4, dtype=torch.float64, generator=g, requires_grad=True)
    assert torch.autograd.gradcheck(pair_readout, (h, r))
    labels = torch.randint(0, 3, (7,), generator=g)  # the loss computed inside the node
    assert torch.autograd.gradcheck(lambda x, rr: pair_readout(x, rr, labels), (h, r))
    want = torch.nn.functional.cross_entropy(pair_readout(h, r).T, labels)
    assert torch.allclose(pair_readout(h, r, labels), want, rtol=1e-12)
    weights = torch.randn(7, 3, dtype=torch.float64, generator=g)
    grads = []
    for fused in (True, False):
        x, rr = h.detach().clone().requires_grad_(), r.detach().clone().requires_grad_()
        z = pair_readout(x, rr).T if fused else multilinear(rr, list(unit(x).unbind(0)))
        (z * weights).sum().backward()
        grads.append((z.detach(), x.grad, rr.grad))
    for a, b in zip(*grads):
        assert torch.allclose(a, b, rtol=1e-10, atol=1e-12)


@given(st.integers(1, 5), st.integers(0, 15), st.integers(1, 4), st.integers(1, 3), SEEDS)
def test_count_table_counts_every_prefix(batch, length, n_sym, n_labels, seed):
    rng = np.random.default_rng(seed)
    words = rng.integers(0, n_sym, (batch, length))
    labels = rng.integers(0, n_labels, (batch, length + 1))
    bits = max(1, length.bit_length())
    c1t, inverse, weights, parity = kernels.count_table(words, labels, n_sym, n_labels, bits,
                                                        True, np.empty(0, np.float64))
    assert np.all(c1t[-1] == 1.0)
    vectors = {tuple(c1t[:-1, d]) for d in range(c1t.shape[1])}
    assert len(vectors) == c1t.shape[1]  # distinct
    want = Counter()
    for b in range(batch):
        for t in range(length + 1):
            seen = Counter(words[b, :t].tolist())  # brute force
            vec = [seen[s] for s in range(n_sym)]
            d = inverse[b, t]
            assert c1t[:-1, d].tolist() == vec
            assert parity[d] == sum((c % 2) << s for s, c in enumerate(vec))
            want[(labels[b, t], d)] += 1
    got = {(c, d): weights[c, d] for c in range(n_labels) for d in range(c1t.shape[1])
           if weights[c, d]}
    assert got == {k: float(v) for k, v in want.items()}


LOSS_ARCHS = ["bilinear-full", "bilinear-cp", "bilinear-block", "bilinear-r2",
              "bilinear-real-diag", "bilinear-positive-diag", "deltaproduct", "deltanet",
              "fixed-point"]


@given(st.sampled_from(LOSS_ARCHS), st.sampled_from([2, 3, 4, 13, 20]), st.integers(1, 4),
       st.integers(0, 20), st.sampled_from([2, 4, 6]), st.booleans(), SEEDS)
def test_module_loss_equals_the_loop_cross_entropy_with_gradients(arch, n_symbols, batch,
                                                                 length, hidden, double, seed):
    # 13 symbols: too many parity patterns for a sign table (one row per vector);
    # 20 symbols at length ≥ 8: the packed key would overflow, so the torch fallback.
    torch.manual_seed(seed)
    module = convert.build(arch, n_symbols, 3, hidden)
    if double:
        module = module.double()
    g = torch.Generator().manual_seed(seed)
    words = torch.randint(0, n_symbols, (batch, length), generator=g)
    labels = torch.randint(0, 3, (batch, length + 1), generator=g)
    results = []
    for fused in (True, False):
        module.zero_grad()
        if fused:
            loss = module.loss(words, labels)
        else:
            logits = module.logits(words, fast=False)
            loss = torch.nn.functional.cross_entropy(logits.reshape(-1, 3), labels.reshape(-1))
        loss.backward()
        results.append((loss.detach(), [p.grad.clone() if p.grad is not None
                                        else torch.zeros_like(p) for p in module.parameters()]))
    (l_f, g_f), (l_l, g_l) = results
    rtol, atol = (1e-7, 1e-9) if double else (2e-4, 2e-5)
    assert torch.allclose(l_f, l_l, rtol=rtol, atol=atol)
    for a, b in zip(g_f, g_l):
        assert torch.allclose(a, b, rtol=rtol * 10, atol=atol * 10)


@given(st.integers(1, 5), st.integers(1, 6), st.integers(1, 20), SEEDS)
def test_sign_rows_are_the_product_of_the_signs(n_sym, width, n_rows, seed):
    rng = np.random.default_rng(seed)
    counts = rng.integers(0, 5, (n_rows, n_sym))
    signs = rng.choice([-1.0, 1.0], (n_sym, width))
    sign0 = rng.choice([-1.0, 0.0, 1.0], width)
    parity = ((counts % 2) << np.arange(n_sym)).sum(axis=1)
    got = kernels.sign_rows(parity, signs < 0, sign0)
    # brute force: sign(h0)·Π_s sign(d_s)^{c_s}, channel by channel
    want = np.array([[sign0[k] * np.prod(signs[:, k] ** counts[d]) for d in range(n_rows)]
                     for k in range(width)])
    assert np.array_equal(got, want)


@pytest.mark.parametrize("arch", ["bilinear-real-diag", "bilinear-r2", "bilinear-positive-diag"])
@pytest.mark.parametrize("n_symbols", [13, 20])
def test_count_loss_branches_for_many_symbols(arch, n_symbols):
    # 13 symbols: no sign table (2^13 patterns), one sign row per vector; 20 symbols at
    # length 12: 20·4 key bits > 62, so the torch fallback finds the distinct vectors.
    torch.manual_seed(5)
    module = convert.build(arch, n_symbols, 3, 4).double()
    g = torch.Generator().manual_seed(5)
    words = torch.randint(0, n_symbols, (3, 12), generator=g)
    labels = torch.randint(0, 3, (3, 13), generator=g)
    got = module.loss(words, labels)
    got.backward()
    fast = [p.grad.clone() for p in module.parameters()]
    module.zero_grad()
    logits = module.logits(words, fast=False)
    want = torch.nn.functional.cross_entropy(logits.reshape(-1, 3), labels.reshape(-1))
    want.backward()
    assert torch.allclose(got, want, rtol=1e-9)
    for a, p in zip(fast, module.parameters()):
        assert torch.allclose(a, p.grad, rtol=1e-7, atol=1e-10)
