"""Helpers of experiments/fixed_point_table.py: the fixed-point RNN trained *through* K
iterations of its diagonal iteration (fsmnet/train/fp_training.py) on A5 and S5, the
evaluation every cell of that table shares, and the copying task
(fsmnet/train/copying.py) for the fixed-point RNN against linear-RNN baselines.
"""

from __future__ import annotations

import time
from argparse import Namespace
from typing import Any

import numpy as np
import torch

from fsmnet.automata import Automaton
from fsmnet.train.convert import build
from fsmnet.train.copying import copy_batch, copy_symbols
from fsmnet.train.data import accuracy, batch, normalized, task_automaton
from fsmnet.train.fp_iteration import contraction, iterated_accuracy, iterated_logits
from fsmnet.train.fp_training import (
    IGNORE,
    IteratedConfig,
    contraction_bound,
    readout_logits,
    train_on_batches,
)

ITERATIONS = (1, 2, 4, 8, 16, 32)  # the K every A5/S5 cell is read out at
WORDS = 64  # test words per length, as in every table
SEED = 1234  # the test words' seed (fsmnet.train.data.accuracy's default)
# (row name, K trained through or None for the exact solve, projected?)
MODES: tuple[tuple[str, int | None, bool], ...] = (
    ("exact solve, ‖I − Q‖ ≤ r", None, True),
    ("through K = 1", 1, False), ("through K = 2", 2, False),
    ("through K = 4", 4, False), ("through K = 8", 8, False),
    ("through K = 2, ‖I − Q‖ ≤ r", 2, True), ("through K = 4, ‖I − Q‖ ≤ r", 4, True),
    ("through K = 8, ‖I − Q‖ ≤ r", 8, True))
# Copying: (row name, architecture, K or None, projected?)
COPY_ROWS: tuple[tuple[str, str, int | None, bool], ...] = (
    ("Mamba-like diagonal (bilinear-positive-diag)", "bilinear-positive-diag", None, False),
    ("dense bilinear (bilinear-full)", "bilinear-full", None, False),
    ("fixed-point, exact solve", "fixed-point", None, False),
    ("fixed-point, exact solve, ‖I − Q‖ ≤ r", "fixed-point", None, True),
    ("fixed-point through K = 2", "fixed-point", 2, False),
    ("fixed-point through K = 4", "fixed-point", 4, False),
    ("fixed-point through K = 4, ‖I − Q‖ ≤ r", "fixed-point", 4, True))
ALPHABET = 8
COPY_TRAIN = (2, 8)  # string lengths n drawn per batch while training
COPY_TEST = (4, 8, 16)  # n = 16: twice the longest trained string
COPY_WORDS = 256


def agreement(module: Any, automaton: Automaton, length: int, iterations: int) -> float:
    """Fraction of positions (the empty prefix excluded) where the iterated labels equal
    the exact solve's argmax labels, on the words ``accuracy`` draws for ``SEED``."""
    words, _ = batch(automaton, np.random.default_rng(SEED), WORDS, length)
    tokens = torch.tensor(words)
    with torch.no_grad():
        exact = module.logits(tokens).argmax(dim=-1)
        got = iterated_logits(module, tokens, iterations).argmax(dim=-1)
    return float((exact[:, 1:] == got[:, 1:]).double().mean())


def evaluate(module: Any, automaton: Automaton, lengths: tuple[int, ...]) -> dict[str, Any]:
    """Exact-solve and K-iterated accuracy at each length (K in ITERATIONS), with the
    iterated labels' agreement with the exact ones, and the contraction factors."""
    n_labels = len(automaton.labels)
    cell: dict[str, Any] = {}
    for length in lengths:
        acc = accuracy(module, automaton, length, words=WORDS, seed=SEED)
        cell[f"exact{length}"] = {"acc": acc, "norm": normalized(acc, n_labels)}
        for k in ITERATIONS:
            acc = iterated_accuracy(module, automaton, length, k, words=WORDS, seed=SEED)
            cell[f"K{k}@{length}"] = {"acc": acc, "norm": normalized(acc, n_labels),
                                      "agree": agreement(module, automaton, length, k)}
    rho = contraction(module)
    cell["rho"] = [float(r) for r in rho]
    cell["rho_max"] = float(rho.max())
    cell["bound_max"] = float(contraction_bound(module).max())
    cell["letters_below_1"] = int((rho < 1).sum())
    return cell


