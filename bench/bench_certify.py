"""Certify benchmark (``python bench/bench_certify.py``; not a test).

Subjects: the compiled bilinear-full network of a "last k symbols" window
automaton (a definite automaton, so the perturbed network is still equal to
it), every weight perturbed by 1e-4 (seeded), and for the H sweep embedded
in H dimensions (extra coordinates decaying by 1/2 per step, then perturbed
too).  For each: the time of ``certify`` (search + exact check), of the
independent checker on the certificate, and, beside them in the same process,
the baseline of exact brute force over every word up to length 10 (which
proves nothing beyond length 10), with the ratio.
"""

from __future__ import annotations

import itertools
import json
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, "tests")

import fsmnet  # noqa: E402
from fsmnet.automata import Automaton  # noqa: E402
from fsmnet.proofs.checker import check_certificate  # noqa: E402


def window(k: int, seed: int = 1) -> Automaton:
    states = list(itertools.product(range(2), repeat=k))
    idx = {s: i for i, s in enumerate(states)}
    delta = [[idx[s[1:] + (a,)] for s in states] for a in range(2)]
    outs = [int(x) for x in np.random.default_rng(seed).integers(0, 3, len(states))]
    return Automaton(delta=delta, symbols=["a", "b"], initial=0, outputs=outs,
                     name=f"window{k}")


def embed(net: fsmnet.nets.Network, hidden: int) -> fsmnet.nets.Network:
    w = net.params["W"]
    n, k = w.shape[0], w.shape[2]
    w2 = np.zeros((hidden, hidden, k))
    w2[:n, :n, :] = w
    for j in range(n, hidden):
        w2[j, j, :] = 0.5
    h0 = np.zeros(hidden)
    h0[:n] = net.params["h0"]
    r = np.zeros((net.params["readout"].shape[0], hidden))
    r[:, :n] = net.params["readout"]
    return fsmnet.nets.Network(arch="bilinear-full", params={"W": w2, "h0": h0, "readout": r},
                               symbols=net.symbols, labels=net.labels)


def run(automaton: Automaton, hidden: int | None) -> None:
    from certify_helpers import exhaustive_agree, perturb

    net = fsmnet.compile(automaton, "bilinear-full")
    net = perturb(embed(net, hidden) if hidden else net, 1e-4)
    with tempfile.TemporaryDirectory() as d:
        path = f"{d}/c.json"
        t0 = time.perf_counter()
        result = fsmnet.certify(automaton, net, certificate=path)
        t_cert = time.perf_counter() - t0
        t_check = float("nan")
        if result.verdict == "proved":
            cert = json.load(open(path))
            t0 = time.perf_counter()
            check_certificate(cert)
            t_check = time.perf_counter() - t0
    t0 = time.perf_counter()
    exhaustive_agree(net, automaton, 10)
    t_base = time.perf_counter() - t0
    print(f"{automaton.name:8} states {automaton.minimal().n_states:3} H {net.hidden_size:3} "
          f"{result.verdict:7} certify {t_cert:6.2f} s  check {t_check:5.2f} s  "
          f"brute force to length 10 {t_base:6.2f} s  (certify/brute {t_cert / t_base:5.2f})",
          flush=True)


if __name__ == "__main__":
    for k in (2, 3, 4):
        run(window(k), None)
    for hidden in (32, 64):
        run(window(4), hidden)
