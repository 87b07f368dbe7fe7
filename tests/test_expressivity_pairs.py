"""Separation lengths of a few pairs (the pairs reachable from them only) equal the
all-pairs table's, and the equal-counts witness is the same on either path.

Independent source: the all-pairs table (:func:`separation_lengths`), itself checked
against one product search per pair in tests/test_witness_speed.py.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

import fsmnet
from fsmnet.automata import Automaton
from fsmnet.decide import witness as witness_module
from fsmnet.decide.separation import pair_codes, pair_separation_lengths, separation_lengths
from fsmnet.decide.witness import equal_counts_witness
from fsmnet.testing.strategies import automata


@given(automata(max_states=7, max_symbols=3, max_labels=3), st.data())
def test_pair_lengths_equal_the_all_pairs_table(a: Automaton, data) -> None:
    m = a.minimal()
    n = m.n_states
    table = separation_lengths(m)
    x = np.array(data.draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=6)))
    y = np.array(data.draw(st.lists(st.integers(0, n - 1), min_size=x.size,
                                    max_size=x.size)))
    got = pair_separation_lengths(m, pair_codes(n, x, y))
    assert got.tolist() == table[x, y].tolist()


@given(automata(max_states=7, max_symbols=3, max_labels=3))
def test_witness_is_the_same_on_both_paths(a: Automaton) -> None:
    dense = equal_counts_witness(a)
    saved = witness_module.DENSE_PAIRS
    witness_module.DENSE_PAIRS = 0  # every automaton takes the pairs path
    try:
        pairs = equal_counts_witness(a)
    finally:
        witness_module.DENSE_PAIRS = saved
    assert dense == pairs


def test_a_large_group_takes_the_pairs_path(count_calls) -> None:
    # S6 with two generators (720 states), forced onto the pairs path: no all-pairs table,
    # and the pairs reached from (g·ab, g·ba) are n times a conjugacy class, far below n².
    m = fsmnet.load("symmetric:6,gens").minimal()
    tables = count_calls(witness_module, "separation_lengths")
    saved = witness_module.DENSE_PAIRS
    witness_module.DENSE_PAIRS = 0
    try:
        w = equal_counts_witness(m)
    finally:
        witness_module.DENSE_PAIRS = saved
    assert tables.calls == 0 and w is not None
    first, second = (np.array(m.encode(w.words[k])) for k in ("first", "second"))
    assert sorted(first) == sorted(second)
    assert m.output(m.run(first)) != m.output(m.run(second))
    assert w == equal_counts_witness(m)  # the dense path's witness
