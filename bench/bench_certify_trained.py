"""Certify on trained H = 64 networks (``python bench/bench_certify_trained.py``; not a
test; about 5 minutes on 2 cores).

Subjects: ``bilinear-full`` networks of H = 64 trained by ``fsmnet.train`` (300 steps,
seed 0, one thread) on parity and on "the last letter is b" (a rotating pair of
letters).  For each, exact and ``--float32``, side by side in this process:

* before: the zonotope template without a size budget
  (``zonotope.MAX_EXTRA`` unbounded: one LP per generator and symbol, about 500
  generators at H = 64);
* after: the budget as shipped (``zonotope.MAX_EXTRA``).

Prints verdict, seconds and the ratio after / before.  The target of the certify
issue is every certify at H ≤ 64 under 30 s.
"""

from __future__ import annotations

import time

import numpy as np

import fsmnet
from fsmnet.automata import Automaton
from fsmnet.proofs.abstract import zonotope
from fsmnet.proofs.abstract.certify import certify
from fsmnet.train.convert import to_network
from fsmnet.train.loop import TrainConfig, train

LAST = Automaton(delta=np.array([[0, 0], [1, 1]]), symbols=("a", "b"), initial=0,
                 outputs=(False, True), name="last letter is b")
SUBJECTS = {"parity": fsmnet.load("parity"), "last letter": LAST}


def timed(spec: Automaton, net: fsmnet.nets.Network, float32: bool, budget: int
          ) -> tuple[str, float]:
    shipped = zonotope.MAX_EXTRA
    zonotope.MAX_EXTRA = budget
    try:
        t0 = time.perf_counter()
        res = certify(spec, net, float32=float32)
        return (f"{res.verdict} ({res.method}{', ' + res.domain if res.domain else ''})",
                time.perf_counter() - t0)
    finally:
        zonotope.MAX_EXTRA = shipped


def main() -> None:
    print("| subject | mode | before: verdict, s | after: verdict, s | after / before |")
    print("|---|---|---|---|---|")
    for name, spec in SUBJECTS.items():
        res = train(spec, TrainConfig(arch="bilinear-full", hidden=64, steps=300, seed=0,
                                      threads=1))
        net = to_network(res.module, res.automaton.symbols, res.automaton.labels, name=name)
        for float32 in (False, True):
            v0, t0 = timed(spec, net, float32, 10**9)
            v1, t1 = timed(spec, net, float32, zonotope.MAX_EXTRA)
            mode = "--float32" if float32 else "exact"
            print(f"| {name} | {mode} | {v0}, {t0:.1f} | {v1}, {t1:.1f} | {t1 / t0:.2f} |",
                  flush=True)


if __name__ == "__main__":
    main()
