"""Tests of ``fsmnet info``: the JSON contract (docs/architecture.md), help, bad input.

Expected monoid facts come from independent sources: the syntactic monoid of
parity is C_2 (two classes, a·a = 1); the transition monoid of the S_5
word problem is S_5 itself, of order 120 and not solvable (Dummit & Foote,
*Abstract Algebra*, Thm 4.24); the set/reset flip-flop monoid {1, set,
reset} is aperiodic (it satisfies x² = x).
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from sympy.combinatorics.named_groups import SymmetricGroup

from fsmnet.automata.automaton import Automaton
from fsmnet.cli import main

KEYS = {"name", "states", "minimal_states", "alphabet", "monoid"}
MONOID_KEYS = {"size", "commutative", "aperiodic", "groups", "solvable"}
GROUP_KEYS = {"name", "order", "exponent", "abelian", "solvable"}


def _spec_file(tmp_path, automaton: Automaton) -> str:
    path = tmp_path / "machine.json"
    path.write_text(json.dumps(automaton.to_dict()))
    return str(path)


def _s5_word_problem() -> Automaton:
    """The S_5 word problem on two generators, built here from sympy."""
    group = SymmetricGroup(5)
    elements = list(group.generate())
    index = {tuple(e.array_form): i for i, e in enumerate(elements)}
    delta = np.array([[index[tuple((e * g).array_form)] for e in elements]
                      for g in group.generators])
    return Automaton(delta=delta, symbols=("g0", "g1"), initial=index[tuple(range(5))],
                     outputs=list(range(len(elements))), name="S5")


def _run_json(capsys, *argv: str) -> dict:
    assert main(["info", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_json_schema_and_values_for_s5(tmp_path, capsys) -> None:
    data = _run_json(capsys, _spec_file(tmp_path, _s5_word_problem()))
    assert set(data) == KEYS
    assert set(data["monoid"]) == MONOID_KEYS
    assert all(set(g) == GROUP_KEYS for g in data["monoid"]["groups"])
    assert (data["states"], data["minimal_states"], data["alphabet"]) == (120, 120, ["g0", "g1"])
    monoid = data["monoid"]
    assert (monoid["size"], monoid["aperiodic"], monoid["solvable"]) == (120, False, False)
    assert [(g["name"], g["order"], g["solvable"]) for g in monoid["groups"]] == [
        ("S_5", 120, False)]


def test_parity_and_flipflop(tmp_path, capsys) -> None:
    # Parity with a redundant third state: the minimal machine has 2 states.
    parity = Automaton(delta=np.array([[1, 2, 1], [0, 1, 2]]), symbols=("a", "b"),
                       initial=0, outputs=(True, False, True), name="parity3")
    data = _run_json(capsys, _spec_file(tmp_path, parity))
    assert (data["states"], data["minimal_states"]) == (3, 2)
    assert data["monoid"]["size"] == 2 and data["monoid"]["commutative"] is True
    assert [g["name"] for g in data["monoid"]["groups"]] == ["C_2"]
    flipflop = Automaton(delta=np.array([[1, 1], [0, 0], [0, 1]]),
                         symbols=("set", "reset", "read"), initial=0, outputs=(False, True))
    data = _run_json(capsys, _spec_file(tmp_path, flipflop))
    assert data["monoid"]["aperiodic"] is True and data["monoid"]["groups"] == []
    assert data["monoid"]["size"] == 3  # {1, set, reset}


def test_human_summary(tmp_path, capsys) -> None:
    assert main(["info", _spec_file(tmp_path, _s5_word_problem())]) == 0
    out = capsys.readouterr().out
    assert "monoid size     120" in out and "S_5: order 120" in out


@pytest.mark.parametrize("spec", ["no-such-family-xyz", "missing/file.json"])
def test_bad_spec_exits_2_with_one_line(spec: str, capsys) -> None:
    assert main(["info", spec]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert len(captured.err.strip().splitlines()) == 1


def test_limit_is_bad_input(tmp_path, capsys) -> None:
    assert main(["info", _spec_file(tmp_path, _s5_word_problem()), "--max-size", "50"]) == 2
    assert "more than 50" in capsys.readouterr().err


def test_help_teaches(capsys) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["info", "--help"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    assert "examples:" in out and "fsmnet info parity" in out and "--json" in out