def _automaton_sampler(automaton: Automaton, size: int, lengths: tuple[int, int]) -> Any:
    lo, hi = lengths

    def sample(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        # One length per batch, drawn as fsmnet.train.loop.train draws it.
        return batch(automaton, rng, size, int(rng.integers(lo, hi + 1)))
    return sample


def mode_cell(spec: str, mode: tuple[str, int | None, bool], seed: int, args: Namespace,
              lengths: tuple[int, int]) -> dict[str, Any]:
    """Train a fresh H = ``args.hidden`` fixed-point RNN in ``mode`` and evaluate it."""
    name, iterations, projected = mode
    automaton = task_automaton(spec)
    torch.manual_seed(seed)
    module = build("fixed-point", automaton.n_symbols, len(automaton.labels), args.hidden)
    config = IteratedConfig(iterations=iterations, steps=args.steps, lr=args.lr, seed=seed,
                            radius=args.radius if projected else None)
    losses, seconds = train_on_batches(module, _automaton_sampler(automaton, 64,
                                                                  tuple(args.lengths)), config)
    began = time.perf_counter()
    cell = {"spec": spec, "seed": seed, "mode": name, "iterations": iterations,
            "radius": config.radius, "hidden": args.hidden, "steps": args.steps,
            "lr": args.lr, "final_loss": losses[-1], "train_seconds": round(seconds, 2)}
    cell.update(evaluate(module, automaton, lengths))
    cell["eval_seconds"] = round(time.perf_counter() - began, 2)
    return cell


def _copy_labels(module: Any, words: torch.Tensor, iterations: int | None) -> np.ndarray:
    with torch.no_grad():
        return readout_logits(module, words, iterations).argmax(dim=-1).numpy()


def copy_cell(row: tuple[str, str, int | None, bool], seed: int, args: Namespace
              ) -> dict[str, Any]:
    """Train one copying row (alphabet 8, n drawn from COPY_TRAIN per batch of 64) and
    measure per-token accuracy on the answer positions at each n of COPY_TEST:
    the module's own readout (exact solve for fixed-point), the trained K, K = 32, and
    the fraction of answer positions where the trained-K labels equal the exact ones."""
    name, arch, iterations, projected = row
    torch.manual_seed(seed)
    module = build(arch, copy_symbols(ALPHABET), ALPHABET, args.copy_hidden)
    lo, hi = COPY_TRAIN

    def sample(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        return copy_batch(rng, 64, int(rng.integers(lo, hi + 1)), ALPHABET)

    config = IteratedConfig(iterations=iterations, steps=args.copy_steps, lr=args.lr,
                            seed=seed, radius=args.radius if projected else None)
    losses, seconds = train_on_batches(module, sample, config)
    cell: dict[str, Any] = {"row": name, "arch": arch, "seed": seed, "iterations": iterations,
                            "radius": config.radius, "hidden": args.copy_hidden,
                            "steps": args.copy_steps, "final_loss": losses[-1],
                            "train_seconds": round(seconds, 2)}
    for n in COPY_TEST:
        words, labels = copy_batch(np.random.default_rng(SEED), COPY_WORDS, n, ALPHABET)
        tokens, scored = torch.tensor(words), labels != IGNORE
        exact = _copy_labels(module, tokens, None)
        cell[f"exact@{n}"] = float((exact[scored] == labels[scored]).mean())
        if arch == "fixed-point":
            for k in sorted({iterations or 32, 32}):
                got = _copy_labels(module, tokens, k)
                cell[f"K{k}@{n}"] = float((got[scored] == labels[scored]).mean())
                cell[f"agree{k}@{n}"] = float((got[scored] == exact[scored]).mean())
    if arch == "fixed-point":
        rho = contraction(module)
        cell["rho_max"] = float(rho.max())
        cell["bound_max"] = float(contraction_bound(module).max())
    return cell


def _mean(values: list[float]) -> str:
    return f"{np.mean(values):.2f} ({min(values):.2f}–{max(values):.2f})"


def copy_table(cells: list[dict[str, Any]]) -> list[str]:
    """The copying table's markdown lines: per row, mean (min–max) over seeds."""
    head = " | ".join(f"n = {n}" for n in COPY_TEST)
    lines = [f"| model (trained readout) | {head} | exact solve n = {COPY_TEST[1]} | "
             f"agree n = {COPY_TEST[1]} | K = 32 n = {COPY_TEST[1]} | largest ρ |",
             "|---" * (5 + len(COPY_TEST)) + "|"]
    for name, arch, iterations, _ in COPY_ROWS:
        mine = [c for c in cells if c["row"] == name]
        if not mine:
            continue
        key = "exact" if iterations is None else f"K{iterations}"
        accs = [_mean([c[f"{key}@{n}"] for c in mine]) for n in COPY_TEST]
        mid = COPY_TEST[1]
        fp = arch == "fixed-point"
        agree = (_mean([c[f"agree{iterations or 32}@{mid}"] for c in mine]) if fp else "—")
        lines.append(f"| {name} | " + " | ".join(accs)
                     + f" | {_mean([c[f'exact@{mid}'] for c in mine])} | {agree} | "
                     + (_mean([c[f"K32@{mid}"] for c in mine]) if fp else "—") + " | "
                     + (_mean([c["rho_max"] for c in mine]) if fp else "—") + " |")
    return lines


def estimate_extra(args: Namespace, lengths: tuple[int, int], tasks: list[str]
                   ) -> dict[str, float]:
    """Seconds of the through-iteration rows (training and evaluation) and of the
    copying rows, measured here by a few steps of each and scaled."""
    probe = 5
    probe_args = Namespace(**{**vars(args), "steps": probe, "copy_steps": probe})
    out = {"through-iteration rows": 0.0, "copying": 0.0}
    for spec in tasks:
        automaton = task_automaton(spec)
        for mode in MODES:
            torch.manual_seed(0)
            module = build("fixed-point", automaton.n_symbols, len(automaton.labels),
                           args.hidden)
            config = IteratedConfig(iterations=mode[1], steps=probe,
                                    radius=args.radius if mode[2] else None)
            sample = _automaton_sampler(automaton, 64, tuple(args.lengths))
            train_on_batches(module, sample, IteratedConfig(iterations=mode[1], steps=1))
            seconds = train_on_batches(module, sample, config)[1]  # after a warm-up step
            out["through-iteration rows"] += seconds / probe * args.steps
        began = time.perf_counter()
        evaluate(module, automaton, lengths)
        out["through-iteration rows"] += (time.perf_counter() - began) * len(MODES)
    out["through-iteration rows"] *= args.seeds
    for row in COPY_ROWS:
        copy_cell(row, 0, Namespace(**{**vars(probe_args), "copy_steps": 1}))  # warm-up
        began = time.perf_counter()
        train = copy_cell(row, 0, probe_args)["train_seconds"]
        # The evaluation is a fixed cost; training scales with the steps.
        out["copying"] += (time.perf_counter() - began - train) + train / probe * args.copy_steps
    out["copying"] *= args.copy_seeds
    return out
