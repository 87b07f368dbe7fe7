"""Long checked runs: a network and its automaton on the same random word, compared
at every position (``fsmnet run`` and the hierarchy table's ✓ cells)."""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from fsmnet.automata import load
from fsmnet.nets import load_network
from fsmnet.nets.alignment import align_alphabet, label_map
from fsmnet.types import Backend


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
    """
    from fsmnet.constructions import compile_automaton
    from fsmnet.gpu.engine import evaluate

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
    evaluate(automaton, warm, backend=backend, outputs="last" if net is None else "all")
    runner = None
    if net is not None and float32:
        from fsmnet.nets.float32 import Float32Run, program

        select = program(net).select_net  # max/min families: the engine is exact on it
        if select is None:
            runner = Float32Run(net)
            runner.labels(warm[:16], include_start=False)  # compile the loop
            runner = Float32Run(net)
        else:
            net = select
    if net is not None and runner is None:
        evaluate(net, warm, backend=backend, outputs="all")
    rng = np.random.default_rng(seed)
    q, h = automaton.initial, None
    correct, seconds, done = 0, 0.0, 0
    used_backend: str = backend
    used_path = ""
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=length, unit="sym", unit_scale=True, leave=False)
    while done < length:
        size = min(piece, length - done)
        word = rng.integers(0, automaton.n_symbols, size=size, dtype=dtype)
        if net is None:
            res = evaluate(automaton, word, backend=backend, outputs="last", start=q)
            q = res.state
            seconds += res.seconds
            used_backend, used_path = res.backend, res.path
        else:
            want = evaluate(automaton, word, backend=backend, outputs="all", start=q)
            q = want.state
            assert want.outputs is not None
            if runner is not None:
                tick = time.perf_counter()
                outputs = runner.labels(word, include_start=False)
                seconds += time.perf_counter() - tick
                used_backend, used_path = "float32-reference", "float32 reference step"
            else:
                got = evaluate(net, word, backend=backend, outputs="all", start=h)
                h = got.state
                assert got.outputs is not None
                outputs = got.outputs
                seconds += got.seconds
                used_backend, used_path = got.backend, got.path
            correct += int(np.count_nonzero(to_auto[outputs] == want.outputs))
        done += size
        if bar is not None:
            bar.update(size)
    if bar is not None:
        bar.close()
    return RunResult(length=length, backend=used_backend,
                     accuracy=None if net is None else correct / length,
                     seconds=seconds, symbols_per_second=length / max(seconds, 1e-12),
                     path=used_path)
