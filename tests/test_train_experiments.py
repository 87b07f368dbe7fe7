"""The experiment helpers (experiments/common.py) on a tiny budget, and the normalization."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from fsmnet.train.data import label_traces, normalized, task_automaton

pytest.importorskip("torch")
ROOT = Path(__file__).resolve().parent.parent


def _common():
    spec = importlib.util.spec_from_file_location("exp_common", ROOT / "experiments" / "common.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


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
    common = _common()
    cell = common.run_cell("parity", "bilinear-real-diag", 0, hidden=2, steps=5, lr=0.05,
                           eval_length=20, eval_words=8)
    assert set(cell) >= {"norm", "norm10", "acc10", "acc20", "seconds"}
    assert -1.0 <= cell["norm"] <= 1.0
    # theorem "positive-diag": a positive diagonal cannot count mod 2 (fsmnet expressivity)
    assert common.verdict("parity", "bilinear-positive-diag") == "✗"
    assert common.verdict("parity", "bilinear-real-diag").startswith("✓")
