"""Automata on the scan engine vs a plain sequential @njit loop and automata-lib (CPU).

Run: ``python bench/bench_scan_automata.py [--length N]``.  Prints one JSON line
per case, then ratios.  Everything runs in one process, side by side, best of
``--repeat`` runs (the machine is shared: take the figures as indications).
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
from fsmnet.gpu.common import cayley_table
from fsmnet.gpu.words import word_length


@njit(cache=True, nogil=True)
def plain_loop(delta, labels, symbols, q, out):  # pragma: no cover - jitted
    """The baseline: one table lookup a symbol (and the label, as the engine writes)."""
    write = out.shape[0] > 0
    for t in range(symbols.shape[0]):
        q = delta[symbols[t], q]
        if write:
            out[t] = labels[q]
    return q


def automata_lib_ns_per_symbol(a, word):
    from fsmnet.automata.convert import to_automata_lib

    dfa = to_automata_lib(a)
    names = [a.symbols[i] for i in word]
    t0 = time.perf_counter()
    for _ in dfa.read_input_stepwise(names, ignore_rejection=True):
        pass
    return (time.perf_counter() - t0) / len(word) * 1e9


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--length", type=int, default=30_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--specs", default="parity;modadd:5;symmetric:4",
                        help="automata separated by ';' (family arguments use commas)")
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    rows = []
    for spec in args.specs.split(";"):
        a = fsmnet.load(spec)
        word = rng.integers(0, a.n_symbols, args.length).astype(np.uint8)
        delta = np.ascontiguousarray(a.delta)
        out = np.empty(len(word), dtype=np.int64)
        none = np.empty(0, dtype=np.int64)
        plain_loop(delta, a.output_ids, word[:10], a.initial, out[:10])  # compile
        paths = ["auto", "words", "ilp", "cayley", "sequential"]
        if word_length(a.n_symbols, a.n_states) == 1:
            paths.remove("words")
        if cayley_table(a) is None:  # the monoid is too large for a table
            paths = [p for p in paths if p not in ("ilp", "cayley")] + ["live"]
        for path in paths:
            evaluate(a, word[:200_000], backend="numba", path=path)  # compile and warm caches
        base = {"last": best(args.repeat, plain_loop, delta, a.output_ids, word, a.initial, none),
                "all": best(args.repeat, plain_loop, delta, a.output_ids, word, a.initial, out)}
        for outputs in ("last", "all"):
            for path in paths:
                sec = best(args.repeat, evaluate, a, word, backend="numba", path=path,
                           outputs=outputs)
                used = evaluate(a, word[:200_000], backend="numba", path=path,
                                outputs=outputs).path
                rows.append({"spec": spec, "outputs": outputs, "path": path, "used": used,
                             "ns_per_symbol": sec / len(word) * 1e9,
                             "plain_ns_per_symbol": base[outputs] / len(word) * 1e9,
                             "speedup_vs_plain": base[outputs] / sec})
                print(json.dumps(rows[-1]))
        if not a.is_acceptor:
            continue  # automata-lib DFAs accept or reject: compare on acceptors only
        lib = automata_lib_ns_per_symbol(a, word[:100_000])
        eng = min(r["ns_per_symbol"] for r in rows if r["spec"] == spec and r["path"] == "auto")
        rows.append({"spec": spec, "automata_lib_ns_per_symbol": lib,
                     "speedup_vs_automata_lib": lib / eng})
        print(json.dumps(rows[-1]))


if __name__ == "__main__":
    main()
