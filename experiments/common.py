"""Shared by the experiment scripts: one training run per cell, its OOD accuracy,
and fsmnet's proved verdict for the same cell.

Every script prints a markdown table (the one in docs/experiments.md) and writes
its raw numbers to ``experiments/results/<name>.json``.  Run from the
repository root, one script at a time: ``python experiments/seed000_table.py``.

The pieces: :mod:`protocol` (how a cell is trained and which checkpoint it
reports, and the scripts' options), :mod:`certified` (the "certified" column) and
here the grid: every (task, row, seed) cell, its accuracies, the wall-time
estimate printed before any training (:func:`estimate`, measured on this machine
by a few training steps of each row; ``--estimate-only`` stops there), and with
``--out`` one record per cell, so that a table resumes where it stopped and
``--jobs`` cells train at a time.
"""

# No "from __future__ import annotations": the tests load this file by path, outside
# sys.modules, where dataclasses cannot resolve string annotations.
import argparse
import json
import os
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict
from typing import Any

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from certified import (  # noqa: E402
    certified_code,
    certified_details,
    certified_summary,
    certify_cell,
    run_length,
    verdict,
)
from protocol import Protocol, arguments, protocol_of, train_selected  # noqa: E402

from fsmnet.train.data import accuracy, normalized, task_automaton  # noqa: E402
from fsmnet.train.loop import TrainConfig, train  # noqa: E402

RESULTS = os.path.join(os.path.dirname(__file__), "results")
__all__ = ["Protocol", "arguments", "certified_code", "certified_details",
           "certified_summary", "certify_cell", "protocol_of", "run_length",
           "train_selected", "verdict"]

def run_cell(spec: str, arch: str, seed: int, *, hidden: int, steps: int, lr: float,
             batch: int = 64, eval_length: int = 500, eval_words: int = 64,
             options: dict[str, Any] | None = None, certify: bool = False,
             table: str = "table", protocol: Protocol | None = None,
             lengths: tuple[int, int] = (2, 10)) -> dict[str, Any]:
    """Train once (or once per learning rate of ``protocol``, keeping the checkpoint
    with the best validation accuracy); accuracy at length 10 and ``eval_length``
    (per position, the empty prefix excluded), normalized so that 0 is chance over
    the labels; with ``certify``, the trained network is saved under
    ``results/nets/`` and certified (:func:`certify_cell`)."""
    protocol = protocol or Protocol(lrs=(lr,))
    result, record = train_selected(spec, arch, seed, hidden=hidden, steps=steps,
                                    protocol=protocol, batch=batch, options=options,
                                    lengths=lengths)
    n_labels = len(result.automaton.labels)
    acc10 = accuracy(result.module, result.automaton, 10, words=eval_words)
    acc = accuracy(result.module, result.automaton, eval_length, words=eval_words)
    cell = {"spec": spec, "arch": arch, "seed": seed, "hidden": hidden, "steps": steps,
            "lr": record["selected"]["lr"], "final_loss": result.losses[-1],
            "seconds": round(result.seconds, 2),
            "acc10": acc10, f"acc{eval_length}": acc, "acc": acc, "eval_length": eval_length,
            "norm10": normalized(acc10, n_labels), "norm": normalized(acc, n_labels)}
    if protocol.selects:
        cell.update(protocol=asdict(protocol), selected=record["selected"],
                    checkpoints=record["checkpoints"], stopped=record["stopped"])
    if certify:
        tag = "".join(f",{k}={v}" for k, v in sorted((options or {}).items()))
        cell["certified"] = certify_cell(result, f"{table}_{spec}_{arch}{tag}_s{seed}")
    return cell


def row_name(arch: str, options: dict[str, Any]) -> str:
    """A table row's key: the architecture and its options (``deltaproduct,n_h=2``)."""
    return arch + "".join(f",{k}={v}" for k, v in options.items())


