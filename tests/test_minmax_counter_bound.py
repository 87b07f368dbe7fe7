"""Capped counters need 2^k hidden states in any scalar MinMax cascade.

The theorem and its proof: docs/constructions-minmax.md.  Independent sources
here: an exhaustive SAT search for small clamp cascades (z3, its own encoding
of a cascade, nothing from fsmnet's compiler), and the compiler's own scalar
cascades, which must never reach fewer states than the bound says.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import fsmnet
from fsmnet.automata import Automaton, load
from fsmnet.constructions.minmax_counter_bound import (
    CounterBound,
    CounterChain,
    check_counter_chain,
    counter_chain,
)


def _cascade_exists(delta: list[list[int]], n_states: int, units: int, configs: int) -> bool:
    """Is there a cascade of ``units`` binary units, each letter clamping (identity,
    set 0, set 1) a unit as a function of the units above, whose configurations
    (at most ``configs`` of them, the start all zeros) cover the automaton from
    state 0?  A clamp unit of K values is K − 1 binary threshold units, so binary
    units lose nothing.  Exhaustive, by z3."""
    import z3

    s = z3.Solver()
    rng = range(configs)
    val = [[z3.Bool(f"v{c}_{i}") for i in range(units)] for c in rng]
    q = [z3.Int(f"q{c}") for c in rng]
    nxt = [[z3.Int(f"s{c}_{a}") for a in range(len(delta))] for c in rng]
    # op[c][a][i]: (changes, value) -- identity when not changes.
    chg = [[[z3.Bool(f"c{c}_{a}_{i}") for i in range(units)] for a in range(len(delta))]
           for c in rng]
    to = [[[z3.Bool(f"t{c}_{a}_{i}") for i in range(units)] for a in range(len(delta))]
          for c in rng]
    s.add(q[0] == 0, *[z3.Not(v) for v in val[0]])
    for c in rng:
        s.add(0 <= q[c], q[c] < n_states)
        for a, row in enumerate(delta):
            s.add(0 <= nxt[c][a], nxt[c][a] < configs)
            for d in rng:
                moved = z3.Sum([z3.If(q[c] == p, row[p], 0) for p in range(n_states)])
                now = [z3.If(chg[c][a][i], to[c][a][i], val[c][i]) for i in range(units)]
                s.add(z3.Implies(nxt[c][a] == d, z3.And(q[d] == moved, *[
                    val[d][i] == now[i] for i in range(units)])))
        for c2 in range(c + 1, configs):
            for i in range(units):
                same = z3.And([val[c][j] == val[c2][j] for j in range(i)])
                for a in range(len(delta)):
                    s.add(z3.Implies(same, z3.And(chg[c][a][i] == chg[c2][a][i],
                                                  to[c][a][i] == to[c2][a][i])))
            s.add(z3.Implies(z3.And([val[c][j] == val[c2][j] for j in range(units)]),
                             q[c] == q[c2]))
    return s.check() == z3.sat


def _counter(k: int) -> list[list[int]]:
    return [[min(x + 1, k) for x in range(k + 1)], [max(x - 1, 0) for x in range(k + 1)]]


def test_exhaustive_search_finds_no_smaller_cascade_for_small_counters() -> None:
    # The bound 2^k: counter:2 needs 4 configurations (3 are not enough, 4 are),
    # dyck:1 (states 0, 1, sink) needs 4 too; the positive runs show the
    # encoding can succeed, so the negative ones are not vacuous.
    assert not _cascade_exists(_counter(2), 3, units=3, configs=3)
    assert _cascade_exists(_counter(2), 3, units=2, configs=4)
    dyck1 = [[1, 2, 2], [2, 0, 2]]
    assert not _cascade_exists(dyck1, 3, units=3, configs=3)
    assert _cascade_exists(dyck1, 3, units=2, configs=4)


@pytest.mark.slow
def test_exhaustive_search_finds_no_seven_state_cascade_for_counter_3() -> None:
    assert not _cascade_exists(_counter(3), 4, units=3, configs=7)  # the slow part
    assert _cascade_exists(_counter(3), 4, units=3, configs=8)


def _counter_with(extra: list[int], outputs: list[int]) -> Automaton:
    k = len(extra) - 1
    x = np.arange(k + 1)
    return Automaton(delta=np.stack([np.minimum(x + 1, k), np.maximum(x - 1, 0),
                                     np.array(extra)]),
                     symbols=("u", "d", "e"), initial=0, outputs=outputs, name="counter+e")


@given(st.integers(3, 6).flatmap(lambda k: st.tuples(
    st.lists(st.integers(0, k), min_size=k + 1, max_size=k + 1).map(sorted),
    st.lists(st.integers(0, 2), min_size=k + 1, max_size=k + 1))))
def test_the_compilers_scalar_cascades_never_beat_the_bound(data) -> None:
    # A third letter that is any monotone map keeps the machine aperiodic (every
    # letter is monotone on the chain); whatever scalar cascade the compiler finds,
    # it reaches at least 2^k hidden states for the longest chain found.
    extra, outputs = data
    a = _counter_with(extra, outputs)
    chain = counter_chain(a)
    net = fsmnet.compile(a, "minmax-scalar")
    if chain is not None:
        assert check_counter_chain(a.minimal(), chain) is None
        assert net.options["reachable_coordinates"] >= chain.hidden_states


@pytest.mark.parametrize("k", [3, 5, 8])
def test_the_holonomy_cascade_meets_the_bound_exactly_on_counters(k: int) -> None:
    net = fsmnet.compile(load(f"counter:{k}"), "minmax-scalar")
    chain = counter_chain(load(f"counter:{k}"))
    assert chain is not None and chain.k == k
    assert net.options["reachable_coordinates"] == chain.hidden_states == 2 ** k


def test_the_chain_of_dyck_ends_in_its_sink() -> None:
    a = load("dyck:6")
    chain = counter_chain(a)
    assert chain is not None and chain.k == 6 and len(chain.sinks) == 1
    assert a.minimal().states[chain.sinks[0]] == "sink"
    assert check_counter_chain(a.minimal(), chain) is None


def test_the_checker_refuses_broken_chains() -> None:
    a = load("counter:6").minimal()
    good = counter_chain(a)
    assert good is not None and check_counter_chain(a, good) is None
    mutants = [
        CounterChain(up=good.down, down=good.up, chain=good.chain, sinks=()),  # swapped
        CounterChain(up=good.up, down=good.down, chain=good.chain[1:] + good.chain[:1],
                     sinks=()),                                               # rotated
        CounterChain(up=good.up, down=good.down, chain=good.chain[:-1], sinks=()),  # end
        CounterChain(up=good.up, down=good.down, chain=good.chain, sinks=(good.chain[0],)),
        CounterChain(up=("z",), down=good.down, chain=good.chain, sinks=()),
    ]
    for bad in mutants:
        assert check_counter_chain(a, bad) is not None, bad
    # Same words and states, but every output equal: the states are one behaviour,
    # so the chain proves nothing and the checker says so.
    flat = Automaton(delta=a.delta, symbols=a.symbols, initial=0,
                     outputs=[0] * a.n_states, name="flat")
    assert "same outputs" in str(check_counter_chain(flat, good))


def test_no_chain_in_groups_or_one_way_counters() -> None:
    assert counter_chain(load("modcount:5")) is None
    assert counter_chain(load("atleast:6")) is None


def test_a_long_chain_is_refused_at_once_with_the_bound(count_calls) -> None:
    from fsmnet.constructions import minmax_cascade

    explorations = count_calls(minmax_cascade, "explore")
    with pytest.raises(CounterBound, match=r"2\^199") as info:
        fsmnet.compile(load("counter:199"), "minmax-scalar")
    assert explorations.calls == 0  # refused by the chain, not by running out of budget
    assert info.value.chain.k == 199
    # Below the budget the same family still compiles (2^12 · 2 letters ≤ 200,000).
    assert fsmnet.compile(load("counter:12"), "minmax-scalar").options[
        "reachable_coordinates"] == 2 ** 12
