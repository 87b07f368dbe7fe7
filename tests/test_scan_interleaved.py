"""The interleaved chains (``ilp`` path, fsmnet.gpu.numba_interleaved) against a plain
Python loop over the transition table.

The reference below reads ``a.delta`` one symbol at a time and shares no code with
the kernels (no word tables, no pair tables, no Cayley table, no chunks).  Labels
must be bit-identical: same values, and int8 like the engine's other paths.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples

import fsmnet
from fsmnet.errors import SpecError
from fsmnet.gpu import evaluate
from fsmnet.gpu import numba_interleaved as I
from fsmnet.gpu.common import MIN_PARALLEL, cayley_table
from fsmnet.testing.strategies import automata


def loop(a, word, q):
    """Labels after each symbol and the last state, one table lookup at a time."""
    labels = []
    out_ids = a.output_ids if a.outputs is not None else np.zeros(a.n_states, dtype=np.int64)
    for x in word:
        q = int(a.delta[int(x), q])
        labels.append(int(out_ids[q]))
    return labels, q


def out_ids_of(a):
    return np.ascontiguousarray(a.output_ids if a.outputs is not None
                                else np.zeros(a.n_states, dtype=np.int64))


@settings(max_examples=examples(40))
@given(data=st.data(), a=automata(max_states=6, max_symbols=4, max_labels=4))
def test_phases_equal_the_loop(data, a):
    """Every number of groups (chunk count / 4), chunk size and input length, including
    lengths not divisible by the interleave or the read, length 0 and 1."""
    n = data.draw(st.integers(0, 400), label="length")
    word = np.array(data.draw(st.lists(st.integers(0, a.n_symbols - 1), min_size=n,
                                       max_size=n)), dtype=np.uint8)
    size = I.READ * data.draw(st.integers(1, 12), label="reads a chunk")
    groups = data.draw(st.integers(0, n // (I.LANES * size)), label="groups")
    q0 = data.draw(st.integers(0, a.n_states - 1), label="start")
    parallel = data.draw(st.booleans(), label="parallel")
    table = cayley_table(a)
    assert table is not None  # a monoid of at most 6^6 elements
    want, want_q = loop(a, word, q0)
    delta = np.ascontiguousarray(a.delta)
    out, q = I.evaluate_interleaved(delta, out_ids_of(a), table, word, q0, "all", groups, size,
                                    parallel)
    assert q == want_q
    assert out is not None and out.dtype == np.int8 and out.tolist() == want
    none, q_last = I.evaluate_interleaved(delta, out_ids_of(a), table, word, q0, "last", groups,
                                          size, parallel)
    assert none is None and q_last == want_q
    images = I.transformation(delta, table, word)
    assert images.tolist() == [loop(a, word, p)[1] for p in range(a.n_states)]


@settings(max_examples=examples(30))
@given(data=st.data(), a=automata(max_states=5, max_symbols=3, max_labels=3))
def test_every_word_length_on_every_chunk(data, a):
    """run_chains for m = 1, 2 and 4 symbols a lookup: each chunk from its own start
    state ends where the loop does, and its packed labels are the loop's."""
    m = data.draw(st.sampled_from([1, 2, 4]), label="m")
    steps = data.draw(st.integers(0, 6), label="reads a chunk")
    groups = data.draw(st.integers(1, 3), label="groups")
    n_chunks = groups * I.LANES
    n = n_chunks * steps * I.READ
    word = np.array(data.draw(st.lists(st.integers(0, a.n_symbols - 1), min_size=n,
                                       max_size=n)), dtype=np.uint8)
    starts = np.array(data.draw(st.lists(st.integers(0, a.n_states - 1), min_size=n_chunks,
                                         max_size=n_chunks)), dtype=np.uint32)
    tables = I.chains(np.ascontiguousarray(a.delta), out_ids_of(a), m)
    out = np.full(n, -1, dtype=np.int8)
    ends = I.run_chains(tables, word.view(np.uint32), starts, steps,
                        out.view(tables.labels.dtype), parallel=data.draw(st.booleans()))
    size = steps * I.READ
    for c in range(n_chunks):
        labels, q = loop(a, word[c * size:(c + 1) * size], int(starts[c]))
        assert int(ends[c]) == q
        assert out[c * size:(c + 1) * size].tolist() == labels


