"""``fsmnet train``: one-line errors with exit 2, reproducible files, training metadata."""

from __future__ import annotations

import json

import pytest

import fsmnet
from fsmnet.cli import main

pytest.importorskip("torch")

FAST = ["--hidden", "4", "--steps", "60", "--batch", "16", "--lr", "0.05",
        "--eval-length", "50", "--long-length", "1000"]


@pytest.mark.parametrize("argv", [
    ["parity", "--arch", "bilinear-full", "--rank", "3"],        # --rank is for bilinear-cp
    ["parity", "--arch", "bilinear-cp", "--n-h", "2"],           # --n-h is for deltaproduct
    ["parity", "--arch", "no-such-arch"],
    ["parity", "--arch", "lstm", "-o", "x.safetensors"],         # an LSTM has no network form
    ["parity", "--arch", "bilinear-full", "--lengths", "10-2"],
    ["parity", "--arch", "bilinear-full", "--lengths", "two"],
    ["parity", "--arch", "bilinear-full", "--lr", "-1"],
    ["parity", "--arch", "bilinear-full", "--steps", "0"],
    ["parity", "--arch", "bilinear-full", "--device", "tpu"],
    ["no-such-family:3", "--arch", "bilinear-full", "--steps", "1"],
    ["parity", "--arch", "bilinear-full", "--plot", "acc.txt"],   # not a picture format
    ["parity", "--arch", "bilinear-full", "--plot", "no/such/dir/acc.png"],  # before training
])
def test_bad_options_exit_2_with_one_line(argv, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    try:
        code = main(["train", *argv])
    except SystemExit as exc:  # argparse usage errors exit through the parser
        code = exc.code
    assert code == 2
    err = capsys.readouterr().err.strip()
    assert err and len(err.splitlines()) == 1 and "Traceback" not in err
    assert not list(tmp_path.iterdir())  # nothing written


def test_cuda_without_cuda_is_a_clean_error(capsys):
    import torch

    if torch.cuda.is_available():
        pytest.skip("this torch has CUDA")
    assert main(["train", "parity", "--arch", "bilinear-full", "--device", "cuda"]) == 2
    assert "CUDA" in capsys.readouterr().err


def test_same_seed_and_threads_give_the_same_file_bytes(tmp_path, capsys):
    paths = [tmp_path / f"run{i}.safetensors" for i in range(2)]
    for p in paths:
        assert main(["train", "parity", "--arch", "bilinear-cp", *FAST, "--seed", "3",
                     "--threads", "1", "-o", str(p)]) == 0
    assert paths[0].read_bytes() == paths[1].read_bytes()
    other = tmp_path / "seed4.safetensors"
    assert main(["train", "parity", "--arch", "bilinear-cp", *FAST, "--seed", "4",
                 "-o", str(other)]) == 0
    assert other.read_bytes() != paths[0].read_bytes()  # the seed matters: the test can fail


def test_json_report_and_training_metadata_in_the_header(tmp_path, capsys):
    out = tmp_path / "net.safetensors"
    assert main(["train", "parity", "--arch", "deltanet-neg", *FAST, "--json",
                 "-o", str(out)]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["saved_as"] == "deltaproduct"
    assert set(report["accuracy"]) == {"50", "1000"}
    net = fsmnet.load_network(str(out))
    meta = net.options["training"]
    assert meta["arch"] == "deltanet-neg" and meta["steps"] == 60 and meta["lengths"] == [2, 10]
    assert 0.0 <= report["accuracy"]["1000"] <= 1.0


def test_lstm_has_no_network_form_and_reports_its_long_run_from_the_module(capsys):
    assert main(["train", "parity", "--arch", "lstm", *FAST, "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["saved_as"] is None and 0.0 <= report["accuracy"]["1000"] <= 1.0
    assert main(["train", "parity", "--arch", "lstm", *FAST]) == 0
    assert "accuracy at length 1000: " in (out := capsys.readouterr().out)
    assert "(torch module, one word)" in out


def test_plot_writes_a_png_of_trained_and_compiled(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    png = tmp_path / "acc.png"
    assert main(["train", "parity", "--arch", "bilinear-real-diag", *FAST,
                 "--plot", str(png)]) == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert not [p for p in tmp_path.iterdir() if p.name != "acc.png"]  # no temp files left


@pytest.mark.parametrize("argv, message", [
    (["--arch", "bilinear-full", "--rank", "3"], "--rank applies to bilinear-cp, not to "
                                                 "bilinear-full"),
    (["--arch", "deltanet", "--n-h", "2"], "--n-h applies to deltaproduct, not to deltanet"),
    (["--arch", "bilinear-cp", "--layers", "2"], "--layers applies to minmax-cascade, "
                                                 "minmax-scalar, not to bilinear-cp"),
    (["--arch", "minmax-scalar", "-o", "x.safetensors"], "a trained minmax-scalar has no "
                                                         "network form"),
    (["--arch", "lstm", "--until-proved"], "--until-proved: a trained lstm has no network"),
])
def test_which_choice_takes_what_comes_from_its_module_and_record(argv, message, capsys,
                                                                   tmp_path, monkeypatch):
    # The flags a choice takes are its module's free constructor keywords, and whether a
    # trained module saves as a network is its record's trained_to_network (or, for a
    # training-only choice, whether its module has to_params).
    monkeypatch.chdir(tmp_path)
    assert main(["train", "parity", *argv]) == 2
    assert message in capsys.readouterr().err
    assert not list(tmp_path.iterdir())
