"""Fixed-point radius and iterations to 1e-12, untuned (random unimodular S) against
tuned (S and Λ tuned jointly), in one process (issue 11, §4).

    python bench/bench_fixed_point_radius.py [spec ...]

Radius: max over letters of ρ(I − Λ_σ A_σ⁻¹) (numpy eigenvalues of the
network's float tensors).  Iterations: the worst letter's count of
``iterate_fixed_point(tol=1e-12)`` from h0; above 200,000 the estimate
⌈ln 10⁻¹² / ln ρ⌉ is printed with "≈".  Above H = 32 the default compile refuses;
"after" then uses ``compile_fixed_point_blocks`` (exactly block-diagonal).
"""

from __future__ import annotations

import math
import sys
import time

import numpy as np

import fsmnet.constructions.fixed_point_tuning as tuning
from fsmnet.automata import load
from fsmnet.constructions import compile_automaton
from fsmnet.constructions.fixed_point_blocks import compile_fixed_point_blocks
from fsmnet.errors import NotExpressible
from fsmnet.nets.fixed_point import iterate_fixed_point

SPECS = ["symmetric:3", "symmetric:3,gens", "alternating:4", "alternating:4,gens",
         "symmetric:5,gens"]
CAP = 200_000


def _measure(spec: str, tuned: bool) -> str:
    a = load(spec).minimal()
    saved = tuning.tuned_encoding
    if not tuned:
        tuning.tuned_encoding = lambda reps, seed=0: None  # the old random search only
    start = time.perf_counter()
    how = ""
    try:
        net = compile_automaton(a, "fixed-point")
    except NotExpressible as exc:
        if not (tuned and "hidden size" in str(exc)):
            return f"refused ({time.perf_counter() - start:.1f} s): {str(exc)[:70]}"
        net, how = compile_fixed_point_blocks(a), "exact blocks, "  # above H = 32, on request
    finally:
        tuning.tuned_encoding = saved
    took = time.perf_counter() - start
    worst_r, worst_it = 0.0, "0"
    for sym in range(a.n_symbols):
        lam, q = net.params["Lambda"][sym], net.params["Q"][sym]
        m = (1 - lam)[:, None] * (np.eye(len(lam)) - q)
        r = float(max(abs(np.linalg.eigvals(m))))
        try:
            its = str(iterate_fixed_point(net, sym, net.params["h0"], tol=1e-12,
                                          max_iter=CAP)[1])
        except RuntimeError:
            its = f"≈{math.ceil(math.log(1e-12) / math.log(r)):.2g}"
        if r > worst_r:
            worst_r, worst_it = r, its
    hidden = net.params["Lambda"].shape[1]
    return (f"H {hidden}, radius {worst_r:.6f}, iterations {worst_it} "
            f"({how}compile {took:.1f} s)")


def main(specs: list[str]) -> None:
    for spec in specs:
        before = _measure(spec, tuned=False)
        after = _measure(spec, tuned=True)
        print(f"{spec}\n  before: {before}\n  after:  {after}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:] or SPECS)
