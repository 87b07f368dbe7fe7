"""``fsmnet compile``: files that load back, JSON output, exit codes 0/1/2."""

from __future__ import annotations

import json

import numpy as np
import pytest
from bilinear_helpers import expected_trace

import fsmnet
from fsmnet.archs import ids as registered_ids
from fsmnet.cli import main
from fsmnet.nets import load_network


@pytest.mark.parametrize("arch", ["bilinear-full", "bilinear-cp", "bilinear-block"])
def test_compile_writes_a_working_network(tmp_path, capsys, arch):
    out = tmp_path / "net.safetensors"
    code = main(["compile", "modadd:6", "--arch", arch, "-o", str(out), "--json",
                 "--option", "search=false"] if arch == "bilinear-cp" else
                ["compile", "modadd:6", "--arch", arch, "-o", str(out), "--json"])
    assert code == 0
    result = json.loads(capsys.readouterr().out)
    net = load_network(out)
    assert result["arch"] == arch == net.arch
    assert result["hidden_size"] == net.hidden_size
    assert result["parameters"] == sum(a.size for a in net.params.values())
    automaton = fsmnet.load("modadd:6").minimal()
    word = np.random.default_rng(0).integers(0, 6, 500)
    assert np.array_equal(net.label_trace(word), expected_trace(automaton, word))


def test_plain_output_and_options(tmp_path, capsys):
    out = tmp_path / "cp.safetensors"
    assert main(["compile", "parity", "--arch", "bilinear-cp", "-o", str(out),
                 "--option", "rank=5", "--option", "search=false"]) == 0
    text = capsys.readouterr().out
    assert "hidden size 2" in text and '"rank": 5' in text
    assert load_network(out).params["U"].shape == (2, 5)


def test_bad_spec_exits_2_with_one_line(tmp_path, capsys):
    for spec in ["no-such-family:3", str(tmp_path / "missing.json")]:
        code = main(["compile", spec, "--arch", "bilinear-full", "-o",
                     str(tmp_path / "x.safetensors")])
        err = capsys.readouterr().err
        assert code == 2
        assert len(err.strip().splitlines()) == 1, err
    assert not (tmp_path / "x.safetensors").exists()


def test_bad_option_and_arch_exit_2(tmp_path, capsys):
    out = str(tmp_path / "x.safetensors")
    assert main(["compile", "parity", "--arch", "bilinear-cp", "-o", out,
                 "--option", "colour=red"]) == 2
    assert "colour" in capsys.readouterr().err
    assert main(["compile", "parity", "--arch", "bilinear-cp", "-o", out,
                 "--option", "novalue"]) == 2
    with pytest.raises(SystemExit) as info:
        main(["compile", "parity", "--arch", "bilinear-nope", "-o", out])
    assert info.value.code == 2


def test_not_expressible_exits_1(tmp_path, capsys):
    code = main(["compile", "parity", "--arch", "bilinear-cp", "-o",
                 str(tmp_path / "x.safetensors"), "--option", "rank=1"])
    assert code == 1
    assert capsys.readouterr().err.startswith("not expressible:")


def test_help_lists_every_architecture(capsys):
    with pytest.raises(SystemExit) as info:
        main(["compile", "--help"])
    assert info.value.code == 0
    text = capsys.readouterr().out
    for arch in registered_ids():
        assert arch in text
    assert "examples:" in text and "not expressible" in text


def test_long_options_are_shortened_in_the_text_summary(tmp_path, capsys):
    # a 60-level cascade lists 60 unit sizes; the summary line stays readable and
    # --json keeps the whole list (the network's own options are the reference)
    out = tmp_path / "a.safetensors"
    assert main(["compile", "atleast:59", "--arch", "minmax-cascade", "-o", str(out)]) == 0
    text = capsys.readouterr().out
    assert '"unit_sizes": "<' in text and "--json prints them whole" in text
    assert max(len(line) for line in text.splitlines()) < 600
    assert main(["compile", "atleast:59", "--arch", "minmax-cascade", "-o", str(out),
                 "--json"]) == 0
    whole = json.loads(capsys.readouterr().out)["options"]["unit_sizes"]
    assert whole == list(load_network(str(out)).options["unit_sizes"])
