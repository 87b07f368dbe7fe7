"""The scan engine on networks: readouts (and MinMax states) equal the reference.

References: ``fsmnet.nets.evaluate.reference_trace`` (the step-by-step NumPy
loop over the architecture's ``step``), the automaton a network was compiled
from, and for cascades the levelwise evaluator of fsmnet.nets.minmax_cascade.
"""

from __future__ import annotations

import numpy as np
import pytest
from cascade_strategies import mixed_cascades, scalar_cascades
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples

import fsmnet
from fsmnet.gpu import evaluate
from fsmnet.nets.evaluate import reference_trace
from fsmnet.nets.minmax_cascade import levelwise_label_trace
from fsmnet.testing.strategies import networks


def same_state(a, b):
    if isinstance(a, tuple):
        return len(a) == len(b) and all(np.array_equal(x, y) for x, y in zip(a, b))
    return np.array_equal(a, b)


def reference_state(net, word, start=None):
    sem = net.semantics
    state = sem.initial_state(net, False) if start is None else start
    for x in word:
        state = sem.step(net, state, int(x), False)
    return state


def check_all_ways(net, word, paths, chunk):
    want = reference_trace(net, word)[1:]
    want_state = reference_state(net, word)
    for path in paths:
        res = evaluate(net, word, backend="numba", path=path, chunk=chunk)
        assert np.array_equal(res.outputs, want), path
        last = evaluate(net, word, backend="numba", path=path, chunk=chunk, outputs="last")
        assert last.outputs is None
        if net.arch.startswith("minmax"):  # max/min select values: states are identical
            assert same_state(res.state, want_state) and same_state(last.state, want_state)
        else:
            assert np.allclose(res.state, want_state) and np.allclose(last.state, want_state)


@settings(max_examples=examples(25))
@given(data=st.data(), net=scalar_cascades())
def test_random_scalar_cascades(data, net):
    word = np.array(data.draw(st.lists(st.integers(0, len(net.symbols) - 1), max_size=150)),
                    dtype=np.int64)
    chunk = data.draw(st.integers(1, 30))
    check_all_ways(net, word, ("sequential", "levelwise", "auto"), chunk)
    assert np.array_equal(levelwise_label_trace(net, word)[1:],
                          evaluate(net, word, backend="numba", path="levelwise",
                                   chunk=chunk).outputs)


@given(data=st.data(), net=mixed_cascades())
def test_random_cascades_with_matrix_units(data, net):
    """Matrix units in the levelwise scan: max-min affine chunk summaries, exact."""
    word = np.array(data.draw(st.lists(st.integers(0, len(net.symbols) - 1), max_size=150)),
                    dtype=np.int64)
    chunk = data.draw(st.integers(1, 30))
    check_all_ways(net, word, ("sequential", "levelwise"), chunk)


@given(data=st.data(), net=scalar_cascades())
def test_cascade_streaming(data, net):
    word = np.array(data.draw(st.lists(st.integers(0, len(net.symbols) - 1), max_size=120)),
                    dtype=np.int64)
    cut = data.draw(st.integers(0, len(word)))
    path = data.draw(st.sampled_from(["sequential", "levelwise"]))
    whole = evaluate(net, word, backend="numba", path=path, chunk=5)
    first = evaluate(net, word[:cut], backend="numba", path=path, chunk=5)
    second = evaluate(net, word[cut:], backend="numba", path=path, chunk=5, start=first.state)
    assert same_state(second.state, whole.state)
    assert np.array_equal(np.concatenate([first.outputs, second.outputs]), whole.outputs)


@given(data=st.data(), pair=networks("bilinear-full", max_states=5, max_symbols=3))
def test_random_bilinear_full(data, pair):
    automaton, net = pair
    word = np.array(data.draw(st.lists(st.integers(0, len(net.symbols) - 1), max_size=200)),
                    dtype=np.int64)
    check_all_ways(net, word, ("auto",), None)
    # A second, independent reference: the automaton the network was compiled from.
    m = automaton.minimal()
    got = evaluate(net, word, backend="numba").outputs
    assert np.array_equal(got, m.output_ids[m.trace(word)[1:]])


@pytest.mark.parametrize(("spec", "arch", "paths"), [
    ("symmetric:4", "bilinear-full", ("auto",)),
    ("modadd:5", "bilinear-full", ("auto",)),
    ("modadd:5", "minmax-dense", ("sequential",)),
    ("flipflop", "minmax-dense", ("sequential",)),
    ("cyclic:2*cyclic:3", "minmax-cascade", ("sequential", "levelwise", "auto")),
    ("symmetric:3", "minmax-cascade", ("sequential", "levelwise")),
    ("flipflop", "minmax-scalar", ("sequential", "levelwise", "auto")),
    ("contains:abc", "minmax-scalar", ("sequential", "levelwise", "auto")),
])
def test_families(spec, arch, paths):
    automaton = fsmnet.load(spec).minimal()
    net = fsmnet.compile(automaton, arch)
    rng = np.random.default_rng(3)
    word = rng.integers(0, len(net.symbols), 3000)
    check_all_ways(net, word, paths, 97)
    long_word = rng.integers(0, len(net.symbols), 150_000).astype(np.uint8)
    want = automaton.output_ids[automaton.trace(long_word)[1:]]  # the automaton it came from
    for path in paths:
        assert np.array_equal(evaluate(net, long_word, backend="numba", path=path).outputs, want)


def test_bilinear_streaming_two_pieces():
    net = fsmnet.compile(fsmnet.load("symmetric:3"), "bilinear-full")
    word = np.random.default_rng(1).integers(0, len(net.symbols), 500)
    whole = evaluate(net, word, backend="numba")
    first = evaluate(net, word[:123], backend="numba")
    second = evaluate(net, word[123:], backend="numba", start=first.state)
    assert np.array_equal(np.concatenate([first.outputs, second.outputs]), whole.outputs)
    assert np.allclose(second.state, whole.state)


def test_levelwise_runs_matrix_units_but_auto_waits_for_threads(monkeypatch):
    """A matrix unit of k values costs k^3 a symbol in the levelwise scan (k^2 sequential):
    'auto' picks it only with at least 2k threads."""
    import fsmnet.gpu.numba_backend as engine

    a = fsmnet.load("cyclic:3")
    net = fsmnet.compile(a, "minmax-cascade")
    word = np.random.default_rng(6).integers(0, len(net.symbols), 70_000)
    res = evaluate(net, word, backend="numba", path="levelwise", chunk=999)
    assert res.path == "levelwise"
    assert np.array_equal(res.outputs, a.output_ids[a.trace(word)[1:]])
    for threads, want in ((2, "sequential"), (6, "levelwise")):
        monkeypatch.setattr(engine, "_threads", lambda n=threads: n)
        assert evaluate(net, word, backend="numba", path="direct").path == want
