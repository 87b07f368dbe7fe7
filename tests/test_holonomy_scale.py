"""Holonomy cascades of aperiodic automata up to 200 states.

Independent sources:
- the automata come from tests/aperiodic_corpus.py, built from their
  definitions (threshold counters, a^k detectors, Tomita grammars checked
  against their languages, reset cascades, KMP factor automata), and their
  aperiodicity is re-checked by a brute-force x^N = x^(N+1) closure that does
  not use fsmnet's monoid code;
- expected outputs on random words come from the automaton (``a.trace``);
  the networks are run by the reference step, the levelwise scans and the
  Numba scan engine (``fsmnet.gpu.evaluate``);
- each proof is re-verified by the stdlib checker, and the certificate's
  model is compared with the network file's tensors.
"""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest
from aperiodic_corpus import (
    TOMITA,
    TOMITA_LANGUAGE,
    contains,
    contains_both,
    fibonacci_word,
    is_aperiodic,
    reset_cascade,
    suffix_run,
    threshold,
    tomita_product,
)
from hypothesis import given
from hypothesis import strategies as st

import fsmnet
from fsmnet.algebra.holonomy import decompose
from fsmnet.automata import Automaton, load
from fsmnet.gpu import evaluate
from fsmnet.nets.minmax_cascade import levelwise_label_trace
from fsmnet.nets.network import load_network
from fsmnet.proofs.certificate import check_model_against_file
from fsmnet.proofs.checker import check_certificate
from fsmnet.proofs.product import explore_product
from fsmnet.proofs.verifier import verify


def agrees(net: fsmnet.Network, a: Automaton, seed: int, length: int = 2000) -> None:
    word = np.random.default_rng(seed).integers(0, a.n_symbols, length)
    want = a.output_ids[a.trace(word)]  # the automaton itself: the reference
    assert np.array_equal(net.label_trace(word), want)
    assert np.array_equal(levelwise_label_trace(net, word), want)
    assert np.array_equal(evaluate(net, word, backend="numba").outputs, want[1:])


def proved_and_checked(a: Automaton, net: fsmnet.Network, tmp_path) -> dict:
    path = tmp_path / "net.safetensors"
    net.save(path)
    cert = tmp_path / "cert.json"
    result = verify(a, load_network(path), certificate=str(cert), network_path=str(path))
    assert result.verdict == "proved"
    data = json.loads(cert.read_text())
    assert check_certificate(data, str(path)).startswith("valid")
    check_model_against_file(data, str(path))
    return data


# ------------------------------------------------------------- the corpus
@pytest.mark.parametrize("which", sorted(TOMITA))
def test_tomita_tables_match_their_languages(which: int) -> None:
    table, accept = TOMITA[which]
    for n in range(9):
        for word in itertools.product("01", repeat=n):
            q = 0
            for ch in word:
                q = table[int(ch)][q]
            assert accept[q] == TOMITA_LANGUAGE[which]("".join(word)), (which, word)


SMALL = [threshold(12), suffix_run(12), tomita_product([1, 2, 4, 7]),
         reset_cascade([2, 3, 3], 3, 0, classes=10**6), contains(fibonacci_word(15)),
         contains_both("abab", "bba")]


@pytest.mark.parametrize("a", SMALL, ids=lambda a: a.name)
def test_corpus_is_aperiodic_by_brute_force(a: Automaton) -> None:
    assert is_aperiodic(a)
    h = decompose(a)  # and every holonomy group is trivial, as it must then be
    assert all(c.group is None for lv in h.levels for c in lv.components)


def test_brute_force_sees_a_group() -> None:
    # The check can fail: a mod-3 counter is periodic.
    assert not is_aperiodic(load("modcount:3").minimal())


