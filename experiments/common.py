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
    parser.add_argument("--no-certify", dest="certify", action="store_false",
                        help="skip the 'certified' column (fsmnet certify on each trained net)")
    return parser.parse_args()


def run_cell(spec: str, arch: str, seed: int, *, hidden: int, steps: int, lr: float,
             batch: int = 64, eval_length: int = 500, eval_words: int = 64,
             options: dict[str, Any] | None = None, certify: bool = False,
             table: str = "table") -> dict[str, Any]:
    """Train once; accuracy at length 10 and ``eval_length`` (per position, the
    empty prefix excluded), normalized so that 0 is chance over the labels; with
    ``certify``, the trained network is saved under ``results/nets/`` and
    certified (:func:`certify_cell`)."""
    result = train(spec, TrainConfig(arch=arch, hidden=hidden, steps=steps, batch=batch,
                                     lr=lr, seed=seed, threads=1, options=options or {}))
    n_labels = len(result.automaton.labels)
    acc10 = accuracy(result.module, result.automaton, 10, words=eval_words)
    acc = accuracy(result.module, result.automaton, eval_length, words=eval_words)
    cell = {"spec": spec, "arch": arch, "seed": seed, "hidden": hidden, "steps": steps,
            "lr": lr, "final_loss": result.losses[-1], "seconds": round(result.seconds, 2),
            "acc10": acc10, f"acc{eval_length}": acc,
            "norm10": normalized(acc10, n_labels), "norm": normalized(acc, n_labels)}
    if certify:
        tag = "".join(f",{k}={v}" for k, v in sorted((options or {}).items()))
        cell["certified"] = certify_cell(result, f"{table}_{spec}_{arch}{tag}_s{seed}")
    return cell


def row_name(arch: str, options: dict[str, Any]) -> str:
    """A table row's key: the architecture and its options (``deltaproduct,n_h=2``)."""
    return arch + "".join(f",{k}={v}" for k, v in options.items())


def run_grid(tasks: Sequence[str], rows: Sequence[tuple[str, dict[str, Any]]],
             args: argparse.Namespace, *, table: str,
             line: Any) -> list[dict[str, Any]]:
    """Every (task, row, seed) cell of a table, trained in that order and logged as it
    ends; ``rows`` are (arch, options) pairs, ``line(cell)`` the figures to log."""
    cells = []
    for spec in tasks:
        for arch, options in rows:
            for seed in range(args.seeds):
                cell = run_cell(spec, arch, seed, hidden=args.hidden, steps=args.steps,
                                lr=args.lr, options=options, certify=args.certify,
                                table=table)
                cell["row"] = row_name(arch, options)
                cells.append(cell)
                log(f"{spec} {cell['row']} seed {seed}: {line(cell)}"
                    + (f", certified {cell['certified']}" if args.certify else ""))
    return cells


def certify_cell(result: Any, name: str, folder: str | None = None) -> dict[str, Any]:
    """``fsmnet certify`` (exact arithmetic, default budgets) on the trained network:
    verdict, method, the confirmed word (refuted) or the proved length L (unknown).
    The network is saved first (in ``folder``, default ``results/nets/``), so
    ``fsmnet certify results/nets/NAME.safetensors SPEC`` repeats the verdict.
    Modules with no network form get verdict None."""
    from fsmnet.errors import FsmnetError
    from fsmnet.proofs.abstract.certify import certify
    from fsmnet.train.convert import to_network

    try:
        net = to_network(result.module, result.automaton.symbols, result.automaton.labels,
                         name=name)
    except FsmnetError:
        return {"verdict": None, "why": "no network form"}
    folder = folder or os.path.join(RESULTS, "nets")
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, "".join(c if c.isalnum() or c in "._,=-" else "_"
                                        for c in name) + ".safetensors")
    net.save(path)
    res = certify(result.automaton, net, network_path=path)
    out: dict[str, Any] = {"verdict": res.verdict, "method": res.method,
                           "proved_length": res.proved_length, "domain": res.domain,
                           "seconds": round(res.seconds, 2), "network": os.path.relpath(path)}
    if res.counterexample is not None:
        out["word"] = [str(x) for x in res.counterexample.word]
    return out


def run_length(word: Sequence[str]) -> str:
    """'1^220 0' for 220 ones then a zero: words found by long repetitions stay short."""
    parts: list[str] = []
    i = 0
    while i < len(word):
        j = i
        while j < len(word) and word[j] == word[i]:
            j += 1
        sym = word[i].replace(" ", "")  # "(1 2)" -> "(12)": spaces separate symbols
        parts.append(sym if j - i == 1 else f"{sym}^{j - i}")
        i = j
    return " ".join(parts)


def certified_code(cell: dict[str, Any]) -> str:
    """Short form of one seed's verdict: P (proved), R n (refuted, word length n),
    U L (unknown, proved for every length ≤ L), — (no network form)."""
    c = cell.get("certified")
    if not c or c["verdict"] is None:
        return "—"
    if c["verdict"] == "proved":
        return "P"
    if c["verdict"] == "refuted":
        return f"R{len(c['word'])}"
    return f"U{c['proved_length']}"


def certified_summary(cells: Sequence[dict[str, Any]]) -> str:
    """The 'certified' entry of a table cell: one code per seed, in seed order."""
    return "/".join(certified_code(c) for c in cells) if cells else "—"


def certified_details(cells: Sequence[dict[str, Any]], width: int = 48) -> str:
    """One markdown line per network that has a verdict: seed, verdict, the word
    (run-length encoded, cut at ``width`` characters) or L."""
    lines = []
    for c in cells:
        cert = c.get("certified")
        if not cert or cert["verdict"] is None:
            continue
        label = f"{c['spec']} {c.get('row', c['arch'])} seed {c['seed']}"
        if cert["verdict"] == "refuted":
            text = run_length(cert["word"])
            text = text if len(text) <= width else text[:width] + "…"
            what = f"refuted by `{text}` (length {len(cert['word'])}, {cert['method']})"
        elif cert["verdict"] == "unknown":
            what = f"unknown, every word of length ≤ {cert['proved_length']} proved"
        else:
            what = f"proved for every length ({cert['method']}, {cert['domain']})"
        lines.append(f"- {label}: {what}")
    return "\n".join(lines)


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
