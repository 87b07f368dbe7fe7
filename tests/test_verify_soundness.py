"""Soundness of the verifier: mutants of compiled networks are never "proved" wrongly.

The independent source for "did the mutant's behaviour change?" is brute force:
every word up to a length bound, run through the exact reference evaluator.
"""


import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fsmnet
from fsmnet.automata import Automaton
from fsmnet.proofs.verifier import verify
from fsmnet.testing.strategies import automata

MUTANT_VALUES = (0.0, 1.0, 0.5, -1.0, 2.0, 1e-9)


def _mutate(net, data: st.DataObject):
    name = data.draw(st.sampled_from(sorted(net.params)))
    arr = np.array(net.params[name], dtype=np.float64)
    idx = tuple(data.draw(st.integers(0, d - 1)) for d in arr.shape)
    arr[idx] = data.draw(st.sampled_from(MUTANT_VALUES))
    return net.with_params(**{name: arr})


@given(automata(max_states=4, max_symbols=2, max_labels=3), st.data())
def test_bilinear_full_mutants_are_refuted_or_truly_equivalent(
        shortest_disagreement, a: Automaton, data: st.DataObject) -> None:
    _mutant_verdict_is_sound(shortest_disagreement, a, data, budget=500)


@pytest.mark.slow
@settings(max_examples=400)
@given(automata(max_states=5, max_symbols=3, max_labels=3), st.data())
def test_bilinear_full_mutants_are_refuted_or_truly_equivalent_thorough(
        shortest_disagreement, a: Automaton, data: st.DataObject) -> None:
    _mutant_verdict_is_sound(shortest_disagreement, a, data, budget=2000)


def _mutant_verdict_is_sound(shortest_disagreement, a: Automaton, data: st.DataObject, *,
                             budget: int) -> None:
    m = a.minimal()
    mutant = _mutate(fsmnet.compile(m, "bilinear-full"), data)
    result = verify(m, mutant, max_states=budget)
    # Independent check of the verdict: brute force over all words up to length 6.
    diff = shortest_disagreement(mutant, m, 6)
    if result.verdict == "proved":
        assert diff is None
    elif result.verdict == "unknown":
        # Allowed only for a mutant with infinitely many states (e.g. a 1e-9
        # entry) and no short difference: BFS reaches every word of length <= 6
        # within the budget (at most 127 words over 2 symbols, so 127 network
        # states, under 500; 1,093 over 3 symbols, under 2,000), so a short
        # difference is refuted.  (2,000 for 2 symbols let a mutant with growing
        # exact denominators cost a minute of the default suite.)
        assert diff is None
    else:
        cex = result.counterexample
        word = m.encode(cex.word)
        assert cex.got != cex.expected or type(cex.got) is not type(cex.expected)
        assert cex.expected == m.output(m.run(word))
        assert cex.got == mutant.labels[int(mutant.label_trace(list(word), exact=True)[-1])]
        if result.method == "exact-product":
            # Breadth-first: shortest, so brute force (up to 6) agrees on the length.
            if len(word) <= 6:
                assert diff is not None and len(diff) == len(word)
            else:
                assert diff is None
        else:
            # Random search: a confirmed word, not necessarily the shortest.
            assert diff is None or len(diff) <= len(word)


def test_identity_mutant_of_parity_is_refuted_with_word_a() -> None:
    # Parity over {a}: replacing A(a) by the identity makes the net say "even" on "a".
    parity = Automaton(delta=np.array([[1, 0]]), symbols=("a",), initial=0,
                       outputs=(True, False))
    net = fsmnet.compile(parity, "bilinear-full")
    bad = net.with_params(W=np.eye(2).reshape(2, 2, 1))
    result = verify(parity, bad)
    assert result.verdict == "refuted"
    assert result.counterexample.word == ["a"]


@pytest.mark.parametrize("value", [0.0, -1.0])
def test_zeroed_readout_of_accepting_state_is_refuted(value: float) -> None:
    parity = Automaton(delta=np.array([[1, 0]]), symbols=("a",), initial=0,
                       outputs=(True, False))
    net = fsmnet.compile(parity, "bilinear-full")
    r = np.array(net.params["readout"])
    true_row = net.labels.index(True)
    r[true_row, 0] = value  # state 0 (even) no longer scores for True
    result = verify(parity, net.with_params(readout=r))
    assert result.verdict == "refuted"
    assert result.counterexample.word == []
