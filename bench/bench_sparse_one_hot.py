"""One-hot networks stored dense and sparse, side by side (``python
bench/bench_sparse_one_hot.py [--spec SPEC] [--arch ARCH] [--certificate]``; not
a test).

Baseline: the same network with every tensor dense (what the compiler wrote
before format 4: ``bilinear-full``'s ``W`` and ``minmax-dense``'s ``R`` are
k × n × n float64, ``bilinear-cp``'s factors U and Z n × R, ``deltaproduct``'s
keys k × n_h × n).  fsmnet: the network
as compiled now (those tensors and the readout as their non-zeros,
``fsmnet.nets.sparse``).  For each: building the network, saving it (file
size), loading it, the exact proof (``fsmnet.verify``), and the scan engine's
table (``fsmnet.gpu.tabulate``); with ``--certificate`` also the
exact-product certificate and the stdlib checker, on the sparse network only
(the dense ones took minutes and gigabytes at S7: docs/performance.md).  Both
verdicts and both tables are checked equal.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from typing import Any

import numpy as np

sys.path.insert(0, "bench")

import fsmnet  # noqa: E402
from fsmnet.gpu.tabulate import tabulate  # noqa: E402
from fsmnet.nets import Network, load_network  # noqa: E402
from fsmnet.nets.sparse import SparseTensor  # noqa: E402

ARCHS = ("bilinear-full", "bilinear-cp", "deltaproduct", "minmax-dense")
"""The constructions whose tensors are stored sparse."""


def timed(fn: Any) -> tuple[Any, float]:
    t0 = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t0


def run(net_of: Any, a: fsmnet.Automaton, folder: str, tag: str) -> dict[str, Any]:
    net, build = timed(net_of)
    path = os.path.join(folder, f"{tag}.safetensors")
    _, save = timed(lambda: net.save(path))
    loaded, load = timed(lambda: load_network(path))
    result, verify = timed(lambda: fsmnet.verify(a, loaded))
    table, tab = timed(lambda: tabulate(load_network(path)))
    return {"build": build, "save": save, "bytes": os.path.getsize(path), "load": load,
            "verify": verify, "verdict": result.verdict, "tabulate": tab,
            "delta": table.automaton.delta, "path": path, "net": loaded}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spec", default="symmetric:6,gens")
    parser.add_argument("--arch", choices=ARCHS, default="bilinear-full")
    parser.add_argument("--certificate", action="store_true")
    args = parser.parse_args()
    a = fsmnet.load(args.spec).minimal()
    print(f"{args.spec} as {args.arch}: {a.n_states} states, {a.n_symbols} symbols, "
          f"{len(a.labels)} labels")

    def dense() -> Network:
        net = fsmnet.compile(a, args.arch)
        params = {k: v.to_dense() if isinstance(v, SparseTensor) else v
                  for k, v in net.stored.items()}
        return Network(arch=net.arch, params=params, symbols=net.symbols, labels=net.labels,
                       options=net.options, name=net.name)

    with tempfile.TemporaryDirectory() as folder:
        old = run(dense, a, folder, "dense")
        new = run(lambda: fsmnet.compile(a, args.arch), a, folder, "sparse")
        assert old["verdict"] == new["verdict"] == "proved"
        assert np.array_equal(old["delta"], new["delta"])
        print(f"{'step':10} {'dense':>12} {'sparse':>12} {'ratio':>8}")
        for key in ("build", "save", "load", "verify", "tabulate", "bytes"):
            unit = "" if key == "bytes" else " s"
            print(f"{key:10} {old[key]:>10.3g}{unit:2} {new[key]:>10.3g}{unit:2} "
                  f"{old[key] / max(new[key], 1e-9):>7.1f}x")
        if args.certificate:
            from fsmnet.proofs.certificate import check_against_network

            cert_path = os.path.join(folder, "cert.json")
            _, write = timed(lambda: fsmnet.verify(a, new["net"], certificate=cert_path,
                                                   network_path=new["path"]))
            with open(cert_path) as handle:
                cert = json.load(handle)
            _, check = timed(lambda: check_against_network(cert, new["path"]))
            print(f"sparse certificate: written in {write:.3g} s "
                  f"({os.path.getsize(cert_path)} bytes), checked in {check:.3g} s")


if __name__ == "__main__":
    main()
