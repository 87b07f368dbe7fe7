"""bilinear-full reproduces automata (random ones and built-in families)."""

from __future__ import annotations

import numpy as np
import pytest
from bilinear_helpers import FAMILIES, assert_simulates, small_automata
from hypothesis import given
from hypothesis import strategies as st

import fsmnet


@given(small_automata(), st.integers(0, 2**32 - 1))
def test_random_automata(automaton, seed):
    minimal = automaton.minimal()
    net = fsmnet.compile(automaton, "bilinear-full")
    assert net.hidden_size == minimal.n_states
    assert_simulates(net, minimal, seed)


@pytest.mark.parametrize("spec", FAMILIES)
def test_families(spec):
    minimal = fsmnet.load(spec).minimal()
    net = fsmnet.compile(spec, "bilinear-full")
    assert_simulates(net, minimal, seed=len(spec))
    # Size from the construction: W is n×n×k, h0 n, readout C×n.
    n, k, c = minimal.n_states, minimal.n_symbols, len(minimal.labels)
    assert net.n_params == n * n * k + n + c * n
    # Every column of every A(e_σ) is one-hot (independent check of the weights).
    w = net.params["W"]
    assert np.array_equal(w.sum(axis=0), np.ones((n, k)))