# ------------------------------------------------ ~50-100 states, fast
MEDIUM = [
    lambda: threshold(80),
    lambda: suffix_run(60),
    lambda: contains(fibonacci_word(70)),
    lambda: contains_both(fibonacci_word(9), "bbab"),
    lambda: reset_cascade([3, 4, 6], 4, 7, classes=10**6),
    lambda: tomita_product([1, 2, 4, 7]),
]


@pytest.mark.parametrize("make", MEDIUM, ids=range(len(MEDIUM)))
def test_medium_aperiodic_automata_compile_and_prove(make, tmp_path) -> None:
    a = make()
    assert a.n_states >= 20
    net = fsmnet.compile(a, "minmax-scalar")
    assert set(net.options["unit_kinds"]) == {"scalar"}
    agrees(net, a, seed=a.n_states, length=500)
    proved_and_checked(a, net, tmp_path)
    # The general cascade has scalar units only too: trivial holonomy groups, pure
    # reset levels (its form may differ: the congruence chain is minmax-scalar's).
    general = fsmnet.compile(a, "minmax-cascade")
    assert set(general.options["unit_kinds"]) == {"scalar"}
    assert verify(a, general).verdict == "proved"


def test_fast_product_model_matches_the_generic_one() -> None:
    # The float fast path (fsmnet.proofs.cascade_model) against the semantics'
    # own step: the same pairs, states and transitions; matrix units included.
    for spec in ("modcount:3", "random:n=6,k=2,seed=2", "latch:3"):
        a = load(spec).minimal()
        net = fsmnet.compile(a, "minmax-cascade")
        fast = explore_product(net, a)
        slow = explore_product(net, a, fast_paths=False)
        assert fast.status == slow.status == "closed"
        assert fast.pairs == slow.pairs and fast.transitions == slow.transitions
        assert all(all(np.array_equal(x, y) for x, y in zip(s, t))
                   for s, t in zip(fast.states, slow.states))


def test_fast_product_model_finds_the_same_counterexample() -> None:
    a = threshold(6)
    net = fsmnet.compile(a, "minmax-scalar")
    sem = net.semantics
    last = explore_product(net, a).states[-1]  # flip the label of the last state reached
    code = sem.layout(net).prefix_indices(sem.coordinates(net, last))[-1]
    bad = np.array(net.params["readout"])
    bad[code] = 1 - bad[code]
    wrong = net.with_params(readout=bad)
    fast = explore_product(wrong, a)
    slow = explore_product(wrong, a, fast_paths=False)
    assert fast.status == slow.status == "mismatch" and fast.word == slow.word
    assert len(fast.word) == 6  # at_least_6: the last state is reached by a^6


@given(n=st.integers(2, 7), k=st.integers(1, 3), seed=st.integers(0, 10**6))
def test_all_level_actions_from_one_walk(n: int, k: int, seed: int) -> None:
    # Holonomy.level_actions (one chain walk) against level_action asked level
    # by level (the definition), on every valid code of random automata.
    from fsmnet.algebra.holonomy.chains import count_chains

    rng = np.random.default_rng(seed)
    h = decompose([list(rng.integers(0, n, n)) for _ in range(k)])
    # The chain count by dynamic programming against listing every code.
    assert count_chains(h) == sum(len(h.all_codes(x)) for x in range(n))
    for x in range(n):
        for code in h.all_codes(x)[:20]:
            for s in range(k):
                whole = h.level_actions(s, code)
                assert whole == [h.level_action(d, s, code[: d - 1])
                                 for d in range(1, h.n_levels + 1)]
                assert h.decode(tuple(a.apply(c) for a, c in zip(whole, code))) == \
                    h.generators[s][x]


