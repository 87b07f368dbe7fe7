"""Networks on the scan engine vs simple baselines (CPU), side by side in one process.

* bilinear-full: engine (Numba mat-vec) vs a plain sequential @njit mat-vec and
  a per-step torch loop (``torch.mv(A[x_t], h)``, on a short input);
* minmax-scalar cascade: engine (levelwise scan and sequential) vs a plain
  sequential @njit recurrence.
Run: ``python bench/bench_scan_networks.py``.  One JSON line per case.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np
from numba import njit
from timing import best

import fsmnet
from fsmnet.gpu import evaluate
from fsmnet.gpu.numba_minmax import pack_cascade


@njit(cache=True, nogil=True)
def plain_matvec(mats, symbols, h):  # pragma: no cover - jitted
    size = h.shape[0]
    tmp = np.empty(size)
    for t in range(symbols.shape[0]):
        a = mats[symbols[t]]
        big = 0.0
        for i in range(size):
            acc = 0.0
            for j in range(size):
                acc += a[i, j] * h[j]
            tmp[i] = acc
            big = max(big, abs(acc))
        for i in range(size):
            h[i] = tmp[i] / big
    return h


@njit(cache=True, nogil=True)
def plain_scalar_cascade(rtab, stab, off, dom, above, pstr, sizes, symbols, xs):  # pragma: no cover
    n_units = xs.shape[0]
    coords = np.empty(n_units, dtype=np.int64)
    for t in range(symbols.shape[0]):
        for u in range(n_units):
            coords[u] = min(max(np.int64(np.floor(xs[u])), 1), sizes[u]) - 1
        for u in range(n_units):
            code = 0
            for j in range(above[u]):
                code += coords[j] * pstr[u, j]
            i = off[u] + symbols[t] * dom[u] + code
            xs[u] = max(min(rtab[i], xs[u]), stab[i])
    return xs


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--length", type=int, default=5_000_000)
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    n = args.length
    for spec in ("symmetric:3", "modadd:5"):
        net = fsmnet.compile(fsmnet.load(spec), "bilinear-full")
        word = rng.integers(0, len(net.symbols), n).astype(np.uint8)
        mats = np.ascontiguousarray(net.semantics.matrices(net, False))
        h0 = net.semantics.initial_state(net, False)
        plain_matvec(mats, word[:10], h0.copy())
        evaluate(net, word[:1000], backend="numba")
        base = best(args.repeat, plain_matvec, mats, word, h0.copy())
        eng = {o: best(args.repeat, evaluate, net, word, backend="numba", outputs=o)
               for o in ("last", "all")}
        import torch

        steps = 2000
        tm = torch.tensor(mats)
        th = torch.tensor(h0)
        t0 = time.perf_counter()
        for x in word[:steps]:
            th = torch.mv(tm[int(x)], th)
            th = th / th.abs().max()
        torch_ns = (time.perf_counter() - t0) / steps * 1e9
        row = {"case": f"bilinear-full {spec}", "H": int(h0.shape[0]),
               "plain_ns": base / n * 1e9, "engine_last_ns": eng["last"] / n * 1e9,
               "engine_all_ns": eng["all"] / n * 1e9, "torch_loop_ns": torch_ns,
               "engine_last_vs_plain": base / eng["last"],
               "engine_last_vs_torch": torch_ns / (eng["last"] / n * 1e9)}
        print(json.dumps(row))
    for spec in ("contains:abc", "contains:abcd"):
        net = fsmnet.compile(fsmnet.load(spec), "minmax-scalar")
        p = pack_cascade(net)
        word = rng.integers(0, len(net.symbols), n).astype(np.uint8)
        xs0 = np.array([net.params[f"unit{u}_x0"][0] for u in range(len(p.kinds))])
        plain_scalar_cascade(p.rtab, p.stab, p.off_rs, p.dom, p.above, p.pstr, p.sizes,
                             word[:10], xs0.copy())
        for path in ("levelwise", "sequential"):
            evaluate(net, word[:100_000], backend="numba", path=path)
        base = best(args.repeat, plain_scalar_cascade, p.rtab, p.stab, p.off_rs, p.dom, p.above,
                    p.pstr, p.sizes, word, xs0.copy())
        row = {"case": f"minmax-scalar {spec}", "units": len(p.kinds), "plain_ns": base / n * 1e9}
        for path in ("levelwise", "sequential", "auto"):
            for o in ("last", "all"):
                sec = best(args.repeat, evaluate, net, word, backend="numba", path=path,
                           outputs=o)
                row[f"{path}_{o}_ns"] = sec / n * 1e9
                row[f"{path}_{o}_vs_plain"] = base / sec
        print(json.dumps(row))


if __name__ == "__main__":
    main()
