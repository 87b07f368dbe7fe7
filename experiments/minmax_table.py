"""A MinMax row on the MinMax paper's tasks (arXiv 2605.06384): Sequences(n) and
InductionHeads(M), fsmnet's built-in ``sequences:2`` and ``induction:4``
(docs/families.md says how they follow the paper's task descriptions).

Rows: the gated MinMax cascade (fsmnet.train.modules_minmax.MinMaxCascade),
the dense max-min recurrence (minmax-dense), and two baselines (LSTM, full
bilinear); 3 seeds; trained on lengths 2–10; per-position accuracy at length 500.
Most positions of InductionHeads output '-', so the table also gives the
accuracy of always answering the most frequent label (the honest chance level).
"certified": ``fsmnet certify`` on each seed's network (P / R n / U L, as in
seed000_table.py; — where the module has no network form: the gated cascade, LSTM).

    python experiments/minmax_table.py [--steps 1000] [--hidden 16] [--seeds 3] [--no-certify]
"""

from __future__ import annotations

import sys
import time

import numpy as np

sys.path.insert(0, "experiments")
from common import (  # noqa: E402
    arguments,
    certified_details,
    certified_summary,
    run_grid,
    save,
    verdict,
)

from fsmnet.train.data import batch, task_automaton  # noqa: E402

TASKS = [("sequences:2", "Sequences(2), 2 tracks"), ("induction:4", "InductionHeads(4)")]
ARCHS = [("minmax-cascade", "MinMax cascade (gated)"), ("minmax-dense", "MinMax dense"),
         ("lstm", "LSTM"), ("bilinear-full", "full bilinear")]
VERDICT_ARCHS = ["minmax-cascade", "minmax-scalar", "minmax-dense"]


def majority(spec: str, length: int = 500) -> float:
    """Accuracy of always answering the most frequent label, on the evaluation words."""
    a = task_automaton(spec)
    _, y = batch(a, np.random.default_rng(1234), 64, length)
    counts = np.bincount(y[:, 1:].ravel(), minlength=len(a.labels))
    return float(counts.max() / counts.sum())


def main() -> None:
    args = arguments(steps=1000, hidden=16)
    begin = time.time()
    cells = run_grid([spec for spec, _ in TASKS], [(arch, {}) for arch, _ in ARCHS], args,
                     table="minmax",
                     line=lambda c: f"acc@500 {c['acc500']:.3f} (acc@10 {c['acc10']:.3f}, "
                                    f"{c['seconds']} s)")
    lines = ["| task | most frequent label | " + " | ".join(n for _, n in ARCHS)
             + " | fsmnet proved (" + ", ".join(VERDICT_ARCHS) + ") |",
             "|---" * (len(ARCHS) + 3) + "|"]
    for spec, name in TASKS:
        row = []
        for arch, _ in ARCHS:
            mine = [c for c in cells if c["spec"] == spec and c["arch"] == arch]
            accs = [c["acc500"] for c in mine]
            cert = f" · certified {certified_summary(mine)}" if args.certify else ""
            row.append(f"{np.mean(accs):.3f} ({min(accs):.3f}–{max(accs):.3f}){cert}")
        proved = ", ".join(verdict(spec, a) for a in VERDICT_ARCHS)
        lines.append(f"| {name} | {majority(spec):.3f} | " + " | ".join(row)
                     + f" | {proved} |")
    if args.certify:
        lines += ["", certified_details(cells)]
    table = "\n".join(lines)
    print(table)
    save("minmax_table", {"args": vars(args), "cells": cells, "table": table,
                          "seconds": round(time.time() - begin)})


if __name__ == "__main__":
    main()
