"""The Automaton object: validation, running, derivations."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from fsmnet.automata import Automaton
from fsmnet.errors import SpecError
from fsmnet.testing.strategies import automata, words_for


def _toy() -> Automaton:
    return Automaton(delta=np.array([[1, 2, 0], [0, 0, 2]]), symbols=("a", "b"),
                     states=("p", "q", "r"), initial=0, outputs=(True, False, False))


def test_run_matches_hand_trace() -> None:
    a = _toy()
    # a: p->q->r->p ; b: p->p, q->p, r->r (read off the table by hand).
    assert a.run(a.encode("ab")) == 0
    assert a.run(a.encode("aab")) == 2
    assert list(a.trace(a.encode("aa"))) == [0, 1, 2]
    assert a.accepts("aaa") and not a.accepts("a")


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"delta": np.zeros((0, 3), dtype=int)}, "input_symbols"),
        ({"delta": np.array([[1, 2, 3], [0, 0, 0]])}, "delta"),
        ({"symbols": ("a", "a")}, "input_symbols"),
        ({"states": ("p", "p", "r")}, "states"),
        ({"initial": 7}, "initial_state"),
        ({"outputs": (True, False)}, "outputs"),
        ({"outputs": (1.5, 0.0, 2.0)}, "outputs"),
        ({"delta": np.array([[0.5, 1, 0], [0, 0, 0]])}, "delta"),
    ],
)
def test_invalid_fields_are_named(changes: dict, field: str) -> None:
    with pytest.raises(SpecError) as info:
        _toy().replace(**changes)
    assert info.value.field == field
    assert field in str(info.value)


def test_table_is_read_only() -> None:
    a = _toy()
    with pytest.raises(ValueError):
        a.delta[0, 0] = 2


def test_unknown_symbol_is_a_spec_error() -> None:
    with pytest.raises(SpecError, match="'c'"):
        _toy().encode("ac")


def test_bool_and_int_labels_stay_distinct() -> None:
    # True == 1 in Python; the label index must still keep them apart.
    a = _toy().replace(outputs=(True, 1, 0))
    assert len(a.labels) == 3


@given(automata(max_states=6, max_labels=3), st.data())
def test_trace_agrees_with_stepwise_run(a: Automaton, data: st.DataObject) -> None:
    w = data.draw(words_for(a))
    states = a.trace(w)
    for t in range(len(w) + 1):
        assert states[t] == a.run(w[:t])


@given(automata(max_states=6, max_labels=3))
def test_to_dict_round_trip_is_structural_identity(a: Automaton) -> None:
    d = a.to_dict()
    # Rebuild by hand from the dict (independent of any spec loader).
    idx = {s: i for i, s in enumerate(d["states"])}
    delta = [[idx[d["transitions"][s][sym]] for s in d["states"]] for sym in d["input_symbols"]]
    if "outputs" in d:
        outs = [d["outputs"][s] for s in d["states"]]
    else:
        outs = [s in d["final_states"] for s in d["states"]]
    b = Automaton(delta=np.array(delta), symbols=d["input_symbols"], states=d["states"],
                  initial=idx[d["initial_state"]], outputs=outs)
    assert a == b and hash(a) == hash(b)
