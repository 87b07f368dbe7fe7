"""The Dask backend on a 2-worker LocalCluster (threads, for CI speed).

References: ``Automaton.trace`` and ``reference_trace`` (plain loops that
share no code with the block kernels).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples

import fsmnet
from fsmnet.gpu import evaluate
from fsmnet.nets.evaluate import reference_trace
from fsmnet.testing.strategies import automata

distributed = pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                       dashboard_address=None)
    with distributed.Client(cluster) as c:
        yield c
    cluster.close()


@settings(max_examples=examples(15), suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data(), a=automata(max_states=5, max_symbols=3, max_labels=3))
def test_random_automata(client, data, a):
    word = np.array(data.draw(st.lists(st.integers(0, a.n_symbols - 1), max_size=200)),
                    dtype=np.int64)
    chunk = data.draw(st.integers(1, 60))
    states = a.trace(word)
    res = evaluate(a, word, backend="dask", chunk=chunk)
    assert res.backend == "dask"
    assert res.state == int(states[-1])
    assert np.array_equal(res.outputs, a.output_ids[states[1:]])
    assert evaluate(a, word, backend="dask", chunk=chunk, outputs="last").state == states[-1]


@pytest.mark.parametrize("spec", ["modadd:5", "symmetric:4", "flipflop"])
def test_families_and_streaming(client, spec):
    a = fsmnet.load(spec)
    word = np.random.default_rng(5).integers(0, a.n_symbols, 50_000).astype(np.uint8)
    states = a.trace(word)
    res = evaluate(a, word, backend="dask", chunk=4096)
    assert res.path == "cayley-blocks"
    assert np.array_equal(res.outputs, a.output_ids[states[1:]])
    first = evaluate(a, word[:20_001], backend="dask", chunk=4096)
    second = evaluate(a, word[20_001:], backend="dask", chunk=4096, start=first.state)
    assert second.state == states[-1]
    assert np.array_equal(np.concatenate([first.outputs, second.outputs]), res.outputs)


def test_dask_array_input_gives_lazy_outputs(client):
    import dask.array as da

    a = fsmnet.load("parity")
    word = np.random.default_rng(2).integers(0, 2, 10_000)
    lazy = da.from_array(word, chunks=999)
    res = evaluate(a, lazy, backend="dask")
    assert isinstance(res.outputs, da.Array)
    assert np.array_equal(res.outputs.compute(), a.output_ids[a.trace(word)[1:]])


@pytest.mark.parametrize(("spec", "arch", "path"), [
    ("symmetric:3", "bilinear-full", "block-products"),
    ("contains:abc", "minmax-scalar", "tabulated-"),
    ("modadd:4", "minmax-dense", "tabulated-"),
    ("flipflop", "minmax-cascade", "tabulated-"),
])
def test_networks(client, spec, arch, path):
    net = fsmnet.compile(fsmnet.load(spec), arch)
    word = np.random.default_rng(9).integers(0, len(net.symbols), 3000)
    want = reference_trace(net, word)[1:]
    res = evaluate(net, word, backend="dask", chunk=256)
    assert res.path.startswith(path)
    assert np.array_equal(res.outputs, want)
    first = evaluate(net, word[:1000], backend="dask", chunk=256)
    second = evaluate(net, word[1000:], backend="dask", chunk=256, start=first.state)
    assert np.array_equal(np.concatenate([first.outputs, second.outputs]), want)


def test_chase_path_still_matches_the_reference(client):
    net = fsmnet.compile(fsmnet.load("contains:abc"), "minmax-scalar")
    word = np.random.default_rng(4).integers(0, len(net.symbols), 2000)
    res = evaluate(net, word, backend="dask", chunk=256, path="chase")
    assert res.path == "chase"
    assert np.array_equal(res.outputs, reference_trace(net, word)[1:])


def test_tiny_blocks():
    a = fsmnet.load("modadd:3")
    word = np.arange(100) % 3
    assert evaluate(a, word, backend="dask", chunk=7).state == a.run(word)
