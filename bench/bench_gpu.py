"""GPU benchmark of the scan engine against the two GPU baselines of issue #6.

* Automata (<= 16 states): 10^9 uint8 symbols already on the device, outputs
  "last", against a device-to-device copy of the same input (the bandwidth
  floor: the scan must read every symbol once).  Target: within 3x the copy.
* Bilinear networks (H <= 16): against a single-pass mat-vec chase, a kernel
  written here (one thread a chunk, starting from known vectors, one H x H
  mat-vec a symbol, no rescaling), so it shares no code with fsmnet.
  Target: within 3x the chase.  Both fsmnet paths are timed: "auto" (the
  network runs as its reachable-state automaton) and "direct" (chunk products).

Every final state is checked against the Numba backend on the host.  Each
case is written to the JSON file as soon as it is done, so a timeout loses
only the case it interrupts.  Runs on the CUDA emulator too (tests use it
with a short --length), where the figures mean nothing.

    python bench/bench_gpu.py --length 1000000000 --json out.json
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from typing import Any

import cupy
import numpy as np

import fsmnet
from fsmnet.gpu import evaluate

CHASE = r"""
extern "C" __global__ void chase(const double* mats, const unsigned char* symbols,
                                 long long n, long long chunk, const double* starts,
                                 double* finals) {
    long long c = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long begin = c * chunk;
    if (begin >= n) return;
    long long end = begin + chunk < n ? begin + chunk : n;
    double v[H], w[H];
    for (int i = 0; i < H; ++i) v[i] = starts[i];
    for (long long t = begin; t < end; ++t) {
        const double* a = mats + (long long)symbols[t] * H * H;
        for (int i = 0; i < H; ++i) {
            double acc = 0.0;
            for (int k = 0; k < H; ++k) acc += a[i * H + k] * v[k];
            w[i] = acc;
        }
        for (int i = 0; i < H; ++i) v[i] = w[i];
    }
    for (int i = 0; i < H; ++i) finals[c * H + i] = v[i];
}
"""
CHASE_CHUNK = 4096


def best_of(fn: Callable[[], Any], reps: int) -> float:
    fn()  # warm-up: compiles kernels, fills caches
    cupy.cuda.Device().synchronize()
    best = float("inf")
    for _ in range(reps):
        begin = time.perf_counter()
        fn()
        cupy.cuda.Device().synchronize()
        best = min(best, time.perf_counter() - begin)
    return best


def automaton_case(spec: str, n: int, reps: int) -> dict[str, Any]:
    a = fsmnet.load(spec)
    host = np.random.default_rng(1).integers(0, a.n_symbols, n, dtype=np.uint8)
    word = cupy.asarray(host)
    copy = cupy.empty_like(word)
    t_copy = best_of(lambda: copy.__setitem__(slice(None), word), reps)
    t_last = best_of(lambda: evaluate(a, word, backend="cupy", outputs="last"), reps)
    res = evaluate(a, word, backend="cupy", outputs="last")
    cpu = evaluate(a, host, backend="numba", outputs="last")
    return {"spec": spec, "states": a.n_states, "length": n, "path": res.path,
            "seconds_last": t_last, "seconds_d2d_copy": t_copy,
            "ratio_vs_copy": t_last / t_copy, "target_ratio": 3.0,
            "symbols_per_second": n / t_last, "state_matches_numba": res.state == cpu.state}


def bilinear_case(spec: str, n: int, reps: int) -> dict[str, Any]:
    net = fsmnet.compile(fsmnet.load(spec), "bilinear-full")
    h_size = int(net.semantics.hidden_size(net))
    host = np.random.default_rng(2).integers(0, len(net.symbols), n, dtype=np.uint8)
    word = cupy.asarray(host)
    mats = cupy.asarray(np.ascontiguousarray(net.semantics.matrices(net, False),
                                             dtype=np.float64))
    h0 = cupy.asarray(np.asarray(net.semantics.initial_state(net, False), dtype=np.float64))
    n_chunks = -(-n // CHASE_CHUNK)
    finals = cupy.empty((n_chunks, h_size))
    kern = cupy.RawModule(code=CHASE, options=(f"-DH={h_size}",)).get_function("chase")
    grid = (-(-n_chunks // 256),)

    def chase() -> None:
        kern(grid, (256,), (mats, word, np.int64(n), np.int64(CHASE_CHUNK), h0, finals))

    t_chase = best_of(chase, reps)
    cpu = evaluate(net, host, backend="numba", outputs="last")
    row: dict[str, Any] = {"spec": spec, "H": h_size, "length": n,
                           "seconds_chase": t_chase, "target_ratio": 3.0}
    for path in ("auto", "direct"):
        t = best_of(lambda p=path: evaluate(net, word, backend="cupy", outputs="last",
                                            path=p), reps)
        res = evaluate(net, word, backend="cupy", outputs="last", path=path)
        row[path] = {"path": res.path, "seconds_last": t, "ratio_vs_chase": t / t_chase,
                     "state_matches_numba": bool(np.allclose(res.state, cpu.state))}
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--length", type=int, default=10 ** 9)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--json", default="", help="write the results here, case by case")
    args = parser.parse_args()
    cases: list[tuple[str, Callable[[], dict[str, Any]]]] = [
        (f"automaton {s}", lambda s=s: automaton_case(s, args.length, args.reps))
        for s in ("modadd:5", "symmetric:3", "random:n=16,k=4,seed=1")]
    cases += [(f"bilinear {s}", lambda s=s: bilinear_case(s, args.length, args.reps))
              for s in ("symmetric:3", "random:n=16,k=3,seed=2,classes=2")]
    out: dict[str, Any] = {"device": str(cupy.cuda.runtime.getDeviceProperties(0)["name"]),
                           "emulated": bool(getattr(cupy, "EMULATED", False))}
    for name, run in cases:
        try:
            out[name] = run()
        except Exception as exc:  # record it and go on: the next case may still run
            out[name] = {"error": f"{type(exc).__name__}: {exc}"}
        print(name, json.dumps(out[name]), flush=True)
        if args.json:
            with open(args.json, "w") as f:
                json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
