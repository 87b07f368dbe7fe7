"""Float32 benchmark (``python bench/bench_float32.py``; not a test).

Side by side in one process, with ratios:

1. the bit-exact float32 product exploration (fsmnet.proofs.float32_product),
   pairs a minute, against the exact product exploration (fsmnet.proofs.product,
   Fractions) of the same network on the same number of pairs;
2. the float32 reference execution (fsmnet.nets.float32, Numba loop in a fixed
   order) against the float64 scan engine (fsmnet.gpu, numba backend), symbols a
   second on 10^6 random symbols;
3. the stdlib checker's bit-for-bit replay of a float32-product certificate,
   steps a second.

Subjects: modadd:5 compiled for bilinear-r2 (an irrational rotation: its
float32 states never repeat, so the float32 exploration runs to its budget,
while its exact cyclotomic states close) and a parity net padded to H = 16
with contracting extra coordinates, every weight perturbed by 1e-3 (seeded;
its float32 states drift); for the checker, closed products: compiled A4 and
a noisy "ends with ab" net (1e-2).
"""

from __future__ import annotations

import time

import numpy as np

import fsmnet
from fsmnet.gpu.engine import evaluate
from fsmnet.nets.float32 import float32_trace
from fsmnet.proofs.float32_product import explore_float32, float32_certificate
from fsmnet.proofs.product import explore_product
from fsmnet.proofs.verifier import prepare_automaton


def padded_parity(hidden: int, eps: float, seed: int = 0) -> fsmnet.nets.Network:
    net = fsmnet.compile("parity", "bilinear-full")
    w = np.zeros((hidden, hidden, 2))
    w[:2, :2, :] = net.params["W"]
    for j in range(2, hidden):
        w[j, j, :] = 0.5
        w[j, 0, :] = 0.25
    h0 = np.zeros(hidden)
    h0[:2] = net.params["h0"]
    r = np.zeros((2, hidden))
    r[:, :2] = net.params["readout"]
    rng = np.random.default_rng(seed)
    params = {"W": w, "h0": h0, "readout": r}
    params = {k: v + eps * rng.standard_normal(v.shape) * (v != 0) for k, v in params.items()}
    return fsmnet.nets.Network(arch="bilinear-full", params=params, symbols=net.symbols,
                               labels=net.labels, name="padded parity")


def timed(fn):  # type: ignore[no-untyped-def]
    start = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - start


def exploration(spec: str, net: fsmnet.nets.Network) -> None:
    automaton = prepare_automaton(spec, net)
    explore_float32(net, automaton, max_pairs=10)  # compile the loop
    big, t_big = timed(lambda: explore_float32(net, automaton, max_pairs=1_000_000))
    small = 2000
    f32, t32 = timed(lambda: explore_float32(net, automaton, max_pairs=small))
    exact, tex = timed(lambda: explore_product(net, automaton, max_states=small))
    print(f"{net.name or spec:>14} H={net.hidden_size:<3} float32: {len(big.pairs):,} pairs "
          f"({big.status}) in {t_big:.2f} s = {len(big.pairs) / t_big * 60:,.0f} pairs/min | "
          f"{small} pairs: float32 {t32:.3f} s, exact {tex:.3f} s "
          f"({len(exact.pairs)} pairs, {exact.status}), ratio {tex / max(t32, 1e-9):.0f}x")


def execution(spec: str, net: fsmnet.nets.Network, n: int = 1_000_000) -> None:
    word = np.random.default_rng(0).integers(0, len(net.symbols), n).astype(np.uint8)
    float32_trace(net, word[:100])
    evaluate(net, word[:1000], backend="numba", outputs="all")
    _, t32 = timed(lambda: float32_trace(net, word))
    _, t64 = timed(lambda: evaluate(net, word, backend="numba", outputs="all"))
    print(f"{net.name or spec:>14} run of {n:,}: float32 reference {n / t32:,.0f} sym/s, "
          f"float64 engine {n / t64:,.0f} sym/s, time ratio float32/float64 {t32 / t64:.2f}")


def checker(spec: object, net: fsmnet.nets.Network) -> None:
    from fsmnet.proofs.checker.float32_states import check_float32_product

    automaton = prepare_automaton(spec, net)
    found = explore_float32(net, automaton)
    if found.status != "closed":
        print(f"{net.name or spec:>14} checker: no closed product ({found.status})")
        return
    cert = float32_certificate(net, automaton, found)
    _, t = timed(lambda: check_float32_product(cert))
    steps = len(found.states) * len(net.symbols)
    print(f"{net.name or spec:>14} checker replay: {steps} steps in {t:.3f} s = "
          f"{steps / t:,.0f} steps/s (H={net.hidden_size})")


def main() -> None:
    r2 = fsmnet.compile("modadd:5", "bilinear-r2")
    padded = padded_parity(16, 1e-3)
    print("1. float32 product exploration against the exact product exploration")
    exploration("modadd:5", r2)
    exploration("parity", padded)
    print("2. float32 reference execution against the float64 scan engine")
    execution("modadd:5", r2)
    execution("parity", padded)
    print("3. the stdlib checker's replay of a closed float32 product")
    checker("alternating:4", fsmnet.compile("alternating:4", "bilinear-full"))
    ends_ab = fsmnet.automata.Automaton(delta=[[1, 1, 1], [0, 2, 0]], symbols=["a", "b"],
                                        initial=0, outputs=[False, False, True], name="ends-ab")
    net = fsmnet.compile(ends_ab, "bilinear-full")
    rng = np.random.default_rng(0)
    noisy = net.with_params(**{k: v + 1e-2 * rng.standard_normal(v.shape)
                               for k, v in net.params.items()})
    checker(ends_ab, noisy)


if __name__ == "__main__":
    main()
