"""Benchmark of ``fsmnet info`` (its JSON contract: docs/architecture.md); see docs/performance.md.

Cases:
- T_7: the semiautomaton on 7 states with an n-cycle, a transposition and a
  collapse; its monoid is the full transformation monoid (7^7 = 823,543
  elements).  Target: < 5 s for the whole command, start-up included.
- S_7: the word problem of S_7 on two generators (5,040 states), from the
  ``symmetric:7,gens`` family when it exists, else built here from sympy.

Each is timed as a subprocess (what a user waits for) and as the library
call :func:`fsmnet.algebra.info.info` alone.  The baseline is a plain-Python
breadth-first closure of the transformations (T_6, 46,656 elements; T_7 would
take minutes), reported as elements per second beside ours.

Usage: python bench/bench_info.py
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

from fsmnet.algebra.info import info
from fsmnet.automata.automaton import Automaton


def full_transformation_semiautomaton(n: int) -> Automaton:
    cycle = [(i + 1) % n for i in range(n)]
    swap = [1, 0] + list(range(2, n))
    collapse = [0, 0] + list(range(2, n))
    return Automaton(delta=np.array([cycle, swap, collapse]), symbols=("c", "t", "e"),
                     initial=None, outputs=None, name=f"T_{n}")


def symmetric_word_problem(n: int) -> tuple[Automaton, str]:
    try:
        from fsmnet.automata.resolve import load

        return load(f"symmetric:{n},gens"), f"symmetric:{n},gens"
    except Exception:  # the family may not exist: build it from sympy
        from sympy.combinatorics.named_groups import SymmetricGroup

        group = SymmetricGroup(n)
        elements = list(group.generate())
        index = {tuple(e.array_form): i for i, e in enumerate(elements)}
        delta = np.array([[index[tuple((e * g).array_form)] for e in elements]
                          for g in group.generators])
        return Automaton(delta=delta, symbols=("g0", "g1"), initial=index[tuple(range(n))],
                         outputs=list(range(len(elements))), name=f"S_{n}"), ""


def python_closure_rate(n: int) -> tuple[int, float]:
    """Elements per second of a plain-Python BFS closure of T_n's generators."""
    gens = [tuple(row) for row in full_transformation_semiautomaton(n).delta.tolist()]
    start = time.perf_counter()
    seen = {tuple(range(n))}
    frontier = list(seen)
    while frontier:
        new = []
        for s in frontier:
            for g in gens:
                u = tuple(g[x] for x in s)
                if u not in seen:
                    seen.add(u)
                    new.append(u)
        frontier = new
    return len(seen), len(seen) / (time.perf_counter() - start)


def time_command(spec: str) -> tuple[float, dict]:
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "fsmnet", "info", spec, "--json"],
                          capture_output=True, text=True, check=True)
    return time.perf_counter() - start, json.loads(done.stdout)


def main() -> None:
    size6, rate = python_closure_rate(6)
    print(f"baseline: plain-Python closure of T_6 ({size6} elements): {rate:,.0f} elements/s")
    with tempfile.TemporaryDirectory() as tmp:
        t7 = full_transformation_semiautomaton(7)
        path = os.path.join(tmp, "t7.json")
        with open(path, "w") as f:
            json.dump(t7.to_dict(), f)
        start = time.perf_counter()
        result = info(t7)
        lib = time.perf_counter() - start
        wall, data = time_command(path)
        size = data["monoid"]["size"]
        assert size == 7**7 == result.monoid.size
        print(f"T_7: size {size}, groups {[g['name'] for g in data['monoid']['groups']]}")
        print(f"  fsmnet info (subprocess, start-up included): {wall:.2f} s (target < 5 s)")
        print(f"  info() alone: {lib:.2f} s = {size / lib:,.0f} elements/s, "
              f"{size / lib / rate:,.0f}x the Python closure rate")
    start = time.perf_counter()
    s7, spec = symmetric_word_problem(7)
    build = time.perf_counter() - start
    start = time.perf_counter()
    result = info(s7)
    lib = time.perf_counter() - start
    print(f"S_7 word problem: {s7.n_states} states, monoid {result.monoid.size}, "
          f"groups {[g.name for g in result.monoid.groups]}")
    print(f"  building the automaton: {build:.2f} s; info() alone: {lib:.2f} s")
    if spec:
        wall, data = time_command(spec)
        assert data["monoid"]["size"] == 5040
        print(f"  fsmnet info {spec} (subprocess): {wall:.2f} s")


if __name__ == "__main__":
    main()
