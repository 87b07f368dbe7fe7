"""Cost of ``fsmnet expressivity`` against the number of states, per architecture.

Run from the repository root:
    python bench/bench_expressivity.py [--big | --only-big] [--letters] [--cells]
                                       [--skip ARCH,ARCH] [--no-baseline]

For each automaton (group word problems with generator letters, S5 with 3
letters, S5 with all 120 elements as letters under ``--letters``, and ~1,000
state groups and a random machine under ``--big``) and each registered
architecture, prints the wall time of its verdict and the row's total.

Baselines, side by side in the same process (ratio = baseline / fsmnet):
- bilinear-cp and deltaproduct, proof step: the generic exact product
  exploration (dense Fraction vectors, ``fast_paths=False``);
- bilinear-block, proof step: the same generic exploration of the same
  network (what the verifier did before the block fast path);
- bilinear-block, congruence enumeration: the brute-force routine it replaced
  (tests/congruence_oracle.py: n(n-1)/2 closures with every letter, then all
  pairwise joins, each closed again), checked to give the same set.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

import fsmnet
from fsmnet import archs
from fsmnet.automata import Automaton
from fsmnet.constructions import compile_automaton
from fsmnet.constructions.congruences import congruences
from fsmnet.decide.expressivity import expressivity
from fsmnet.proofs.product import explore_product

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from congruence_oracle import brute_force_congruences  # noqa: E402

S5_3 = "S5, 3 letters"  # the two generators and their product (built below)
SMALL = ["alternating:4,gens", "symmetric:4,gens", "alternating:5,gens", "symmetric:5,gens",
         S5_3]
# --skip ARCH[,ARCH]: leave classes out (e.g. one whose construction is being reworked).
SKIP = set(sys.argv[sys.argv.index("--skip") + 1].split(",")) if "--skip" in sys.argv else set()
BIG = ["symmetric:6,gens", "cyclic:8*cyclic:2*alternating:5,gens", "dihedral:500,gens",
       "random:n=1000,k=3,seed=1,classes=4"]
# --letters: S5 with all 120 elements as letters (the other rows use few letters).
LETTERS = ["symmetric:5"]


def machine(spec: str) -> Automaton:
    if spec != S5_3:
        return fsmnet.load(spec).minimal()
    s5 = fsmnet.load("symmetric:5,gens").minimal()
    product = s5.delta[1][s5.delta[0]]  # first generator 0, then generator 1
    return Automaton(delta=np.vstack([s5.delta, product[None]]),
                     symbols=(*s5.symbols, "g0·g1"), outputs=s5.outputs,
                     initial=s5.initial, name=S5_3).minimal()


def row(spec: str) -> None:
    m = machine(spec)
    cells, total = [], 0.0
    for arch in archs.ids():
        if arch in SKIP:
            continue
        t0 = time.perf_counter()
        result = expressivity(m, [arch])[0]
        elapsed = time.perf_counter() - t0
        total += elapsed
        blocks = f"{result.size['blocks']}" if result.size and "blocks" in result.size else ""
        cells.append(f"{arch}={elapsed:.2f}s({result.verdict[:4]}{blocks})")
        if "--cells" in sys.argv:  # one line per class, as soon as it is known
            print(f"  {spec} {cells[-1]}", flush=True)
    print(f"{spec:38s} n={m.n_states:4d} k={m.n_symbols:3d} total={total:.1f}s  "
          + " ".join(cells), flush=True)


def baseline(spec: str) -> None:
    m = machine(spec)
    for arch in ("bilinear-cp", "deltaproduct", "bilinear-block"):
        net = compile_automaton(m, arch)
        t0 = time.perf_counter()
        fast = explore_product(net, m).status
        t_fast = time.perf_counter() - t0
        t0 = time.perf_counter()
        slow = explore_product(net, m, fast_paths=False).status
        t_slow = time.perf_counter() - t0
        assert fast == slow == "closed"
        print(f"  proof step {arch:14s} {spec}: baseline {t_slow:.2f}s, fsmnet {t_fast:.3f}s, "
              f"ratio {t_slow / max(t_fast, 1e-9):.0f}x", flush=True)
    t0 = time.perf_counter()
    found, complete = congruences(m.delta, 10**6)
    t_fast = time.perf_counter() - t0
    t0 = time.perf_counter()
    want = brute_force_congruences(m.delta)
    t_slow = time.perf_counter() - t0
    assert complete and found == want
    print(f"  congruences ({len(found)}) {spec}: baseline {t_slow:.2f}s, fsmnet {t_fast:.3f}s, "
          f"ratio {t_slow / max(t_fast, 1e-9):.0f}x", flush=True)


if __name__ == "__main__":
    if "--only-big" not in sys.argv:
        for spec in SMALL:
            row(spec)
        if "--no-baseline" not in sys.argv:
            for spec in SMALL[:3]:
                baseline(spec)
    if "--letters" in sys.argv:
        for spec in LETTERS:
            row(spec)
    if "--big" in sys.argv or "--only-big" in sys.argv:
        for spec in BIG:
            row(spec)
