"""Cost of ``fsmnet expressivity`` against the number of states, per architecture.

Run from the repository root:
    python bench/bench_expressivity.py [--big | --only-big] [--letters] [--cells] [--skip ARCH,ARCH]

For each automaton (group word problems with generator letters, and random
machines) and each registered architecture, prints the wall time of its
verdict.  Side by side, for bilinear-cp and deltaproduct on the small cases,
the baseline is the generic exact product exploration (dense Fraction
vectors, ``fast_paths=False``), which is what the verifier did for these two
classes before their exact matrices got the one-hot fast path; the ratio is
baseline / fsmnet for the proof step alone.
"""

from __future__ import annotations

import sys
import time

import fsmnet
from fsmnet import archs
from fsmnet.constructions import compile_automaton
from fsmnet.decide.expressivity import expressivity
from fsmnet.proofs.product import explore_product

SMALL = ["alternating:4,gens", "symmetric:4,gens", "alternating:5,gens", "symmetric:5,gens"]
# --skip ARCH[,ARCH]: leave classes out (e.g. one whose construction is being reworked).
SKIP = set(sys.argv[sys.argv.index("--skip") + 1].split(",")) if "--skip" in sys.argv else set()
BIG = ["symmetric:6,gens", "random:n=1000,k=3,seed=1,classes=4"]
# --letters: S5 with all 120 elements as letters (the other benches use 2 generators).
LETTERS = ["symmetric:5"]


def row(spec: str) -> None:
    m = fsmnet.load(spec).minimal()
    cells = []
    for arch in archs.ids():
        if arch in SKIP:
            continue
        t0 = time.perf_counter()
        verdict = expressivity(m, [arch])[0].verdict
        cells.append(f"{arch}={time.perf_counter() - t0:.2f}s({verdict[:4]})")
        if "--cells" in sys.argv:  # one line per class, as soon as it is known
            print(f"  {spec} {cells[-1]}", flush=True)
    print(f"{spec:38s} n={m.n_states:4d} k={m.n_symbols:3d}  " + " ".join(cells), flush=True)


def baseline(spec: str) -> None:
    m = fsmnet.load(spec).minimal()
    for arch in ("bilinear-cp", "deltaproduct"):
        net = compile_automaton(m, arch)
        t0 = time.perf_counter()
        fast = explore_product(net, m).status
        t_fast = time.perf_counter() - t0
        t0 = time.perf_counter()
        slow = explore_product(net, m, fast_paths=False).status
        t_slow = time.perf_counter() - t0
        assert fast == slow == "closed"
        print(f"  proof step {arch:13s} {spec}: baseline {t_slow:.2f}s, fsmnet {t_fast:.3f}s, "
              f"ratio {t_slow / max(t_fast, 1e-9):.0f}x", flush=True)


if __name__ == "__main__":
    if "--only-big" not in sys.argv:
        for spec in SMALL:
            row(spec)
        for spec in SMALL[:3]:
            baseline(spec)
    if "--big" in sys.argv or "--only-big" in sys.argv:
        for spec in BIG:
            row(spec)
    if "--letters" in sys.argv:
        for spec in LETTERS:
            row(spec)
