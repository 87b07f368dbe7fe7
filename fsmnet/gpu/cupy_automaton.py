"""Automata on the CuPy backend: the three phases of ``kernels/automaton.cu``.

The phases are described in docs/architecture.md, "Scan engine".

Phase 1 gives every chunk its transformation (one Cayley-table lookup a
symbol, or every start state's image when the monoid is too large for a
table), phase 2 composes them in groups on the device and scans the few group
transformations on the host, phase 3 replays each chunk from its start state.
:func:`transformation` stops after phase 2 and returns the whole input's
transformation: the block summary of the Dask backend when blocks are CuPy
arrays.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from fsmnet.automata import Automaton
from fsmnet.errors import SpecError
from fsmnet.gpu.cupy_backend import (
    GROUP,
    THREADS,
    chunk_length,
    compiled_module,
    device_symbols,
    grid_for,
    host_labels,
    kernel_for,
    pieces,
)
from fsmnet.gpu.words import word_images, word_length

WORD_TABLE_BYTES = 64 * 1024  # shared memory for the word table of the live_words kernels


@dataclass
class _Tables:
    """The automaton's tables on the device (built once a call)."""

    delta: Any
    out_ids: Any
    cayley: Any  # None on the live path
    elements: Any
    identity: int
    path: str
    words: Any = None  # live path, Q <= 16: (k^m, width) uint8 images of words of m symbols
    delta1: Any = None  # (k, width) uint8: the same for single symbols
    width: int = 0
    m: int = 0


def word_table(delta: np.ndarray, width: int, m: int) -> np.ndarray:
    """``table[w, q]`` (uint8) = the state q reaches after the word w of m symbols
    (fsmnet.gpu.words), with states padded to ``width`` by fixed points."""
    k, q_count = delta.shape
    padded = np.tile(np.arange(width, dtype=np.int64), (k, 1))
    padded[:, :q_count] = delta
    return word_images(padded, m).astype(np.uint8)


def _tables(a: Automaton, path: str) -> _Tables:
    import cupy

    from fsmnet.gpu.common import cayley_table

    if path not in ("auto", "cayley", "live"):
        raise SpecError("cupy automaton paths are auto, cayley and live", source="<evaluate>",
                        field="path", value=path)
    table = None if path == "live" else cayley_table(a)
    if path == "cayley" and table is None:
        raise SpecError("the transition monoid is too large for a Cayley table",
                        source="<evaluate>", field="path", value=path)
    delta = cupy.asarray(np.ascontiguousarray(a.delta, dtype=np.int32))
    out_ids = cupy.asarray(np.ascontiguousarray(
        a.output_ids if a.outputs is not None else np.zeros(a.n_states), dtype=np.int32))
    if table is None:
        t = _Tables(delta, out_ids, None, None, 0, "live")
        if a.n_states <= 16 and a.n_symbols <= 256:
            t.width = 8 if a.n_states <= 8 else 16
            t.m = word_length(a.n_symbols, t.width, limit=WORD_TABLE_BYTES)
            t.words = cupy.asarray(word_table(a.delta, t.width, t.m))
            t.delta1 = cupy.asarray(word_table(a.delta, t.width, 1))
        return t
    return _Tables(delta, out_ids, cupy.asarray(table[0].astype(np.int32)),
                   cupy.asarray(table[1].astype(np.int32)), int(table[2]), "cayley")


