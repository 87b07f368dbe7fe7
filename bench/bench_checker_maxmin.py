"""The checker's max-min step on one-hot vectors: row maxima against the plain formula.

Side by side in one process, on the one-unit minmax-cascade of random machines
(fsmnet/constructions/minmax_dense_unit.py): every (state, letter) step the
checker takes when it re-verifies the product proof, computed by the plain
formula x'_i = max(max_j min(R_ij, x_j), s_i) (the baseline, O(n²) a step) and
by the checker's one-hot path (row maxima kept, O(n) a step;
fsmnet/proofs/checker/models.py).  Both must give the same vectors.  Prints one
line per case with the ratio.

    python bench/bench_checker_maxmin.py
"""

from __future__ import annotations

import time
from fractions import Fraction

import fsmnet
from fsmnet.constructions.minmax_dense_unit import dense_unit_network
from fsmnet.proofs.checker import models

CASES = ["random:n=60,k=2,seed=1", "random:n=200,k=2,seed=3", "random:n=400,k=2,seed=5"]


def _plain(rows: list[list[Fraction]], s: list[Fraction], x: list[Fraction]) -> list[Fraction]:
    return [max(max(min(r, v) for r, v in zip(row, x)), si) for row, si in zip(rows, s)]


def main() -> None:
    for spec in CASES:
        a = fsmnet.load(spec).minimal()
        net = dense_unit_network(a, why="bench")
        n = a.n_states
        mats = [[[Fraction(int(v)) for v in row] for row in net.params["unit0_R"][sym, 0]]
                for sym in range(a.n_symbols)]
        s = [Fraction(0)] * n
        xs = [[Fraction(int(j == q)) for j in range(n)] for q in range(n)]
        t0 = time.perf_counter()
        base = [_plain(m, s, x) for m in mats for x in xs]
        t1 = time.perf_counter()
        wrapped = [models._MaxMinMatrix(m) for m in mats]  # row maxima counted in the time
        fast = [models._affine(w, s, x) for w in wrapped for x in xs]
        t2 = time.perf_counter()
        assert fast == base, spec
        print(f"{spec} ({n} states, {len(base):,} steps): plain {t1 - t0:.2f} s, "
              f"one-hot {t2 - t1:.3f} s, {(t1 - t0) / (t2 - t1):.0f}x", flush=True)


if __name__ == "__main__":
    main()
