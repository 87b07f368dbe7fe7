"""fixed-point: the strategy table is one loop, and every skip is recorded with its reason.

Synthetic tables (strategies that do not apply, are over their limit, raise, or
build) check the loop itself; the real table is checked on small automata whose
strategy is known from their letters (resets, a partially ordered automaton,
permutations and resets).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

import fsmnet
from fsmnet.automata import Automaton
from fsmnet.constructions import fixed_point_strategies as fps
from fsmnet.constructions.fixed_point import compile_fixed_point
from fsmnet.constructions.fixed_point_budget import StepBudget
from fsmnet.constructions.fixed_point_limits import LIMITS
from fsmnet.constructions.fixed_point_reset import compile_fixed_point_reset
from fsmnet.errors import NotExpressible
from fsmnet.nets import Network

FLIPFLOP = fsmnet.load("flipflop").minimal()


def _request(automaton: Automaton) -> fps.Request:
    return fps.Request(automaton, seed=0, attempts=1, sign_channel=None,
                       budget=StepBudget(total=10))


def _flipflop_net(request: fps.Request) -> Network:
    return compile_fixed_point_reset(FLIPFLOP)


def _refuse(request: fps.Request) -> Network:
    raise NotExpressible("fixed-point: the search found nothing")


def _never(request: fps.Request) -> str | None:
    raise AssertionError("a strategy after the one that built was consulted")


def _synthetic(limit_most: int = 1) -> tuple[fps.Strategy, ...]:
    return (
        fps.Strategy("no", lambda r: "the letters are wrong", _flipflop_net),
        fps.Strategy("big", lambda r: None, _flipflop_net,
                     fps.Limit(lambda r: r.automaton.n_states, "acyclic_states", "{} states",
                               "too many")),
        fps.Strategy("fails", lambda r: None, _refuse),
        fps.Strategy("builds", lambda r: None, _flipflop_net),
        fps.Strategy("after", _never, _flipflop_net),
    )


def test_the_loop_records_each_skip_and_stops_at_the_first_that_builds(monkeypatch) -> None:
    monkeypatch.setattr(fps, "LIMITS", replace(LIMITS, acyclic_states=1))
    net = fps.first_that_builds(_request(FLIPFLOP), _synthetic())
    assert net.options["strategy"] == "builds"
    assert net.options["skipped"] == {
        "no": "the letters are wrong",
        "big": "2 states is above 1 (LIMITS.acyclic_states): too many",
        "fails": "tried: the search found nothing",
    }
    # the network is the builder's, with only the two records added
    plain = compile_fixed_point_reset(FLIPFLOP)
    assert {k: v for k, v in net.options.items() if k not in ("strategy", "skipped")} \
        == plain.options
    assert all(np.array_equal(net.params[k], plain.params[k]) for k in plain.params)


def test_when_none_builds_every_reason_is_in_the_message() -> None:
    table = (
        fps.Strategy("no", lambda r: "the letters are wrong", _flipflop_net),
        fps.Strategy("fails", lambda r: None, _refuse),
        fps.Strategy("also", lambda r: "same reason", _flipflop_net),
        fps.Strategy("again", lambda r: "same reason", _flipflop_net),
    )
    with pytest.raises(NotExpressible) as info:
        fps.first_that_builds(_request(FLIPFLOP), table)
    assert str(info.value) == (
        "fixed-point: no strategy builds the automaton 'flipflop': no: the letters are "
        "wrong; fails: tried: the search found nothing; also, again: same reason")


def test_compile_loops_over_the_module_table(monkeypatch) -> None:
    monkeypatch.setattr(fps, "STRATEGIES", _synthetic()[:1])
    with pytest.raises(NotExpressible, match="no: the letters are wrong"):
        compile_fixed_point(FLIPFLOP)


def test_the_table_order() -> None:
    assert [s.name for s in fps.STRATEGIES] == ["reset", "group-reset", "acyclic", "split",
                                               "tuned", "random-search"]


@pytest.mark.parametrize(("automaton", "strategy"), [
    ("flipflop", "reset"),
    ("latch:4", "acyclic"),
    (Automaton(delta=np.array([[1, 0], [0, 0]]), symbols=("t", "r"), initial=0,
               outputs=(0, 1)), "group-reset"),
])
def test_the_real_table_records_why_earlier_strategies_were_skipped(automaton, strategy):
    net = fsmnet.compile(automaton, "fixed-point")
    assert net.options["strategy"] == strategy
    names = [s.name for s in fps.STRATEGIES]
    assert list(net.options["skipped"]) == names[:names.index(strategy)]
    assert all(isinstance(why, str) and why for why in net.options["skipped"].values())


def test_a_limit_is_read_when_the_table_runs(monkeypatch) -> None:
    monkeypatch.setattr(fps, "LIMITS", replace(LIMITS, acyclic_states=3))
    with pytest.raises(NotExpressible, match=r"acyclic: 5 states is above 3 "
                                             r"\(LIMITS.acyclic_states\)"):
        fsmnet.compile("latch:4", "fixed-point")


def test_a_spent_budget_skips_the_untuned_search_and_says_so() -> None:
    with pytest.raises(NotExpressible) as info:
        compile_fixed_point(fsmnet.load("symmetric:3").minimal(), tuning_steps=50)
    message = str(info.value)
    assert "tuned: tried: the radius tuning spent its 50 Adam steps" in message
    assert "random-search: the tuning spent the step budget" in message
    assert "split: hidden size 7 is at most 16" in message
