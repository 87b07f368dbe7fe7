"""``fsmnet expressivity`` on large automata: verdicts by theorem against the old path.

Run from the repository root:
    python bench/bench_expressivity_scale.py [--limit SECONDS] [--only NAME[,NAME]]
                                             [--skip ARCH[,ARCH]] [--no-old]

For each automaton and each registered class, side by side in this process:

- new: ``expressivity(m, [arch])`` (possibility theorems on, witness searches
  shared within one call; here one class a call, so nothing is shared), and the
  whole default class list in one call (the shared searches count), also stopped
  after ``--limit`` seconds a class;
- old: ``expressivity(m, [arch], by_theorem=False)``, every network built and
  proved, as before the theorems, stopped after ``--limit`` seconds (default 120)
  and printed as "> limit".

The verdicts of both paths are asserted equal wherever the old one finished.  The
equal-counts search (three diagonal classes) is also timed on its own: the
all-pairs table (old) against the pairs reached from the candidates (new).

Automata (--only names): S7, S7 with two generators (5,040 states); random942, the
942-state random machine of bench_expressivity.py; seq3x5, Sequences(3) with 5
tracks (1,024 states, an aperiodic monoid of 17^5 = 1,419,857 elements); T7, T_7
with outputs (7 states, the full transformation monoid of 823,543 elements).
"""

from __future__ import annotations

import signal
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

import fsmnet
from fsmnet import archs
from fsmnet.automata import Automaton
from fsmnet.decide import witness
from fsmnet.decide.expressivity import ExpressivityResult, expressivity

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_info import full_transformation_semiautomaton  # noqa: E402

CASES = {"S7": "symmetric:7,gens", "random942": "random:n=1000,k=3,seed=1,classes=4",
         "seq3x5": "sequences:3,tracks=5", "T7": "T7"}
"""Short names (for --only) and SPECs."""


def _arg(name: str, default: str) -> str:
    return sys.argv[sys.argv.index(name) + 1] if name in sys.argv else default


LIMIT = float(_arg("--limit", "120"))
ONLY = [CASES[name] for name in _arg("--only", ",".join(CASES)).split(",")]
SKIP = set(_arg("--skip", "").split(",")) - {""}


def machine(spec: str) -> Automaton:
    if spec != "T7":
        return fsmnet.load(spec).minimal()
    t7 = full_transformation_semiautomaton(7)
    return Automaton(delta=t7.delta, symbols=t7.symbols, initial=0,
                     outputs=list(range(7)), name="T7").minimal()


class _Late(Exception):
    pass


def limited(seconds: float, fn: Callable[[], Any]) -> tuple[Any, float]:
    """(fn(), wall seconds), or (None, seconds) when it ran past ``seconds`` (SIGALRM:
    the work stops at its next Python bytecode)."""
    def late(*_: Any) -> None:
        raise _Late

    old = signal.signal(signal.SIGALRM, late)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    t0 = time.perf_counter()
    try:
        return fn(), time.perf_counter() - t0
    except _Late:
        return None, time.perf_counter() - t0
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def fmt(seconds: float | None) -> str:
    return f"> {LIMIT:.0f} s" if seconds is None else f"{seconds:.2f} s"


def row(spec: str) -> None:
    t0 = time.perf_counter()
    m = machine(spec)
    print(f"{spec}: {m.n_states} states, {m.n_symbols} letters "
          f"(load + minimize {time.perf_counter() - t0:.2f} s)", flush=True)
    chosen = [a for a in archs.ids() if a not in SKIP]
    new_total, old_total, old_complete = 0.0, 0.0, True
    for arch in chosen:
        got, t_new = limited(LIMIT, lambda a=arch: expressivity(m, [a]))
        new_total += t_new
        if got is None:
            print(f"  {arch:24s} new {fmt(None)} (stopped; the old path not run)", flush=True)
            continue
        (new,) = got
        old_t: float | None = None
        old: ExpressivityResult | None = None
        if "--no-old" not in sys.argv:
            found, spent = limited(LIMIT, lambda a=arch: expressivity(m, [a], by_theorem=False))
            if found is not None:
                (old,), old_t = found, spent
                assert old.verdict == new.verdict, (spec, arch, old.verdict, new.verdict)
            old_total += spent
            old_complete &= found is not None
        ratio = f"{old_t / max(t_new, 1e-9):.0f}x" if old_t is not None else (
            f"> {LIMIT / max(t_new, 1e-9):.0f}x" if "--no-old" not in sys.argv else "")
        print(f"  {arch:24s} new {t_new:7.2f} s ({new.verdict}, {new.by or 'unknown'})"
              + (f"   old {fmt(old_t):>9s}   ratio {ratio}" if "--no-old" not in sys.argv
                 else ""), flush=True)
    done, t_all = limited(len(chosen) * LIMIT, lambda: expressivity(m, chosen))
    old_sum = f"{'' if old_complete else '> '}{old_total:.1f} s" if "--no-old" not in \
        sys.argv else "-"
    one_call = f"{t_all:.1f} s" if done is not None else f"> {t_all:.0f} s"
    print(f"  total: new {new_total:.1f} s class by class, {one_call} in one call "
          f"(shared witness searches); old {old_sum}", flush=True)


def equal_counts(spec: str) -> None:
    m = machine(spec)
    saved = witness.DENSE_PAIRS
    try:
        witness.DENSE_PAIRS = 0
        new, t_new = limited(LIMIT, lambda: witness.equal_counts_witness(m))
        witness.DENSE_PAIRS = 1 << 40
        old, t_old = limited(LIMIT, lambda: witness.equal_counts_witness(m))
    finally:
        witness.DENSE_PAIRS = saved
    if old is not None:
        assert old == new
    print(f"  equal-counts search {spec}: all-pairs table {fmt(None if old is None else t_old)}, "
          f"pairs reached {t_new:.2f} s, ratio {t_old / max(t_new, 1e-9):.1f}x "
          f"(table {8 * m.n_states ** 2 / 2 ** 20:.0f} MiB)", flush=True)


if __name__ == "__main__":
    np.seterr(all="ignore")
    for spec in ONLY:
        row(spec)
    for spec in ("symmetric:7,gens", "random:n=1000,k=3,seed=1,classes=4"):
        if spec in ONLY:
            equal_counts(spec)
