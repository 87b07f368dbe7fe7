"""Group languages through the group's characters (fsmnet.constructions.group_characters).

Independent sources: the automaton's own run for every output; for the character
table, the homomorphism law checked state by state and the number of characters of
a finite abelian group (its order); for modular addition, the characters of Z_m
(χ_k(g) = ζ_m^(kg), k = 0..m−1).
"""

from __future__ import annotations

import itertools
import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples

import fsmnet
import fsmnet.algebra.commutative as count_algebra
from fsmnet.algebra.commutative import CountTableTooLarge
from fsmnet.automata import Automaton
from fsmnet.constructions.group_characters import character_table
from fsmnet.proofs.verifier import verify
from fsmnet.train.data import task_automaton


def group_machine(orders: list[int], letters: list[tuple[int, ...]],
                  labels: list[int]) -> Automaton:
    """Z_(o_1) × ... acting on itself: letter a adds ``letters[a]``; the output of an
    element is ``labels`` at its index (the machine need not be minimal)."""
    elements = list(itertools.product(*(range(o) for o in orders)))
    index = {g: i for i, g in enumerate(elements)}
    delta = [[index[tuple((x + y) % o for x, y, o in zip(g, step, orders, strict=True))]
              for g in elements] for step in letters]
    return Automaton(delta=np.array(delta), symbols=[f"s{a}" for a in range(len(letters))],
                     initial=0, outputs=[labels[i] for i in range(len(elements))])


@st.composite
def group_languages(draw: st.DrawFn) -> Automaton:
    orders = draw(st.lists(st.integers(1, 5), min_size=1, max_size=2))
    element = st.tuples(*(st.integers(0, o - 1) for o in orders))
    letters = draw(st.lists(element, min_size=1, max_size=3))
    size = math.prod(orders)
    labels = draw(st.lists(st.integers(0, 2), min_size=size, max_size=size))
    return group_machine(orders, letters, labels)


def _exponent(m: Automaton) -> int:
    orders = []
    for row in m.delta:
        q, k = int(row[m.initial]), 1
        while q != m.initial:
            q, k = int(row[q]), k + 1
        orders.append(k)
    return math.lcm(*orders)


@settings(max_examples=examples(60), deadline=None)
@given(group_languages())
def test_the_character_table_lists_every_character(a: Automaton) -> None:
    m = a.minimal()
    e = _exponent(m)
    x = character_table(m, e)
    n = m.n_states
    assert x.shape == (n, n)  # an abelian group of order n has n characters
    assert len({tuple(row) for row in x.tolist()}) == n  # distinct
    assert np.all(x[:, m.initial] == 0)  # χ(identity) = 1
    for row in x:
        for perm in m.delta:  # χ(g_a · g) = χ(g_a) χ(g): a homomorphism
            assert np.all((row[perm] - row - row[perm[m.initial]]) % e == 0)


