"""The tabulated path: a network with finitely many reachable states runs as an
automaton, with readouts identical to the reference evaluator (the oracle)."""

import numpy as np
import pytest
from hypothesis import given, reject
from hypothesis import strategies as st

import fsmnet
from fsmnet.errors import NotExpressible, SpecError
from fsmnet.gpu import evaluate
from fsmnet.gpu.tabulate import tabulate
from fsmnet.testing.strategies import automata

ARCHS = ("bilinear-full", "minmax-dense", "minmax-cascade", "deltaproduct")


@given(automata(max_states=5, max_symbols=3, max_labels=3), st.sampled_from(ARCHS), st.data())
def test_tabulated_equals_reference(a, arch, data) -> None:
    try:
        net = fsmnet.compile(a, arch)
    except NotExpressible:
        reject()
    word = np.array(data.draw(st.lists(st.integers(0, a.n_symbols - 1), max_size=400)),
                    dtype=np.int64)
    want = net.label_trace(word)[1:]
    res = evaluate(net, word, backend="numba", path="tabulated")
    assert res.path.startswith("tabulated")
    assert np.array_equal(res.outputs, want)
    # Streaming: the state handed back continues the run exactly.
    cut = len(word) // 2
    first = evaluate(net, word[:cut], backend="numba", path="tabulated")
    second = evaluate(net, word[cut:], backend="numba", path="tabulated", start=first.state)
    assert np.array_equal(np.concatenate([first.outputs, second.outputs]), want)


def test_long_input_takes_the_table_and_agrees() -> None:
    net = fsmnet.compile("contains:abc", "minmax-scalar")
    word = np.random.default_rng(1).integers(0, len(net.symbols), 300_000).astype(np.uint8)
    res = evaluate(net, word, backend="numba")
    assert res.path.startswith("tabulated")
    direct = evaluate(net, word, backend="numba", path="sequential")
    assert np.array_equal(res.outputs, direct.outputs)


def test_too_many_states_are_refused_when_forced(monkeypatch) -> None:
    # "at least 2 ones" on a positive-diagonal net: states mu^n repeat only once
    # they underflow (float semantics), far beyond 64 states.
    net = fsmnet.compile("atleast:2", "bilinear-positive-diag")
    assert tabulate(net, limit=64) is None
    import fsmnet.gpu.tabulate as tab

    monkeypatch.setattr(tab, "tabulate", lambda net: None)
    with pytest.raises(SpecError, match="tabulate"):
        evaluate(net, np.zeros(10, dtype=np.int64), backend="numba", path="tabulated")
