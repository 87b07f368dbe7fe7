"""The MinMax paper's grid on benchmark-shaped words, scored on the answer (arXiv
2605.06384; Table 2c of docs/experiments.md).

experiments/minmax_table.py trains and scores on uniform random words, where at the
paper's sizes a Sequences track almost never completes and InductionHeads almost always
outputs '-': the constant predictor scores 0.88–1.00 there.  Here the words come from
:mod:`fsmnet.train.benchmark_words` (InductionHeads: tokens, '@' key, tokens, final
'@'; Sequences: each track completed with probability 1/2, else a near miss; Latching:
uniform) and only the answer is scored (the final position; every position for
Latching).  The labels are always the automaton's (``label_traces``).

Model: the lagged gated cascade, ``build("minmax-cascade", ...)`` with its defaults
(2 layers of hidden/2 scalar units).  Loss: the mean cross-entropy of every prefix's
label **plus** ``--answer-weight`` times the mean cross-entropy of the answer
positions.  Every prefix's label is the automaton's state readout, a dense signal
(Sequences' completion set, '@' outputs), but an InductionHeads or Sequences word has
one answer among up to T positions, so on its own the answer would carry ~1/T of the
loss: the second term gives the scored positions as much weight as all the others.
Adam with weight decay 1e-4 and the rate halved every ``--halve-every`` steps (the
paper: lr 1e-3 halved every 5 epochs, ~125k parameters, lengths ≤ 512); gradients
clipped at norm 1, as in fsmnet.train.loop.  One torch thread, seeded, deterministic.

Accuracy of the answers at the longest training length, at 1024, and at each
``--long LENGTH:WORDS`` (e.g. a few words of 10^5 and 10^6), beside the majority-answer
baseline (always the most frequent answer label of the same words) and chance (1 over
the number of answer labels: V, 4 = 2^tracks, M).

    python experiments/minmax_benchmark.py --estimate-only
    python experiments/minmax_benchmark.py --seeds 2 --steps 2000 \\
        --out experiments/results/minmax_benchmark
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import Any

import numpy as np
import torch

sys.path.insert(0, "experiments")
from common import save  # noqa: E402

from fsmnet.automata import Automaton  # noqa: E402
from fsmnet.train.benchmark_words import benchmark_words, minimum_length  # noqa: E402
from fsmnet.train.convert import build  # noqa: E402
from fsmnet.train.data import label_traces, task_automaton  # noqa: E402

GRID = ([f"latch:{2 * n}" for n in range(2, 10)]
        + [f"sequences:{n}" for n in (2, 3, 4, 8, 16)]
        + [f"induction:{m}" for m in (16, 30)])
PAPER_MINMAX = 1.0  # MinMax RNC's figure on every task of the grid (seed summary 004)
WITHIN = 0.05
EVAL_SEED = 1234


def task_name(spec: str) -> str:
    family, size = spec.split(":")
    return {"latch": f"Latching({size})", "sequences": f"Sequences({size}), 2 tracks",
            "induction": f"InductionHeads({size})"}[family]


def chance(automaton: Automaton) -> float:
    """1 over the number of labels an answer can take ('-' is never an answer)."""
    return 1.0 / len([label for label in automaton.labels if label != "-"])


def training_lengths(automaton: Automaton, lengths: tuple[int, int]) -> tuple[int, int]:
    """``--lengths`` raised to the family's shortest benchmark word."""
    floor = minimum_length(automaton)
    return max(lengths[0], floor), max(lengths[1], floor)


def train_cell(automaton: Automaton, seed: int, args: argparse.Namespace
               ) -> tuple[Any, list[float], float]:
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    module = build("minmax-cascade", automaton.n_symbols, len(automaton.labels), args.hidden,
                   layers=args.layers)
    opt = torch.optim.Adam(module.parameters(), lr=args.lr, weight_decay=args.weight_decay)
    halve = torch.optim.lr_scheduler.StepLR(opt, max(1, args.halve_every), gamma=0.5)
    lo, hi = training_lengths(automaton, args.lengths)
    losses: list[float] = []
    start = time.perf_counter()
    for _ in range(args.steps):
        words, mask = benchmark_words(automaton, rng, args.batch, int(rng.integers(lo, hi + 1)))
        labels = torch.tensor(label_traces(automaton, words))
        logits = module.logits(torch.tensor(words))
        every = torch.nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]),
                                                  labels.reshape(-1))
        scored = torch.tensor(mask)
        answer = torch.nn.functional.cross_entropy(logits[scored], labels[scored])
        loss = every + args.answer_weight * answer
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(module.parameters(), 1.0)
        opt.step()
        halve.step()
        losses.append(float(loss.detach()))
    return module, losses, time.perf_counter() - start


