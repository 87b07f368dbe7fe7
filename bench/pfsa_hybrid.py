"""The hybrid (linear recurrence + renormalization) at 10^9 steps, beside the pure one.

Usage: python bench/pfsa_hybrid.py [LENGTH]   (default 10^9; pieces of 2^24)

Word: the paper's decay sequence (pswap01 show0=a)^k on pcups:3.  The pure
linear recurrence (no renormalization, float32) reaches an all-zero state at
step 299, as fsmnet.proofs.pfsa_underflow predicts exactly.  The compiled
bilinear-full network run by the scan engine (numba, float64, rescaled by its
largest entry every step: renormalization period 1) is compared at the end
with the exact belief, which is periodic along this word.
"""

from __future__ import annotations

import sys
import time

import numpy as np

from fsmnet.automata.pfsa_families import cups, joint_decay_period
from fsmnet.constructions.pfsa_bilinear import compile_pfsa_bilinear
from fsmnet.gpu.engine import evaluate
from fsmnet.proofs.pfsa_underflow import predict, run_float


def main(length: int) -> None:
    m = cups(3)
    period = m.encode(joint_decay_period())
    pure = run_float(m, [], period, "float32")
    print(f"pure linear float32: all-zero at step {pure['zero_step']} "
          f"(exact prediction {predict(m, [], period, 'float32').zero_step})")
    net = compile_pfsa_bilinear(m)
    # Baseline: the same renormalized recurrence as a numpy loop (10^5 steps).
    mats = net.semantics.matrices(net, False)
    hb = np.array(net.params["h0"])
    base_steps = 100_000
    t0 = time.perf_counter()
    for t in range(base_steps):
        hb = mats[period[t % len(period)]].dot(hb)
        hb = hb / np.max(np.abs(hb))
    base_rate = base_steps / (time.perf_counter() - t0)
    print(f"baseline numpy loop (renormalized): {base_rate:,.0f} steps/s")
    piece = 1 << 24
    block = np.tile(np.array(period, dtype=np.uint8), piece // len(period))
    h = None
    done = 0
    begin = time.perf_counter()
    while done < length:
        take = min(piece, length - done)
        take -= take % len(period)
        res = evaluate(net, block[:take], backend="numba", outputs="last", start=h,
                       path="direct")
        h = res.state
        done += take
    seconds = time.perf_counter() - begin
    belief = m.belief(list(joint_decay_period()) * 2)  # the exact belief after any (u)^k
    top = max(belief)
    want = np.array([float(x / top) for x in belief])
    ok = bool(np.all(np.isfinite(h)) and np.array_equal(h, want))
    print(f"hybrid (engine, numba, renormalized every step): {done:,} steps in {seconds:.1f} s "
          f"({done / seconds:,.0f} steps/s); final state finite and equal to the exact "
          f"belief: {ok}; max entry {np.max(h)}; {done / seconds / base_rate:.0f}x the numpy "
          "loop")


if __name__ == "__main__":
    main(int(float(sys.argv[1])) if len(sys.argv) > 1 else 10**9)
