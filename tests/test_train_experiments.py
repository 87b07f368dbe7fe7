"""The experiment helpers (experiments/common.py) on a tiny budget, and the normalization."""

from __future__ import annotations

import importlib.util

import pytest
from experiment_scripts import ROOT, load_script

from fsmnet.train.data import label_traces, normalized, task_automaton

pytest.importorskip("torch")


def test_normalized_accuracy_is_zero_at_chance_and_one_when_perfect():
    # (acc − 1/C)/(1 − 1/C), the bilinear-RNN paper's normalization: worked by hand.
    assert normalized(1 / 3, 3) == pytest.approx(0.0)
    assert normalized(1.0, 5) == pytest.approx(1.0)
    assert normalized(0.75, 2) == pytest.approx(0.5)


def test_labels_come_from_the_automaton():
    a = task_automaton("parity")
    # parity accepts words with an even number of 1s: after "1 1 0 1" the prefixes have
    # 0, 1, 2, 2, 3 ones -> even, odd, even, even, odd
    got = label_traces(a, [[1, 1, 0, 1]])[0]
    assert [a.labels[i] for i in got] == [True, False, True, True, False]


def test_run_cell_and_verdict_on_a_tiny_budget():
    common = load_script("common.py", "exp_common")
    cell = common.run_cell("parity", "bilinear-real-diag", 0, hidden=2, steps=5, lr=0.05,
                           eval_length=20, eval_words=8)
    assert set(cell) >= {"norm", "norm10", "acc10", "acc20", "seconds"}
    assert -1.0 <= cell["norm"] <= 1.0
    # theorem "positive-diag": a positive diagonal cannot count mod 2 (fsmnet expressivity)
    assert common.verdict("parity", "bilinear-positive-diag") == "✗"
    assert common.verdict("parity", "bilinear-real-diag").startswith("✓")


def test_run_grid_trains_every_cell_in_order():
    import argparse

    common = load_script("common.py", "exp_common")
    args = argparse.Namespace(seeds=2, hidden=2, steps=2, lr=0.05, certify=False)
    seen = []
    cells = common.run_grid(["parity"], [("bilinear-real-diag", {}), ("deltaproduct",
                                                                       {"n_h": 2})],
                            args, table="t", line=lambda c: seen.append(c) or "ok")
    # 1 task × 2 rows × 2 seeds, in that order, each logged once
    assert [(c["row"], c["seed"]) for c in cells] == [
        ("bilinear-real-diag", 0), ("bilinear-real-diag", 1),
        ("deltaproduct,n_h=2", 0), ("deltaproduct,n_h=2", 1)]
    assert seen == cells


def test_deltanet_script_end_to_end_on_a_tiny_budget(monkeypatch):
    # the script as run from the repository root, its results file intercepted
    import sys

    monkeypatch.chdir(ROOT)
    monkeypatch.setattr(sys, "path", list(sys.path))  # the script adds experiments/
    monkeypatch.delitem(sys.modules, "common", raising=False)
    monkeypatch.setattr(sys, "argv", ["deltanet_table.py", "--steps", "2", "--seeds", "1",
                                      "--hidden", "2", "--no-certify"])
    spec = importlib.util.spec_from_file_location("exp_deltanet",
                                                  ROOT / "experiments" / "deltanet_table.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    saved = {}
    monkeypatch.setattr(module, "save", lambda name, payload, **_: saved.update({name: payload}))
    module.main()
    cells = saved["deltanet_table"]["cells"]
    assert len(cells) == 2 * 3  # 2 tasks × 3 rows × 1 seed
    assert "| DeltaNet, β ∈ [0, 1] |" in saved["deltanet_table"]["table"]
