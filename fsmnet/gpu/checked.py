"""Long checked runs: a network and its automaton on the same random word, compared
at every position (``fsmnet run`` and the hierarchy table's ✓ cells).

Ctrl-C: a Numba kernel runs to its end before Python sees a signal, so a piece of
2^24 symbols through a slow kernel (a trained network's mat-vec, the float32
reference step) kept running for seconds after Ctrl-C.  Each piece is therefore
evaluated in slices timed to take about :data:`SLICE_SECONDS`, and a
:class:`KeyboardInterrupt` raised between them propagates.  The slicing never
changes a result: the word is drawn piece by piece as before, and every CPU path
carries its state from slice to slice exactly (automata and tables are exact, the
mat-vec and the float32 step are sequential).  A Ctrl-C during the warm-up's JIT
compile, which LLVM's callbacks would drop, is kept by :mod:`fsmnet.interrupts`.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass

import numpy as np

from fsmnet.automata import load
from fsmnet.interrupts import ctrl_c_latch, interruptible
from fsmnet.nets import load_network
from fsmnet.nets.alignment import align_alphabet, label_map
from fsmnet.types import Backend

# About how long one slice of a piece runs on the CPU: the delay of a Ctrl-C.
SLICE_SECONDS = 0.2
# The first slice of a run, before its speed is known; also the smallest slice, so
# that every slice is long enough for the parallel and tabulated paths
# (fsmnet.gpu.common.MIN_PARALLEL).
FIRST_SLICE = 1 << 16

LOG = logging.getLogger(__name__)


class _Slices:
    """Slice lengths for one run: each next slice sized from the speed of the last, so
    that it takes about SLICE_SECONDS, never more than ``limit`` (the piece)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.size = min(limit, FIRST_SLICE)

    def next(self, remaining: int) -> int:
        size = min(self.size, remaining)
        # No short tail: a slice under FIRST_SLICE would take another path.
        return remaining if remaining - size < FIRST_SLICE else size

    def took(self, size: int, seconds: float) -> None:
        want = size * SLICE_SECONDS / max(seconds, 1e-6)
        # Grow at most 4x a slice: one fast slice (a cache effect) cannot make the
        # next one run for seconds.
        self.size = int(max(FIRST_SLICE, min(self.limit, want, 4 * size)))


@dataclass(frozen=True)
class RunResult:
    """The ``run --json`` contract (docs/formats.md), plus what ran."""

    length: int
    backend: str
    accuracy: float | None
    seconds: float
    symbols_per_second: float
    path: str = ""


def run_checked(spec: str, *, length: int, net_path: str | None = None,
                arch: str | None = None, backend: Backend = "auto", seed: int = 0,
                piece: int = 1 << 24, progress: bool = False, float32: bool = False
                ) -> RunResult:
    """Run the automaton (and a network, when given) on a random word of ``length``.

    The word is generated in pieces of ``piece`` symbols, so 10^9 symbols never
    sit in memory at once; the network runs on the same pieces and every output
    is compared with the automaton's.  ``accuracy`` is the fraction of positions
    where they agree (``None`` without a network).  With ``float32`` the network runs
    the float32 reference execution (:mod:`fsmnet.nets.float32`, the semantics that
    ``certify --float32`` proves) instead of the float64 scan engine; a position
    where that run overflows counts as wrong.

    On the CPU each piece is evaluated in slices of about :data:`SLICE_SECONDS`, so
    a Ctrl-C (:class:`KeyboardInterrupt`) stops the run within about that long;
    the result does not depend on the slicing.
    """
    with ctrl_c_latch():
        return _run_checked(spec, length=length, net_path=net_path, arch=arch,
                            backend=backend, seed=seed, piece=piece, progress=progress,
                            float32=float32)


