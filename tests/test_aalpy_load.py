"""fsmnet.load on real AALpy objects, and the round trip back to AALpy.

The oracle is AALpy's own execution (``execute_sequence`` / ``output_step``)
on every word up to length 6, compared with Automaton.output_of.
"""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given

import fsmnet
from fsmnet.automata.convert import from_aalpy, to_aalpy
from fsmnet.automata.language import equivalence
from fsmnet.errors import SpecError
from fsmnet.testing.strategies import automata

aalpy = pytest.importorskip("aalpy", reason="aalpy is in the test extra")
from aalpy.automata import Dfa, DfaState, MealyMachine, MealyState, MooreMachine, MooreState  # noqa: E402


def aalpy_output(machine, word):
    machine.reset_to_initial()
    out = machine.current_state.is_accepting if isinstance(machine, Dfa) \
        else machine.current_state.output
    for a in word:
        out = machine.step(a)
    return out


def words(symbols, max_len=6):
    for n in range(max_len + 1):
        yield from itertools.product(symbols, repeat=n)


def test_load_dfa_from_state_setup():
    # Words over {x, y} whose number of x's is even (AALpy docstring style setup).
    dfa = Dfa.from_state_setup({"even": (True, {"x": "odd", "y": "even"}),
                                "odd": (False, {"x": "even", "y": "odd"})})
    a = fsmnet.load(dfa)
    assert a.symbols == ("x", "y") and a.states == ("even", "odd") and a.is_acceptor
    for w in words("xy"):
        assert a.accepts(list(w)) == aalpy_output(dfa, w) == (w.count("x") % 2 == 0)


def test_load_moore_machine_with_int_inputs():
    # Running sum mod 3 of inputs 1 and 2; AALpy allows non-string inputs.
    states = [MooreState(f"s{i}", output=i) for i in range(3)]
    for i, s in enumerate(states):
        s.transitions[1] = states[(i + 1) % 3]
        s.transitions[2] = states[(i + 2) % 3]
    mm = MooreMachine(states[0], states)
    a = fsmnet.load(mm)
    assert a.symbols == ("1", "2") and a.labels == (0, 1, 2)
    for w in words([1, 2], 5):
        assert a.output_of([str(x) for x in w]) == aalpy_output(mm, w) == sum(w) % 3


def test_partial_dfa_gets_a_rejecting_sink():
    q0, q1 = DfaState("q0", False), DfaState("q1", True)
    q0.transitions["a"] = q1  # q1 has no transitions, q0 none on "b"
    q0.transitions["b"] = q0
    q1.transitions["a"] = q1
    a = fsmnet.load(Dfa(q0, [q0, q1]))
    assert a.n_states == 3 and a.accepts("a") and a.accepts("aa") and not a.accepts("ab")


def test_partial_moore_and_mealy_are_refused():
    s0, s1 = MooreState("s0", 0), MooreState("s1", 1)
    s0.transitions["a"] = s1
    s0.transitions["b"] = s0
    s1.transitions["a"] = s0
    with pytest.raises(SpecError, match="every transition"):
        fsmnet.load(MooreMachine(s0, [s0, s1]))
    m = MealyState("m")
    m.transitions["a"] = m
    m.output_fun["a"] = 1
    with pytest.raises(SpecError, match="Dfa or MooreMachine"):
        from_aalpy(MealyMachine(m, [m]))


def test_clashing_symbol_names_are_refused():
    s = DfaState("s", True)
    s.transitions[1] = s
    s.transitions["1"] = s
    with pytest.raises(SpecError, match="distinct"):
        fsmnet.load(Dfa(s, [s]))


@given(automata(max_states=5, max_symbols=3, max_labels=3))
def test_round_trip_through_aalpy(a):
    back = to_aalpy(a)
    assert isinstance(back, Dfa if a.is_acceptor else MooreMachine)
    for w in words(a.symbols, 4):
        assert aalpy_output(back, w) == a.output_of(list(w))
    again = fsmnet.load(back)
    assert equivalence(a, again).holds
    # Same names and alphabet: the initial state comes first, the rest keep order.
    assert set(again.states) == set(a.states) and set(again.symbols) == set(a.symbols)


def test_semiautomaton_has_no_aalpy_image():
    from fsmnet.automata import Automaton

    with pytest.raises(SpecError, match="semiautomaton"):
        to_aalpy(Automaton(delta=[[0]], symbols=["a"], initial=None, outputs=None))