def _chunk_maps(a: Automaton, t: _Tables, sym: Any, kind: str, size: int) -> Any:
    """Phase 1: the (n_chunks, Q) transformations of the chunks of one piece."""
    import cupy

    n = len(sym)
    n_chunks = -(-n // size)
    if t.cayley is not None:
        kern, smem, flag = kernel_for("automaton", f"cayley_summary_{kind}", t.cayley.nbytes)
        summ = cupy.empty(n_chunks, dtype=np.int32)
        kern(grid_for(n_chunks), (THREADS,), (t.cayley, np.int32(len(t.elements)),
             np.int32(a.n_symbols), np.int32(t.identity), sym, np.int64(n), np.int64(size),
             np.int64(n_chunks), np.int32(flag), summ), shared_mem=smem)
        return t.elements[summ]
    if t.words is not None and kind == "u8":
        kern, smem, flag = kernel_for("automaton", f"live_words_q{t.width}_m{t.m}",
                                      t.words.nbytes + t.delta1.nbytes)
        maps = cupy.empty((n_chunks, a.n_states), dtype=np.int32)
        kern(grid_for(n_chunks), (THREADS,), (t.words, t.delta1, np.int32(a.n_states),
             np.int32(a.n_symbols), sym, np.int64(n), np.int64(size), np.int64(n_chunks),
             np.int32(flag), maps), shared_mem=smem)
        return maps
    kern, smem, flag = kernel_for("automaton", f"all_states_summary_{kind}", t.delta.nbytes)
    maps = cupy.empty((n_chunks, a.n_states), dtype=np.int32)
    kern(grid_for(n_chunks), (THREADS,), (t.delta, np.int32(a.n_states), np.int32(a.n_symbols),
         sym, np.int64(n), np.int64(size), np.int64(n_chunks), np.int32(flag), maps),
         shared_mem=smem)
    return maps


def _group_maps(maps: Any) -> np.ndarray:
    """Phase 2a: the transformations of groups of GROUP chunks, back on the host."""
    import cupy

    n_chunks, q_count = maps.shape
    n_groups = -(-n_chunks // GROUP)
    groups = cupy.empty((n_groups, q_count), dtype=np.int32)
    compiled_module("automaton").get_function("compose_groups")(
        grid_for(n_groups * q_count), (THREADS,), (maps, np.int64(n_chunks), np.int32(q_count),
                                                np.int64(GROUP), np.int64(n_groups), groups))
    return cupy.asnumpy(groups)


def _chunk_starts(maps: Any, groups: np.ndarray, q: int, with_starts: bool = True
                  ) -> tuple[Any, int]:
    """Phase 2b-c: every chunk's start state (None unless ``with_starts``: outputs
    "last" replays nothing), and the state after the piece."""
    import cupy

    n_chunks, q_count = maps.shape
    n_groups = len(groups)
    group_start = np.empty(n_groups, dtype=np.int32)
    rows = groups.tolist()  # Python lists: a gather costs tens of ns, a NumPy scalar more
    for g in range(n_groups):  # about a thousand gathers on the host
        group_start[g] = q
        q = rows[g][q]
    if not with_starts:
        return None, q
    starts = cupy.empty(n_chunks, dtype=np.int32)
    compiled_module("automaton").get_function("expand_groups")(
        grid_for(n_groups), (THREADS,), (maps, np.int64(n_chunks), np.int32(q_count),
                                      np.int64(GROUP), np.int64(n_groups),
                                      cupy.asarray(group_start), starts))
    return starts, q


def run_automaton(a: Automaton, arr: Any, outputs: str, start: Any, chunk: int | None,
                  path: str) -> tuple[Any, Any, str]:
    """Run ``a`` on ``arr`` (NumPy, streamed in pieces, or CuPy); ``(labels, state, path)``."""
    import cupy

    t = _tables(a, path)
    q = int(a.start_state(start))
    result = host_labels(len(arr), outputs, len(a.labels))
    out_kind = "u8" if len(a.labels) <= 256 else "i32"
    for begin, piece in pieces(arr, outputs):
        sym, kind = device_symbols(piece, a.n_symbols)
        n = len(sym)
        size = chunk_length(n, chunk)
        maps = _chunk_maps(a, t, sym, kind, size)
        starts, q = _chunk_starts(maps, _group_maps(maps), q, with_starts=outputs == "all")
        if outputs == "all":
            out = cupy.empty(n, dtype=np.uint8 if out_kind == "u8" else np.int32)
            kern, smem, flag = kernel_for("automaton", f"replay_{kind}_{out_kind}",
                                       t.delta.nbytes + t.out_ids.nbytes)
            kern(grid_for(len(maps)), (THREADS,), (t.delta, t.out_ids, np.int32(a.n_states),
                 np.int32(a.n_symbols), sym, np.int64(n), np.int64(size),
                 np.int64(len(maps)), starts, np.int32(flag), out), shared_mem=smem)
            result[begin:begin + n] = cupy.asnumpy(out)  # type: ignore[index]
    return result, q, t.path


def transformation(a: Automaton, arr: Any, chunk: int | None = None,
                   path: str = "auto") -> np.ndarray:
    """The map state -> state after reading all of ``arr`` (int64, length Q), on the device."""
    t = _tables(a, path)
    images = np.arange(a.n_states, dtype=np.int64)
    for _, piece in pieces(arr, "last"):
        sym, kind = device_symbols(piece, a.n_symbols)
        for group in _group_maps(_chunk_maps(a, t, sym, kind, chunk_length(len(sym), chunk))):
            images = group[images].astype(np.int64)
    return images
