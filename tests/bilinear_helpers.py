"""Shared helpers for the bilinear-full/cp/block tests: random automata and checks.

Expected outputs always come from the automaton itself (``Automaton.trace``),
an independent source: the networks are compared against a plain table walk.
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from fsmnet.automata import Automaton

# Built-in families used across the tests (fsmnet/automata/families.py).
FAMILIES = ["parity", "modadd:5", "modadd:6", "modcount:4", "symmetric:3", "dihedral:4",
            "flipflop", "random:n=8,k=3,seed=1", "contains:aba"]


@st.composite
def small_automata(draw: st.DrawFn, max_states: int = 6, max_symbols: int = 3) -> Automaton:
    """Random complete Moore machines with 1..max_states states and up to 3 labels."""
    n = draw(st.integers(1, max_states))
    k = draw(st.integers(1, max_symbols))
    delta = draw(st.lists(st.lists(st.integers(0, n - 1), min_size=n, max_size=n),
                          min_size=k, max_size=k))
    outputs = draw(st.lists(st.integers(0, 2), min_size=n, max_size=n))
    return Automaton(delta=np.array(delta), symbols=[f"s{i}" for i in range(k)],
                     initial=draw(st.integers(0, n - 1)), outputs=outputs, name="random")


def expected_trace(automaton: Automaton, word: np.ndarray) -> np.ndarray:
    """Label index after every prefix, by walking the transition table."""
    return automaton.output_ids[automaton.trace(word)]


def assert_simulates(net, automaton: Automaton, seed: int, *, length: int = 2000,
                     exact_length: int = 40) -> None:
    """The network's label trace equals the automaton's, in floats and in exact rationals."""
    assert net.labels == automaton.labels
    assert net.symbols == automaton.symbols
    rng = np.random.default_rng(seed)
    word = rng.integers(0, automaton.n_symbols, size=length)
    assert np.array_equal(net.label_trace(word), expected_trace(automaton, word))
    short = word[:exact_length]
    assert np.array_equal(net.label_trace(short, exact=True), expected_trace(automaton, short))