def _run_checked(spec: str, *, length: int, net_path: str | None, arch: str | None,
                 backend: Backend, seed: int, piece: int, progress: bool, float32: bool
                 ) -> RunResult:
    from fsmnet.constructions import compile_automaton
    from fsmnet.gpu.engine import evaluate, pick_backend

    automaton = load(spec)
    if automaton.is_semiautomaton:
        automaton = automaton.replace(initial=0 if automaton.initial is None else
                                      automaton.initial)
    net = None
    if net_path is not None:
        net = load_network(net_path)
    elif arch is not None:
        net = compile_automaton(automaton, arch)
    if net is not None:
        automaton = align_alphabet(automaton, net)
        # One slot more: the float32 run's OVERFLOW label (-1) indexes it, and no
        # automaton output is -1, so an overflow is never counted right.
        to_auto = np.array([*label_map(net, automaton), -1], dtype=np.int64)
    dtype = np.uint8 if automaton.n_symbols <= 256 else np.int64
    # Warm up first (imports, JIT caches, device kernels, tables) on a word of the same
    # size class, so that the seconds reported measure the run and not the start-up.
    warm = np.zeros(min(length, piece, 1 << 17), dtype=dtype)
    warm_begin = time.perf_counter()
    interruptible(evaluate, automaton, warm, backend=backend,
                  outputs="last" if net is None else "all")
    runner = None
    if net is not None and float32:
        from fsmnet.nets.float32 import Float32Run, program

        select = program(net).select_net  # max/min families: the engine is exact on it
        if select is None:
            runner = Float32Run(net)
            interruptible(runner.labels, warm[:16], include_start=False)  # compile the loop
            runner = Float32Run(net)
        else:
            net = select
    if net is not None and runner is None:
        interruptible(evaluate, net, warm, backend=backend, outputs="all")
    # A network on the GPU (or dask) runs each piece whole: a piece takes milliseconds
    # there, and a parallel scan of floats may round differently at other boundaries.
    whole = net is not None and runner is None and pick_backend(backend) not in ("numba",
                                                                                 "numpy")
    LOG.debug("warmed up in %.1f s (compiles, tables); scanning",
              time.perf_counter() - warm_begin)
    slices = _Slices(piece)
    rng = np.random.default_rng(seed)
    q, h = automaton.initial, None
    correct, seconds, done = 0, 0.0, 0
    used_backend: str = backend
    used_path = ""
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=length, unit="sym", unit_scale=True, leave=False)
    try:
        while done < length:
            size = min(piece, length - done)
            word = rng.integers(0, automaton.n_symbols, size=size, dtype=dtype)
            at = 0
            while at < size:
                n = size - at if whole else slices.next(size - at)
                part = word[at:at + n]
                tick = time.perf_counter()
                if net is None:
                    res = interruptible(evaluate, automaton, part, backend=backend,
                                        outputs="last", start=q)
                    q = res.state
                    seconds += res.seconds
                    used_backend, used_path = res.backend, res.path
                else:
                    want = interruptible(evaluate, automaton, part, backend=backend,
                                         outputs="all", start=q)
                    q = want.state
                    assert want.outputs is not None
                    if runner is not None:
                        begin = time.perf_counter()
                        outputs = interruptible(runner.labels, part, include_start=False)
                        seconds += time.perf_counter() - begin
                        used_backend, used_path = "float32-reference", "float32 reference step"
                    else:
                        got = interruptible(evaluate, net, part, backend=backend,
                                            outputs="all", start=h)
                        h = got.state
                        assert got.outputs is not None
                        outputs = got.outputs
                        seconds += got.seconds
                        used_backend, used_path = got.backend, got.path
                    correct += int(np.count_nonzero(to_auto[outputs] == want.outputs))
                slices.took(n, time.perf_counter() - tick)
                at += n
                if bar is not None:
                    bar.update(n)
            done += size
    finally:
        if bar is not None:
            bar.close()
    return RunResult(length=length, backend=used_backend,
                     accuracy=None if net is None else correct / length,
                     seconds=seconds, symbols_per_second=length / max(seconds, 1e-12),
                     path=used_path)
