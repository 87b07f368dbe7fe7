"""The orbit of image sets: NumPy blocks against one set at a time (bench/bench_orbit.py).

Side by side in one process, on the same automata: the baseline is the
one-at-a-time loop (byte tables, what the skeleton used before; forced by
raising ``_SMALL_BLOCK`` above any queue), fsmnet the block path
(fsmnet/algebra/holonomy/orbit.py).  Both must give the same sets, parents
and successors, or stop at the same limit.  Prints one line per case with
the ratio.  ``--quick`` leaves out the 942-state machine (about 30 s of
baseline on an idle core).
"""

from __future__ import annotations

import sys
import time

import fsmnet
from fsmnet.algebra.holonomy import orbit as orbit_module
from fsmnet.algebra.holonomy.orbit import DecompositionTooLarge, orbit

CASES = [  # (spec, limit): the minimal automaton's orbit, up to limit sets
    ("random:n=45,k=2,seed=1", 1_000_000),  # 38 states, 86,734 sets: complete
    ("random:n=200,k=2,seed=3", 200_000),
    ("random:n=1000,k=3,seed=1,classes=4", 1_000_000),  # 942 states: the limit
]


def run(n: int, gens: list[tuple[int, ...]], limit: int) -> tuple[object, float]:
    t0 = time.perf_counter()
    try:
        out: object = orbit(n, gens, limit)
    except DecompositionTooLarge as exc:
        out = str(exc)
    return out, time.perf_counter() - t0


def main() -> None:
    for spec, limit in CASES:
        if "--quick" in sys.argv and "n=1000" in spec:
            continue
        m = fsmnet.load(spec).minimal()
        gens = [tuple(int(x) for x in row) for row in m.delta]
        small = orbit_module._SMALL_BLOCK
        orbit_module._SMALL_BLOCK = 1 << 62  # every set one at a time: the baseline
        try:
            want, t_base = run(m.n_states, gens, limit)
        finally:
            orbit_module._SMALL_BLOCK = small
        got, t_fast = run(m.n_states, gens, limit)
        assert got == want, spec
        size = f"{len(got[0]):,} sets" if isinstance(got, tuple) else f"> {limit:,} sets"
        print(f"{spec:38s} {m.n_states:4d} states, {size:>16s}: baseline {t_base:6.2f} s, "
              f"fsmnet {t_fast:6.2f} s, ratio {t_base / max(t_fast, 1e-9):4.1f}x", flush=True)


if __name__ == "__main__":
    main()
