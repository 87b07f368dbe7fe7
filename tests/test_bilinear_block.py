"""bilinear-block: direct-product splits, and simulation of every automaton.

Independent sources: the brute-force congruence enumeration below (the routine
the fast one replaced: every pair's closure with every letter, then all
pairwise joins, each closed again), the generic exact product exploration
(``fast_paths=False``, dense Fraction vectors), and the number of subgroups
of S4 and S5 (30 and 156, OEIS A005432): the congruences of a group's Cayley
machine are its subgroups' right-coset partitions.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from bilinear_helpers import FAMILIES, assert_simulates, small_automata
from congruence_oracle import brute_force_congruences
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples

import fsmnet
from fsmnet.automata import Automaton
from fsmnet.constructions.congruences import congruences, essential_letters
from fsmnet.errors import NetworkFileError
from fsmnet.proofs.product import explore_product
from fsmnet.proofs.product_block import block_one_hot_model


@st.composite
def permutation_automata(draw, max_states=8):
    """Semiautomata whose letters are random permutations (the fast path's case)."""
    n = draw(st.integers(1, max_states))
    k = draw(st.integers(1, 3))
    rows = [draw(st.permutations(range(n))) for _ in range(k)]
    return np.array(rows, dtype=np.int64).reshape(k, n)


# At most 6 states: the oracle joins every pair of congruences it finds, and an
# identity letter on n states makes all Bell(n) - 2 non-trivial partitions
# congruences, and the oracle's time explodes past n = 6 (docs/performance.md,
# "Figures behind constants").
@settings(max_examples=examples(150))
@given(st.one_of(small_automata(max_states=6).map(lambda a: a.delta),
                 permutation_automata(max_states=6)))
def test_fast_congruences_equal_brute_force(delta):
    found, complete = congruences(delta, 10**6)
    assert complete
    assert found == brute_force_congruences(delta)


@given(permutation_automata(max_states=6))
def test_products_of_letters_are_redundant(delta):
    # A letter that is a product of two others adds no congruence condition.
    product = delta[-1][delta[0]]  # first delta[0], then delta[-1]
    bigger = np.vstack([delta, product[None]])
    assert len(essential_letters(bigger)) <= delta.shape[0]
    assert congruences(bigger, 10**6) == congruences(delta, 10**6)


@pytest.mark.parametrize(("spec", "subgroups"), [("symmetric:4", 30), ("symmetric:4,gens", 30),
                                                 ("symmetric:5,gens", 156)])
def test_group_congruences_are_its_subgroups(spec, subgroups):
    found, complete = congruences(fsmnet.load(spec).minimal().delta, 10**6)
    assert complete
    assert len(found) == subgroups - 2  # neither the trivial group nor the whole group


def test_step_budget_truncates_but_stays_correct():
    net = fsmnet.compile("symmetric:4,gens", "bilinear-block", max_steps=10)
    assert net.options["congruences"] == "truncated"
    assert net.options["blocks"] == [24]
    assert_simulates(net, fsmnet.load("symmetric:4,gens").minimal(), seed=3)


def test_s5_splits_within_a_tenth_of_the_step_budget():
    # S5 = (subgroup of order 20) · (subgroup of order 6) with trivial intersection:
    # blocks on 6 and 20 cosets, so H = 26 instead of 120 (product 120 = |S5|).  The
    # whole congruence search ("complete") fits in 400,000 union-find steps, a tenth
    # of the default budget: counted work, the same on any machine.
    net = fsmnet.compile("symmetric:5,gens", "bilinear-block", max_steps=400_000)
    assert sorted(net.options["blocks"]) == [6, 20]
    assert net.options["congruences"] == "complete"
    assert_simulates(net, fsmnet.load("symmetric:5,gens").minimal(), seed=5, length=300,
                     exact_length=8)


@given(small_automata(max_states=6), st.data())
def test_block_fast_path_equals_generic_exploration(automaton, data):
    m = automaton.minimal()
    net = fsmnet.compile(m, "bilinear-block")
    assert block_one_hot_model(net) is not None
    # Random signs and scales on the one nonzero of some columns (still ±one-hot
    # states), and on h0: the fast path must follow the exact semantics.
    params = dict(net.params)
    for i in range(len(net.options["blocks"])):
        w = np.array(params[f"W.{i}"])
        nz = np.argwhere(w != 0)
        for row in data.draw(st.lists(st.integers(0, len(nz) - 1), max_size=3)) if len(nz) else []:
            w[tuple(nz[row])] = data.draw(st.sampled_from([-1.0, 2.0, -0.5]))
        params[f"W.{i}"] = w
    mutant = net.with_params(**params)
    for candidate in (net, mutant):
        fast = explore_product(candidate, m)
        slow = explore_product(candidate, m, fast_paths=False)
        assert (fast.status, fast.word, fast.pairs, fast.transitions) == (
            slow.status, slow.word, slow.pairs, slow.transitions)
        for a, b in zip(fast.states, slow.states):
            assert all(np.array_equal(x, y) for x, y in zip(a, b))


def test_block_fast_path_refuses_two_nonzeros_in_a_column():
    net = fsmnet.compile("modadd:6", "bilinear-block")
    w = np.array(net.params["W.0"])
    w[:, 0, 0] = 1.0
    assert block_one_hot_model(net.with_params(**{"W.0": w})) is None


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
