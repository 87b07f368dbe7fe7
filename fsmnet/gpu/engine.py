"""The one entry point of the scan engine: :func:`evaluate`.

It runs an automaton or a network over a symbol array on the best available
backend and returns the outputs (labels after every symbol) or only the last
state.  Results equal the reference evaluator: identical states for automata,
identical readouts for networks.  ``start`` / ``EvalResult.state`` let a
caller stream an input in pieces (``fsmnet run`` does, for 10^10 symbols).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from fsmnet.automata import Automaton
from fsmnet.errors import BackendUnavailable, SpecError

BACKENDS = ("auto", "cupy", "numba", "numpy", "dask")
CAYLEY_LIMIT = 1 << 20  # monoid elements; a table of 2^20 × |Σ| int64 is 8 MB a symbol
MIN_PARALLEL = 1 << 16  # shorter inputs are not worth a parallel scan
PARALLEL_THREADS_LAST = 3  # threads the chunked scan needs before "auto" picks it
PARALLEL_THREADS_ALL = 4  # outputs="all" replays every chunk: twice the work


@dataclass(frozen=True)
class EvalResult:
    """What :func:`evaluate` returns.

    Attributes
    ----------
    outputs
        Label index after each symbol (length = input length), or ``None``
        when ``outputs="last"``.
    state
        The final state: an automaton state index, or a network state.
    backend, path
        Which backend and which algorithm ran (e.g. ``"numba"``, ``"cayley"``).
    seconds
        Wall time of the evaluation.
    """

    outputs: np.ndarray | None
    state: Any
    backend: str
    path: str
    seconds: float


def cuda_available() -> bool:
    """True when CuPy imports and sees a CUDA device."""
    try:
        import cupy

        return bool(cupy.cuda.runtime.getDeviceCount() > 0)
    except Exception:  # ImportError, or a CUDA runtime error without a driver
        return False


def pick_backend(backend: str) -> str:
    if backend not in BACKENDS:
        raise SpecError(f"unknown backend; choose one of {', '.join(BACKENDS)}",
                        source="<evaluate>", field="backend", value=backend)
    if backend == "auto":
        return "cupy" if cuda_available() else "numba"
    if backend == "cupy" and not cuda_available():
        raise BackendUnavailable("backend 'cupy' needs CuPy and a CUDA device; none is usable "
                                 "here (use --backend numba, or install the 'gpu' extra)")
    return backend


def _symbols_array(symbols: Any, n_symbols: int) -> np.ndarray:
    arr = np.asarray(symbols)
    if arr.ndim != 1 or not np.issubdtype(arr.dtype, np.integer):
        raise SpecError("symbols must be a 1-D integer array of symbol indices",
                        source="<evaluate>", field="symbols",
                        value=f"{arr.dtype} array of shape {arr.shape}")
    lo, hi = (int(arr.min()), int(arr.max())) if arr.size else (0, 0)
    if lo < 0 or hi >= n_symbols:
        raise SpecError(f"symbol index out of range 0..{n_symbols - 1}", source="<evaluate>",
                        field="symbols", value=lo if lo < 0 else hi)
    return arr


def evaluate(model: Automaton | Any, symbols: Any, *, backend: str = "auto",
             outputs: str = "all", start: Any = None, chunk: int | None = None,
             path: str = "auto") -> EvalResult:
    """Run an automaton or a network on a symbol-index array.

    Parameters
    ----------
    model
        An :class:`~fsmnet.automata.Automaton` or a :class:`~fsmnet.nets.Network`.
    symbols
        1-D integer array of symbol indices (any integer dtype; uint8 saves memory).
    backend
        ``"auto"`` (CuPy when a GPU is usable, else Numba), ``"cupy"``,
        ``"numba"``, ``"numpy"`` (the reference loop) or ``"dask"``.
    outputs
        ``"all"`` (label index after each symbol) or ``"last"`` (final state only).
    start
        State to start from (default: the initial state / h0).
    chunk
        Chunk length of the parallel scan (default: about 4 chunks a thread).
    path
        Automata: ``"auto"``, ``"sequential"``, ``"words"``, ``"ilp"``, ``"cayley"`` or
        ``"live"`` on Numba; ``"auto"``, ``"cayley"`` or ``"live"`` on CuPy.  Networks: ``"auto"``
        (run as the reachable-state automaton when its states are few), ``"tabulated"``
        (insist on that), ``"direct"`` (the network's own kernels: chunk products,
        levelwise MinMax), and on Numba ``"sequential"`` or ``"levelwise"`` for MinMax.
    """
    if outputs not in ("all", "last"):
        raise SpecError("outputs must be 'all' or 'last'", source="<evaluate>",
                        field="outputs", value=outputs)
    chosen = pick_backend(backend)
    begin = time.perf_counter()
    if chosen == "cupy":
        from fsmnet.gpu.cupy_backend import evaluate_cupy as run
    elif chosen == "dask":
        from fsmnet.gpu.dask_backend import evaluate_dask as run
    elif chosen == "numpy":
        run = _evaluate_numpy
    else:
        run = _evaluate_numba
    out, state, used = run(model, symbols, outputs=outputs, start=start, chunk=chunk, path=path)
    return EvalResult(out, state, chosen, used, time.perf_counter() - begin)


# ------------------------------------------------------------------- numpy
def _evaluate_numpy(model: Any, symbols: Any, *, outputs: str, start: Any, chunk: Any,
                    path: str) -> tuple[np.ndarray | None, Any, str]:
    if isinstance(model, Automaton):
        arr = _symbols_array(symbols, model.n_symbols)
        states = model.trace(arr, start=start)
        out = model.output_ids[states[1:]] if outputs == "all" and model.outputs else None
        return out, int(states[-1]), "reference"
    sem = model.semantics
    arr = _symbols_array(symbols, len(model.symbols))
    state = sem.initial_state(model, False) if start is None else start
    res = np.empty(len(arr) if outputs == "all" else 0, dtype=np.int64)
    for t, a in enumerate(arr):
        state = sem.step(model, state, int(a), False)
        if outputs == "all":
            res[t] = sem.readout(model, state, False)
    return (res if outputs == "all" else None), state, "reference"


# ------------------------------------------------------------------- numba
def _threads() -> int:
    import numba

    return int(numba.get_num_threads())


def _evaluate_numba(model: Any, symbols: Any, *, outputs: str, start: Any, chunk: Any,
                    path: str) -> tuple[np.ndarray | None, Any, str]:
    if isinstance(model, Automaton):
        return _automaton_numba(model, symbols, outputs=outputs, start=start, chunk=chunk,
                                path=path)
    if path in ("auto", "tabulated"):
        done = _tabulated(model, symbols, outputs=outputs, start=start, forced=path != "auto")
        if done is not None:
            return done
    if path == "direct":
        path = "auto"
    from fsmnet.nets.linear import LinearRecurrence

    if isinstance(model.semantics, LinearRecurrence):
        from fsmnet.gpu.numba_linear import run_linear

        arr = _symbols_array(symbols, len(model.symbols))
        mats = np.ascontiguousarray(model.semantics.matrices(model, False), dtype=np.float64)
        readout = np.ascontiguousarray(model.params["readout"], dtype=np.float64)
        h = np.array(model.semantics.initial_state(model, False) if start is None else start,
                     dtype=np.float64)
        res = np.empty(len(arr) if outputs == "all" else 0, dtype=np.int64)
        h = run_linear(mats, readout, arr, h, res)
        return (res if outputs == "all" else None), h, "sequential-matvec"
    from fsmnet.nets.minmax import DenseMinMax
    from fsmnet.nets.minmax_cascade import MinMaxCascade

    if isinstance(model.semantics, (DenseMinMax, MinMaxCascade)):
        from fsmnet.gpu.numba_minmax import evaluate_minmax

        arr = _symbols_array(symbols, len(model.symbols))
        return evaluate_minmax(model, arr, outputs=outputs, start=start, chunk=chunk, path=path,
                               threads=_threads(), min_parallel=MIN_PARALLEL)
    # Other architectures: the reference loop until a kernel exists for them.
    out, state, _ = _evaluate_numpy(model, symbols, outputs=outputs, start=start, chunk=chunk,
                                    path=path)
    return out, state, "reference"


def _tabulated(net: Any, symbols: Any, *, outputs: str, start: Any,
               forced: bool) -> tuple[np.ndarray | None, Any, str] | None:
    """Run a network through its reachable-state table (fsmnet.gpu.tabulate), or None
    when it has too many states, the input is short, or ``start`` is not in the table."""
    from fsmnet.gpu.tabulate import freeze, tabulate

    arr = _symbols_array(symbols, len(net.symbols))
    if not forced and len(arr) < MIN_PARALLEL:
        return None
    table = tabulate(net)
    if table is None:
        if forced:
            raise SpecError("the network has too many reachable states to tabulate",
                            source="<evaluate>", field="path", value="tabulated")
        return None
    q0 = 0 if start is None else table.index.get(freeze(start))
    if q0 is None:
        return None
    out, q, inner = _automaton_numba(table.automaton, arr, outputs=outputs, start=q0,
                                     chunk=None, path="auto")
    mapped = None if out is None else table.labels.astype(label_dtype(len(net.labels)))[out]
    return mapped, table.states[q], f"tabulated-{inner}"


def _automaton_numba(a: Automaton, symbols: Any, *, outputs: str, start: Any, chunk: Any,
                     path: str) -> tuple[np.ndarray | None, Any, str]:
    from fsmnet.gpu import numba_automaton as K
    from fsmnet.gpu.words import run_words, word_length

    arr = _symbols_array(symbols, a.n_symbols)
    q0 = int(a._start(start))
    delta = np.ascontiguousarray(a.delta)
    out_ids = np.ascontiguousarray(a.output_ids if a.outputs is not None
                                   else np.zeros(a.n_states, dtype=np.int64))
    threads = _threads()
    m = word_length(a.n_symbols, a.n_states)
    words_ok = m > 1 and (outputs == "last" or _label_dtype(a) == np.int8)
    # Measured: two symbols a step pay only with a small table (1.3-1.5x at 3,200
    # entries, nothing at 13,800); four or eight pay up to LIMIT entries.
    words_pay = words_ok and (m >= 4 or a.n_symbols ** 2 * a.n_states <= 1 << 12)
    if path == "auto":
        # Measured (docs/performance.md, 2 cores): m symbols a step (word tables)
        # beat the plain loop 3-5x ("last") and 3-4x ("all") while the tables stay in
        # cache, more than the interleaved Cayley scan (~2.5x, "last"), which in turn
        # beats the sequential loop on one thread; the chunked scans pay only with
        # more threads (for "all" the replay doubles the work).
        few = threads < (PARALLEL_THREADS_LAST if outputs == "last" else PARALLEL_THREADS_ALL)
        if len(arr) < MIN_PARALLEL:
            path = "sequential"
        elif words_pay and few:
            path = "words"
        elif outputs == "last" and _cayley(a) is not None:
            path = "ilp"
        elif not few:
            path = "cayley" if _cayley(a) is not None else "live"
        else:
            path = "sequential"
    if path == "sequential":
        res = np.empty(len(arr) if outputs == "all" else 0, dtype=_label_dtype(a))
        q = int(K.run_sequential(delta, out_ids, arr, q0, res))
        return (res if outputs == "all" else None), q, "sequential"
    if path == "words":
        if not words_ok:
            raise SpecError(f"the word tables would be too large ({a.n_symbols} symbols, "
                            f"{a.n_states} states) or the labels too many for int8",
                            source="<evaluate>", field="path", value=path)
        res = np.empty(len(arr) if outputs == "all" else 0, dtype=np.int8)
        q = run_words(delta, out_ids, arr, q0, res, m)
        return (res if outputs == "all" else None), q, "words"
    if path == "ilp":
        return _automaton_ilp(a, arr, q0, delta, out_ids, outputs, threads)
    size = chunk or max(1024, -(-len(arr) // (4 * threads)))
    if path == "cayley":
        table = _cayley(a)
        if table is None:
            raise SpecError("the transition monoid is too large for a Cayley table",
                            source="<evaluate>", field="path", value=path)
        cayley, elements, identity = table
        summaries = K.chunk_summaries_cayley(cayley, identity, arr, size)
        maps = elements[summaries]
    elif path == "live":
        maps = K.chunk_summaries_live(delta, a.n_states, arr, size)
    else:
        raise SpecError("unknown path", source="<evaluate>", field="path", value=path)
    starts = np.empty(len(maps), dtype=np.int64)
    q = q0
    for c in range(len(maps)):  # phase 2: a gather per chunk
        starts[c] = q
        q = int(maps[c, q])
    if outputs == "last":
        return None, q, path
    res = np.empty(len(arr), dtype=_label_dtype(a))
    K.replay_chunks(delta, out_ids, arr, starts, size, res)
    return res, q, path


def label_dtype(n_labels: int) -> np.dtype:
    """The narrowest integer type for label indices 0..n_labels-1: writing the outputs
    is what bounds outputs="all", so int8 instead of int64 moves 8× fewer bytes."""
    for dtype in (np.int8, np.int16, np.int32):
        if max(n_labels, 1) <= np.iinfo(dtype).max:
            return np.dtype(dtype)
    return np.dtype(np.int64)


def _label_dtype(a: Automaton) -> np.dtype:
    return label_dtype(len(a.labels))


def _automaton_ilp(a: Automaton, arr: np.ndarray, q0: int, delta: np.ndarray,
                   out_ids: np.ndarray, outputs: str,
                   threads: int) -> tuple[np.ndarray | None, Any, str]:
    """The three phases with four interleaved chunk chains per thread (see numba_automaton)."""
    from fsmnet.gpu import numba_automaton as K

    table = _cayley(a)
    if table is None:
        raise SpecError("the transition monoid is too large for a Cayley table",
                        source="<evaluate>", field="path", value="ilp")
    cayley, elements, identity = table
    n_chunks = 4 * max(1, threads)
    size = len(arr) // n_chunks  # may be 0: then the last chunk holds the whole input
    summaries = K.chunk_summaries_cayley4(cayley, identity, arr, size, n_chunks)
    starts = np.empty(n_chunks, dtype=np.int64)
    q = q0
    for c in range(n_chunks):
        starts[c] = q
        q = int(elements[summaries[c], q])
    if outputs == "last":
        return None, q, "ilp"
    res = np.empty(len(arr), dtype=_label_dtype(a))
    K.replay_chunks4(delta, out_ids, arr, starts, size, res)
    return res, q, "ilp"


def _cayley(a: Automaton) -> tuple[np.ndarray, np.ndarray, int] | None:
    """(right Cayley table, elements, identity index), cached per automaton; None if huge."""
    key = (a.delta.tobytes(), a.delta.shape)
    if key in _CAYLEY_CACHE:
        return _CAYLEY_CACHE[key]
    from fsmnet.algebra.monoid import MonoidTooLarge, TransitionMonoid

    try:
        monoid = TransitionMonoid.from_automaton(a, limit=CAYLEY_LIMIT)
        value: tuple[np.ndarray, np.ndarray, int] | None = (
            np.ascontiguousarray(monoid.right_cayley_table(), dtype=np.int64),
            np.ascontiguousarray(monoid.elements(), dtype=np.int64),
            int(monoid.identity_index),
        )
    except MonoidTooLarge:
        value = None
    if len(_CAYLEY_CACHE) > 16:
        _CAYLEY_CACHE.clear()
    _CAYLEY_CACHE[key] = value
    return value


_CAYLEY_CACHE: dict[Any, tuple[np.ndarray, np.ndarray, int] | None] = {}

__all__ = ["BACKENDS", "EvalResult", "cuda_available", "evaluate"]
