"""The scan engine on automata: every backend and path equals ``Automaton.trace``.

``Automaton.trace`` (a plain Python loop over delta) is the independent
reference: the engine's Numba paths (sequential, word tables, Cayley-table
chunked scan, live-state chunked scan) share no code with it.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples

import fsmnet
from fsmnet.errors import BackendUnavailable, SpecError
from fsmnet.gpu import cuda_available, evaluate
from fsmnet.testing.strategies import automata

PATHS = ("sequential", "words", "ilp", "cayley", "live")


def expected(a, word, start=None):
    states = a.trace(word, start=start)
    return a.output_ids[states[1:]], int(states[-1])


@settings(max_examples=examples(25))
@given(data=st.data(), a=automata(max_states=6, max_symbols=3, max_labels=3))
def test_random_automata_every_path(data, a):
    word = np.array(data.draw(st.lists(st.integers(0, a.n_symbols - 1), max_size=300)),
                    dtype=np.int64)
    chunk = data.draw(st.integers(1, 40))
    want_out, want_q = expected(a, word)
    for path in PATHS:
        res = evaluate(a, word, backend="numba", path=path, chunk=chunk)
        assert res.path == path
        assert res.state == want_q
        assert np.array_equal(res.outputs, want_out)
        last = evaluate(a, word, backend="numba", path=path, chunk=chunk, outputs="last")
        assert last.outputs is None and last.state == want_q
    ref = evaluate(a, word, backend="numpy")
    assert ref.state == want_q and np.array_equal(ref.outputs, want_out)


@settings(max_examples=examples(20))
@given(data=st.data(), a=automata(max_states=5, max_symbols=3))
def test_streaming_two_pieces_equals_one_call(data, a):
    word = np.array(data.draw(st.lists(st.integers(0, a.n_symbols - 1), max_size=200)),
                    dtype=np.uint8)
    cut = data.draw(st.integers(0, len(word)))
    path = data.draw(st.sampled_from(PATHS))
    whole = evaluate(a, word, backend="numba", path=path, chunk=7)
    first = evaluate(a, word[:cut], backend="numba", path=path, chunk=7)
    second = evaluate(a, word[cut:], backend="numba", path=path, chunk=7, start=first.state)
    assert second.state == whole.state
    assert np.array_equal(np.concatenate([first.outputs, second.outputs]), whole.outputs)


@pytest.mark.parametrize("spec", ["modadd:5", "symmetric:4", "flipflop", "parity",
                                  "random:n=7,k=3,seed=4", "contains:abc"])
def test_families_long_inputs(spec):
    a = fsmnet.load(spec)
    rng = np.random.default_rng(7)
    word = rng.integers(0, a.n_symbols, 200_000).astype(np.uint8)
    want_out, want_q = expected(a, word)
    for path in (*PATHS, "auto"):
        res = evaluate(a, word, backend="numba", path=path)
        assert res.state == want_q, path
        assert np.array_equal(res.outputs, want_out), path
        assert evaluate(a, word, backend="numba", path=path, outputs="last").state == want_q


def test_start_state_is_respected():
    a = fsmnet.load("modadd:5")
    word = np.array([1, 2, 3], dtype=np.int64)
    for path in PATHS:
        res = evaluate(a, word, backend="numba", path=path, start=4, chunk=1)
        assert res.state == (4 + 6) % 5  # running sum mod 5, by hand


def test_empty_input():
    a = fsmnet.load("parity")
    for path in PATHS:
        res = evaluate(a, np.zeros(0, dtype=np.int64), backend="numba", path=path)
        assert res.state == a.initial and len(res.outputs) == 0


def test_bad_arguments_are_typed_errors():
    a = fsmnet.load("parity")
    with pytest.raises(SpecError, match="backend"):
        evaluate(a, [0, 1], backend="tpu")
    with pytest.raises(SpecError, match="outputs"):
        evaluate(a, [0, 1], outputs="some")
    with pytest.raises(SpecError, match="out of range"):
        evaluate(a, [0, 2], backend="numba")
    with pytest.raises(SpecError, match="1-D integer"):
        evaluate(a, [0.5], backend="numba")
    with pytest.raises(SpecError, match="path"):
        evaluate(a, [0, 1], backend="numba", path="magic")


@pytest.mark.skipif(cuda_available(), reason="a CUDA device is present here")
def test_cupy_without_gpu_says_so():
    with pytest.raises(BackendUnavailable, match="CUDA"):
        evaluate(fsmnet.load("parity"), [0, 1], backend="cupy")
    assert evaluate(fsmnet.load("parity"), [1], backend="auto").backend == "numba"


def test_word_tables_refuse_when_too_large():
    a = fsmnet.load("random:n=300,k=200,seed=1")  # 200^2 x 300 entries: no m >= 2 fits
    with pytest.raises(SpecError, match="word tables"):
        evaluate(a, np.zeros(10, dtype=np.int64), backend="numba", path="words")
    word = np.random.default_rng(2).integers(0, 200, 100_000)
    assert evaluate(a, word, backend="numba").path != "words"
    assert evaluate(a, word, backend="numba", outputs="last").state == a.run(word)
