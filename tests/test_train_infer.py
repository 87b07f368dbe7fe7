"""The no-gradient forward of the linear modules (fsmnet.train.infer, Numba kernels).

Reference: the argmax of the step loop's logits (fsmnet.train.scan.dense_loop /
diag_loop, a second implementation that follows the recurrence literally in torch),
and, for compiled networks, the exact reference evaluator's label trace.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

torch = pytest.importorskip("torch")

import fsmnet  # noqa: E402
from fsmnet.train import convert, infer, scan  # noqa: E402

SEEDS = st.integers(0, 2**31 - 1)


@given(st.integers(1, 4), st.integers(1, 3), st.integers(0, 60), st.integers(1, 6),
       st.booleans(), st.sampled_from([1e-6, 1e-2, 1.0, 1e2]), SEEDS)
def test_diagonal_labels_equal_the_loop_argmax(n_sym, batch, length, k, pairs, gain, seed):
    g = torch.Generator().manual_seed(seed)
    hidden = 2 * k if pairs else k
    log_mod = torch.log(gain * torch.rand(n_sym, k, dtype=torch.float64, generator=g) + 1e-3)
    if pairs:
        phase = np.pi * (2 * torch.rand(n_sym, k, dtype=torch.float64, generator=g) - 1)
    else:  # signs, zeros included (a channel that a symbol kills)
        phase = torch.randint(-1, 2, (n_sym, k), generator=g).to(torch.float64)
    h0 = torch.randn(hidden, dtype=torch.float64, generator=g)
    readout = torch.randn(3, hidden, dtype=torch.float64, generator=g)
    words = torch.randint(0, n_sym, (batch, length), generator=g)
    got = infer.diag_labels(log_mod, phase, pairs, words, h0, readout)
    want = (scan.unit(scan.diag_loop(log_mod, phase, words, h0, pairs)) @ readout.T).argmax(-1)
    assert torch.equal(got, want)


@pytest.mark.parametrize(("spec", "arch"), [("symmetric:3", "bilinear-full"),
                                            ("modadd:5", "bilinear-cp"),
                                            ("modadd:3", "bilinear-r2"),
                                            ("parity", "bilinear-real-diag"),
                                            ("symmetric:3", "deltaproduct")])
def test_compiled_network_labels_equal_the_reference_evaluator(spec, arch):
    net = fsmnet.compile(spec, arch)
    words = np.random.default_rng(1).integers(0, len(net.symbols), (16, 200))
    got = convert.to_torch(net)(torch.tensor(words)).numpy()
    for row, trace in zip(words, got):
        # label_trace(exact=True): the exact evaluator, label after every prefix, empty first
        assert list(trace) == list(net.label_trace(row.tolist(), exact=True))


def test_the_cached_weights_follow_an_optimizer_step():
    torch.manual_seed(0)
    module = convert.build("bilinear-full", 3, 3, 6)
    words = torch.randint(0, 3, (8, 30))
    before = module(words)
    opt = torch.optim.SGD(module.parameters(), lr=10.0)  # a step big enough to move labels
    module.logits(words).sum().backward()
    opt.step()
    after = module(words)
    assert torch.equal(after, module.logits(words, fast=False).argmax(-1))
    assert not torch.equal(before, after)  # else the test shows nothing


def test_replaced_parameters_are_not_served_from_the_cache():
    # load_network_params assigns new Parameter objects; a freed address may be reused.
    first = convert.to_torch(fsmnet.compile("modadd:3", "bilinear-full"))
    words = torch.tensor([[1, 1, 2, 0, 1]])
    first(words)
    other = convert.to_torch(fsmnet.compile("modadd:3", "bilinear-full"))
    other.W = torch.nn.Parameter(other.W.detach().flip(0))  # symbols 0 and 2 swapped
    first.W = other.W
    assert torch.equal(first(words), first.logits(words, fast=False).argmax(-1))


def test_out_of_range_tokens_are_refused_before_the_kernel():
    module = convert.build("deltaproduct", 2, 2, 4)
    with pytest.raises(IndexError, match="token id 2 out of range for 2 symbols"):
        module(torch.tensor([[0, 2]]))
    with pytest.raises(IndexError, match="token id -1"):
        module(torch.tensor([[-1]]))