@settings(max_examples=examples(25))
@given(data=st.data(), a=automata(max_states=6, max_symbols=3, max_labels=3))
def test_engine_ilp_path_any_chunk_and_dtype(data, a):
    """Through evaluate: any ``chunk`` (rounded up to whole reads), integer dtypes other
    than uint8, and an input that does not start on a 4-byte boundary."""
    n = data.draw(st.integers(0, 300), label="length")
    raw = data.draw(st.lists(st.integers(0, a.n_symbols - 1), min_size=n + 1, max_size=n + 1))
    kind = data.draw(st.sampled_from(["uint8", "int64", "unaligned"]), label="input")
    word = (np.array(raw, dtype=np.uint8)[1:] if kind == "unaligned"
            else np.array(raw[1:], dtype=kind))
    chunk = data.draw(st.integers(1, 40), label="chunk")
    want, want_q = loop(a, word, a.initial)
    res = evaluate(a, word, backend="numba", path="ilp", chunk=chunk)
    assert res.path == "ilp" and res.state == want_q
    assert res.outputs.tolist() == want
    assert evaluate(a, word, backend="numba", path="ilp", chunk=chunk,
                    outputs="last").state == want_q


@pytest.mark.parametrize("spec", ["modadd:5", "parity", "symmetric:4", "contains:abc",
                                  "random:n=7,k=3,seed=4"])
def test_auto_takes_the_interleaved_chains_on_long_inputs(spec):
    a = fsmnet.load(spec)
    word = np.random.default_rng(3).integers(0, a.n_symbols, 1_000_003).astype(np.uint8)
    want, want_q = loop(a, word[:5000], a.initial)
    res = evaluate(a, word, backend="numba")
    assert res.path == "ilp"
    assert res.outputs.dtype == np.int8 and res.outputs[:5000].tolist() == want
    states = a.trace(word)
    assert np.array_equal(res.outputs, a.output_ids[states[1:]])
    assert res.state == states[-1]
    assert evaluate(a, word, backend="numba", outputs="last").state == states[-1]


def test_layout_covers_the_input():
    for n in (0, 1, 15, 16, 17, 1000, 10**6 + 3):
        for threads in (1, 2, 16):
            groups, size = I.layout(n, threads, 2, None)
            assert size % I.READ == 0 and groups * I.LANES * size <= n
            assert n - groups * I.LANES * size < max(groups, 1) * I.LANES * (size + I.READ)
    assert I.layout(100, 2, 2, 5) == (100 // (I.LANES * 8), 8)  # chunk 5 -> two reads


def test_step_length_keeps_tables_in_cache():
    assert I.step_length(5, 5) == 4  # 5^4 x 5 = 3,125 entries
    assert I.step_length(24, 24) == 2  # 24^2 x 24 = 13,824
    assert I.step_length(120, 120) == 1


def test_long_uint8_input_out_of_range_is_named():
    a = fsmnet.load("modadd:5")
    word = np.zeros(MIN_PARALLEL + 5, dtype=np.uint8)
    word[-2] = 9
    with pytest.raises(SpecError, match="out of range") as info:
        evaluate(a, word, backend="numba")
    assert info.value.value == 9
    assert int(I.max_byte(word)) == 9 and int(I.max_byte(word[:0])) == 0


def test_labels_past_int8_fall_back_to_one_symbol_chains():
    """200 labels do not pack into int8: path="ilp" keeps its one-symbol Cayley chains
    for outputs='all', and auto does not take it."""
    a = fsmnet.load("modadd:200")
    word = np.random.default_rng(1).integers(0, a.n_symbols, MIN_PARALLEL + 7)
    states = a.trace(word)
    res = evaluate(a, word, backend="numba", path="ilp")
    assert res.path == "ilp" and np.array_equal(res.outputs, a.output_ids[states[1:]])
    assert evaluate(a, word, backend="numba").path != "ilp"
