"""The command line on PFSA-SR specs: info, compile, verify, check, run, expressivity."""

from __future__ import annotations

import json

import pytest

from fsmnet.automata.pfsa_families import cups
from fsmnet.automata.pfsa_spec import save_file
from fsmnet.cli import main


@pytest.fixture()
def spec(tmp_path):
    path = tmp_path / "cups.yaml"
    save_file(cups(3), path)
    return str(path)


def test_info_compile_verify_check(spec, tmp_path, capsys):
    assert main(["info", spec, "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["kind"] == "pfsa-sr" and info["states"] == 6
    net = str(tmp_path / "net.safetensors")
    assert main(["compile", spec, "--arch", "bilinear-full", "-o", net]) == 0
    cert = str(tmp_path / "cert.json")
    assert main(["verify", spec, net, "--certificate", cert]) == 0
    assert "proved" in capsys.readouterr().out
    assert main(["check", cert, "--network", net]) == 0
    assert "valid: belief tracking" in capsys.readouterr().out
    # another PFSA (p = 1/10 rounds differently in float64): not proved, exit 1 or 3
    other = tmp_path / "p10.yaml"
    save_file(cups(3, "1/10"), other)
    assert main(["verify", str(other), net]) in (1, 3)


def test_unsupported_arch_is_one_line_exit_2(spec, tmp_path, capsys):
    code = main(["compile", spec, "--arch", "minmax-dense", "-o", str(tmp_path / "x")])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "only to bilinear-full" in err
    assert not (tmp_path / "x").exists()


def test_run_and_expressivity(capsys, tmp_path):
    assert main(["run", "pcups:3", "--arch", "bilinear-full", "--length", "5000",
                 "--backend", "numba", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["accuracy_checked_prefix"] == 1.0 and out["final_state_ok"]
    wit = tmp_path / "wit"
    assert main(["expressivity", "pcups:3", "--json", "--witness-dir", str(wit)]) == 0
    rows = json.loads(capsys.readouterr().out)["results"]
    assert [r["verdict"] for r in rows] == ["possible", "impossible", "impossible"]
    assert main(["check", str(wit / "theorem-J.json")]) == 0
    assert main(["check", str(wit / "theorem-M.json")]) == 0


def test_bad_pfsa_spec_is_one_line(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"kind": "pfsa-sr", "states": ["a"], "input_symbols": ["x"],
                               "transitions": {"a": {"x": {"a": "1/2"}}},
                               "initial_state": "a"}))
    assert main(["info", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "transitions.a.x" in err and "sum to 1" in err
