"""bilinear-block: direct-product splits, and simulation of every automaton."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from bilinear_helpers import FAMILIES, assert_simulates, small_automata
from hypothesis import given, settings
from hypothesis import strategies as st

import fsmnet
from fsmnet.automata import Automaton
from fsmnet.errors import NetworkFileError


@settings(deadline=None, max_examples=30)
@given(small_automata(max_states=6), st.integers(0, 2**32 - 1))
def test_random_automata(automaton, seed):
    minimal = automaton.minimal()
    net = fsmnet.compile(automaton, "bilinear-block")
    blocks = net.options["blocks"]
    # The factor coordinates are a bijection onto the states.
    assert int(np.prod(blocks)) == minimal.n_states
    assert net.hidden_size == sum(blocks)
    assert_simulates(net, minimal, seed, length=1000)


@pytest.mark.parametrize("spec", FAMILIES)
def test_families(spec):
    minimal = fsmnet.load(spec).minimal()
    net = fsmnet.compile(spec, "bilinear-block")
    assert int(np.prod(net.options["blocks"])) == minimal.n_states
    assert_simulates(net, minimal, seed=len(spec))


def test_mod6_is_mod2_times_mod3():
    # Chinese remainder theorem: Z_6 ≅ Z_2 × Z_3.
    net = fsmnet.compile("modadd:6", "bilinear-block")
    assert sorted(net.options["blocks"]) == [2, 3]
    assert net.options["congruences"] == "complete"


@pytest.mark.parametrize("p", [5, 7])
def test_prime_counter_is_one_block(p):
    # Z_p has no proper non-trivial subgroup, so no congruence of size dividing p.
    net = fsmnet.compile(f"modadd:{p}", "bilinear-block")
    assert net.options["blocks"] == [p]


def _product(a: Automaton, b: Automaton) -> Automaton:
    """Direct product by hand: states (p, q), labels the pair of labels as a string."""
    states = list(itertools.product(range(a.n_states), range(b.n_states)))
    index = {s: i for i, s in enumerate(states)}
    delta = [[index[(int(a.delta[s, p]), int(b.delta[s, q]))] for p, q in states]
             for s in range(a.n_symbols)]
    outputs = [f"{a.output(p)}/{b.output(q)}" for p, q in states]
    return Automaton(delta=np.array(delta), symbols=a.symbols, outputs=outputs,
                     initial=index[(a.initial, b.initial)], name="product")


def test_hand_built_product_of_counter_and_flipflop():
    # A mod-3 counter on 'a' and a set/reset flip-flop on 's'/'r', run side by side.
    counter = Automaton(delta=np.array([[1, 2, 0], [0, 1, 2], [0, 1, 2]]),
                        symbols=("a", "s", "r"), outputs=(0, 1, 2), initial=0)
    flip = Automaton(delta=np.array([[0, 1], [1, 1], [0, 0]]), symbols=("a", "s", "r"),
                     outputs=(False, True), initial=0)
    prod = _product(counter, flip)
    assert prod.minimal().n_states == 6
    net = fsmnet.compile(prod, "bilinear-block")
    assert sorted(net.options["blocks"]) == [2, 3]
    assert_simulates(net, prod.minimal(), seed=7)


def test_validation_names_the_tensor():
    net = fsmnet.compile("modadd:6", "bilinear-block")
    params = net.params
    with pytest.raises(NetworkFileError, match=r"'h0\.1'"):
        net.with_params(**{"h0.1": np.zeros(7)})
    params.pop("h0.1")
    with pytest.raises(NetworkFileError, match=r"h0\.1"):
        fsmnet.nets.Network(arch="bilinear-block", params=params, symbols=net.symbols,
                            labels=net.labels)
    with pytest.raises(NetworkFileError, match="extra"):
        net.with_params(extra=np.zeros(2))
    with pytest.raises(NetworkFileError, match="readout"):
        net.with_params(readout=np.zeros((6, 3, 2)))
