"""Shared by the experiment scripts: one training run per cell, its OOD accuracy,
and fsmnet's proved verdict for the same cell.

Every script prints a markdown table (the one in docs/experiments.md) and writes
its raw numbers to ``experiments/results/<name>.json``.  Run from the
repository root, one script at a time: ``python experiments/seed000_table.py``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from fsmnet.train.data import accuracy, normalized
from fsmnet.train.loop import TrainConfig, train

RESULTS = os.path.join(os.path.dirname(__file__), "results")


def arguments(*, steps: int, hidden: int) -> argparse.Namespace:
    """The options every table script takes (its own defaults for steps and hidden size)."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=steps)
    parser.add_argument("--hidden", type=int, default=hidden)
    parser.add_argument("--lr", type=float, default=0.01)
    parser.add_argument("--seeds", type=int, default=3)
    return parser.parse_args()


def run_cell(spec: str, arch: str, seed: int, *, hidden: int, steps: int, lr: float,
             batch: int = 64, eval_length: int = 500, eval_words: int = 64,
             options: dict[str, Any] | None = None) -> dict[str, Any]:
    """Train once; accuracy at length 10 and ``eval_length`` (per position, the
    empty prefix excluded), normalized so that 0 is chance over the labels."""
    result = train(spec, TrainConfig(arch=arch, hidden=hidden, steps=steps, batch=batch,
                                     lr=lr, seed=seed, threads=1, options=options or {}))
    n_labels = len(result.automaton.labels)
    acc10 = accuracy(result.module, result.automaton, 10, words=eval_words)
    acc = accuracy(result.module, result.automaton, eval_length, words=eval_words)
    return {"spec": spec, "arch": arch, "seed": seed, "hidden": hidden, "steps": steps,
            "lr": lr, "final_loss": result.losses[-1], "seconds": round(result.seconds, 2),
            "acc10": acc10, f"acc{eval_length}": acc,
            "norm10": normalized(acc10, n_labels), "norm": normalized(acc, n_labels)}


def verdict(spec: str, arch: str) -> str:
    """fsmnet's proved verdict for the cell: ✓ H=… (construction proved), ✗ (theorem), ?."""
    from fsmnet import expressivity

    (res,) = expressivity(spec, [arch])
    if res.verdict == "possible":
        size = res.size or {}
        return f"✓ H={size['hidden']}" if "hidden" in size else "✓"
    return {"impossible": "✗", "unknown": "?"}[res.verdict]


def summarize(cells: Sequence[dict[str, Any]]) -> str:
    """'mean (min–max)' of the normalized accuracies of a cell's seeds."""
    values = [c["norm"] for c in cells]
    mean = float(np.mean(values))
    return f"{mean:.2f} ({min(values):.2f}–{max(values):.2f})"


def save(name: str, payload: Any) -> str:
    os.makedirs(RESULTS, exist_ok=True)
    path = os.path.join(RESULTS, f"{name}.json")
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump(payload, fh, indent=1, ensure_ascii=False)
    os.replace(tmp, path)
    return path


def log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)
