"""A MinMax row on the MinMax paper's tasks (arXiv 2605.06384): Latching, Sequences(n)
and InductionHeads(M), fsmnet's built-ins ``latch:4``, ``sequences:2`` and
``induction:4`` (docs/families.md says how they follow the paper's task
descriptions).

Rows: the gated MinMax cascade (fsmnet.train.modules_minmax.MinMaxCascade) with the
one-step lag (layer ℓ reads the layers below at t−1, as the compiled cascade and the
paper's convolution do); the same with the paper's parts (fsmnet.train.cascade_parts:
MLP controllers with LayerNorm and a residual, a causal window of 4 over the layers
below, the output gate, the asymmetric set/reset initialization); for comparison the
former same-time reading (every letter idempotent: it cannot count to two); the dense
max-min recurrence (minmax-dense), plain and with the straight-through gradient
(fsmnet.train.relax); two baselines (LSTM, full bilinear); 3 seeds; trained on lengths
2–10; per-position accuracy at length 500.  Most positions of InductionHeads output
'-', so the table also gives the accuracy of always answering the most frequent
label (the honest chance level).  "certified": ``fsmnet certify`` on each seed's
network (P / R n / U L, as in seed000_table.py; — where the module has no network
form: the gated cascade, LSTM).  The paper's figures (``PAPER``) are for its own
task sizes (Latching(2n) n = 2..9, Sequences(n) n = 2, 3, 4, 8, 16, InductionHeads
16 and 30), its models (~125k parameters) and its lengths (trained ≤ 512,
evaluated up to ~10^6).

    python experiments/minmax_table.py [--steps 1000] [--hidden 16] [--seeds 3] [--no-certify]
    python experiments/minmax_table.py --paper [--estimate-only]
    python experiments/minmax_table.py --paper --rows 1 --tasks latch:18 --long-length 1000000

``--paper``: the paper's grid (Latching(4..18), Sequences(2, 3, 4, 8, 16),
InductionHeads(16), (30)) and what its summary states of the protocol: Adam at
lr 1e-3 with weight decay 1e-4, the rate halved every 5 epochs, training lengths up
to 512, validation at 2048; 2 layers of 40 units (its ablation's configuration,
hidden 80).  Ours: 20,000 steps, an "epoch" taken as 1000 steps (the summary does
not size them, and the words are drawn afresh every step), so the rate halves every
5000; validation every 1000 steps with early stop after 10 without improvement; the
test length 4096 (the paper extrapolates to ~10^6).  Not reproduced: the baselines
Mamba, xLSTM, mLSTM, sLSTM (fsmnet has none; LSTM and full bilinear stand in).
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

import numpy as np

sys.path.insert(0, "experiments")
from common import (  # noqa: E402
    arguments,
    certified_details,
    certified_summary,
    majority_accuracy,
    protocol_of,
    row_name,
    run_grid,
    save,
    verdict,
)

TASKS = [("latch:4", "Latching(4)"), ("sequences:2", "Sequences(2), 2 tracks"),
         ("induction:4", "InductionHeads(4)")]
PAPER_TASKS = ([(f"latch:{2 * n}", f"Latching({2 * n})") for n in range(2, 10)]
               + [(f"sequences:{n}", f"Sequences({n}), 2 tracks") for n in (2, 3, 4, 8, 16)]
               + [(f"induction:{m}", f"InductionHeads({m})") for m in (16, 30)])
PAPER_PARTS = {"controller": "mlp", "window": 4, "output_gate": True, "init": "asymmetric"}
ROWS: list[tuple[str, dict[str, Any], str]] = [
        ("minmax-cascade", {}, "MinMax cascade (gated, lag)"),
        ("minmax-cascade", PAPER_PARTS,
         "MinMax cascade (MLP controllers, window 4, output gate, asymmetric init)"),
        ("minmax-cascade", {"order": "same-time"}, "MinMax cascade (gated, same-time)"),
        ("minmax-dense", {}, "MinMax dense"),
        ("minmax-dense", {"relax": 0.2}, "MinMax dense (straight-through, τ = 0.2)"),
        ("lstm", {}, "LSTM"), ("bilinear-full", {}, "full bilinear")]
VERDICT_ARCHS = ["minmax-cascade", "minmax-scalar", "minmax-dense"]
PAPER_PROTOCOL = {"steps": 20000, "hidden": 80, "lrs": (1e-3,), "lengths": (2, 512),
                  "validate_every": 1000, "validate_length": 2048, "patience": 10,
                  "eval_length": 4096, "weight_decay": 1e-4, "lr_halve_every": 5000}
# The paper's accuracies (arXiv 2605.06384, seed summary 004's main table): MinMax RNC /
# Mamba / xLSTM-L / mLSTM / sLSTM, at extrapolation lengths up to ~10^6, one figure
# per task family (Latching(2n) over n = 2..9, Sequences(n) over n = 2, 3, 4, 8, 16).
PAPER = {"latch": "100.0 / 54.3 / 8.2 / 7.4 / 28.2",
         "sequences": "100.0 / 46.5 / 46.5 / 44.5 / 46.5",
         "induction:16": "100.0 / 100.0 / 6.7 / 6.5 / 6.2",
         "induction:30": "100.0 / 3.5 / 3.1 / 3.0 / 3.0"}


def paper_figure(spec: str) -> str:
    family = spec.split(":")[0]
    if family == "induction":
        return PAPER.get(spec, "— (published: M = 16, 30)")
    return PAPER.get(family, "—")


def _choices(parser: argparse.ArgumentParser) -> None:
    rows = "; ".join(f"{i} {name}" for i, (_, _, name) in enumerate(ROWS, 1))
    parser.add_argument("--rows", default=None, metavar="I,J,...",
                        help=f"only these rows, by number: {rows} (default: all)")
    parser.add_argument("--tasks", default=None, metavar="SPEC,...",
                        help="only these tasks of the grid, e.g. latch:18,induction:30 "
                             "(default: all)")


def selected(args: argparse.Namespace) -> tuple[list[tuple[str, str]],
                                                list[tuple[str, dict[str, Any], str]]]:
    """The grid's tasks and rows that ``--tasks`` and ``--rows`` keep; an unknown one
    is refused by name before any training."""
    tasks = PAPER_TASKS if args.paper else TASKS
    rows = ROWS
    if args.tasks:
        wanted = args.tasks.split(",")
        known = [spec for spec, _ in tasks]
        bad = [w for w in wanted if w not in known]
        if bad:
            raise SystemExit(f"--tasks: {', '.join(bad)} not in this grid "
                             f"({', '.join(known)})")
        tasks = [t for t in tasks if t[0] in wanted]
    if args.rows:
        try:
            picks = [int(r) for r in args.rows.split(",")]
        except ValueError:
            raise SystemExit(f"--rows: row numbers expected, got {args.rows!r}") from None
        if any(not 1 <= r <= len(ROWS) for r in picks):
            raise SystemExit(f"--rows: numbers from 1 to {len(ROWS)}, got {args.rows!r}")
        rows = [ROWS[r - 1] for r in picks]
    return tasks, rows


def main() -> None:
    args = arguments(steps=1000, hidden=16, paper=PAPER_PROTOCOL, extra=_choices)
    tasks, rows = selected(args)
    begin = time.time()
    cells = run_grid([spec for spec, _ in tasks], [(arch, opts) for arch, opts, _ in rows],
                     args, table="minmax",
                     line=lambda c: f"acc@{c['eval_length']} {c['acc']:.3f} "
                                    f"(acc@10 {c['acc10']:.3f}, {c['seconds']} s)")
    protocol = protocol_of(args).describe(args.steps, args.seeds)
    lines = [f"protocol: {protocol}, H = {args.hidden}, lengths "
             f"{args.lengths[0]}–{args.lengths[1]}, accuracy at length {args.eval_length}", "",
             "| task | paper: MinMax RNC / Mamba / xLSTM-L / mLSTM / sLSTM (%) "
             "| most frequent label | " + " | ".join(n for _, _, n in rows)
             + " | fsmnet proved (" + ", ".join(VERDICT_ARCHS) + ") |",
             "|---" * (len(rows) + 4) + "|"]
    if args.long_length:
        lines[0] += f"; after ·: accuracy on one word of length {args.long_length:,}"
    for spec, name in tasks:
        row = []
        for arch, opts, _ in rows:
            mine = [c for c in cells if c["spec"] == spec and c["row"] == row_name(arch, opts)]
            accs = [c["acc"] for c in mine]
            cert = f" · certified {certified_summary(mine)}" if args.certify else ""
            far = ""
            if args.long_length:
                longs = [c["acc_long"] for c in mine]
                far = f" · {np.mean(longs):.3f} ({min(longs):.3f}–{max(longs):.3f})"
            row.append(f"{np.mean(accs):.3f} ({min(accs):.3f}–{max(accs):.3f}){far}{cert}")
        proved = ", ".join(verdict(spec, a) for a in VERDICT_ARCHS)
        chance = majority_accuracy(spec, args.eval_length)
        lines.append(f"| {name} | {paper_figure(spec)} | {chance:.3f} | "
                     + " | ".join(row) + f" | {proved} |")
    if args.certify:
        lines += ["", certified_details(cells)]
    table = "\n".join(lines)
    print(table)
    save("minmax_table", {"args": vars(args), "protocol": protocol, "cells": cells,
                          "table": table, "seconds": round(time.time() - begin)}, out=args.out)


if __name__ == "__main__":
    main()
