"""The torch export (``fsmnet.train.convert.to_torch``: the float32 modules of
fsmnet.train) computes what the NumPy reference evaluator computes."""

from __future__ import annotations

import numpy as np
import pytest
from bilinear_helpers import expected_trace, small_automata
from hypothesis import given
from hypothesis import strategies as st

import fsmnet
from fsmnet.train.convert import to_torch

torch = pytest.importorskip("torch")

ARCHS = ["bilinear-full", "bilinear-cp", "bilinear-block"]
OPTIONS = {"bilinear-cp": {"search": False}}


def _compare(net, automaton, seed, batch=3, length=300):
    rng = np.random.default_rng(seed)
    words = rng.integers(0, automaton.n_symbols, size=(batch, length))
    got = to_torch(net)(torch.tensor(words)).numpy()
    for b in range(batch):
        ref = net.label_trace(words[b])
        assert np.array_equal(got[b], ref)
        assert np.array_equal(ref, expected_trace(automaton, words[b]))


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("spec", ["parity", "modadd:6", "symmetric:3", "contains:aba"])
def test_families(arch, spec):
    net = fsmnet.compile(spec, arch, **OPTIONS.get(arch, {}))
    _compare(net, fsmnet.load(spec).minimal(), seed=len(spec))


@given(small_automata(max_states=5), st.sampled_from(ARCHS), st.integers(0, 2**32 - 1))
def test_random_automata(automaton, arch, seed):
    net = fsmnet.compile(automaton, arch, **OPTIONS.get(arch, {}))
    _compare(net, automaton.minimal(), seed, batch=2, length=100)


@pytest.mark.parametrize("arch", ARCHS)
def test_parameters_are_trainable_float32(arch):
    module = to_torch(fsmnet.compile("modadd:6", arch, **OPTIONS.get(arch, {})))
    params = list(module.parameters())
    assert params and all(p.requires_grad and p.dtype == torch.float32 for p in params)
    logits = module.logits(torch.tensor([[0, 1, 2]]))
    assert logits.shape == (1, 4, 6)  # every prefix, the empty one included; 6 labels
    logits.sum().backward()
    assert any(p.grad is not None and torch.any(p.grad != 0) for p in params)


def test_to_torch_resolves_the_registry_trainable_reference():
    from fsmnet import archs

    for spec, arch in (("parity", "bilinear-real-diag"), ("flipflop", "minmax-scalar")):
        module = to_torch(fsmnet.compile(spec, arch))
        assert type(module).__module__.startswith("fsmnet.train.")
        assert archs.get(arch).trainable.startswith("fsmnet.train.")


def test_an_architecture_without_a_torch_module_is_refused_by_name():
    from toy_architecture import RECORD

    from fsmnet import archs

    with archs.registered(RECORD):  # a record with no trainable reference
        net = fsmnet.compile("parity", RECORD.id)
        with pytest.raises(fsmnet.FsmnetError, match="torch export is not available for toy"):
            to_torch(net)
