"""Word tables (fsmnet.gpu.words) against running each word with Automaton.trace."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from fsmnet.gpu.words import monoid_element, run_words, word_images, word_labels, word_length
from fsmnet.testing.strategies import automata


@given(a=automata(max_states=7, max_symbols=3, max_labels=4), data=st.data())
def test_tables_equal_the_trace_of_each_word(a, data):
    m = data.draw(st.sampled_from([1, 2, 4]))
    images, labels = word_images(a.delta, m), word_labels(a.delta, a.output_ids, m)
    w = data.draw(st.integers(0, a.n_symbols ** m - 1))
    word = [(w // a.n_symbols ** i) % a.n_symbols for i in range(m)]  # first symbol lowest
    for q in range(a.n_states):
        states = a.trace(word, start=q)
        assert images[w, q] == states[-1]
        assert list(labels[w, q]) == list(a.output_ids[states[1:]])


@given(a=automata(max_states=6, max_symbols=3, max_labels=3), data=st.data())
def test_run_words_tail_and_start(a, data):
    """Every length (so every tail shorter than m) and every start state."""
    m = data.draw(st.sampled_from([2, 4, 8]))
    word = np.array(data.draw(st.lists(st.integers(0, a.n_symbols - 1), max_size=40)),
                    dtype=np.uint8)
    q0 = data.draw(st.integers(0, a.n_states - 1))
    out = np.empty(len(word), dtype=np.int8)
    states = a.trace(word, start=q0)
    assert run_words(a.delta, a.output_ids, word, q0, out, m) == states[-1]
    assert np.array_equal(out, a.output_ids[states[1:]])


def test_word_length_keeps_tables_small():
    assert word_length(2, 2) == 8  # 2^8 x 2 = 512 entries
    assert word_length(2, 100) == 4  # 2^8 x 100 > 2^14, 2^4 x 100 fits
    assert word_length(24, 24) == 2  # 24^2 x 24 = 13,824
    assert word_length(200, 300) == 1


@given(a=automata(max_states=5, max_symbols=3), data=st.data())
def test_monoid_element_equals_the_cayley_walk(a, data):
    """The element reached m symbols a lookup, against one Cayley lookup a symbol."""
    from fsmnet.gpu.common import cayley_table

    cayley, elements, identity = cayley_table(a)
    m = data.draw(st.sampled_from([2, 4, 8]))
    word = np.array(data.draw(st.lists(st.integers(0, a.n_symbols - 1), max_size=50)),
                    dtype=np.uint8)
    e = identity
    for x in word:
        e = cayley[e, x]
    assert monoid_element(cayley, identity, word, m) == e
    assert list(elements[e]) == [a.trace(word, start=q)[-1] for q in range(a.n_states)]
