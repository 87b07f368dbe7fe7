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
    file_name,
    run_length,
    save_net,
    verdict,
)
from protocol import PERFECT, Protocol, arguments, protocol_of, train_selected  # noqa: E402
from provenance import provenance  # noqa: E402

from fsmnet.io import write_text  # noqa: E402
from fsmnet.train.data import accuracy, normalized, task_automaton  # noqa: E402
from fsmnet.train.loop import TrainConfig, train  # noqa: E402

RESULTS = os.path.join(os.path.dirname(__file__), "results")
__all__ = ["PERFECT", "Protocol", "arguments", "certified_code", "certified_details",
           "certified_summary", "certify_cell", "protocol_of", "run_length",
           "train_selected", "verdict"]

def run_cell(spec: str, arch: str, seed: int, *, hidden: int, steps: int, lr: float,
             batch: int = 64, eval_length: int = 500, eval_words: int = 64,
             options: dict[str, Any] | None = None, certify: bool = False,
             table: str = "table", protocol: Protocol | None = None,
             lengths: tuple[int, int] = (2, 10),
             net_folder: str | None = None, long_length: int = 0,
             device: str = "cpu") -> dict[str, Any]:
    """Train once (or once per learning rate of ``protocol``, keeping the checkpoint
    with the best validation accuracy); accuracy at length 10 and ``eval_length``
    (per position, the empty prefix excluded), normalized so that 0 is chance over
    the labels; with ``long_length``, also the accuracy on one random word of that
    length (``acc_long``, the extrapolation figure); with ``certify``, the trained
    network is saved (in ``net_folder``,
    default ``results/nets/``) and certified (:func:`certify_cell`); without it, the
    network is saved only where ``net_folder`` is given, for a later certify."""
    protocol = protocol or Protocol(lrs=(lr,))
    result, record = train_selected(spec, arch, seed, hidden=hidden, steps=steps,
                                    protocol=protocol, batch=batch, options=options,
                                    lengths=lengths, device=device)
    n_labels = len(result.automaton.labels)
    acc10 = accuracy(result.module, result.automaton, 10, words=eval_words)
    acc = accuracy(result.module, result.automaton, eval_length, words=eval_words)
    cell = {"spec": spec, "arch": arch, "seed": seed, "hidden": hidden, "steps": steps,
            "lr": record["selected"]["lr"], "final_loss": result.losses[-1],
            "seconds": round(result.seconds, 2),
            "acc10": acc10, f"acc{eval_length}": acc, "acc": acc, "eval_length": eval_length,
            "norm10": normalized(acc10, n_labels), "norm": normalized(acc, n_labels)}
    if device != "cpu":
        cell["device"] = device
    if long_length:
        cell.update(long_length=long_length,
                    acc_long=accuracy(result.module, result.automaton, long_length, words=1))
    if protocol.selects:
        cell.update(protocol=asdict(protocol), selected=record["selected"],
                    checkpoints=record["checkpoints"], stopped=record["stopped"])
    tag = "".join(f",{k}={v}" for k, v in sorted((options or {}).items()))
    name = f"{table}_{spec}_{arch}{tag}_s{seed}"
    if certify:
        cell["certified"] = certify_cell(result, name, folder=net_folder)
    elif net_folder is not None:
        saved = save_net(result, name, net_folder)
        cell["network"] = None if saved is None else os.path.relpath(saved[1])
    return cell


def majority_accuracy(spec: Any, length: int = 500) -> float:
    """Accuracy of always answering the most frequent label, on the words that
    :func:`run_cell` scores at ``length`` (``accuracy``'s first batch of 64)."""
    import numpy as np

    from fsmnet.train.data import batch

    a = task_automaton(spec)
    _, y = batch(a, np.random.default_rng(1234), 64, length)
    counts = np.bincount(y[:, 1:].ravel(), minlength=len(a.labels))
    return float(counts.max() / counts.sum())


def row_name(arch: str, options: dict[str, Any]) -> str:
    """A table row's key: the architecture and its options (``deltaproduct,n_h=2``)."""
    return arch + "".join(f",{k}={v}" for k, v in options.items())


