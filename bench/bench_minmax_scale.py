"""MinMax cascades of large and random machines: the old path against the new one.

For each automaton, in one process and back to back: the **baseline** (the
strategy table without the two count-based gates, i.e. ``LIMITS`` with
``image_sets=None``, no count before the holonomy decomposition, and
``pair_graph_pairs=0``, no pair-graph test before the congruence search: what
``fsmnet compile`` did on 2026-12-03) and the **new** path (the defaults), each
compiled with :func:`fsmnet.constructions.minmax_strategies.best_cascade` and
proved with ``fsmnet.verify``.  A baseline compile past ``--baseline-limit``
seconds is stopped and reported as such.  Prints one Markdown row per automaton:
states, image sets (counted up to 10^6), the row chosen and the seconds of each
path, and the ratio of the compile times (none below a second).

    python bench/bench_minmax_scale.py [--baseline-limit 300] [--quick]
"""

from __future__ import annotations

import argparse
import signal
import time
from dataclasses import replace
from types import FrameType

from fsmnet.automata import Automaton, load
from fsmnet.constructions.minmax_holonomy import count_image_sets
from fsmnet.constructions.minmax_limits import LIMITS, MinMaxLimits
from fsmnet.constructions.minmax_strategies import best_cascade
from fsmnet.errors import FsmnetError
from fsmnet.proofs.verifier import verify

BASELINE = replace(LIMITS, image_sets=None, pair_graph_pairs=0)

CASES = [  # (spec, arch)
    ("random:n=8,k=2,seed=1", "minmax-cascade"),
    ("random:n=20,k=2,seed=1", "minmax-cascade"),
    ("random:n=40,k=2,seed=1", "minmax-cascade"),
    ("random:n=45,k=2,seed=1", "minmax-cascade"),
    ("random:n=60,k=2,seed=1", "minmax-cascade"),
    ("random:n=100,k=2,seed=1", "minmax-cascade"),
    ("random:n=200,k=2,seed=1", "minmax-cascade"),
    ("random:n=1000,k=2,seed=1", "minmax-cascade"),
    ("random:n=1000,k=3,seed=1,classes=4", "minmax-cascade"),
    ("counter:199", "minmax-cascade"),
    ("sequences:5,tracks=3", "minmax-scalar"),
]
QUICK = {"random:n=8,k=2,seed=1", "random:n=45,k=2,seed=1", "random:n=1000,k=2,seed=1"}


class _Stopped(Exception):
    pass


def _stop(signum: int, frame: FrameType | None) -> None:
    raise _Stopped


def _run(a: Automaton, arch: str, limits: MinMaxLimits, seconds: int) -> str:
    """``row, compile s, verify s`` or why it stopped."""
    signal.signal(signal.SIGALRM, _stop)
    signal.alarm(seconds)
    t0 = time.perf_counter()
    try:
        net = best_cascade(a, arch=arch, limits=limits)
    except _Stopped:
        return f"stopped after {seconds} s"
    except FsmnetError as exc:
        return f"{type(exc).__name__} after {time.perf_counter() - t0:.1f} s"
    finally:
        signal.alarm(0)
    compiled = time.perf_counter() - t0
    t1 = time.perf_counter()
    verdict = verify(a, net).verdict
    return (f"{net.options['strategy']}, {compiled:.2f} s, verify {verdict} "
            f"{time.perf_counter() - t1:.2f} s")


def _seconds(cell: str) -> float | None:
    parts = cell.split(", ")
    if len(parts) < 2 or not parts[1].endswith(" s"):
        return None
    return float(parts[1][:-2])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline-limit", type=int, default=300,
                        help="stop a baseline compile after this many seconds")
    parser.add_argument("--quick", action="store_true", help="three cases only")
    args = parser.parse_args()
    for limits in (BASELINE, LIMITS):  # imports and caches out of the first row's times
        _run(load("random:n=8,k=2,seed=2").minimal(), "minmax-cascade", limits, 60)
    print("| automaton | arch | states | image sets | baseline | new | compile ratio |")
    print("|---|---|---|---|---|---|---|")
    for spec, arch in CASES:
        if args.quick and spec not in QUICK:
            continue
        a = load(spec).minimal()
        sets = count_image_sets(a, 1_000_000)
        shown = f"{sets:,}" if sets is not None else "> 10⁶"
        old = _run(a, arch, BASELINE, args.baseline_limit)
        new = _run(a, arch, LIMITS, args.baseline_limit)
        t_old, t_new = _seconds(old), _seconds(new)
        if t_old is None and old.startswith("stopped"):
            t_old = float(args.baseline_limit)
            prefix = "> "
        else:
            prefix = ""
        # Below a second both are noise on shared cores: no ratio.
        ratio = (f"{prefix}{t_old / max(t_new, 0.01):.0f}×"
                 if t_old is not None and t_new is not None and t_old >= 1 else "—")
        print(f"| `{spec}` | {arch} | {a.n_states} | {shown} | {old} | {new} | {ratio} |",
              flush=True)


if __name__ == "__main__":
    main()