# ------------------------------------------------------ limits: typed errors
def test_reached_budget_is_a_typed_error() -> None:
    from fsmnet.constructions.minmax_explore import CascadeTooLarge
    from fsmnet.errors import SpecError

    with pytest.raises(CascadeTooLarge, match="more than 5 "):
        fsmnet.compile(threshold(20), "minmax-scalar", max_steps=10)
    # minmax-cascade takes one matrix unit over the states instead (n pairs).
    dense = fsmnet.compile(threshold(20), "minmax-cascade", max_steps=10)
    assert dense.options["construction"] == "dense unit"
    assert "more than 5 " in dense.options["fallback_reason"]
    net = fsmnet.compile(threshold(20), "minmax-scalar", max_steps=42)  # 21 pairs x 2 letters
    assert net.options["compile_options"] == {"max_steps": 42}
    with pytest.raises(SpecError, match="max_steps"):
        fsmnet.compile(threshold(3), "minmax-scalar", max_steps=0)


def test_sequences_with_four_tracks_stop_with_a_typed_error() -> None:
    # 81 states, 1,296 image sets, but the tile chains interleave the four
    # tracks: more codes than the budget (docs/performance.md).  The limit
    # must be said, quickly, and never called "not expressible".  (fsmnet.compile
    # then builds the product cascade instead: tests/test_minmax_product.py.)
    from fsmnet.constructions.minmax_cascade import cascade_network
    from fsmnet.constructions.minmax_explore import CascadeTooLarge
    from fsmnet.constructions.minmax_holonomy import holonomy_spec

    a = load("sequences:2,tracks=4")
    with pytest.raises(CascadeTooLarge, match="budget") as info:
        cascade_network(holonomy_spec(a), a, arch="minmax-scalar")
    assert "81-state" in str(info.value) and "tile chains" in str(info.value)


def test_the_up_down_counter_reaches_every_code_of_its_holonomy_cascade() -> None:
    # counter:k's image sets are the intervals, each with two tiles one shorter
    # (docs/constructions-minmax.md), so 2^k tile chains, and from 0 the cascade
    # uses all of them: k binary levels, 2^k codes, for k + 1 states.
    net = fsmnet.compile(load("counter:10"), "minmax-scalar")
    assert net.options["construction"] == "holonomy"
    assert net.options["unit_sizes"] == [2] * 10
    assert net.options["reachable_coordinates"] == 2 ** 10
    agrees(net, load("counter:10"), seed=1, length=500)


def test_a_large_counter_is_refused_in_one_line_and_has_the_one_unit_cascade(
        tmp_path, capsys) -> None:
    from fsmnet.cli import main

    out = tmp_path / "n.safetensors"
    code = main(["compile", "counter:40", "--arch", "minmax-scalar", "-o", str(out),
                 "--option", "max_steps=2000"])
    err = capsys.readouterr().err.strip()
    assert code == 2 and not out.exists()
    assert len(err.splitlines()) == 1 and "budget" in err and "2^40" in err
    net = fsmnet.compile(load("counter:40"), "minmax-cascade", max_steps=2000)
    assert net.options["construction"] == "dense unit"
    assert verify(load("counter:40"), net).verdict == "proved"


def test_minmax_cascade_skips_an_exploration_the_counter_bound_rules_out() -> None:
    # counter:40's holonomy groups are trivial, so its plain cascade is all scalar
    # and reaches at least 2^40 codes (the counter-chain theorem): the dense unit is
    # taken at once, and says why, instead of after the exploration's budget
    # (docs/constructions-minmax.md, counter:199).
    net = fsmnet.compile(load("counter:40"), "minmax-cascade")
    assert net.options["construction"] == "dense unit"
    assert "2^40" in net.options["fallback_reason"]
    assert "pairs" not in net.options["fallback_reason"]  # not the exploration's refusal
    assert verify(load("counter:40"), net).verdict == "proved"
    # A counter that fits the budget still gets its (optimal) holonomy cascade.
    small = fsmnet.compile(load("counter:10"), "minmax-cascade")
    assert small.options["construction"] == "holonomy"