def hidden_for(spec: str, args: argparse.Namespace) -> int:
    """The hidden size of a task's cells: ``--hidden``, or with ``--grow-hidden`` at
    least the task's number of states rounded up to a multiple of 8 (a full bilinear
    net needs H = n to hold an n-state machine)."""
    if not getattr(args, "grow_hidden", False):
        return int(args.hidden)
    states = len(task_automaton(spec).states)
    return max(int(args.hidden), -(-states // 8) * 8)


def estimate(tasks: Sequence[str], rows: Sequence[tuple[str, dict[str, Any]]],
             args: argparse.Namespace, *, probe_steps: int = 5, batch: int = 64,
             eval_words: int = 64,
             remaining: dict[tuple[str, str], int] | None = None) -> dict[str, Any]:
    """Wall time of a table, measured here and now: per (task, row), ``probe_steps``
    training steps (after one warm-up step) and one validation and one test
    evaluation, scaled to the table's steps, learning rates, validations and the
    seeds still to train (``remaining[(spec, row)]``, default all).  An upper
    bound where runs stop early; certification is not included (its time depends on
    what training found)."""
    protocol = protocol_of(args)
    lengths = tuple(getattr(args, "lengths", (2, 10)))
    eval_length = getattr(args, "eval_length", 500)
    probe = max(1, min(probe_steps, args.steps))
    total = 0.0
    per_row: dict[str, float] = {}
    cells = 0
    for spec in tasks:
        automaton = task_automaton(spec)
        for arch, options in rows:
            key = row_name(arch, options)
            seeds = args.seeds if remaining is None else remaining.get((spec, key), 0)
            cells += seeds
            if not seeds:
                continue
            config = TrainConfig(arch=arch, hidden=hidden_for(spec, args), lengths=lengths,
                                 steps=1, batch=batch, lr=protocol.lrs[0], seed=0,
                                 threads=1, options=options)
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
            total += cell_s * seeds
            per_row[key] = per_row.get(key, 0.0) + cell_s * seeds
    return {"seconds": total, "per_row": per_row, "cells": cells,
            "protocol": protocol.describe(args.steps, args.seeds), "probe_steps": probe}


def print_estimate(tasks: Sequence[str], rows: Sequence[tuple[str, dict[str, Any]]],
                   args: argparse.Namespace,
                   remaining: dict[tuple[str, str], int] | None = None) -> dict[str, Any]:
    """:func:`estimate`, printed (stdout) before any training; with ``--estimate-only``
    the script stops here."""
    est = estimate(tasks, rows, args, remaining=remaining)
    jobs = max(1, getattr(args, "jobs", 1))
    wall = est["seconds"] / min(jobs, max(1, est["cells"]))
    hidden = (f"hidden {args.hidden}, grown to the task's states"
              if getattr(args, "grow_hidden", False) else f"hidden {args.hidden}")
    kept = "" if remaining is None else " still to train"
    print(f"estimate: {est['cells']} cells{kept} ({est['protocol']}, {hidden}): "
          f"about {est['seconds']:.0f} s ({est['seconds'] / 3600:.1f} h) of training and "
          f"evaluation on this machine, {wall:.0f} s wall with {jobs} job(s) (measured "
          f"over {est['probe_steps']} steps per task and row; certification not "
          f"included)", flush=True)
    for key, seconds in est["per_row"].items():
        print(f"  {key}: {seconds:.0f} s", flush=True)
    if getattr(args, "estimate_only", False):
        raise SystemExit(0)
    return est


def _record_key(job: dict[str, Any], protocol: Protocol) -> dict[str, Any]:
    """What a cell's record must match to be reused: everything that changes its run."""
    run = job["run"]
    key = {"spec": run["spec"], "row": job["row"], "seed": run["seed"],
           "hidden": run["hidden"], "steps": run["steps"], "protocol": protocol.key(),
           "lengths": run["lengths"], "eval_length": run["eval_length"],
           "certify": run["certify"]}
    # Only where set, so that the records written before they existed still match.
    if run["long_length"]:
        key["long_length"] = run["long_length"]
    if run["device"] != "cpu":
        key["device"] = run["device"]
    return json.loads(json.dumps(key))  # tuples as lists, as read back from a record


def _record_path(out: str, job: dict[str, Any]) -> str:
    run = job["run"]
    return os.path.join(out, file_name(f"{run['spec']}__{job['row']}__s{run['seed']}")
                        + ".json")


def _reused(path: str, key: dict[str, Any]) -> dict[str, Any] | None:
    """The cell of the record at ``path`` if its key is ``key`` (else None: retrain)."""
    try:
        with open(path, encoding="utf-8") as fh:
            record = json.load(fh)
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as err:
        print(f"error: cell record {path}: unreadable ({err}); delete it or pass --force",
              file=sys.stderr)
        raise SystemExit(2) from None
    return record["cell"] if record.get("key") == key else None


def _write_json(path: str, payload: Any) -> None:
    write_text(path, json.dumps(payload, indent=1, ensure_ascii=False))  # atomic


def train_job(job: dict[str, Any]) -> dict[str, Any]:
    """One cell of :func:`run_grid` (module level: a worker process runs it), its
    record written atomically where ``job["record"]`` says."""
    cell = run_cell(**job["run"])
    cell["row"] = job["row"]
    if job["record"]:
        _write_json(job["record"], {"key": job["key"], "cell": cell,
                                    "recorded": provenance()})
    return cell


def run_grid(tasks: Sequence[str], rows: Sequence[tuple[str, dict[str, Any]]],
             args: argparse.Namespace, *, table: str,
             line: Any) -> list[dict[str, Any]]:
    """Every (task, row, seed) cell of a table, in that order; ``rows`` are (arch,
    options) pairs, ``line(cell)`` the figures logged as each cell ends.

    With ``--out DIR`` each cell is one JSON record there (and its trained network in
    ``DIR/nets/``): a record whose key (task, row, seed, hidden size, steps,
    protocol, lengths, test length, certify) matches is reused, not retrained, so an
    interrupted table resumes (``--force`` retrains).  ``--jobs N`` trains N cells
    at a time in worker processes.  The wall-time estimate of the cells still to
    train is printed first (:func:`print_estimate`)."""
    protocol = protocol_of(args)
    out = getattr(args, "out", None)
    jobs: list[dict[str, Any]] = []
    for spec in tasks:
        for arch, options in rows:
            for seed in range(args.seeds):
                run = {"spec": spec, "arch": arch, "seed": seed,
                       "hidden": hidden_for(spec, args), "steps": args.steps,
                       "lr": protocol.lrs[0], "options": options, "certify": args.certify,
                       "table": table, "protocol": protocol,
                       "lengths": tuple(getattr(args, "lengths", (2, 10))),
                       "eval_length": getattr(args, "eval_length", 500),
                       "long_length": getattr(args, "long_length", 0),
                       "device": getattr(args, "device", "cpu"),
                       "net_folder": None if out is None else os.path.join(out, "nets")}
                job: dict[str, Any] = {"run": run, "row": row_name(arch, options),
                                       "record": None, "key": None}
                if out is not None:
                    job["key"] = _record_key(job, protocol)
                    job["record"] = _record_path(out, job)
                jobs.append(job)
    cells: list[dict[str, Any] | None] = [None] * len(jobs)
    if out is not None:
        os.makedirs(out, exist_ok=True)
        if not getattr(args, "force", False):
            for i, job in enumerate(jobs):
                cells[i] = _reused(job["record"], job["key"])
    todo = [i for i, cell in enumerate(cells) if cell is None]
    remaining: dict[tuple[str, str], int] = {}
    for i in todo:
        where = (jobs[i]["run"]["spec"], jobs[i]["row"])
        remaining[where] = remaining.get(where, 0) + 1
    if out is not None:
        print(f"{len(jobs) - len(todo)} of {len(jobs)} cells reused from {out}", flush=True)
    print_estimate(tasks, rows, args, remaining=remaining if out is not None else None)

    def finished(i: int, cell: dict[str, Any], done: int) -> None:
        cells[i] = cell
        run = jobs[i]["run"]
        log(f"[{done}/{len(todo)}] {run['spec']} {cell['row']} seed {run['seed']}: "
            f"{line(cell)}" + (f", certified {certified_code(cell)}" if args.certify else ""))

    workers = max(1, getattr(args, "jobs", 1))
    if workers == 1:
        for done, i in enumerate(todo, 1):
            finished(i, train_job(jobs[i]), done)
    else:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor, as_completed

        # spawn: a forked child would inherit torch's thread pools mid-state.
        with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn")) as pool:
            futures = {pool.submit(train_job, jobs[i]): i for i in todo}
            for done, future in enumerate(as_completed(futures), 1):
                finished(futures[future], future.result(), done)
    return [cell for cell in cells if cell is not None]


def summarize(cells: Sequence[dict[str, Any]]) -> str:
    """'mean (min–max)' of the normalized accuracies of a cell's seeds."""
    values = [c["norm"] for c in cells]
    mean = float(np.mean(values))
    return f"{mean:.2f} ({min(values):.2f}–{max(values):.2f})"


def save(name: str, payload: Any, out: str | None = None) -> str:
    """Write a table's JSON as ``NAME.json``: in ``out`` (the table's ``--out DIR``,
    beside its cell records) when given, so that runs with other settings do not
    overwrite the default run's file; else in experiments/results/.  A dict payload
    gets ``recorded``: the date and machine (:func:`provenance.provenance`)."""
    folder = out or RESULTS
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, f"{name}.json")
    if isinstance(payload, dict):  # every table says where and when it was made
        payload = {**payload, "recorded": provenance()}
    _write_json(path, payload)
    return path


def log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)
