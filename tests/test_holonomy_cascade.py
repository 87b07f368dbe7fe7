"""Tests of the holonomy cascade: published results, hand-built cases, random semiautomata."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from holonomy_oracles import (
    compose,
    full_transformation_generators,
    maximal_subgroup_orders,
    semiautomata,
)
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples

from fsmnet.algebra.holonomy import (
    check_action,
    check_emulation,
    check_groups_divide,
    decompose,
    summarize,
)
from fsmnet.algebra.holonomy.checks import maximal_subgroup_orders as library_orders
from fsmnet.automata.automaton import Automaton
from fsmnet.errors import SpecError


def _signature(h):
    """Per level, the multiset of (tiles, group order) (trivial group: order 1)."""
    return [Counter((c.n_tiles, 1 if c.group is None else int(c.group.order()))
                    for c in lv.components) for lv in h.levels]


# Source: SgpDec / Egri-Nagy & Nehaniv arXiv 1508.06345:
# T_3: (3,S3),(2,C2); T_4: (4,S4),(3,S3),(2,C2); T_5: (5,S5),(4,S4),(3,S3),(2,C2).
@pytest.mark.parametrize("n, expected", [
    (3, [(3, 6), (2, 2)]),
    (4, [(4, 24), (3, 6), (2, 2)]),
    (5, [(5, 120), (4, 24), (3, 6), (2, 2)]),
])
def test_full_transformation_monoids_match_sgpdec(n, expected):
    h = decompose(full_transformation_generators(n))
    assert h.n_levels == n - 1
    assert _signature(h) == [Counter([e]) for e in expected]
    assert check_action(h) and check_emulation(h) and check_groups_divide(h)
    names = [c.group.name for lv in summarize(h, verified=True).levels for c in lv.components]
    assert names == [f"S_{k}" for k in range(n, 2, -1)] + ["C_2"]


@pytest.mark.parametrize("n", range(2, 8))
def test_cyclic_counter_is_one_cyclic_level(n):
    # Z_n by one n-cycle: the orbit of X is {X}, its tiles are the n singletons,
    # and the cycle permutes them as C_n (the definition, by hand).
    h = decompose([[(i + 1) % n for i in range(n)]])
    assert _signature(h) == [Counter([(n, n)])]
    assert summarize(h, verified=True).levels[0].components[0].group.name == f"C_{n}"
    assert check_action(h) and check_emulation(h)


def test_flip_flop_is_one_reset_level():
    # set, reset, read: no letter permutes {0},{1} non-trivially (by hand), so
    # one level with a trivial group on two tiles.
    ff = Automaton(delta=np.array([[1, 1], [0, 0], [0, 1]]), symbols=("s", "r", "n"),
                   initial=None, name="flipflop")
    h = decompose(ff)
    assert _signature(h) == [Counter([(2, 1)])]
    assert h.levels[0].components[0].is_reset
    assert h.symbols == ("s", "r", "n")
    result = summarize(h, verified=True)
    assert result.levels[0].components[0].group is None
    assert check_action(h) and check_emulation(h)
    assert h.level_action(1, "s", ()) == ("const", h.encode(1)[0])


def test_resets_and_permutations():
    # a = (0 1)(2 3), b maps X onto {0,1} (fixing 0 and 1). By hand: the image set
    # is {X, {0,1}}; tiles of X are {0,1},{2},{3} and a swaps {2},{3}: C_2 on 3
    # tiles at level 1; a swaps 0,1 inside {0,1}: C_2 on 2 tiles at level 2.
    h = decompose([[1, 0, 3, 2], [0, 1, 1, 0]])
    assert _signature(h) == [Counter([(3, 2)]), Counter([(2, 2)])]
    assert check_action(h) and check_emulation(h) and check_groups_divide(h)
    # The states 2 and 3 skip level 2 (X ⊃ {2}): it holds the dummy 0.
    assert h.encode(2)[1] == 0 and h.encode(3)[1] == 0


def _run_word(h, code, word):
    for s in word:
        code = h.lift(s).apply(code)
    return code


@settings(max_examples=examples(150))
@given(semiautomata(max_states=7, max_letters=3))
def test_random_semiautomata_pass_the_checks(case):
    n, gens = case
    h = decompose(gens)
    action = check_action(h)
    assert action.passed, action.failures
    assert check_emulation(h).passed
    for x in range(n):
        codes = h.all_codes(x)
        assert h.encode(x) in codes
        assert all(h.decode(c) == x and h.is_valid(c) for c in codes)


@given(semiautomata(max_states=6, max_letters=3), st.data())
def test_random_words_follow_the_automaton(case, data):
    # Independent of the checks: run a whole word on the cascade from every code
    # of every state and compare with the word's transformation.
    n, gens = case
    h = decompose(gens)
    word = data.draw(st.lists(st.integers(0, len(gens) - 1), max_size=12))
    t = tuple(range(n))
    for s in word:
        t = compose(t, tuple(gens[s]))
    for x in range(n):
        for code in h.all_codes(x)[:20]:
            assert h.decode(_run_word(h, code, word)) == t[x]


@given(semiautomata(max_states=5, max_letters=3))
def test_groups_divide_maximal_subgroups_brute_force(case):
    n, gens = case
    h = decompose(gens)
    orders = maximal_subgroup_orders(n, gens) | {1}  # brute force; {1}: identity of S^1
    assert library_orders(h) == orders
    for lv in h.levels:
        for c in lv.components:
            g = 1 if c.group is None else int(c.group.order())
            assert any(m % g == 0 for m in orders)
    assert check_groups_divide(h).passed


@given(semiautomata(max_states=6, max_letters=2))
def test_dependency_table_reproduces_apply(case):
    n, gens = case
    h = decompose(gens)
    tables = [h.dependency_table(d) for d in range(1, h.n_levels + 1)]
    for x in range(n):
        for code in h.all_codes(x):
            for s in range(len(gens)):
                via_table = tuple(tables[d][(s, code[:d])].apply(code[d])
                                  for d in range(h.n_levels))
                assert via_table == h.lift(s).apply(code)


def test_single_state_has_no_levels():
    h = decompose([[0]])
    assert h.n_levels == 0 and h.encode(0) == () and h.decode(()) == 0
    assert check_action(h) and check_emulation(h)


def test_bad_input_is_a_spec_error():
    h = decompose(full_transformation_generators(3))
    with pytest.raises(SpecError, match="coords"):
        h.decode((0,))
    with pytest.raises(SpecError, match="coords\\[1\\]"):
        h.decode((0, 7))
    with pytest.raises(SpecError, match="symbol"):
        h.lift("nope")
    with pytest.raises(SpecError, match="state"):
        h.encode(3)
    with pytest.raises(SpecError):
        decompose("not a list")
    with pytest.raises(SpecError, match="generators\\[1\\]"):
        decompose([[0, 1], [0, 2]])


def test_a_broken_cascade_is_caught():
    # The checks must be able to fail: corrupt one cached level action.
    h = decompose(full_transformation_generators(3))
    code = h.encode(0)
    act = h.level_action(2, 0, code[:1])
    wrong = ("const", 1 - act.apply(code[1])) if act.kind == "perm" else \
        ("perm", tuple(range(h.levels[1].n_points))[::-1])
    from fsmnet.algebra.holonomy import LevelAction
    h._cache[(2, 0, code[:1])] = LevelAction(*wrong)
    assert not check_action(h).passed


@given(semiautomata(max_states=6, max_letters=3), st.integers(1, 40))
def test_the_action_check_gives_up_from_the_count_without_listing_codes(case, limit):
    # The count of codes (fsmnet.algebra.holonomy.chains.count_chains) decides "not
    # exhaustive" before anything is listed: a 100-state counter has one state with
    # millions of codes.  Independent source: the listed codes of every state.
    from unittest import mock

    _, gens = case
    h = decompose(gens)
    total = sum(len(h.all_codes(x)) for x in range(h.n_states))
    if total > limit:
        with mock.patch.object(type(h), "all_codes", side_effect=AssertionError("listed")):
            result = check_action(h, max_codes=limit)
        assert not result.passed and result.checked == total
        assert "not exhaustive" in result.failures[0]
    else:
        assert check_action(h, max_codes=limit).passed
