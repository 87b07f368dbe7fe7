"""Python API misuse raises typed errors naming the value; the CLI logs one line each.

The cases: ``net.label_trace(["9"])`` (no IndexError), ``Automaton.trace`` with symbol
names (no raw ValueError), ``accepts()`` on a multi-label machine (an error, not a quiet
False), and a partial spec (a warning naming the spec, not an internal source line).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import fsmnet
from fsmnet.cli import main
from fsmnet.errors import FsmnetError, NetworkFileError, SpecError


@pytest.fixture(scope="module")
def parity_net() -> fsmnet.Network:
    return fsmnet.compile("parity", "bilinear-full")


@pytest.mark.parametrize("word, shown", [
    (["9"], "'9'"), ("ab", "'a'"), ([9], "9"), ([-1], "-1"), ([0.5], "0.5"), ([True], "True"),
])
def test_label_trace_bad_words(parity_net: fsmnet.Network, word: object, shown: str) -> None:
    with pytest.raises(NetworkFileError, match="field 'word'") as info:
        parity_net.label_trace(word)  # type: ignore[arg-type]
    assert f"(value: {shown})" in str(info.value)


def test_label_trace_good_words(parity_net: fsmnet.Network) -> None:
    # parity: label index 1 (True) after an even number of 1s; worked out by hand.
    labels = parity_net.labels
    trace = parity_net.label_trace(np.array([1, 0, 1], dtype=np.uint8))
    assert [labels[i] for i in trace] == [True, False, False, True]
    assert parity_net.label_trace([]).tolist() == [labels.index(True)]


@pytest.mark.parametrize("method", ["trace", "run"])
def test_automaton_trace_and_run_with_names(method: str) -> None:
    a = fsmnet.load("modadd:3")
    with pytest.raises(SpecError, match="encode") as info:
        getattr(a, method)(["1", "2"])
    assert info.value.field == "word" and info.value.value == "1"
    with pytest.raises(SpecError, match="out of range") as info:
        getattr(a, method)([0, 3])
    assert info.value.value == 3


@given(word=st.lists(st.integers(0, 2), max_size=30))
def test_trace_agrees_with_a_plain_loop(word: list[int]) -> None:
    a = fsmnet.load("modadd:3")
    q, states = a.initial, [a.initial]
    for s in word:  # the definition of a run, step by step
        q = int(a.delta[s, q])
        states.append(q)
    assert a.trace(word).tolist() == states and a.run(word) == states[-1]


def test_accepts_needs_an_acceptor() -> None:
    moore = fsmnet.load("modadd:3")  # labels 0, 1, 2
    with pytest.raises(SpecError, match="output_of") as info:
        moore.accepts(["1"])
    assert info.value.value == [0, 1, 2]
    assert moore.output_of(["1", "1"]) == 2  # 1 + 1 mod 3
    assert fsmnet.load("parity").accepts(["1", "1"]) is True


def test_errors_are_typed() -> None:
    assert issubclass(NetworkFileError, FsmnetError) and issubclass(SpecError, FsmnetError)


PARTIAL = ("states: [a, b]\ninput_symbols: [x, y]\n"
           "transitions: {a: {x: b}, b: {x: a, y: b}}\ninitial_state: a\nfinal_states: [a]\n")


def test_partial_spec_warning_is_one_readable_line(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    spec = tmp_path / "partial.yaml"
    spec.write_text(PARTIAL)
    assert main(["info", str(spec)]) == 0
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("fsmnet: warning: ")
    assert "a on 'y'" in err and "warnings.warn" not in err and "SpecWarning" not in err
    assert main(["info", str(spec), "-q"]) == 0  # --quiet: errors only
    assert capsys.readouterr().err == ""


def test_partial_spec_warning_in_a_real_process(tmp_path: Path) -> None:
    spec = tmp_path / "partial.yaml"
    spec.write_text(PARTIAL)
    done = subprocess.run([sys.executable, "-m", "fsmnet", "info", str(spec)],
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0
    assert done.stderr.splitlines() == [done.stderr.strip()]
    assert done.stderr.startswith("fsmnet: warning: ") and "py:" not in done.stderr


@pytest.mark.parametrize("command", ["info", "compile", "verify", "check", "fuzz",
                                     "expressivity", "decompose", "run", "hierarchy"])
def test_every_command_takes_verbose_and_quiet(command: str,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main([command, "--help"])
    assert info.value.code == 0
    text = capsys.readouterr().out
    assert "-v, --verbose" in text and "-q, --quiet" in text


def test_verbose_notes_and_quiet_errors(tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "parity", "--length", "100", "-v"]) == 0
    out, err = capsys.readouterr()
    assert "seed 0" in err and err.startswith("fsmnet: ")  # the note on stderr
    assert "length 100" in out and "fsmnet:" not in out     # the result on stdout
    assert main(["-v", "run", "parity", "--length", "100"]) == 0  # before the command too
    assert "seed 0" in capsys.readouterr().err
    assert main(["run", "parity", "--length", "100"]) == 0
    assert capsys.readouterr().err == ""
    assert main(["info", "nosuch:3", "-q"]) == 2  # errors still show under --quiet
    assert capsys.readouterr().err.startswith("fsmnet: error: ")


@pytest.mark.parametrize("budget", [0, -1, 2.5, True, "100"])
def test_verify_refuses_a_budget_that_is_not_a_positive_count(parity_net: fsmnet.Network,
                                                              budget: object) -> None:
    # A budget is a count of states: -1 must not run and report "did not close within -1".
    with pytest.raises(SpecError, match="max_states"):
        fsmnet.verify("parity", parity_net, max_states=budget)  # type: ignore[arg-type]