def _random_words(k: int, seed: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [rng.integers(0, k, size=n) for n in (0, 1, 7, 40)]


@settings(max_examples=examples(25), deadline=None)
@given(group_languages(), st.integers(0, 2**16))
def test_characters_track_every_group_language(a: Automaton, seed: int) -> None:
    m = a.minimal()
    with pytest.MonkeyPatch.context() as patch:  # force the characters: no count types
        patch.setattr(count_algebra, "COUNT_TYPE_LIMIT", 0)
        nets = [fsmnet.compile(m, "bilinear-r2")]
        if _exponent(m) <= 2:  # ±1 characters: the real diagonal class too
            nets.append(fsmnet.compile(m, "bilinear-real-diag"))
    for net in nets:
        assert net.options["construction"] == "group-characters"
        assert net.options["channels"] <= m.n_states  # at most one per character
        for w in _random_words(m.n_symbols, seed):
            want = m.output_ids[m.trace(w)]
            assert np.array_equal(net.label_trace(w, exact=True), want), (net.arch, w)
            assert np.array_equal(net.label_trace(w), want), (net.arch, w)


@settings(max_examples=examples(40), deadline=None)
@given(group_languages())
def test_characters_and_count_types_give_the_same_channels(a: Automaton) -> None:
    # A second algorithm: the count-type expansion of docs/constructions.md (types of
    # the counts, Fourier weights per letter) and the characters must agree on every
    # channel and every readout coefficient, in canonical form.
    from fractions import Fraction

    from fsmnet.algebra.commutative import count_table
    from fsmnet.constructions.commutative import channels_and_readout, class_polynomials
    from fsmnet.constructions.group_characters import character_polynomials

    m = a.minimal()
    table = count_table(m)
    n = math.lcm(*(c.period for c in table.letters))
    labels = len(m.labels)
    by_types = channels_and_readout(class_polynomials(table, Fraction(1, 2), n), labels, n)
    by_characters = channels_and_readout(character_polynomials(m, n), labels, n)
    assert by_types == by_characters


def test_modular_addition_of_ten_compiles_and_is_proved() -> None:
    # Z_10: 10 characters, χ_0 and χ_5 real, four conjugate pairs: 6 channels.  The count
    # types (12,500,000, test_commutative_algebra) are past the limit.
    m = task_automaton("modadd:10").minimal()
    net = fsmnet.compile(m, "bilinear-r2")
    assert net.options["construction"] == "group-characters"
    assert net.options["channels"] == 6 and net.hidden_size == 12
    result = verify(m, net)
    assert result.verdict == "proved" and result.method == "exact-product"
    (decided,) = fsmnet.expressivity("modadd:10", ["bilinear-r2"])
    assert decided.verdict == "possible"


def test_a_wrong_output_is_refuted_with_a_confirmed_counterexample() -> None:
    m = task_automaton("modadd:10").minimal()
    net = fsmnet.compile(m, "bilinear-r2")
    outputs = list(m.outputs or ())
    q = int(m.delta[3, m.initial])  # the state after the word "3"
    outputs[q] = outputs[int(m.delta[4, m.initial])]  # now labelled as "4" is
    mutant = m.replace(outputs=outputs)
    result = verify(mutant, net)
    assert result.verdict == "refuted"
    word = result.counterexample.word
    ids = np.array([mutant.symbols.index(s) for s in word], dtype=np.int64)
    got = net.labels[int(net.label_trace(ids, exact=True)[-1])]
    assert got != mutant.output_of(list(word))  # the reference evaluator agrees


def test_a_monoid_past_the_limit_is_still_a_size_limit() -> None:
    # Letter a has threshold 1 (it does not permute the states): no characters.
    from test_commutative_algebra import counter_product

    a = counter_product([(1, 2), (0, 3)], [0, 1, 2, 0, 1, 2, 1, 1, 0])
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(count_algebra, "COUNT_TYPE_LIMIT", 1)
        with pytest.raises(CountTableTooLarge, match="do not apply"):
            fsmnet.compile(a, "bilinear-r2")
        (result,) = fsmnet.expressivity(a, ["bilinear-r2"])
    assert result.verdict == "unknown" and "size limit" in result.reason
    assert fsmnet.compile(a, "bilinear-r2").options["construction"] == "commutative-monomials"


def test_the_certificate_lists_the_channel_product_past_the_count_limit(tmp_path) -> None:
    # The irrational rotations of Z_10 leave the product certificate no rational model,
    # and the count certificate would enumerate Π_a (N_a + P_a) = 12,500,000 types
    # (computed from gcds, as in test_commutative_algebra): that method stops at its
    # limit, and the channel product (10 pairs: |Z_10|) is listed instead.
    from fsmnet.proofs.certificate import check_against_network
    from fsmnet.proofs.count_certificate import MAX_COUNT_TYPES, prove_counts

    assert math.prod(10 // math.gcd(a, 10) for a in range(10)) > MAX_COUNT_TYPES
    m = task_automaton("modadd:10").minimal()
    net = fsmnet.compile(m, "bilinear-r2")
    counted = prove_counts(net, m)
    assert counted.status == "unknown" and "exceed the limit" in counted.explanation
    path, cert = tmp_path / "net.safetensors", tmp_path / "c.json"
    net.save(path)
    result = verify(m, net, certificate=str(cert), network_path=str(path))
    assert result.verdict == "proved"  # the exact product closed
    assert result.details["channel_product"].startswith("channel product: 10 pairs")
    assert "certificate_error" not in result.details
    summary = check_against_network(json.loads(cert.read_text()), str(path))
    assert summary.startswith("valid: 10 pairs, 10 channel states")