def evaluate(module: Any, automaton: Automaton, length: int, words: int,
             chunk: int) -> dict[str, float]:
    """Answer accuracy and the majority-answer baseline on ``words`` benchmark words."""
    rng = np.random.default_rng(EVAL_SEED + length)
    correct = total = 0
    counts = np.zeros(len(automaton.labels), dtype=np.int64)
    for first in range(0, words, chunk):
        w, mask = benchmark_words(automaton, rng, min(chunk, words - first), length)
        y = label_traces(automaton, w)
        with torch.no_grad():
            got = module(torch.tensor(w)).numpy()
        correct += int(np.sum(got[mask] == y[mask]))
        total += int(mask.sum())
        counts += np.bincount(y[mask], minlength=len(counts))
    return {"acc": correct / total, "majority": float(counts.max() / total),
            "answers": total}


def eval_plan(automaton: Automaton, args: argparse.Namespace) -> list[tuple[int, int, int]]:
    """(length, words, words per forward) of every evaluation of a cell."""
    train_len = training_lengths(automaton, args.lengths)[1]
    plan = [(train_len, args.eval_words, 256), (1024, args.eval_words, 64)]
    plan += [(n, w, max(1, min(w, 4_000_000 // n))) for n, w in args.long]
    return plan


def run_cell(spec: str, seed: int, args: argparse.Namespace) -> dict[str, Any]:
    automaton = task_automaton(spec)
    module, losses, seconds = train_cell(automaton, seed, args)
    cell: dict[str, Any] = {"spec": spec, "seed": seed, "train_seconds": round(seconds, 1),
                            "final_loss": losses[-1], "chance": chance(automaton),
                            "params": sum(p.numel() for p in module.parameters()),
                            "evals": {}}
    for length, words, chunk in eval_plan(automaton, args):
        start = time.perf_counter()
        result = evaluate(module, automaton, length, words, chunk)
        result["seconds"] = round(time.perf_counter() - start, 1)
        cell["evals"][str(length)] = result
    return cell


def estimate(args: argparse.Namespace, tasks: list[str]) -> float:
    """Seconds for the whole run: 5 measured steps of each task's family and one
    forward, extrapolated (the samplers' costs differ by family)."""
    probe = argparse.Namespace(**{**vars(args), "steps": 5})
    step: dict[str, float] = {}
    for spec in tasks:
        family = spec.split(":")[0]
        if family not in step:
            step[family] = train_cell(task_automaton(spec), 0, probe)[2] / 5
    a = task_automaton(tasks[0])
    module = build("minmax-cascade", a.n_symbols, len(a.labels), args.hidden,
                   layers=args.layers)
    start = time.perf_counter()
    evaluate(module, a, 50_000, 2, 2)
    per_symbol = (time.perf_counter() - start) / 100_000
    total = 0.0
    for spec in tasks:
        plan = eval_plan(task_automaton(spec), args)
        total += step[spec.split(":")[0]] * args.steps
        total += sum(n * w for n, w, _ in plan) * per_symbol
    return total * args.seeds


def mean_range(values: list[float]) -> str:
    text = f"{np.mean(values):.3f}"
    if len(values) > 1:
        text += f" ({min(values):.3f}–{max(values):.3f})"
    mark = " ✓" if abs(float(np.mean(values)) - PAPER_MINMAX) <= WITHIN else ""
    return f"{text} [{PAPER_MINMAX * 100:.0f}]{mark}"


def table(cells: list[dict[str, Any]], tasks: list[str]) -> str:
    lengths = list(cells[0]["evals"]) if cells else []
    head = ["task", "chance", "majority answer (1024)"] + [
        f"MinMax cascade, answer acc. at {n}" for n in lengths]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for spec in tasks:
        mine = [c for c in cells if c["spec"] == spec]
        if not mine:
            continue
        row = [task_name(spec), f"{mine[0]['chance']:.3f}",
               f"{mine[0]['evals']['1024']['majority']:.3f}"]
        row += [mean_range([c["evals"][n]["acc"] for c in mine]) if all(
            n in c["evals"] for c in mine) else "—" for n in lengths]
        lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines)


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--tasks", default=None, help=f"subset of {','.join(GRID)}")
    p.add_argument("--seeds", type=int, default=2, help="seeds 0..N-1 (default 2)")
    p.add_argument("--steps", type=int, default=2000)
    p.add_argument("--hidden", type=int, default=32)
    p.add_argument("--layers", type=int, default=2,
                   help="cascade layers, the hidden units split among them (default 2; the "
                        "compiled scalar cascade for Sequences(n) has n levels)")
    p.add_argument("--lengths", default="2,64", help="LO,HI training lengths")
    p.add_argument("--lr", type=float, default=0.01)
    p.add_argument("--batch", type=int, default=64)
    p.add_argument("--weight-decay", type=float, default=1e-4)
    p.add_argument("--halve-every", type=int, default=None,
                   help="halve the rate every N steps (default: steps // 4)")
    p.add_argument("--answer-weight", type=float, default=1.0)
    p.add_argument("--eval-words", type=int, default=256)
    p.add_argument("--long", default="100000:16,1000000:2",
                   help="LENGTH:WORDS,... long evaluations ('' for none)")
    p.add_argument("--out", default=None, help="folder of minmax_benchmark.json")
    p.add_argument("--estimate-only", action="store_true")
    args = p.parse_args(argv)
    lo, hi = (int(x) for x in args.lengths.split(","))
    args.lengths = (lo, hi)
    args.long = [tuple(int(x) for x in item.split(":")) for item in args.long.split(",")
                 if item]
    args.halve_every = args.halve_every or max(1, args.steps // 4)
    if args.tasks:
        bad = [t for t in args.tasks.split(",") if t not in GRID]
        if bad:
            raise SystemExit(f"--tasks: {', '.join(bad)} not in the grid ({', '.join(GRID)})")
    return args


def main(argv: list[str] | None = None) -> None:
    args = parse(argv)
    torch.set_num_threads(1)  # the machine's 2 cores are shared with other work
    torch.use_deterministic_algorithms(True)
    tasks = [t for t in GRID if not args.tasks or t in args.tasks.split(",")]
    print(f"estimate: {estimate(args, tasks):.0f} s for {len(tasks)} tasks × "
          f"{args.seeds} seeds (one thread)", flush=True)
    if args.estimate_only:
        return
    # The default layer count stays out of the key, so the runs recorded before the
    # option existed still resume.
    config = {k: v for k, v in vars(args).items()
              if k not in ("out", "estimate_only") and (k, v) != ("layers", 2)}
    path = os.path.join(args.out or "experiments/results", "minmax_benchmark.json")
    done: list[dict[str, Any]] = []
    if os.path.exists(path):  # resume: keep the cells of a run with the same settings
        with open(path, encoding="utf-8") as f:
            old = json.load(f)
        if old.get("config") == json.loads(json.dumps(config)):
            done = old["cells"]
    start = time.perf_counter()
    for spec in tasks:
        for seed in range(args.seeds):
            if any(c["spec"] == spec and c["seed"] == seed for c in done):
                continue
            cell = run_cell(spec, seed, args)
            done.append(cell)
            accs = ", ".join(f"{n}: {e['acc']:.3f}" for n, e in cell["evals"].items())
            print(f"[{time.perf_counter() - start:6.0f} s] {spec} seed {seed}: {accs} "
                  f"(majority {cell['evals']['1024']['majority']:.3f}, "
                  f"train {cell['train_seconds']} s)", flush=True)
            save("minmax_benchmark", {"config": config, "cells": done}, args.out)
    print(table(done, tasks))


if __name__ == "__main__":
    main()
