"""Shared by the experiment scripts: one training run per cell, its OOD accuracy,
and fsmnet's proved verdict for the same cell.

Every script prints a markdown table (the one in docs/experiments.md) and writes
its raw numbers to ``experiments/results/<name>.json``.  Run from the
repository root, one script at a time: ``python experiments/seed000_table.py``.

The training protocol of a cell (:class:`Protocol`) is either the **last step** of
one run at one learning rate (the default, the budget of the tables in
docs/experiments.md), or **best of learning rates by validation** (the
bilinear-RNN paper, arXiv 2505.21749, trains with 3 learning rates and keeps the
best): one run per learning rate, a checkpoint every ``validate_every`` steps
scored by the per-position accuracy on held-out words of a held-out length
(``validate_length``, drawn with ``validate_seed``, not the test words of
:func:`fsmnet.train.data.accuracy`'s default seed), early stopping after
``patience`` validations without a strict improvement, a stop when the loss is
not finite, and the cell reports the checkpoint with the best validation
accuracy (ties: the later step, then the first learning rate).  The guard for a
float32 training loss of exactly 0: from there on the loss cannot show progress
(its gradient is not zero, the softmax tails survive below the loss's rounding,
and Adam's normalized steps keep moving the weights), so the first such step is
always validated as a checkpoint; ``stop_at_zero_loss`` also ends the run there.
Every table command prints a wall-time estimate first (:func:`estimate`,
measured on this machine by a few training steps of each row) and stops there
with ``--estimate-only``.
"""

# No "from __future__ import annotations": the tests load this file by path, outside
# sys.modules, where dataclasses cannot resolve string annotations.
import argparse
import json
import math
import os
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from fsmnet.train.data import accuracy, normalized, task_automaton
from fsmnet.train.loop import TrainConfig, TrainResult, train

RESULTS = os.path.join(os.path.dirname(__file__), "results")


@dataclass(frozen=True)
class Protocol:
    """How a cell is trained and which checkpoint it reports (module docstring).

    ``validate_every = 0``: no validation, the last step of the one learning rate.
    """

    lrs: tuple[float, ...] = (0.01,)
    validate_every: int = 0
    validate_length: int = 100
    validate_words: int = 64
    validate_seed: int = 4321
    patience: int = 0
    stop_at_zero_loss: bool = False

    def __post_init__(self) -> None:
        if not self.lrs or any(not (lr > 0 and math.isfinite(lr)) for lr in self.lrs):
            raise ValueError(f"learning rates must be positive numbers (value: {self.lrs})")
        if len(self.lrs) > 1 and self.validate_every <= 0:
            raise ValueError("best of several learning rates needs validation "
                             "(validate_every > 0)")

    @property
    def selects(self) -> bool:
        return self.validate_every > 0

    def describe(self, steps: int, seeds: int) -> str:
        """One line for the table: budget and selection."""
        lrs = ", ".join(f"{lr:g}" for lr in self.lrs)
        if not self.selects:
            return f"{steps} steps, lr {lrs}, {seeds} seeds, last step"
        stop = (f", early stop after {self.patience} validations without improvement"
                if self.patience else "")
        zero = ", stop at a float32 loss of exactly 0" if self.stop_at_zero_loss else ""
        return (f"up to {steps} steps, best of lr {{{lrs}}} by validation at length "
                f"{self.validate_length} ({self.validate_words} held-out words, every "
                f"{self.validate_every} steps){stop}{zero}, {seeds} seeds")


class _Stop(Exception):
    """Raised from the progress callback to end one run early (caught here)."""


def _run_validated(automaton: Any, config: TrainConfig, module: Any, protocol: Protocol,
                   index: int, checkpoints: list[dict[str, Any]],
                   best: dict[str, Any]) -> dict[str, Any]:
    """One learning rate of :func:`train_selected`: train ``module`` under ``config``,
    validating as ``protocol`` says; checkpoints are appended to ``checkpoints`` and
    ``best`` is updated in place.  Returns where and why the run stopped."""
    losses: list[float] = []
    state: dict[str, Any] = {"own_best": -1.0, "since": 0, "why": "budget", "zero": False}
    began = time.perf_counter()

    def progress(step: int, loss: float) -> None:
        losses.append(loss)
        done = step + 1
        first_zero = loss == 0.0 and not state["zero"]
        state["zero"] = state["zero"] or loss == 0.0
        if not math.isfinite(loss):
            state["why"] = "loss not finite"
            raise _Stop
        if done % protocol.validate_every and done != config.steps and not first_zero:
            return
        val = accuracy(module, automaton, protocol.validate_length,
                       words=protocol.validate_words, seed=protocol.validate_seed)
        checkpoints.append({"lr": config.lr, "step": done, "val": val, "loss": loss})
        key = (val, done, -index)
        if not best or key > best["key"]:
            best.update(key=key, state={k: v.detach().clone()
                                        for k, v in module.state_dict().items()},
                        losses=list(losses), seconds=time.perf_counter() - began,
                        lr=config.lr, step=done, val=val)
        if val > state["own_best"]:
            state["own_best"], state["since"] = val, 0
        else:
            state["since"] += 1
        if first_zero and protocol.stop_at_zero_loss:
            state["why"] = "loss exactly 0"
            raise _Stop
        if protocol.patience and state["since"] >= protocol.patience:
            state["why"] = f"no improvement in {protocol.patience} validations"
            raise _Stop

    try:
        train(automaton, config, progress, module=module)
    except _Stop:
        pass
    return {"step": len(losses), "why": state["why"]}


