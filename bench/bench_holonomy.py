"""Benchmark of the holonomy decomposition (``python bench/bench_holonomy.py``).

Times, on this machine, the decomposition itself and the action/emulation
checks for: the full transformation monoids T_4..T_7 (T_5 has 3125 elements;
target < 10 s), random 8-state automata with 2 and 3 letters, and modular
counters.  Prints one line per case.

``--scale`` instead compiles aperiodic automata of up to 200 states
(tests/aperiodic_corpus.py) to ``minmax-scalar`` cascades and proves them,
side by side in one process: the cascade exploration with every level's
action from one chain walk (``Holonomy.level_actions``) against asking level
by level (the ``CascadeSpec.action`` fallback), and the product proof with
the float cascade model against the semantics' generic step; ratios printed.
"""

from __future__ import annotations

import argparse
import dataclasses
import random
import sys
import time
from pathlib import Path

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


def _timed(fn):  # type: ignore[no-untyped-def]
    t0 = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t0


def scale() -> None:
    """Aperiodic automata up to 200 states: one-walk vs per-level, fast vs generic proof."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
    import aperiodic_corpus as corpus

    from fsmnet.constructions.minmax_cascade import cascade_network
    from fsmnet.constructions.minmax_holonomy import holonomy_spec
    from fsmnet.proofs.product import explore_product

    cases = [("at_least_199", lambda: corpus.threshold(199)),
             ("ends_a^199", lambda: corpus.suffix_run(199)),
             ("contains fib(199)", lambda: corpus.contains(corpus.fibonacci_word(199))),
             ("reset cascade 130", lambda: corpus.reset_cascade([2, 3, 3, 3, 3], 5, 3,
                                                                 classes=10**6))]
    print(f"{'case':<20} {'states':>6} {'levels':>6} {'codes':>6}  {'decompose':>9}  "
          f"{'explore 1-walk':>14} {'per-level':>9} {'ratio':>6}  "
          f"{'proof fast':>10} {'generic':>8} {'ratio':>6}")
    for label, make in cases:
        a = make()
        spec, t_dec = _timed(lambda: holonomy_spec(a))  # noqa: B023
        net, t_walk = _timed(lambda: cascade_network(spec, a, arch="minmax-scalar"))  # noqa: B023
        per_level = dataclasses.replace(spec, lift=None)
        _, t_levels = _timed(lambda: cascade_network(per_level, a, arch="minmax-scalar"))  # noqa: B023
        fast, t_fast = _timed(lambda: explore_product(net, a))  # noqa: B023
        slow, t_slow = _timed(lambda: explore_product(net, a, fast_paths=False))  # noqa: B023
        assert fast.status == slow.status == "closed" and fast.pairs == slow.pairs
        print(f"{label:<20} {a.n_states:>6} {net.options['levels']:>6} "
              f"{net.options['reachable_coordinates']:>6}  {t_dec:>8.2f}s  "
              f"{t_walk:>13.2f}s {t_levels:>8.2f}s {t_levels / t_walk:>5.1f}x  "
              f"{t_fast:>9.2f}s {t_slow:>7.2f}s {t_slow / t_fast:>5.1f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--random", type=int, default=5, help="random automata per size")
    parser.add_argument("--scale", action="store_true",
                        help="aperiodic automata up to 200 states (MinMax cascades)")
    args = parser.parse_args()
    if args.scale:
        scale()
        return
    for n in (4, 5, 6, 7):
        measure(f"T_{n}", full_transformation(n))
    for k in (2, 3):
        for seed in range(args.random):
            measure(f"random n=8 k={k} seed={seed}", random_automaton(8, k, seed))
    for m in (5, 50, 200):
        measure(f"counter mod {m}", [[(i + 1) % m for i in range(m)]])


if __name__ == "__main__":
    main()
