"""Automata on the scan engine against the machine's own copy bandwidth (issue 34, item 5).

Run: ``python bench/bench_scan_bandwidth.py [--length N] [--repeat R]``.  A scan reads
one byte and writes one label a symbol, as ``np.copyto`` of the same uint8 array
does, so the copy of the same length, measured in the same process just before
each case, is the ceiling.  A second baseline, ``np.copy``, allocates its
destination as the engine allocates its labels (fresh pages cost the kernel's
zeroing on first touch): the fair ceiling for outputs="all".  Prints one JSON line
a case (symbols/s, the copies' bytes/s, the ratios), then a summary.  Paths:
``auto`` (what the engine picks), and for comparison ``words`` (m symbols a
lookup, one thread) and ``sequential``.  Every run's final state (and labels, on
a prefix) is checked against the sequential path.
"""

from __future__ import annotations

import argparse
import json

import numba
import numpy as np
from timing import best

import fsmnet
from fsmnet.errors import SpecError
from fsmnet.gpu import evaluate

SPECS = "modadd:5;parity;symmetric:3;symmetric:4;random:n=7,k=3,seed=4"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--length", type=int, default=100_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--specs", default=SPECS, help="automata separated by ';'")
    parser.add_argument("--paths", default="auto,words,sequential")
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    threads = numba.get_num_threads()
    rows = []
    for spec in args.specs.split(";"):
        a = fsmnet.load(spec)
        word = rng.integers(0, a.n_symbols, args.length).astype(np.uint8)
        copy = np.empty_like(word)
        probe = word[:300_000]
        want = evaluate(a, probe, backend="numba", path="sequential")
        final = None
        for outputs in ("last", "all"):
            for path in args.paths.split(","):
                try:
                    small = evaluate(a, probe, backend="numba", path=path, outputs=outputs)
                except SpecError:
                    continue  # e.g. no word tables for this automaton
                assert small.state == want.state
                if outputs == "all":
                    assert np.array_equal(small.outputs, want.outputs)
                copy_s = best(args.repeat, np.copyto, copy, word)
                fresh_s = best(args.repeat, np.copy, word)
                res = evaluate(a, word, backend="numba", path=path, outputs=outputs)
                if final is None:
                    final = res.state
                assert res.state == final, (spec, path, outputs)
                sec = best(args.repeat, evaluate, a, word, backend="numba", path=path,
                           outputs=outputs)
                rows.append({"spec": spec, "outputs": outputs, "path": path, "used": res.path,
                             "length": args.length, "threads": threads,
                             "symbols_per_second": args.length / sec,
                             "copy_bytes_per_second": args.length / copy_s,
                             "ratio_to_copy": copy_s / sec,
                             "copy_alloc_bytes_per_second": args.length / fresh_s,
                             "ratio_to_copy_alloc": fresh_s / sec})
                print(json.dumps(rows[-1]), flush=True)
    print(f"\nlength {args.length:.0e}, {threads} threads; copy = np.copyto of the same "
          "uint8 array (one byte read and one written a symbol)")
    print(f"{'automaton':<14} {'outputs':<7} {'path (used)':<24} {'G symbols/s':>11} "
          f"{'copy GB/s':>9} {'x copy':>7} {'alloc+copy GB/s':>15} {'x':>5}")
    for r in rows:
        print(f"{r['spec']:<14} {r['outputs']:<7} {r['path'] + ' (' + r['used'] + ')':<24} "
              f"{r['symbols_per_second'] / 1e9:>11.2f} {r['copy_bytes_per_second'] / 1e9:>9.2f} "
              f"{r['ratio_to_copy']:>7.2f} {r['copy_alloc_bytes_per_second'] / 1e9:>15.2f} "
              f"{r['ratio_to_copy_alloc']:>5.2f}")


if __name__ == "__main__":
    main()
