"""The Dask backend on a LocalCluster of worker processes beside the single-process engine.

Run: ``python bench/bench_dask.py [--length N] [--workers W]``.  The same uint8 input
runs on the Numba backend in this process (every thread) and on a LocalCluster of
``--workers`` processes with one thread each, side by side, best of ``--repeat``.
Two cluster cases: a NumPy input (scattered to the workers, labels gathered back:
what ``evaluate(..., backend="dask")`` on a host array costs), and a dask array
already held by the workers (``persist``; labels left on the workers), which is the
cluster's own throughput.  Labels and final states are checked against the single
process.  Prints one JSON line a case, then the ratios.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

import numba
import numpy as np
from timing import best

import fsmnet
from fsmnet.gpu import evaluate


def on_workers(a: Any, resident: Any, outputs: str) -> None:
    """The cluster's own throughput: input held by the workers, labels left there."""
    from distributed import wait

    res = evaluate(a, resident, backend="dask", outputs=outputs)
    if res.outputs is not None:
        wait(res.outputs.persist())


def main() -> None:
    import dask.array as da
    from distributed import Client, LocalCluster, wait

    parser = argparse.ArgumentParser()
    parser.add_argument("--length", type=int, default=100_000_000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--block", type=int, default=1 << 22)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--specs", default="modadd:5;symmetric:4")
    args = parser.parse_args()
    rows = []
    with LocalCluster(n_workers=args.workers, processes=True, threads_per_worker=1,
                      dashboard_address=None) as cluster, Client(cluster) as client:
        for spec in args.specs.split(";"):
            a = fsmnet.load(spec)
            word = np.random.default_rng(0).integers(0, a.n_symbols, args.length).astype(np.uint8)
            cuts = range(0, args.length, args.block)
            held_blocks = client.scatter([word[c:c + args.block] for c in cuts], hash=False)
            resident = da.concatenate([
                da.from_delayed(f, shape=(len(word[c:c + args.block]),), dtype=np.uint8)
                for f, c in zip(held_blocks, cuts)])
            wait(held_blocks)
            for outputs in ("last", "all"):
                one = evaluate(a, word, backend="numba", outputs=outputs)
                on = evaluate(a, word, backend="dask", outputs=outputs, chunk=args.block)
                kept = evaluate(a, resident, backend="dask", outputs=outputs)
                assert on.state == one.state == kept.state, (spec, outputs)
                if outputs == "all":
                    assert np.array_equal(on.outputs, one.outputs)
                    assert np.array_equal(kept.outputs.compute(), one.outputs)
                single = best(args.repeat, evaluate, a, word, backend="numba", outputs=outputs)
                host = best(args.repeat, evaluate, a, word, backend="dask", outputs=outputs,
                            chunk=args.block)
                held = best(args.repeat, on_workers, a, resident, outputs)
                rows.append({"spec": spec, "outputs": outputs, "length": args.length,
                             "threads": numba.get_num_threads(), "workers": args.workers,
                             "single_path": one.path, "single_seconds": single,
                             "cluster_numpy_seconds": host, "cluster_resident_seconds": held,
                             "cluster_numpy_vs_single": single / host,
                             "cluster_resident_vs_single": single / held})
                print(json.dumps(rows[-1]), flush=True)
        del client
    print(f"\nlength {args.length:.0e}; single process: {rows[0]['threads']} Numba threads; "
          f"cluster: {args.workers} worker processes x 1 thread")
    print(f"{'automaton':<14} {'outputs':<7} {'single G/s':>10} {'numpy in G/s':>12} "
          f"{'x single':>8} {'resident G/s':>12} {'x single':>8}")
    for r in rows:
        n = r["length"]
        print(f"{r['spec']:<14} {r['outputs']:<7} {n / r['single_seconds'] / 1e9:>10.3f} "
              f"{n / r['cluster_numpy_seconds'] / 1e9:>12.3f} "
              f"{r['cluster_numpy_vs_single']:>8.2f} "
              f"{n / r['cluster_resident_seconds'] / 1e9:>12.3f} "
              f"{r['cluster_resident_vs_single']:>8.2f}")


if __name__ == "__main__":
    main()
