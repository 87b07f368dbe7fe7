"""The fixed-point RNN on A5 and S5 (arXiv 2503.10799), trained with the exact solve and
read out through K iterations of the paper's diagonal fixed-point iteration
(fsmnet/train/fp_iteration.py): accuracy against iterations, and the largest
contraction factor ρ((I − Λ)(I − Q)) over the letters, which says whether the
iteration converges to the trained model at all (it does iff every ρ < 1).

Trained as every table here trains (experiments/common.py protocol; lengths 2–10),
3 seeds, H = 8: the natural permutation representation of S5 and A5 has degree 5, so a
dense linear RNN with H = 5 tracks either group; 8 is that plus 3.  fsmnet's own
fixed-point construction needs far more (S5 by generators: H = 159 via
``compile_fixed_point_blocks``; A5 refused; docs/constructions-deltaproduct-fixedpoint.md),
so there is no construction-size row.  Tested at lengths 10 and 100 (``--eval-length``)
on 64 random words, per position, the empty prefix excluded, normalized so that 0 is
chance over the labels (60 for A5, 120 for S5).  "agree" is the fraction of positions
where the iterated labels equal the exact solve's own argmax labels on the same words:
it measures convergence whatever the training reached.  The paper's copying task is
not here: fsmnet has no copying family (docs/families.md).

    python experiments/fixed_point_table.py [--steps 2000] [--hidden 8] [--seeds 3]

The paper (Figure 1 of arXiv 2503.10799v3, FP-Mamba on A5, trained at length 16)
publishes curves, not a table, so there is no paper column.
"""

from __future__ import annotations

import sys
import time
from argparse import Namespace
from typing import Any

import numpy as np
import torch

sys.path.insert(0, "experiments")
from common import (  # noqa: E402
    arguments,
    log,
    print_estimate,
    protocol_of,
    save,
    summarize,
    train_selected,
)

from fsmnet.automata import Automaton  # noqa: E402
from fsmnet.train.data import accuracy, batch, normalized  # noqa: E402
from fsmnet.train.fp_iteration import (  # noqa: E402
    contraction,
    iterated_accuracy,
    iterated_logits,
)

TASKS = [("alternating:5", "A5"), ("symmetric:5", "S5")]
ITERATIONS = (1, 2, 4, 8, 16, 32)
WORDS = 64  # test words per length, as in every table
SEED = 1234  # the test words' seed (fsmnet.train.data.accuracy's default)


def agreement(module: Any, automaton: Automaton, length: int, iterations: int) -> float:
    """Fraction of positions (the empty prefix excluded) where the iterated labels equal
    the exact solve's argmax labels, on the words ``accuracy`` draws for ``SEED``."""
    words, _ = batch(automaton, np.random.default_rng(SEED), WORDS, length)
    tokens = torch.tensor(words)
    with torch.no_grad():
        exact = module.logits(tokens).argmax(dim=-1)
        got = iterated_logits(module, tokens, iterations).argmax(dim=-1)
    return float((exact[:, 1:] == got[:, 1:]).double().mean())


def run_cell(spec: str, seed: int, args: Namespace, lengths: tuple[int, int]) -> dict[str, Any]:
    result, record = train_selected(spec, "fixed-point", seed, hidden=args.hidden,
                                    steps=args.steps, protocol=protocol_of(args),
                                    lengths=tuple(args.lengths))
    module, automaton = result.module, result.automaton
    n_labels = len(automaton.labels)
    began = time.perf_counter()
    cell: dict[str, Any] = {"spec": spec, "seed": seed, "hidden": args.hidden,
                            "steps": args.steps, "lr": record["selected"]["lr"],
                            "final_loss": result.losses[-1],
                            "train_seconds": round(result.seconds, 2)}
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
    cell["letters_below_1"] = int((rho < 1).sum())
    cell["eval_seconds"] = round(time.perf_counter() - began, 2)
    return cell


