"""The integer one-hot fast path of the product exploration gives exactly the
generic exploration's result (status, pairs, transitions, word, states)."""

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

import fsmnet
from fsmnet.automata import Automaton
from fsmnet.proofs.product import explore_product, one_hot_model
from fsmnet.testing.strategies import automata


@given(automata(max_states=5, max_symbols=3, max_labels=3), st.data())
def test_fast_path_equals_generic_path(a: Automaton, data) -> None:
    m = a.minimal()
    net = fsmnet.compile(m, "bilinear-full")
    if data.draw(st.booleans()):
        # Mutants that keep (or, with 0.5 / two nonzeros in h0, leave) the fast path.
        name = data.draw(st.sampled_from(["W", "h0", "readout"]))
        arr = np.array(net.params[name])
        idx = tuple(data.draw(st.integers(0, d - 1)) for d in arr.shape)
        arr[idx] = data.draw(st.sampled_from([0.0, 1.0, -1.0, 2.0, 0.5]))
        net = net.with_params(**{name: arr})
    fast = explore_product(net, m, max_states=200)
    slow = explore_product(net, m, max_states=200, fast_paths=False)
    assert (fast.status, fast.pairs, fast.transitions, fast.word) == (
        slow.status, slow.pairs, slow.transitions, slow.word)
    assert len(fast.states) == len(slow.states)
    for x, y in zip(fast.states, slow.states):
        assert list(x) == list(y)


def test_fast_path_applies_to_one_hot_columns_only() -> None:
    net = fsmnet.compile("modcount:3", "bilinear-full")
    assert one_hot_model(net) is not None
    w = np.array(net.params["W"])
    w[0, 0, 0] = 0.5  # no longer 0/1, still one entry per column: normalize gives e_0
    assert one_hot_model(net.with_params(W=w)) is not None
    w[1, 0, 0] = 0.5  # two entries in a column: not one-hot
    assert one_hot_model(net.with_params(W=w)) is None
    h0 = np.ones(len(net.params["h0"]))  # three nonzero entries
    assert one_hot_model(net.with_params(h0=h0)) is None
    # Boolean max-min nets step as codes too (fsmnet.nets.one_hot); an offset of 1
    # lifts every state off one-hot, and then they do not.
    boolean = fsmnet.compile("modcount:3", "minmax-dense")
    assert one_hot_model(boolean) is not None
    assert one_hot_model(boolean.with_params(s=np.ones_like(boolean.params["s"]))) is None
