"""Extraction-tool adapters: AALpy's L* and Weiss et al.'s R-state interface."""

from __future__ import annotations

import random

import numpy as np
import pytest
from bilinear_helpers import expected_trace

import fsmnet
from fsmnet.errors import NetworkFileError
from fsmnet.nets.adapters import WeissRNN, network_sul


@pytest.mark.parametrize("arch", ["bilinear-full", "bilinear-block"])
@pytest.mark.parametrize("spec", ["modadd:6", "contains:aba"])
def test_weiss_interface_follows_the_automaton(arch, spec):
    automaton = fsmnet.load(spec).minimal()
    rnn = WeissRNN(fsmnet.compile(spec, arch))
    rng = np.random.default_rng(5)
    word = rng.integers(0, automaton.n_symbols, 200)
    labels = [automaton.labels[i] for i in expected_trace(automaton, word)]
    state, label = rnn.get_first_RState()
    assert label == labels[0] and rnn.classify_state(state) == labels[0]
    for t, a in enumerate(word):
        state, label = rnn.get_next_RState(state, automaton.symbols[a])
        assert isinstance(state, list) and all(isinstance(x, float) for x in state)
        assert label == labels[t + 1] == rnn.classify_state(state)
    assert rnn.classify_word(automaton.decode(word)) == labels[-1]
    with pytest.raises(NetworkFileError, match="RState"):
        rnn.classify_state([0.0])


def test_weiss_alphabet_is_a_string_for_one_character_symbols():
    assert WeissRNN(fsmnet.compile("contains:aba", "bilinear-full")).alphabet == "ab"


@pytest.mark.parametrize("spec,kind", [("modadd:6", "moore"), ("contains:aba", "dfa")])
def test_aalpy_lstar_learns_the_automaton(spec, kind):
    pytest.importorskip("aalpy")
    from aalpy.learning_algs import run_Lstar
    from aalpy.oracles import RandomWordEqOracle

    automaton = fsmnet.load(spec).minimal()
    sul = network_sul(fsmnet.compile(spec, "bilinear-block"))
    alphabet = list(automaton.symbols)
    random.seed(0)  # AALpy's random oracle uses the global random module
    oracle = RandomWordEqOracle(alphabet, sul, num_walks=300, min_walk_len=1, max_walk_len=15)
    learned = run_Lstar(alphabet, sul, oracle, automaton_type=kind, print_level=0)
    assert learned.size == automaton.n_states
    rng = np.random.default_rng(1)
    for _ in range(50):
        word = automaton.decode(rng.integers(0, automaton.n_symbols, rng.integers(1, 40)))
        learned.reset_to_initial()
        outputs = [learned.step(a) for a in word]
        assert outputs[-1] == automaton.output_of(word)
