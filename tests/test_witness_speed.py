"""The equal-counts witness computed from all separation lengths at once gives exactly
the witness of the direct search (one shortest separating word per pair), and on a
120-state group with 120 letters searches one separating suffix, not one per triple."""

from __future__ import annotations

import numpy as np
from hypothesis import given

import fsmnet
from fsmnet.automata import Automaton, access_words
from fsmnet.decide import witness as witness_module
from fsmnet.decide.witness import equal_counts_witness, separating_word, separation_lengths
from fsmnet.testing.strategies import automata


def _direct(automaton: Automaton) -> tuple[list[str], list[str]] | None:
    """The second algorithm: the original loop, one product search per pair."""
    m = automaton.minimal()
    access = access_words(m)
    best = None
    for q in range(m.n_states):
        if access[q] is None:
            continue
        for a in range(m.n_symbols):
            for b in range(a + 1, m.n_symbols):
                x, y = int(m.delta[b, m.delta[a, q]]), int(m.delta[a, m.delta[b, q]])
                if x == y:
                    continue
                s = separating_word(m, x, y)
                first = access[q] + [a, b] + s
                if best is None or len(first) < best[0]:
                    best = (len(first), first, access[q] + [b, a] + s)
    return None if best is None else (m.decode(best[1]), m.decode(best[2]))


@given(automata(max_states=6, max_symbols=3, max_labels=3))
def test_same_witness_as_the_direct_search(a: Automaton) -> None:
    w = equal_counts_witness(a)
    want = _direct(a)
    assert (w is None) == (want is None)
    if w is not None:
        assert (w.words["first"], w.words["second"]) == want


@given(automata(max_states=6, max_symbols=3, max_labels=3))
def test_separation_lengths_are_the_shortest_separating_words(a: Automaton) -> None:
    m = a.minimal()
    d = separation_lengths(m)
    for p in range(m.n_states):
        for q in range(m.n_states):
            s = separating_word(m, p, q) if p != q else None
            assert (s is None and d[p, q] > m.n_states) or (s is not None and d[p, q] == len(s))


def test_a_120_state_group_with_120_letters_takes_one_suffix_search(count_calls) -> None:
    # 120 states × 7,140 letter pairs: the separation lengths of all state pairs are
    # computed once, and a separating suffix is searched only for the best triple
    # found (the empty prefix's: no later one is shorter), not for every triple.
    s5 = fsmnet.load("symmetric:5")  # the word problem of S5, every element a letter
    tables = count_calls(witness_module, "separation_lengths")
    suffixes = count_calls(witness_module, "separating_word")
    w = equal_counts_witness(s5)
    assert w is not None
    assert (tables.calls, suffixes.calls) == (1, 1)
    # The witness is right: same counts, different outputs (checked on the automaton).
    first, second = (np.array(s5.encode(w.words[k])) for k in ("first", "second"))
    assert sorted(first) == sorted(second)
    assert s5.output(s5.run(first)) != s5.output(s5.run(second))
