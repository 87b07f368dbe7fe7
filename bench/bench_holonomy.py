"""Benchmark of the holonomy decomposition (``python bench/bench_holonomy.py``).

Times, on this machine, the decomposition itself and the action/emulation
checks for: the full transformation monoids T_4..T_7 (T_5 has 3125 elements;
target < 10 s), random 8-state automata with 2 and 3 letters, and modular
counters.  Prints one line per case.
"""

from __future__ import annotations

import argparse
import random
import time

from fsmnet.algebra.holonomy import check_action, check_emulation, decompose


def full_transformation(n: int) -> list[list[int]]:
    """T_n: an n-cycle, a transposition, and the collapse of point 2 onto point 1."""
    return [[(i + 1) % n for i in range(n)], [1, 0] + list(range(2, n)),
            [0, 0] + list(range(2, n))]


def random_automaton(n: int, k: int, seed: int) -> list[list[int]]:
    rng = random.Random(seed)
    return [[rng.randrange(n) for _ in range(n)] for _ in range(k)]


def measure(label: str, gens: list[list[int]]) -> None:
    t0 = time.perf_counter()
    h = decompose(gens)
    t1 = time.perf_counter()
    action = check_action(h)
    emulation = check_emulation(h)
    t2 = time.perf_counter()
    shape = " ".join(f"{lv.n_points}" for lv in h.levels)
    print(f"{label:<28} sets {h.skeleton.n_orbit:>4}  levels {h.n_levels:>2}  "
          f"points/level [{shape}]  decompose {t1 - t0:8.4f} s  "
          f"checks {t2 - t1:8.3f} s ({action.checked} codes x letters, "
          f"{'ok' if action and emulation else 'FAILED'})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--random", type=int, default=5, help="random automata per size")
    args = parser.parse_args()
    for n in (4, 5, 6, 7):
        measure(f"T_{n}", full_transformation(n))
    for k in (2, 3):
        for seed in range(args.random):
            measure(f"random n=8 k={k} seed={seed}", random_automaton(8, k, seed))
    for m in (5, 50, 200):
        measure(f"counter mod {m}", [[(i + 1) % m for i in range(m)]])


if __name__ == "__main__":
    main()
