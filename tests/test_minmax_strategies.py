"""The MinMax strategy table: one loop, stages, the record of why each row was skipped.

Independent sources: made-up rows whose networks are fixed in advance (the loop's
rules are checked on them, not on the constructions), the automaton's own run
(``Automaton.trace``) and the exact product proof for the compiled networks.
"""

from __future__ import annotations

import numpy as np
import pytest

import fsmnet
from fsmnet.automata import load
from fsmnet.constructions.minmax_explore import CascadeTooLarge
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
    return Attempt(load("parity").minimal(), "minmax-cascade", LIMITS.max_steps)


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
