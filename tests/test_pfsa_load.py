"""PFSA-SR specs through the public API and the registry: ``fsmnet.load``,
``fsmnet.compile``, the ``belief_construction`` field, and the one place where
the command line tells a PFSA-SR from an automaton (cli/pfsa_commands.py).

Independent routes: the loaded model equals the family builder's, and a
network compiled through the API is proved to track the belief by the exact
belief proof (fsmnet.proofs.pfsa_proof), not by comparing it with the
construction it was made by.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest

import fsmnet
from fsmnet import archs
from fsmnet.automata.pfsa import PFSA
from fsmnet.automata.pfsa_families import cups
from fsmnet.automata.pfsa_spec import save_file
from fsmnet.cli import main
from fsmnet.errors import FsmnetError, SpecError


def test_load_gives_a_pfsa_for_every_form_of_pfsa_spec(tmp_path: Path) -> None:
    want = cups(3)
    path = tmp_path / "cups.yaml"
    save_file(want, path)
    for spec in ("pcups:3", "pcups:n=3", str(path), path, want.to_dict(), want):
        got = fsmnet.load(spec)
        assert isinstance(got, PFSA) and got == want, spec
    assert isinstance(fsmnet.load("parity"), fsmnet.Automaton)  # automata unchanged


def test_the_automata_loader_still_refuses_a_pfsa_by_name() -> None:
    # commands that take no PFSA-SR (train, decompose, ...) load with it
    from fsmnet.automata import load

    with pytest.raises(SpecError, match="PFSA-SR spec .* does not support"):
        load("pcups:3")


def test_compile_gives_a_network_proved_to_track_the_belief() -> None:
    from fsmnet.proofs.pfsa_proof import prove_belief

    m = fsmnet.load("pcups:3")
    assert isinstance(m, PFSA)
    for spec in ("pcups:3", m):
        net = fsmnet.compile(spec, "bilinear-full")
        assert net.arch == "bilinear-full" and net.hidden_size == m.n_states
        assert prove_belief(m, net).verdict == "proved"


def test_compile_refuses_other_architectures_and_options() -> None:
    with pytest.raises(FsmnetError, match="compiles only to bilinear-full"):
        fsmnet.compile("pcups:3", "minmax-dense")
    with pytest.raises(SpecError, match="takes no options"):
        fsmnet.compile("pcups:3", "bilinear-full", rank=2)
    with pytest.raises(SpecError, match="unknown architecture"):
        fsmnet.compile("pcups:3", "bilinear-fu")


def test_the_registry_says_which_architectures_compile_a_pfsa() -> None:
    assert archs.belief_ids() == ("bilinear-full",)
    with pytest.raises(FsmnetError, match="must be 'module:attribute'"):
        dataclasses.replace(archs.get("bilinear-full"), belief_construction="no colon")


def test_a_registered_belief_construction_reaches_the_api_and_the_cli(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # a second id with the same belief construction: picked up with no other change
    twin = dataclasses.replace(archs.get("bilinear-full"), id="belief-twin")
    with archs.registered(twin):
        assert archs.belief_ids() == ("bilinear-full", "belief-twin")
        a = fsmnet.compile("pcups:3", "belief-twin")
        b = fsmnet.compile("pcups:3", "bilinear-full")
        assert all(np.array_equal(a.params[k], b.params[k]) for k in b.params)
        out = str(tmp_path / "twin.safetensors")
        assert main(["compile", "pcups:3", "--arch", "belief-twin", "-o", out, "--json"]) == 0
        assert json.loads(capsys.readouterr().out)["output"] == out
        assert main(["compile", "pcups:3", "--arch", "minmax-dense", "-o", out]) == 2
        assert "only to bilinear-full, belief-twin" in capsys.readouterr().err


def test_one_table_holds_the_pfsa_handlers() -> None:
    from fsmnet.cli.pfsa_commands import HANDLERS, by_spec_kind

    assert set(HANDLERS) == {"info", "compile", "verify", "run", "expressivity"}
    seen: list[str] = []

    def automaton_handler(args: object) -> int:
        seen.append("automaton")
        return 7

    import argparse

    handler = by_spec_kind("info", automaton_handler)
    assert handler(argparse.Namespace(spec="parity")) == 7 and seen == ["automaton"]
    # the installed handlers of compile, verify and run dispatch on the spec's kind
    from fsmnet.cli import build_parser

    parser = build_parser()
    for argv in (["compile", "pcups:3", "--arch", "bilinear-full", "-o", "x"],
                 ["verify", "pcups:3", "x"], ["run", "pcups:3", "--length", "1"]):
        assert parser.parse_args(argv).handler.__qualname__.startswith("by_spec_kind")
