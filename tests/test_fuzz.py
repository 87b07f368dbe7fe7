"""``fsmnet fuzz``: confirmed, shrunk counterexamples; honest "no counterexample"."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples

import fsmnet
from fsmnet.automata import Automaton
from fsmnet.cli import main
from fsmnet.errors import SpecError
from fsmnet.nets import Network
from fsmnet.testing.fuzz import fuzz
from fsmnet.testing.strategies import automata

PARITY = Automaton(delta=np.array([[1, 0], [0, 1]]), symbols=("a", "b"), initial=0,
                   outputs=(True, False))


def _exact_output(net, word):
    return net.labels[int(net.label_trace(word, exact=True)[-1])]


def test_identity_mutant_of_parity_gives_the_word_a() -> None:
    net = fsmnet.compile(PARITY, "bilinear-full")
    w = np.array(net.params["W"])
    w[:, :, 0] = np.eye(2)  # 'a' no longer flips the parity
    result = fuzz(PARITY, net.with_params(W=w), examples=100, max_length=20, seed=0)
    assert result.verdict == "refuted"
    assert result.counterexample.word == ["a"]  # shrunk: the one shortest word
    assert (result.counterexample.expected, result.counterexample.got) == (False, True)


def test_correct_network_gives_no_counterexample_and_never_says_proved() -> None:
    net = fsmnet.compile("modcount:3", "minmax-dense")
    result = fuzz("modcount:3", net, examples=50, max_length=40, seed=3)
    assert result.verdict == "no-counterexample"
    assert result.counterexample is None
    assert result.message.startswith("no counterexample in 50 examples")
    assert "proved" not in result.message and "proof" in result.message


MUTANT_CASES = (automata(max_states=4, max_symbols=2, max_labels=3), st.data(),
                st.sampled_from(["bilinear-full", "minmax-dense"]))


# fuzz runs hypothesis.find inside this @given on purpose.  Ten examples by
# default; the thorough profile (-m slow) draws ten times as many.
@pytest.mark.thorough
@settings(max_examples=examples(10), suppress_health_check=[HealthCheck.nested_given])
@given(*MUTANT_CASES)
def test_mutants_fuzz_agrees_with_brute_force(shortest_disagreement, a: Automaton, data,
                                              arch) -> None:
    m = a.minimal()
    net = fsmnet.compile(m, arch)
    name = data.draw(st.sampled_from(sorted(net.params)))
    arr = np.array(net.params[name])
    idx = tuple(data.draw(st.integers(0, d - 1)) for d in arr.shape)
    arr[idx] = data.draw(st.sampled_from([0.0, 1.0, 0.5, -1.0]))
    mutant = net.with_params(**{name: arr})
    diff = shortest_disagreement(mutant, m, 4)
    result = fuzz(m, mutant, examples=300, max_length=8, seed=1)
    if result.verdict == "refuted":
        cex = result.counterexample
        word = list(m.encode(cex.word))
        # Confirmed independently: exact evaluator vs the automaton.
        assert cex.expected == m.output(m.run(word))
        assert cex.got == _exact_output(mutant, word)
        assert type(cex.got) is not type(cex.expected) or cex.got != cex.expected
    else:
        # A difference of length <= 4 over <= 2 symbols cannot hide from 300
        # words of length <= 8 (each word of length >= 4 hits a given 4-prefix
        # with probability >= 1/16; the seed is fixed, so this is deterministic).
        assert diff is None


def test_float_only_disagreement_is_not_reported() -> None:
    # Float: 0.1 + 0.2 == 0.30000000000000004, a tie, first argmax -> "x".
    # Exact: Fraction(0.1) + Fraction(0.2) < Fraction(0.30000000000000004) -> "y".
    net = Network(arch="bilinear-full",
                  params={"W": np.eye(3).reshape(3, 3, 1), "h0": np.ones(3),
                          "readout": np.array([[0.1, 0.2, 0.0], [0.0, 0.0, 0.30000000000000004]])},
                  symbols=("a",), labels=("x", "y"))
    one = Automaton(delta=np.array([[0]]), symbols=("a",), initial=0, outputs=("y",))
    assert net.labels[int(net.label_trace([])[-1])] == "x"  # premise: the float tie
    assert _exact_output(net, []) == "y"
    result = fuzz(one, net, examples=20, max_length=5, seed=0)
    assert result.verdict == "no-counterexample"
    assert result.float_only >= 1


def test_same_seed_same_result() -> None:
    net = fsmnet.compile("modadd:4", "bilinear-full")
    r = np.array(net.params["readout"])
    r[:, 3] = r[:, 2]  # state 3 now reads as label 2
    bad = net.with_params(readout=r)
    first = fuzz("modadd:4", bad, examples=200, max_length=30, seed=7)
    second = fuzz("modadd:4", bad, examples=200, max_length=30, seed=7)
    assert first == second
    assert first.verdict == "refuted"


def test_bad_budgets_and_alphabets_are_spec_errors() -> None:
    net = fsmnet.compile(PARITY, "bilinear-full")
    with pytest.raises(SpecError):
        fuzz(PARITY, net, examples=0)
    with pytest.raises(SpecError):
        fuzz(PARITY, net, max_length=-1)
    with pytest.raises(SpecError):
        fuzz("modcount:3", net)  # alphabet {0, 1}? not {a, b}


def test_cli_exit_codes_and_json(tmp_path, capsys) -> None:
    net = fsmnet.compile("parity", "bilinear-full")
    good = tmp_path / "good.safetensors"
    net.save(good)
    assert main(["fuzz", "parity", str(good), "--examples", "30", "--seed", "1"]) == 0
    assert "no counterexample in 30 examples" in capsys.readouterr().out
    r = np.array(net.params["readout"])
    bad = tmp_path / "bad.safetensors"
    net.with_params(readout=r[::-1].copy()).save(bad)  # every label swapped
    assert main(["fuzz", "parity", str(bad), "--json", "--seed", "2"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert out["verdict"] == "refuted" and out["counterexample"]["word"] == []
    assert out["seed"] == 2
    assert main(["fuzz", "parity", str(tmp_path / "missing.safetensors")]) == 2
    with pytest.raises(SystemExit) as exit_info:  # argparse rejects it: exit 2
        main(["fuzz", "parity", str(good), "--examples", "0"])
    assert exit_info.value.code == 2
    assert main(["fuzz", "nosuchfamily:3", str(good)]) == 2


def test_cli_leaves_no_hypothesis_directory_in_the_working_directory(tmp_path) -> None:
    work, cache = tmp_path / "work", tmp_path / "cache"
    work.mkdir()
    fsmnet.compile("parity", "bilinear-full").save(work / "net.safetensors")
    code = ("from fsmnet.cli import main; raise SystemExit(main(['fuzz', 'parity', "
            "'net.safetensors', '--examples', '20', '--seed', '3']))")
    done = subprocess.run([sys.executable, "-c", code], cwd=work, capture_output=True,
                          text=True, env=dict(os.environ, XDG_CACHE_HOME=str(cache)))
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in work.iterdir()) == ["net.safetensors"]
    assert (cache / "fsmnet" / "hypothesis").is_dir()
