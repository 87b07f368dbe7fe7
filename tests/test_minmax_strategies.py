"""The MinMax strategy table: one loop, stages, the record of why each row was skipped.

Independent sources: made-up rows whose networks are fixed in advance (the loop's
rules are checked on them, not on the constructions), the automaton's own run
(``Automaton.trace``) and the exact product proof for the compiled networks.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

import fsmnet
from fsmnet.algebra.holonomy.skeleton import DecompositionTooLarge
from fsmnet.automata import Automaton, load
from fsmnet.constructions.minmax_explore import CascadeTooLarge
from fsmnet.constructions.minmax_holonomy import HolonomyTooLarge, count_image_sets, holonomy_spec
from fsmnet.constructions.minmax_limits import LIMITS, MinMaxLimits
from fsmnet.constructions.minmax_strategies import (
    CASCADE_TABLE,
    SCALAR_TABLE,
    Attempt,
    Strategy,
    choose,
    finish,
)
from fsmnet.errors import NotExpressible
from fsmnet.nets import Network
from fsmnet.proofs.verifier import verify


def _net(states: int) -> Network:
    """A network whose size grows with ``states`` (the loop only compares sizes)."""
    return fsmnet.compile(load(f"modcount:{states}"), "minmax-dense")


def _row(name: str, stage: int, result: Network | str | Exception, *, taken: bool = False,
         applies: str | None = None, rank: int = 9, reports: bool = False,
         fallback: bool = False) -> Strategy:
    def build(at: Attempt) -> Network | str:
        if isinstance(result, Exception):
            raise result
        return result

    return Strategy(name, stage, lambda at: applies, build, "max_steps",
                    lambda at, net: taken, rank=rank, reports=reports, fallback=fallback)


def _attempt() -> Attempt:
    return Attempt(load("parity").minimal(), "minmax-cascade", LIMITS.max_steps, LIMITS)


def test_a_stage_with_a_taken_network_ends_the_search_with_its_smallest() -> None:
    big, small, other = _net(6), _net(3), _net(2)
    ran: list[str] = []

    def later(at: Attempt) -> Network | str:
        ran.append("later")
        return other

    table = (_row("first", 1, "no such form"),
             _row("big", 2, big, taken=True), _row("small", 2, small, taken=True),
             Strategy("later", 3, lambda at: None, later, "max_steps", lambda at, n: True))
    at = _attempt()
    net = finish(at, table)
    assert net.n_params == small.n_params and net.options["strategy"] == "small"
    assert ran == []  # stage 3 never ran
    skipped = net.options["strategies_skipped"]
    assert skipped["first"] == "no such form"
    assert skipped["big"].startswith(f"built, {big.n_params:,} parameters")


def test_without_a_taken_network_the_smallest_wins_and_ties_go_by_rank() -> None:
    a, b = _net(3), _net(3)
    table = (_row("a", 1, a, rank=2), _row("b", 2, b, rank=1),
             _row("skip", 2, "n/a", applies="does not apply here"))
    net = finish(_attempt(), table)
    assert net.options["strategy"] == "b"
    assert net.options["strategies_skipped"]["skip"] == "does not apply here"


def test_the_reporting_rows_error_is_raised_with_every_rows_reason() -> None:
    table = (_row("first", 1, NotExpressible("first does not fit")),
             _row("plain", 2, CascadeTooLarge("plain is beyond 7 steps"), reports=True),
             _row("last", 3, "no such form"))
    with pytest.raises(CascadeTooLarge) as info:
        finish(_attempt(), table)
    text = str(info.value)
    assert text.startswith("plain is beyond 7 steps")
    for part in ("first: NotExpressible: first does not fit",
                 "plain: CascadeTooLarge", "last: no such form"):
        assert part in text


def test_the_fallback_runs_only_when_nothing_was_built() -> None:
    fallback = _row("fallback", 9, _net(5), fallback=True)
    table = (_row("plain", 1, CascadeTooLarge("too large"), reports=True), fallback)
    net = finish(_attempt(), table)
    assert net.options["strategy"] == "fallback"
    assert "too large" in net.options["strategies_skipped"]["plain"]
    built = (_row("plain", 1, _net(6)), fallback)
    assert finish(_attempt(), built).options["strategy"] == "plain"


def test_a_search_stopped_before_a_stage_resumes_without_repeating_rows() -> None:
    calls: list[str] = []

    def logged(name: str, states: int) -> Strategy:
        def build(at: Attempt) -> Network | str:
            calls.append(name)
            return _net(states)
        return Strategy(name, len(name), lambda at: None, build, "max_steps",
                        lambda at, n: False)

    table = (logged("one", 5), logged("four", 4))  # stages 3 and 4
    at = _attempt()
    assert choose(at, table, last_stage=3) is None
    assert finish(at, table).options["strategy"] == "four"
    assert calls == ["one", "four"]


def test_the_tables_list_their_rows_in_cost_order() -> None:
    names = [r.name for r in SCALAR_TABLE]
    assert names == ["threshold", "one-hot order", "product", "congruence chain", "holonomy",
                     "product after holonomy"]
    assert [r.name for r in CASCADE_TABLE][-1] == "dense unit"
    assert [r.stage for r in SCALAR_TABLE] == sorted(r.stage for r in SCALAR_TABLE)
    for row in (*SCALAR_TABLE, *CASCADE_TABLE):  # every row names a real limit
        assert LIMITS.describe(row.limit).startswith(row.limit)
    with pytest.raises(KeyError):
        MinMaxLimits().describe("no_such_limit")


def test_compiled_networks_say_which_row_built_them_and_why_not_the_others() -> None:
    a = load("sequences:2,tracks=3").minimal()
    net = fsmnet.compile(a, "minmax-scalar")
    assert net.options["strategy"] == "product" == net.options["construction"]
    skipped = net.options["strategies_skipped"]
    assert skipped["threshold"].startswith("no order")
    assert skipped["congruence chain"].startswith("built,")  # larger than the product
    word = np.random.default_rng(1).integers(0, a.n_symbols, 500)
    assert np.array_equal(net.label_trace(word), a.output_ids[a.trace(word)])
    assert verify(a, net).verdict == "proved"


def test_the_dense_unit_records_the_limit_that_stopped_the_holonomy_row() -> None:
    a = load("random:n=20,k=2,seed=1").minimal()
    net = fsmnet.compile(a, "minmax-cascade", max_steps=2_000)
    assert net.options["strategy"] == "dense unit"
    assert net.options["strategies_skipped"]["holonomy"].startswith("CascadeTooLarge")
    assert "budget of 2,000 steps" in net.options["fallback_reason"]
    assert verify(a, net).verdict == "proved"


def test_a_scalar_refusal_lists_every_row() -> None:
    with pytest.raises(CascadeTooLarge) as info:
        fsmnet.compile(load("contains:aba"), "minmax-scalar", max_steps=3)
    text = str(info.value)
    assert "[strategies tried: threshold:" in text and "holonomy: CascadeTooLarge" in text


# ---------------------------------------------------------- the image-set limit
def _orbit_by_definition(a: Automaton) -> int:
    """Image sets of the state set under every word (the full set included), by BFS."""
    full = frozenset(range(a.n_states))
    seen, todo = {full}, [full]
    while todo:
        current = todo.pop()
        for row in a.delta:
            image = frozenset(int(row[q]) for q in current)
            if image not in seen:
                seen.add(image)
                todo.append(image)
    return len(seen)


def test_the_image_set_limit_is_typed_and_names_what_was_counted() -> None:
    a = load("random:n=8,k=2,seed=1").minimal()
    sets = _orbit_by_definition(a)
    assert count_image_sets(a, sets) == sets and count_image_sets(a, sets - 1) is None
    with pytest.raises(HolonomyTooLarge) as info:
        holonomy_spec(a, image_set_limit=sets - 1)
    err = info.value
    assert isinstance(err, DecompositionTooLarge)  # a size limit: "unknown", not "impossible"
    assert (err.states, err.image_sets, err.limit) == (a.n_states, sets, sets - 1)
    assert f"{a.n_states}-state" in str(err)
    assert f"more than {sets - 1:,} image sets (limit image_sets = {sets - 1:,}" in str(err)
    holonomy_spec(a, image_set_limit=sets)  # at the limit: decomposed


def test_a_random_machine_past_the_limit_gets_the_dense_unit_at_once_and_is_proved() -> None:
    # random:n=60,k=2,seed=1: 52 states, 441,568 image sets; its decomposition ran
    # for minutes before the limit (docs/performance.md).  The limit is a count.
    a = load("random:n=60,k=2,seed=1").minimal()
    assert LIMITS.image_sets is not None and count_image_sets(a, LIMITS.image_sets) is None
    net = fsmnet.compile(a, "minmax-cascade")
    assert net.options["strategy"] == "dense unit"
    skipped = net.options["strategies_skipped"]
    assert skipped["holonomy"].startswith("HolonomyTooLarge: the holonomy orbit of this "
                                          "52-state automaton has more than 20,000 image sets")
    assert "subdirectly irreducible" in skipped["product"]
    assert net.options["fallback_reason"] in skipped["holonomy"]
    word = np.random.default_rng(5).integers(0, a.n_symbols, 2_000)
    assert np.array_equal(net.label_trace(word), a.output_ids[a.trace(word)])
    assert verify(a, net).verdict == "proved"


def test_a_scalar_product_is_still_found_past_the_limit(monkeypatch) -> None:
    # Small limits make sequences:2,tracks=3 (27 states, 216 image sets) look large:
    # the holonomy row stops at the count, and the product row after it builds the
    # scalar product cascade, which the exact verifier proves.
    from fsmnet.constructions import minmax_limits

    small = replace(LIMITS, image_sets=100, factor_first_max=10)
    monkeypatch.setattr(minmax_limits, "LIMITS", small)
    a = load("sequences:2,tracks=3").minimal()
    net = fsmnet.compile(a, "minmax-scalar")
    assert net.options["strategy"] == "product after holonomy"
    assert "more than 100 image sets" in net.options["strategies_skipped"]["holonomy"]
    assert set(net.options["unit_kinds"]) == {"scalar"}
    assert verify(a, net).verdict == "proved"