def estimate(tasks: Sequence[str], rows: Sequence[tuple[str, dict[str, Any]]],
             args: argparse.Namespace, *, probe_steps: int = 5, batch: int = 64,
             eval_words: int = 64) -> dict[str, Any]:
    """Wall time of a table, measured here and now: per (task, row), ``probe_steps``
    training steps (after one warm-up step) and one validation and one test
    evaluation, scaled to the table's steps, learning rates, validations and seeds.
    Certification is not included (its time depends on what training found)."""
    protocol = protocol_of(args)
    lengths = tuple(getattr(args, "lengths", (2, 10)))
    eval_length = getattr(args, "eval_length", 500)
    probe = max(1, min(probe_steps, args.steps))
    total = 0.0
    per_row: dict[str, float] = {}
    for spec in tasks:
        automaton = task_automaton(spec)
        for arch, options in rows:
            config = TrainConfig(arch=arch, hidden=args.hidden, lengths=lengths, steps=1,
                                 batch=batch, lr=protocol.lrs[0], seed=0, threads=1,
                                 options=options)
            warm = train(automaton, config)
            t0 = time.perf_counter()
            probe_run = train(automaton, TrainConfig(**{**asdict(config), "steps": probe}))
            step_s = (time.perf_counter() - t0) / probe
            t0 = time.perf_counter()
            accuracy(warm.module, automaton, eval_length, words=eval_words)
            accuracy(warm.module, automaton, 10, words=eval_words)
            test_s = time.perf_counter() - t0
            val_s = 0.0
            if protocol.selects:
                t0 = time.perf_counter()
                accuracy(probe_run.module, automaton, protocol.validate_length,
                         words=protocol.validate_words, seed=protocol.validate_seed)
                val_s = time.perf_counter() - t0
            n_val = -(-args.steps // protocol.validate_every) if protocol.selects else 0
            cell_s = len(protocol.lrs) * (args.steps * step_s + n_val * val_s) + test_s
            total += cell_s * args.seeds
            key = row_name(arch, options)
            per_row[key] = per_row.get(key, 0.0) + cell_s * args.seeds
    return {"seconds": total, "per_row": per_row, "cells": len(tasks) * len(rows) * args.seeds,
            "protocol": protocol.describe(args.steps, args.seeds), "probe_steps": probe}


def print_estimate(tasks: Sequence[str], rows: Sequence[tuple[str, dict[str, Any]]],
                   args: argparse.Namespace) -> dict[str, Any]:
    """:func:`estimate`, printed (stdout) before any training; with ``--estimate-only``
    the script stops here."""
    est = estimate(tasks, rows, args)
    hours = est["seconds"] / 3600
    print(f"estimate: {est['cells']} cells ({est['protocol']}, hidden {args.hidden}): "
          f"about {est['seconds']:.0f} s ({hours:.1f} h) of training and evaluation on "
          f"this machine (measured over {est['probe_steps']} steps per task and row; "
          f"certification not included)", flush=True)
    for key, seconds in est["per_row"].items():
        print(f"  {key}: {seconds:.0f} s", flush=True)
    if getattr(args, "estimate_only", False):
        raise SystemExit(0)
    return est


def run_grid(tasks: Sequence[str], rows: Sequence[tuple[str, dict[str, Any]]],
             args: argparse.Namespace, *, table: str,
             line: Any) -> list[dict[str, Any]]:
    """Every (task, row, seed) cell of a table, trained in that order and logged as it
    ends; ``rows`` are (arch, options) pairs, ``line(cell)`` the figures to log.  The
    wall-time estimate is printed first (:func:`print_estimate`)."""
    print_estimate(tasks, rows, args)
    protocol = protocol_of(args)
    cells = []
    for spec in tasks:
        for arch, options in rows:
            for seed in range(args.seeds):
                cell = run_cell(spec, arch, seed, hidden=args.hidden, steps=args.steps,
                                lr=protocol.lrs[0], options=options, certify=args.certify,
                                table=table, protocol=protocol,
                                lengths=tuple(getattr(args, "lengths", (2, 10))),
                                eval_length=getattr(args, "eval_length", 500))
                cell["row"] = row_name(arch, options)
                cells.append(cell)
                log(f"{spec} {cell['row']} seed {seed}: {line(cell)}"
                    + (f", certified {cell['certified']}" if args.certify else ""))
    return cells


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