def test_orbit_limit_is_a_typed_error_for_both_archs(monkeypatch) -> None:
    from fsmnet.algebra.holonomy import skeleton
    from fsmnet.errors import FsmnetError

    monkeypatch.setattr(skeleton, "ORBIT_LIMIT", 10)
    a = contains(fibonacci_word(30))
    with pytest.raises(FsmnetError, match="image sets|aperiodicity not decided"):
        fsmnet.compile(a, "minmax-scalar")
    # minmax-cascade takes one matrix unit over the states instead.
    net = fsmnet.compile(a, "minmax-cascade")
    assert net.options["construction"] == "dense unit"
    assert "image sets" in net.options["fallback_reason"]
    agrees(net, a, seed=5, length=300)


# ------------------------------------------------------------ 200 states
LARGE = [
    lambda: threshold(199),
    lambda: suffix_run(199),
    lambda: contains(fibonacci_word(199)),
]


@pytest.mark.slow
@pytest.mark.parametrize("make", LARGE, ids=range(len(LARGE)))
def test_200_state_aperiodic_automata(make, tmp_path) -> None:
    a = make()
    assert a.n_states == 200
    net = fsmnet.compile(a, "minmax-scalar")
    assert net.options["levels"] == 199
    agrees(net, a, seed=7, length=1000)
    proved_and_checked(a, net, tmp_path)


@pytest.mark.slow
def test_reset_cascade_with_thousands_of_codes(tmp_path) -> None:
    # 65 states, 19 levels, 2,550 reached codes: the proof and its check
    # visit every (codes, state) pair.
    # The plain cascade (fsmnet.compile picks a smaller product of 4 quotients).
    from fsmnet.constructions.minmax_cascade import cascade_network
    from fsmnet.constructions.minmax_holonomy import holonomy_spec

    a = reset_cascade([3, 3, 4, 4], 4, 1, classes=10**6)
    assert a.n_states == 65
    net = cascade_network(holonomy_spec(a), a, arch="minmax-scalar")
    assert net.options["reachable_coordinates"] == 2550
    agrees(net, a, seed=3, length=500)
    proved_and_checked(a, net, tmp_path)


@pytest.mark.slow
def test_100k_image_sets_decompose_and_the_cascade_limit_is_typed() -> None:
    # random:n=45,k=2,seed=1 (38 states once minimal) has 86,734 image sets
    # (counted by the orbit BFS; docs/performance.md).  The decomposition is
    # exact (every state and letter lifted, checked against the table), but
    # its cascade reaches more codes than the construction's budget: it must
    # say so with a typed error, not run out of memory.
    from fsmnet.algebra.holonomy import check_emulation
    from fsmnet.constructions.minmax_explore import CascadeTooLarge

    a = load("random:n=45,k=2,seed=1").minimal()
    h = decompose(a)
    assert 80_000 < h.skeleton.n_orbit <= 100_000
    assert check_emulation(h).passed
    from fsmnet.constructions.minmax_cascade import cascade_network
    from fsmnet.constructions.minmax_holonomy import holonomy_spec

    with pytest.raises(CascadeTooLarge, match="budget"):
        cascade_network(holonomy_spec(a), a, max_steps=20_000)  # keep the test short
    # fsmnet.compile falls back to one matrix unit over the 38 states, proved.
    net = fsmnet.compile(a, "minmax-cascade", max_steps=20_000)
    assert net.options["construction"] == "dense unit"
    agrees(net, a, seed=2, length=500)


@given(n=st.integers(1, 150), seed=st.integers(0, 10**6))
def test_byte_table_images_equal_member_images(n: int, seed: int) -> None:
    # The orbit's byte-table image (n > 32) against the loop over members.
    from fsmnet.algebra.holonomy.skeleton import _byte_tables, _table_image, image_mask

    rng = np.random.default_rng(seed)
    t = tuple(int(x) for x in rng.integers(0, n, n))
    tables = _byte_tables(n, t)
    for _ in range(20):
        mask = int.from_bytes(rng.bytes((n + 7) // 8), "little") & ((1 << n) - 1)
        assert _table_image(mask, tables) == image_mask(mask, t)
