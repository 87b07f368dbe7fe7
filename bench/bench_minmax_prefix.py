"""MinMax cascade tables: mixed-radix (format 1) vs reached-prefix links (format 2).

Both layouts of the same holonomy cascade side by side, in one process: the
number of stored parameters, compile time, and the exact product proof.
Where the mixed-radix tables exceed 2^26 entries the dense layout is refused
(printed as "refused"), which is what the compiler did before prefix links.

    python bench/bench_minmax_prefix.py
"""

from __future__ import annotations

import time

from fsmnet.automata import load
from fsmnet.constructions.minmax_cascade import cascade_network
from fsmnet.constructions.minmax_holonomy import holonomy_spec
from fsmnet.errors import NotExpressible
from fsmnet.proofs.verifier import verify

SPECS = ["latch:4", "contains:aba", "random:n=8,k=2,seed=3", "sequences:2",
         "sequences:3", "sequences:2,tracks=3"]


def _one(spec: str, prefix_index: bool) -> str:
    a = load(spec).minimal()
    t0 = time.process_time()
    try:
        net = cascade_network(holonomy_spec(a), a, prefix_index=prefix_index)
    except NotExpressible:
        return f"{'refused':>12} {'':>9} {'':>9}"
    t1 = time.process_time()
    verdict = verify(a, net).verdict
    t2 = time.process_time()
    return f"{net.n_params:>12,} {t1 - t0:>8.2f}s {t2 - t1:>8.2f}s {verdict}"


def main() -> None:
    print(f"{'spec':<24} {'layout':<8} {'params':>12} {'compile':>9} {'verify':>9}")
    for spec in SPECS:
        for prefix_index, name in ((False, "dense"), (True, "prefix")):
            print(f"{spec:<24} {name:<8} {_one(spec, prefix_index)}", flush=True)


if __name__ == "__main__":
    main()
