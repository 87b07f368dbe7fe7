"""The product budget of ``verify`` when the caller names none.

A MinMax compiler counts the hidden states its cascade reaches
(``reachable_coordinates``); the default budget follows that count, so a cascade
the compiler built is not left "unknown" for want of budget.  The independent
source for each expected verdict is the explicit-budget run beside it (and, for
the large cases, the automaton's own table and the standalone checker).
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from aperiodic_corpus import reset_cascade
from hypothesis import given
from hypothesis import strategies as st

import fsmnet
from fsmnet.proofs import verifier
from fsmnet.proofs.checker import check_certificate


def test_the_default_follows_the_recorded_count(monkeypatch: pytest.MonkeyPatch) -> None:
    net = fsmnet.compile("counter:6", "minmax-scalar")
    assert net.options["reachable_coordinates"] == 64  # 2^6 codes (docs/constructions-minmax.md)
    # Shrink the floor so that the count, not the floor, decides.
    monkeypatch.setattr(verifier, "DEFAULT_MAX_STATES", 10)
    assert fsmnet.verify("counter:6", net, max_states=10).verdict == "unknown"
    assert verifier.default_max_states(net) == 128
    assert fsmnet.verify("counter:6", net).verdict == "proved"
    # A wrong readout is still refuted under the default budget.
    readout = np.array(net.params["readout"], copy=True)
    readout[0] = (readout[0] + 1) % len(net.labels)
    assert fsmnet.verify("counter:6", net.with_params(readout=readout)).verdict == "refuted"


@given(st.one_of(st.none(), st.booleans(), st.integers(-10, 10**9), st.text(max_size=5),
                 st.floats(allow_nan=True)))
def test_any_recorded_value_gives_a_budget_within_the_bounds(recorded: object) -> None:
    net = fsmnet.compile("flipflop", "minmax-scalar")
    options = dict(net.options)
    if recorded is None:
        options.pop("reachable_coordinates", None)
    else:
        options["reachable_coordinates"] = recorded
    tampered = type(net)(arch=net.arch, params=net.params, symbols=net.symbols,
                         labels=net.labels, options=options, exact=net.exact, name=net.name)
    budget = verifier.default_max_states(tampered)
    assert verifier.DEFAULT_MAX_STATES <= budget <= verifier.RECORDED_STATES_CAP
    if isinstance(recorded, int) and not isinstance(recorded, bool) and recorded > 0:
        assert budget == max(verifier.DEFAULT_MAX_STATES,
                             min(2 * recorded, verifier.RECORDED_STATES_CAP))
    else:
        assert budget == verifier.DEFAULT_MAX_STATES


def test_the_cli_reports_the_budget_it_uses(tmp_path, capsys) -> None:
    from fsmnet.cli import main

    path = tmp_path / "c.safetensors"
    fsmnet.compile("counter:6", "minmax-scalar").save(path)
    assert main(["verify", "counter:6", str(path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["verdict"] == "proved"
    assert main(["verify", "counter:6", str(path), "--max-states", "10", "--json"]) == 3


@pytest.mark.slow
@pytest.mark.parametrize("levels,seed,states", [([2, 3, 2, 3, 2, 2, 2], 895944, 141),
                                                ([2, 2, 2, 2, 2, 2, 3], 5, 88)])
def test_the_survey_reset_cascades_compile_and_are_proved_at_the_defaults(
        tmp_path, levels: list[int], seed: int, states: int) -> None:
    # Refused at a budget of 200,000 steps and "unknown" at 20,000 product states:
    # the defaults must compile and prove both with no option.  Independent sources:
    # the automaton's table on random words, the standalone checker on the
    # certificate, and a mutant refuted.
    a = reset_cascade(levels, 4, seed)
    assert a.n_states == states
    net = fsmnet.compile(a, "minmax-scalar")
    assert set(net.options["unit_kinds"]) == {"scalar"}
    for word in np.random.default_rng(11).integers(0, a.n_symbols, (3, 300)):
        assert np.array_equal(net.label_trace(word), a.output_ids[a.trace(word)])
    cert = tmp_path / "cert.json"
    assert fsmnet.verify(a, net, certificate=str(cert)).verdict == "proved"
    assert check_certificate(json.loads(cert.read_text())).startswith("valid")
    readout = np.array(net.params["readout"], copy=True)
    readout[-1] = (readout[-1] + 1) % len(a.labels)
    assert fsmnet.verify(a, net.with_params(readout=readout)).verdict == "refuted"
