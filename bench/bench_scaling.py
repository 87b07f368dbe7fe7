"""Time vs input length for the scan engine (log-log plot in docs/scaling.png).

CPU here: automaton ``modadd:5`` on backend numba (auto path), outputs "last",
lengths 10^3 .. 10^8.  On a GPU machine ``--backend cupy --max-exp 9`` adds
10^9 (bench/gpu_check.sh does).  Writes JSON to stdout and, with ``--plot``,
the figure.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

import fsmnet
from fsmnet.gpu import evaluate


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--backend", default="numba")
    parser.add_argument("--spec", default="modadd:5")
    parser.add_argument("--max-exp", type=int, default=8)
    parser.add_argument("--plot", default="")
    parser.add_argument("--json", default="")
    args = parser.parse_args()
    a = fsmnet.load(args.spec)
    rng = np.random.default_rng(0)
    full = rng.integers(0, a.n_symbols, 10 ** args.max_exp, dtype=np.uint8)
    evaluate(a, full[:1000], backend=args.backend, outputs="last")  # compile
    rows = []
    for e in range(3, args.max_exp + 1):
        word = full[:10 ** e]
        reps = max(1, min(20, 10 ** 6 // 10 ** e))
        evaluate(a, word, backend=args.backend, outputs="last")  # warm: each length may
        t0 = time.perf_counter()                                  # pick another path
        for _ in range(reps):
            res = evaluate(a, word, backend=args.backend, outputs="last")
        sec = (time.perf_counter() - t0) / reps
        rows.append({"length": 10 ** e, "seconds": sec, "path": res.path,
                     "backend": res.backend, "ns_per_symbol": sec / 10 ** e * 1e9})
        print(json.dumps(rows[-1]), flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)
    if args.plot:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(5, 3.6))
        ax.loglog([r["length"] for r in rows], [r["seconds"] for r in rows], "o-",
                  label=f"{args.spec}, {args.backend}, outputs=last")
        ax.set_xlabel("input length (symbols)")
        ax.set_ylabel("seconds")
        ax.set_title("fsmnet scan engine: time vs length")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(args.plot, dpi=110)


if __name__ == "__main__":
    main()
