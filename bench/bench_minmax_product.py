"""MinMax cascades: the plain holonomy cascade (baseline) vs the form ``fsmnet.compile``
now picks (threshold, product of quotients, or the plain one), side by side.

For each automaton, in one process: the baseline (``cascade_network(holonomy_spec)``,
what ``fsmnet compile`` built before) with its parameters and compile time or
the typed error it stops with, then the chosen form with its construction,
parameters, compile and verify time, proof method and verdict.  ``--survey``
adds aperiodic machines that are not products (the coverage of "every aperiodic
automaton of up to 200 states"), built by tests/aperiodic_corpus.py.

    python bench/bench_minmax_product.py [--survey] [--skip-baseline]
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable

import fsmnet
from fsmnet.automata import Automaton, load
from fsmnet.automata.language import product
from fsmnet.errors import FsmnetError

SPECS = ["sequences:2,tracks=3", "sequences:3,tracks=3", "sequences:2,tracks=4",
         "sequences:4,tracks=3", "sequences:8,tracks=2", "pair:atleast:6*contains:00110"]



def _load(spec: str) -> Automaton:
    if spec.startswith("pair:"):
        x, y = spec[5:].split("*")
        return product(load(x), load(y), combine=lambda p, q: f"{p}{q}").minimal()
    return load(spec).minimal()


def _baseline(a: Automaton) -> str:
    from fsmnet.constructions.minmax_cascade import cascade_network
    from fsmnet.constructions.minmax_holonomy import holonomy_spec

    t0 = time.perf_counter()
    try:
        net = cascade_network(holonomy_spec(a), a, arch="minmax-scalar")
    except FsmnetError as exc:
        return f"{type(exc).__name__} after {time.perf_counter() - t0:.1f}s"
    return f"{net.n_params:,} params, {time.perf_counter() - t0:.1f}s"


def _chosen(a: Automaton) -> str:
    from fsmnet.proofs.verifier import verify

    t0 = time.perf_counter()
    try:
        net = fsmnet.compile(a, "minmax-scalar")
    except FsmnetError as exc:
        return f"{type(exc).__name__}: {str(exc)[:80]} ({time.perf_counter() - t0:.1f}s)"
    t1 = time.perf_counter()
    result = verify(a, net)
    t2 = time.perf_counter()
    parts = net.options.get("component_constructions")
    how = net.options["construction"] + (f" {parts}" if parts else "")
    return (f"{how}: {net.n_params:,} params, compile {t1 - t0:.1f}s, verify {t2 - t1:.2f}s "
            f"{result.verdict} ({result.method})")


def _survey() -> list[tuple[str, Callable[[], Automaton]]]:
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests"))
    import aperiodic_corpus as c

    return [
        ("threshold(199)", lambda: c.threshold(199)),
        ("suffix_run(199)", lambda: c.suffix_run(199)),
        ("contains(fib 199)", lambda: c.contains(c.fibonacci_word(199))),
        ("contains(fib 60)", lambda: c.contains(c.fibonacci_word(60))),
        ("contains_both(fib12, abba)", lambda: c.contains_both(c.fibonacci_word(12), "abba")),
        ("tomita 1x2x4x7", lambda: c.tomita_product([1, 2, 4, 7])),
        ("tomita 4x7", lambda: c.tomita_product([4, 7])),
        ("reset_cascade[3,3,4,4]", lambda: c.reset_cascade([3, 3, 4, 4], 4, 1, classes=10**6)),
        ("reset_cascade[4,4,4]s2", lambda: c.reset_cascade([4, 4, 4], 3, 2, classes=10**6)),
        ("reset_cascade[5,5,6]s3", lambda: c.reset_cascade([5, 5, 6], 3, 3, classes=10**6)),
        # Congruence chains (2026-12-02) and the measured failures that remain.
        ("reset_cascade[2,3,3,3,3]s0", lambda: c.reset_cascade([2, 3, 3, 3, 3], 5, 0)),
        ("reset_cascade[2,2,2,2,2,2,3]s5", lambda: c.reset_cascade([2, 2, 2, 2, 2, 2, 3], 4, 5)),
        ("counter:50", lambda: _load("counter:50")),
        ("dyck:50", lambda: _load("dyck:50")),
    ]


def main() -> None:
    rows = [(s, (lambda s=s: _load(s))) for s in SPECS]
    if "--survey" in sys.argv:
        rows += _survey()
    for name, make in rows:
        a = make()
        base = "skipped" if "--skip-baseline" in sys.argv else _baseline(a)
        print(f"{name} ({a.n_states} states)\n  baseline: {base}\n  now:      {_chosen(a)}",
              flush=True)


if __name__ == "__main__":
    main()
