"""The Numba backend (``backend="numba"``): CPU kernels for automata and networks.

Automata run on word tables, interleaved Cayley chains, chunked scans or the
plain loop, chosen by input length and thread count (docs/performance.md);
networks with few reachable states run as that automaton (``tabulated``),
others on the kernels of their architecture's scan family
(:attr:`fsmnet.archs.Architecture.scan`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from fsmnet import archs
from fsmnet.automata import Automaton
from fsmnet.errors import SpecError
from fsmnet.gpu.common import (
    MIN_PARALLEL,
    automaton_label_dtype,
    cayley_table,
    label_dtype,
    network_start,
    symbols_array,
)
from fsmnet.gpu.reference_backend import evaluate_reference

PARALLEL_THREADS_LAST = 3  # threads the chunked scan needs before "auto" picks it
PARALLEL_THREADS_ALL = 4  # outputs="all" replays every chunk: twice the work
# Groups of interleaved chunks a thread for the ilp path: handed out one at a time,
# several a thread let a thread that finishes early take another when cores are shared.
GROUPS_PER_THREAD = 4


def _threads() -> int:
    import numba

    return int(numba.get_num_threads())


def evaluate_numba(model: Any, symbols: Any, *, outputs: str, start: Any, chunk: Any,
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
    family = archs.get(model.arch).scan
    if family == "linear":
        from fsmnet.gpu.numba_linear import run_linear

        arr = symbols_array(symbols, len(model.symbols))
        mats = np.ascontiguousarray(model.semantics.matrices(model, False), dtype=np.float64)
        readout = np.ascontiguousarray(model.params["readout"], dtype=np.float64)
        h = np.array(network_start(model, start), dtype=np.float64)
        res = np.empty(len(arr) if outputs == "all" else 0, dtype=np.int64)
        h = run_linear(mats, readout, arr, h, res)
        return (res if outputs == "all" else None), h, "sequential-matvec"
    if family in ("minmax-dense", "minmax-cascade"):
        from fsmnet.gpu.numba_minmax import evaluate_minmax

        arr = symbols_array(symbols, len(model.symbols))
        return evaluate_minmax(model, arr, outputs=outputs,
                               start=None if start is None else network_start(model, start),
                               chunk=chunk, path=path, threads=_threads(),
                               min_parallel=MIN_PARALLEL)
    # Other architectures: the reference loop until a kernel exists for them.
    out, state, _ = evaluate_reference(model, symbols, outputs=outputs, start=start, chunk=chunk,
                                    path=path)
    return out, state, "reference"


def _tabulated(net: Any, symbols: Any, *, outputs: str, start: Any,
               forced: bool) -> tuple[np.ndarray | None, Any, str] | None:
    """Run a network through its reachable-state table (fsmnet.gpu.tabulate), or None
    when it has too many states, the input is short, or ``start`` is not in the table."""
    from fsmnet.gpu.tabulate import freeze, tabulate

    arr = symbols_array(symbols, len(net.symbols))
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

    arr = _checked(symbols, a.n_symbols)
    q0 = a.start_state(start)
    delta = np.ascontiguousarray(a.delta)
    out_ids = np.ascontiguousarray(a.output_ids if a.outputs is not None
                                   else np.zeros(a.n_states, dtype=np.int64))
    threads = _threads()
    m = word_length(a.n_symbols, a.n_states)
    words_ok = m > 1 and (outputs == "last" or automaton_label_dtype(a) == np.int8)
    # Measured: two symbols a step pay only with a small table (1.3-1.5x at 3,200
    # entries, nothing at 13,800); four or eight pay up to LIMIT entries.
    words_pay = words_ok and (m >= 4 or a.n_symbols ** 2 * a.n_states <= 1 << 12)
    long = len(arr) >= MIN_PARALLEL
    fast = (path == "ilp" or (path == "auto" and long)) and _interleaved_ok(a, outputs)
    if path == "auto":
        # Measured (docs/performance.md): interleaved chains, m symbols a lookup, on
        # every thread run 2-7x the word tables on one thread ("last" and "all") for
        # every automaton whose monoid has a Cayley table; without one, the word tables
        # beat the plain loop 2-4x while they stay in cache, and the chunked scans
        # of every start state pay only with more threads.
        few = threads < (PARALLEL_THREADS_LAST if outputs == "last" else PARALLEL_THREADS_ALL)
        if not long:
            path = "sequential"
        elif fast:
            path = "ilp"
        elif words_pay and few:
            path = "words"
        elif outputs == "last" and cayley_table(a) is not None:
            path = "ilp"
        elif not few:
            path = "cayley" if cayley_table(a) is not None else "live"
        else:
            path = "sequential"
    if path == "sequential":
        res = np.empty(len(arr) if outputs == "all" else 0, dtype=automaton_label_dtype(a))
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
    if path == "ilp" and fast:
        from fsmnet.gpu.numba_interleaved import MONOID_LIMIT, evaluate_interleaved, layout

        groups, size = layout(len(arr), threads, GROUPS_PER_THREAD, chunk)
        table = cayley_table(a, MONOID_LIMIT)
        assert table is not None  # checked by _interleaved_ok
        out, q = evaluate_interleaved(delta, out_ids, table, _bytes(arr), q0, outputs, groups,
                                      size)
        return out, q, "ilp"
    if path == "ilp":
        return _automaton_ilp(a, arr, q0, delta, out_ids, outputs, threads)
    size = chunk or max(1024, -(-len(arr) // (4 * threads)))
    if path == "cayley":
        table = cayley_table(a)
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
    res = np.empty(len(arr), dtype=automaton_label_dtype(a))
    K.replay_chunks(delta, out_ids, arr, starts, size, res)
    return res, q, path


def _checked(symbols: Any, n_symbols: int) -> np.ndarray:
    """``symbols_array``, with the range check of a long contiguous uint8 input run on
    every thread (an unsigned input needs no minimum)."""
    if (isinstance(symbols, np.ndarray) and symbols.ndim == 1 and symbols.dtype == np.uint8
            and symbols.flags.c_contiguous and len(symbols) >= MIN_PARALLEL):
        from fsmnet.gpu.numba_interleaved import max_byte

        if int(max_byte(symbols)) < n_symbols:
            return symbols
    return symbols_array(symbols, n_symbols)  # checks again, and names the bad symbol


def _interleaved_ok(a: Automaton, outputs: str) -> bool:
    """Whether the interleaved chains (fsmnet.gpu.numba_interleaved) can run ``a``:
    a Cayley table for the chunk summaries, symbols that fit a byte, int8 labels."""
    from fsmnet.gpu.numba_interleaved import MONOID_LIMIT, usable

    if not usable(a.n_symbols) or (outputs == "all" and automaton_label_dtype(a) != np.int8):
        return False
    return cayley_table(a, MONOID_LIMIT) is not None


def _bytes(arr: np.ndarray) -> np.ndarray:
    """``arr`` as contiguous uint8 (its values are checked symbol indices below 256)."""
    if arr.dtype == np.uint8:
        return np.ascontiguousarray(arr)
    return arr.astype(np.uint8)


def _automaton_ilp(a: Automaton, arr: np.ndarray, q0: int, delta: np.ndarray,
                   out_ids: np.ndarray, outputs: str,
                   threads: int) -> tuple[np.ndarray | None, Any, str]:
    """The three phases with four interleaved chunk chains per thread, one symbol a
    lookup (see numba_automaton): for automata the interleaved word chains cannot run."""
    from fsmnet.gpu import numba_automaton as K

    table = cayley_table(a)
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
    res = np.empty(len(arr), dtype=automaton_label_dtype(a))
    K.replay_chunks4(delta, out_ids, arr, starts, size, res)
    return res, q, "ilp"