def train_selected(spec: Any, arch: str, seed: int, *, hidden: int, steps: int,
                   protocol: Protocol, batch: int = 64,
                   options: dict[str, Any] | None = None, start: Any = None,
                   lengths: tuple[int, int] = (2, 10)) -> tuple[TrainResult, dict[str, Any]]:
    """One cell under ``protocol``: the trained result (its module holding the selected
    checkpoint's weights) and the record: every checkpoint ``{lr, step, val, loss}``
    in the order scored, the ``selected`` one, and per learning rate where and why
    it stopped.  Without validation this is exactly ``train`` at ``protocol.lrs[0]``
    (the same bytes).  ``start``: a module to train on from (a copy for every
    learning rate) instead of a fresh one."""
    import copy

    import torch

    from fsmnet.train.convert import build

    options = dict(options or {})

    def fresh() -> Any:
        # The module train() would build: the same seed drawn just before it, so a run
        # that is never stopped is the plain run byte for byte.
        torch.manual_seed(seed)
        if start is not None:
            return copy.deepcopy(start)
        return build(arch, automaton.n_symbols, len(automaton.labels), hidden, **options)

    automaton = task_automaton(spec)
    if not protocol.selects:
        config = TrainConfig(arch=arch, hidden=hidden, lengths=lengths, steps=steps,
                             batch=batch, lr=protocol.lrs[0], seed=seed, threads=1,
                             options=options)
        result = train(automaton, config, module=None if start is None else fresh())
        return result, {"selected": {"lr": protocol.lrs[0], "step": len(result.losses)},
                        "checkpoints": [], "stopped": {}}
    checkpoints: list[dict[str, Any]] = []
    stopped: dict[str, Any] = {}
    best: dict[str, Any] = {}  # key, state, losses, seconds of the best checkpoint so far
    for index, lr in enumerate(protocol.lrs):
        config = TrainConfig(arch=arch, hidden=hidden, lengths=lengths, steps=steps,
                             batch=batch, lr=lr, seed=seed, threads=1, options=options)
        stopped[f"{lr:g}"] = _run_validated(automaton, config, fresh(), protocol, index,
                                            checkpoints, best)
    if not best:
        raise RuntimeError(f"{spec} {arch} seed {seed}: no checkpoint was validated "
                           f"(every run stopped on a non-finite loss)")
    module = fresh()
    module.load_state_dict(best["state"])
    # tokens: not counted across the runs (no table reports them)
    result = TrainResult(module=module, automaton=automaton, losses=best["losses"],
                         seconds=best["seconds"], tokens=0)
    selected = {"lr": best["lr"], "step": best["step"], "val": best["val"]}
    return result, {"selected": selected, "checkpoints": checkpoints, "stopped": stopped}


def protocol_of(args: argparse.Namespace) -> Protocol:
    """The protocol of a script's options (older namespaces: the last-step default)."""
    lrs = getattr(args, "lrs", None) or (args.lr,)
    return Protocol(lrs=tuple(lrs), validate_every=getattr(args, "validate_every", 0),
                    validate_length=getattr(args, "validate_length", 100),
                    validate_words=getattr(args, "validate_words", 64),
                    patience=getattr(args, "patience", 0),
                    stop_at_zero_loss=getattr(args, "stop_at_zero_loss", False))


def _floats(text: str) -> tuple[float, ...]:
    return tuple(float(x) for x in text.split(","))


def _lengths(text: str) -> tuple[int, int]:
    lo, _, hi = text.partition("-")
    return int(lo), int(hi or lo)