def estimate_iterated(args: Namespace, lengths: tuple[int, int]) -> float:
    """Seconds of the iterated evaluations of the whole table, measured on one untrained
    module of each task at the largest K and scaled (the cost is linear in K)."""
    from fsmnet.train.convert import build
    from fsmnet.train.data import task_automaton

    total = 0.0
    for spec, _ in TASKS:
        automaton = task_automaton(spec)
        module = build("fixed-point", automaton.n_symbols, len(automaton.labels), args.hidden)
        began = time.perf_counter()
        for length in lengths:
            iterated_accuracy(module, automaton, length, ITERATIONS[-1], words=WORDS)
        # accuracy and agreement: two iterated passes per K.
        total += 2 * (time.perf_counter() - began) * sum(ITERATIONS) / ITERATIONS[-1]
    return total * args.seeds


def _row(cells: list[dict[str, Any]], key: str, lengths: tuple[int, int],
         agree: bool) -> list[str]:
    out = []
    for spec, _ in TASKS:
        mine = [c for c in cells if c["spec"] == spec]
        for length in lengths:
            out.append(summarize([c[f"{key}{length}" if key == "exact" else f"{key}@{length}"]
                                  for c in mine]))
        if agree:
            values = [c[f"{key}@{lengths[1]}"]["agree"] for c in mine]
            out.append(f"{np.mean(values):.2f}")
        else:
            out.append("—")
    return out


def main() -> None:
    # This table's test length is 100 unless --eval-length says otherwise (the last wins).
    args = arguments(steps=2000, hidden=8, argv=["--eval-length", "100", *sys.argv[1:]])
    lengths = (10, int(args.eval_length))
    begin = time.time()
    print_estimate([spec for spec, _ in TASKS], [("fixed-point", {})], args)
    print(f"  plus the iterated evaluations (K = {', '.join(map(str, ITERATIONS))}): about "
          f"{estimate_iterated(args, lengths):.0f} s", flush=True)
    cells = []
    for spec, _ in TASKS:
        for seed in range(args.seeds):
            cell = run_cell(spec, seed, args, lengths)
            cells.append(cell)
            long = lengths[1]
            log(f"{spec} seed {seed}: exact@{long} {cell[f'exact{long}']['norm']:.2f}, "
                f"K=32@{long} {cell[f'K32@{long}']['norm']:.2f}, max ρ {cell['rho_max']:.3f} "
                f"({cell['letters_below_1']} letters below 1), {cell['train_seconds']} s")
    protocol = protocol_of(args).describe(args.steps, args.seeds)
    head = " | ".join(f"{name} @{n}" for _, name in TASKS
                      for n in (*lengths, f"{lengths[1]} agree"))
    lines = [f"protocol: {protocol}, H = {args.hidden}, lengths {args.lengths[0]}–"
             f"{args.lengths[1]}; normalized accuracy mean (min–max) over seeds on {WORDS} "
             f"words; agree: iterated labels = exact-solve labels (mean over seeds)", "",
             f"| readout | {head} |", "|---" * (1 + 3 * len(TASKS)) + "|",
             "| exact solve (matrix inverse) | "
             + " | ".join(_row(cells, "exact", lengths, False)) + " |"]
    for k in ITERATIONS:
        name = f"K = {k}" + (" (the diagonal RNN)" if k == 1 else "")
        lines.append(f"| {name} | " + " | ".join(_row(cells, f"K{k}", lengths, True)) + " |")
    lines += ["", "| task | seed | final loss | largest ρ((I − Λ)(I − Q)) | letters with "
              "ρ < 1 |", "|---|---|---|---|---|"]
    for spec, name in TASKS:
        for c in (c for c in cells if c["spec"] == spec):
            lines.append(f"| {name} | {c['seed']} | {c['final_loss']:.3f} | "
                         f"{c['rho_max']:.3f} | {c['letters_below_1']} of {len(c['rho'])} |")
    table = "\n".join(lines)
    print(table)
    save("fixed_point_table", {"args": vars(args), "protocol": protocol, "lengths": lengths,
                               "iterations": ITERATIONS, "cells": cells, "table": table,
                               "seconds": round(time.time() - begin)}, out=args.out)


if __name__ == "__main__":
    main()
