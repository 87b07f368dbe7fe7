"""DeltaNet with β ∈ [0, 1] (eigenvalues in [0, 1]) against β ∈ [0, 2] (eigenvalues in
[−1, 1]) on parity and S3, the comparison of the code-trace paper (arXiv 2602.14814)
after Grazzi et al. (arXiv 2411.12537); DeltaProduct with n_h = 2 (arXiv 2502.10297)
as a third row, since one reflection per token cannot be a 3-cycle of S3.

3 seeds; trained on lengths 2–10; normalized per-position accuracy at length 500
(0 = chance over the labels).  fsmnet's verdict is for the ``deltaproduct``
registry architecture (β ∈ [0, 2], n_h chosen by the construction); fsmnet has
no registry id for β ∈ [0, 1].  "certified": ``fsmnet certify`` on each seed's
trained network (P / R n / U L, as in seed000_table.py).

    python experiments/deltanet_table.py [--steps 1000] [--hidden 8] [--seeds 3] [--no-certify]

The code-trace paper publishes plots, not a table (seed summary 003), so there is
no paper column and no ``--paper`` preset; the protocol options of
experiments/common.py (``--lrs``, ``--validate-every``, ...) apply as to every table.
"""

from __future__ import annotations

import sys
import time

sys.path.insert(0, "experiments")
from common import (  # noqa: E402
    arguments,
    certified_details,
    certified_summary,
    protocol_of,
    row_name,
    run_grid,
    save,
    summarize,
    verdict,
)

TASKS = [("parity", "parity"), ("symmetric:3", "S3 (all 6 elements as letters)")]
ROWS = [("deltanet", {}, "DeltaNet, β ∈ [0, 1]"), ("deltanet-neg", {}, "DeltaNet, β ∈ [0, 2]"),
        ("deltaproduct", {"n_h": 2}, "DeltaProduct n_h = 2, β ∈ [0, 2]")]


def main() -> None:
    args = arguments(steps=1000, hidden=8)
    begin = time.time()
    cells = run_grid([spec for spec, _ in TASKS], [(arch, options) for arch, options, _ in ROWS],
                     args, table="deltanet",
                     line=lambda c: f"norm@500 {c['norm']:.2f} (norm@10 {c['norm10']:.2f}, "
                                    f"{c['seconds']} s)")
    protocol = protocol_of(args).describe(args.steps, args.seeds)
    lines = [f"protocol: {protocol}, H = {args.hidden}", "",
             "| model | " + " | ".join(n for _, n in TASKS) + " |", "|---" * 3 + "|"]
    for arch, options, name in ROWS:
        key = row_name(arch, options)
        row = []
        for s, _ in TASKS:
            mine = [c for c in cells if c["spec"] == s and c["row"] == key]
            cert = f" · certified {certified_summary(mine)}" if args.certify else ""
            row.append(summarize(mine) + cert)
        lines.append(f"| {name} | " + " | ".join(row) + " |")
    lines.append("| fsmnet proved (deltaproduct) | "
                 + " | ".join(verdict(s, "deltaproduct") for s, _ in TASKS) + " |")
    if args.certify:
        lines += ["", certified_details(cells)]
    table = "\n".join(lines)
    print(table)
    save("deltanet_table", {"args": vars(args), "protocol": protocol, "cells": cells,
                            "table": table,
                            "seconds": round(time.time() - begin)}, out=args.out)


if __name__ == "__main__":
    main()