def arguments(*, steps: int, hidden: int, paper: dict[str, Any] | None = None,
              argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The options every table script takes (its own defaults for steps and hidden size).

    ``paper``: the defaults that ``--paper`` sets (the seed paper's protocol where
    its summary states it, documented by the script); options given explicitly
    still win.
    """
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=steps)
    parser.add_argument("--hidden", type=int, default=hidden)
    parser.add_argument("--lr", type=float, default=0.01)
    parser.add_argument("--lrs", type=_floats, default=None, metavar="LR,LR,...",
                        help="several learning rates, the best by validation (needs "
                             "--validate-every); overrides --lr")
    parser.add_argument("--validate-every", type=int, default=0, metavar="N",
                        help="checkpoint and validate every N steps; report the best "
                             "checkpoint (0: the last step)")
    parser.add_argument("--validate-length", type=int, default=100, metavar="N",
                        help="held-out validation length (default 100; training 2-10, "
                             "test 500)")
    parser.add_argument("--validate-words", type=int, default=64, metavar="N")
    parser.add_argument("--patience", type=int, default=0, metavar="N",
                        help="stop a run after N validations without improvement (0: never)")
    parser.add_argument("--stop-at-zero-loss", action="store_true",
                        help="stop a run at its first float32 training loss of exactly 0 "
                             "(validated as a checkpoint in any case)")
    parser.add_argument("--lengths", type=_lengths, default=(2, 10), metavar="MIN-MAX",
                        help="training word lengths (default 2-10)")
    parser.add_argument("--eval-length", type=int, default=500, metavar="N",
                        help="test length of the table's figure (default 500)")
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--no-certify", dest="certify", action="store_false",
                        help="skip the 'certified' column (fsmnet certify on each trained net)")
    parser.add_argument("--estimate-only", action="store_true",
                        help="print the wall-time estimate and stop")
    if paper is not None:
        parser.add_argument("--paper", action="store_true",
                            help="the paper's protocol and full grid: " + ", ".join(
                                f"{k}={v}" for k, v in paper.items()))
    args = parser.parse_args(argv)
    if paper is not None and args.paper:
        given = {a.split("=")[0].lstrip("-").replace("-", "_")
                 for a in (sys.argv[1:] if argv is None else argv) if a.startswith("--")}
        for key, value in paper.items():
            if key not in given:
                setattr(args, key, value)
    protocol_of(args)  # refuse a bad combination before any training
    return args


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


def certify_cell(result: Any, name: str, folder: str | None = None) -> dict[str, Any]:
    """``fsmnet certify`` on the trained network, twice: in exact arithmetic of the
    file's tensors, and for the float32 reference step (``--float32``, under
    ``"float32"``). Each gives the verdict, method, the confirmed word (refuted) or
    the proved length L (unknown), and the theorem that rules the cell out where one
    applies. The network is saved first (in ``folder``, default ``results/nets/``),
    so ``fsmnet certify results/nets/NAME.safetensors SPEC [--float32]`` repeats the
    verdicts. Modules with no network form get verdict None."""
    from fsmnet.errors import FsmnetError
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
    out = _certified(result.automaton, net, path, float32=False)
    out["network"] = os.path.relpath(path)
    out["float32"] = _certified(result.automaton, net, path, float32=True)
    return out


def _certified(automaton: Any, net: Any, path: str, *, float32: bool) -> dict[str, Any]:
    """One certify run, as the JSON record of a table cell."""
    from fsmnet.proofs.abstract.certify import certify

    res = certify(automaton, net, network_path=path, float32=float32)
    out: dict[str, Any] = {"verdict": res.verdict, "method": res.method,
                           "proved_length": res.proved_length, "domain": res.domain,
                           "seconds": round(res.seconds, 2)}
    if res.counterexample is not None:
        out["word"] = [str(x) for x in res.counterexample.word]
    if res.details.get("theorem"):
        out["theorem"] = res.details["theorem"]
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


def _code(c: dict[str, Any] | None) -> str:
    if not c or c["verdict"] is None:
        return "—"
    if c["verdict"] == "proved":
        return "P"
    if c["verdict"] == "refuted":
        return f"R{len(c['word'])}"
    return f"U{c['proved_length']}"


def certified_code(cell: dict[str, Any]) -> str:
    """Short form of one seed's verdicts: P (proved), R n (refuted, word length n),
    U L (unknown, proved for every length ≤ L), — (no network form); the exact
    verdict, then the float32 one after a colon where the record has it (``U10:P``; not
    a bar, which would split a markdown table cell)."""
    c = cell.get("certified")
    code = _code(c)
    if c and c.get("float32"):
        code += ":" + _code(c["float32"])
    return code


def certified_summary(cells: Sequence[dict[str, Any]]) -> str:
    """The 'certified' entry of a table cell: one code per seed, in seed order."""
    return "/".join(certified_code(c) for c in cells) if cells else "—"


def _describe(cert: dict[str, Any], width: int) -> str:
    if cert["verdict"] == "refuted":
        text = run_length(cert["word"])
        text = text if len(text) <= width else text[:width] + "…"
        what = f"refuted by `{text}` (length {len(cert['word'])}, {cert['method']})"
    elif cert["verdict"] == "unknown":
        what = f"unknown, every word of length ≤ {cert['proved_length']} proved"
    else:
        what = f"proved for every length ({cert['method']}, {cert['domain']})"
    if cert.get("theorem"):
        what += f"; {cert['theorem']}"
    return what


def certified_details(cells: Sequence[dict[str, Any]], width: int = 48) -> str:
    """One markdown line per network that has a verdict: seed, the exact verdict
    (the word, run-length encoded and cut at ``width`` characters, or L) and the
    float32 one where it differs."""
    lines = []
    for c in cells:
        cert = c.get("certified")
        if not cert or cert["verdict"] is None:
            continue
        label = f"{c['spec']} {c.get('row', c['arch'])} seed {c['seed']}"
        line = f"- {label}: {_describe(cert, width)}"
        f32 = cert.get("float32")
        if f32:
            same = _code(f32) == _code(cert)
            line += "; float32: " + ("the same" if same else _describe(f32, width))
        lines.append(line)
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
