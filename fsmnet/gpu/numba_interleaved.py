"""The ``ilp`` path: interleaved chunk chains, m symbols a lookup, on every core.

Data-parallel finite-state machines after Mytkowicz, Musuvathi and Schulte
(ASPLOS 2014).  The sequential loop ``q = delta[x_t, q]`` is bound by the
latency of one dependent load a symbol; here each core advances ``LANES``
independent chunks in the same loop iteration, so their loads overlap, and
each lookup consumes m symbols of a word table (:mod:`fsmnet.gpu.words`), so
the chains are m times shorter.  What is left is instruction throughput:

* the input is read four symbols at a time as one ``uint32``; the index of a
  word is ``pa[u & 0xffff] + pb[u >> 16] + q``, two lookups in pair tables
  indexed by the raw bytes (only k^2 of their entries are ever touched, so they
  stay in cache) instead of four byte loads and a Horner sum;
* indices are unsigned, so the compiled code carries no negative-index fix-up;
* the m labels of a step are one packed store (int8 labels).

The three phases of the chunked scan (docs/architecture.md):

1. every chunk's transition monoid element, by the same chains run on the
   monoid's right Cayley table (elements act on themselves as states do), from
   the identity;
2. the chunk start states, one gather a chunk from the known start state;
3. every chunk replayed from its start state, writing its labels (only for
   outputs="all").

The chunks cover ``LANES × groups × size`` symbols (``size`` a multiple of 4);
the few symbols after them run in the plain loop from the last chunk's end.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numba
import numpy as np
from numba import njit, prange

from fsmnet.gpu.numba_automaton import run_sequential
from fsmnet.gpu.words import word_images, word_labels

LANES = 4  # chunk chains a core advances together (8 measured no faster, more streams)
READ = 4  # symbols read at once (one uint32)
MAX_SYMBOLS = 256  # the pair tables index raw input bytes
MAX_LABELS = 127  # labels are packed as int8
TABLE_LIMIT = 1 << 14  # k^m x states of a word table; past it the table leaves the cache
MONOID_LIMIT = 1 << 16  # Cayley table entries (elements x symbols) for the chunk summaries
# The pair tables read the little-endian byte order of a uint32 view.
AVAILABLE = sys.byteorder == "little"

_MASK = np.uint64(0xFFFF)
_BYTE = np.uint64(0xFF)
_HALF = np.uint64(16)


def usable(n_symbols: int) -> bool:
    """Whether the interleaved kernels can read an input over ``n_symbols`` symbols."""
    return AVAILABLE and n_symbols <= MAX_SYMBOLS


def step_length(n_symbols: int, n_states: int) -> int:
    """Symbols a lookup: the largest m in 4, 2, 1 whose table k^m x states fits the cache."""
    for m in (4, 2):
        if n_symbols ** m * n_states <= TABLE_LIMIT:
            return m
    return 1


@dataclass(frozen=True)
class Chains:
    """One automaton's tables for the chain kernels (states, or monoid elements)."""

    m: int  # symbols a lookup
    images: np.ndarray  # uint32, flat [w * n + q]: the state reached from q after word w
    labels: np.ndarray  # the m labels met on the way, packed (uint8/16/32), or empty
    pa: np.ndarray  # uint32: raw bytes of symbols 1-2 of a step -> word digits times n
    pb: np.ndarray  # uint32: raw bytes of symbols 3-4 -> their digits times k^2 n


def chains(delta: np.ndarray, out_ids: np.ndarray | None, m: int) -> Chains:
    """Tables for running ``delta`` (symbols x states) m symbols a lookup; labels packed
    when ``out_ids`` is given.  Cached: building them costs about 10^5 symbols' run."""
    key = (delta.tobytes(), delta.shape,
           b"" if out_ids is None else np.asarray(out_ids).tobytes(), m)
    found = _CACHE.get(key)
    if found is not None:
        return found
    k, n = delta.shape
    images = np.ascontiguousarray(word_images(delta, m).ravel(), dtype=np.uint32)
    lanes = {1: np.uint8, 2: np.uint16, 4: np.uint32}[m]
    labels = (np.ascontiguousarray(word_labels(delta, np.asarray(out_ids), m))
              .view(lanes).ravel() if out_ids is not None else np.zeros(0, dtype=lanes))
    raw = np.arange(1 << 16, dtype=np.int64)
    lo, hi = raw & 0xFF, raw >> 8
    ok = (lo < k) & (hi < k)  # other byte pairs never occur in a checked input
    if m == 1:
        pa = np.where(np.arange(256) < k, np.arange(256) * n, 0)
        pb = np.zeros(1, dtype=np.int64)
    else:
        pa = np.where(ok, (lo + k * hi) * n, 0)
        pb = np.where(ok, (lo + k * hi) * k * k * n, 0) if m == 4 else np.zeros(1, np.int64)
    value = Chains(m, images, labels, pa.astype(np.uint32), pb.astype(np.uint32))
    if len(_CACHE) > 16:
        _CACHE.clear()
    _CACHE[key] = value
    return value


_CACHE: dict[tuple[bytes, tuple[int, ...], bytes, int], Chains] = {}


def _kernel(m: int, write: bool, parallel: bool) -> Callable[..., Any]:
    """The chain kernel for m symbols a lookup, writing packed labels or not, over
    every thread or on the calling thread alone.

    ``m`` and ``write`` are constants of the closure, so each kernel is compiled
    with its branches folded and its inner steps unrolled (Numba does not unroll a
    loop over a run-time bound).  Group g holds lanes j = 0..LANES-1, lane j being
    chunk ``g * LANES + j`` of ``steps`` uint32 reads."""
    per_read = READ // m  # chain steps a read

    @njit(cache=True, parallel=parallel, nogil=True)
    def run(images, labels, pa, pb, x32, starts, steps, out, ends):  # pragma: no cover
        n_groups = starts.shape[0] // 4
        span = np.uint64(steps)
        for g in prange(n_groups):
            b0 = np.uint64(4 * g) * span
            b1 = b0 + span
            b2 = b1 + span
            b3 = b2 + span
            q0 = np.uint64(starts[4 * g])
            q1 = np.uint64(starts[4 * g + 1])
            q2 = np.uint64(starts[4 * g + 2])
            q3 = np.uint64(starts[4 * g + 3])
            # Label positions of the lanes when a read holds several steps.
            o0 = np.uint64(per_read) * b0
            o1 = np.uint64(per_read) * b1
            o2 = np.uint64(per_read) * b2
            o3 = np.uint64(per_read) * b3
            for s in range(span):
                u0 = np.uint64(x32[b0 + s])
                u1 = np.uint64(x32[b1 + s])
                u2 = np.uint64(x32[b2 + s])
                u3 = np.uint64(x32[b3 + s])
                if per_read == 1:
                    i0 = np.uint64(pa[u0 & _MASK]) + np.uint64(pb[u0 >> _HALF]) + q0
                    i1 = np.uint64(pa[u1 & _MASK]) + np.uint64(pb[u1 >> _HALF]) + q1
                    i2 = np.uint64(pa[u2 & _MASK]) + np.uint64(pb[u2 >> _HALF]) + q2
                    i3 = np.uint64(pa[u3 & _MASK]) + np.uint64(pb[u3 >> _HALF]) + q3
                    if write:
                        out[b0 + s] = labels[i0]
                        out[b1 + s] = labels[i1]
                        out[b2 + s] = labels[i2]
                        out[b3 + s] = labels[i3]
                    q0 = np.uint64(images[i0])
                    q1 = np.uint64(images[i1])
                    q2 = np.uint64(images[i2])
                    q3 = np.uint64(images[i3])
                else:
                    for h in range(per_read):  # constant trip count: unrolled
                        if per_read == 2:
                            shift = np.uint64(16 * h)
                            i0 = np.uint64(pa[(u0 >> shift) & _MASK]) + q0
                            i1 = np.uint64(pa[(u1 >> shift) & _MASK]) + q1
                            i2 = np.uint64(pa[(u2 >> shift) & _MASK]) + q2
                            i3 = np.uint64(pa[(u3 >> shift) & _MASK]) + q3
                        else:
                            shift = np.uint64(8 * h)
                            i0 = np.uint64(pa[(u0 >> shift) & _BYTE]) + q0
                            i1 = np.uint64(pa[(u1 >> shift) & _BYTE]) + q1
                            i2 = np.uint64(pa[(u2 >> shift) & _BYTE]) + q2
                            i3 = np.uint64(pa[(u3 >> shift) & _BYTE]) + q3
                        if write:
                            at = np.uint64(per_read) * s + np.uint64(h)
                            out[o0 + at] = labels[i0]
                            out[o1 + at] = labels[i1]
                            out[o2 + at] = labels[i2]
                            out[o3 + at] = labels[i3]
                        q0 = np.uint64(images[i0])
                        q1 = np.uint64(images[i1])
                        q2 = np.uint64(images[i2])
                        q3 = np.uint64(images[i3])
            ends[4 * g] = q0
            ends[4 * g + 1] = q1
            ends[4 * g + 2] = q2
            ends[4 * g + 3] = q3

    return run  # type: ignore[no-any-return]


# The serial kernels are for callers that run several scans at once in their own
# threads (Dask tasks): Numba's default thread pool takes one parallel launch at a time.
_KERNELS = {(m, write, parallel): _kernel(m, write, parallel)
            for m in (1, 2, 4) for write in (False, True) for parallel in (False, True)}
assert LANES == 4  # the kernels above are written out for four lanes


def run_chains(tables: Chains, x32: np.ndarray, starts: np.ndarray, steps: int,
               out: np.ndarray | None, parallel: bool = True) -> np.ndarray:
    """Run chunk ``c`` (``steps`` uint32 reads from read ``c * steps``) from
    ``starts[c]`` for every c; returns the end states (uint32).  Writes the packed
    labels into ``out`` (a view of the int8 labels, m bytes an element) if given."""
    write = out is not None
    ends = np.empty(len(starts), dtype=np.uint32)
    target = out if out is not None else np.zeros(0, dtype=tables.labels.dtype)
    # Groups handed out one at a time: a thread whose core is busy with other work
    # does fewer of them, instead of holding up the launch with a fixed share.
    before = numba.set_parallel_chunksize(1) if parallel else 0
    try:
        _KERNELS[tables.m, write, parallel](tables.images, tables.labels, tables.pa, tables.pb,
                                            x32, np.ascontiguousarray(starts, dtype=np.uint32),
                                            steps, target, ends)
    finally:
        if parallel:
            numba.set_parallel_chunksize(before)
    return ends


@njit(cache=True, parallel=True, nogil=True)
def max_byte(x):  # pragma: no cover - jitted
    """The largest value of a uint8 array (0 when empty), on every thread: NumPy's
    min and max are two single-threaded passes, as long as the scan itself."""
    n = x.shape[0]
    blocks = 64
    size = (n + blocks - 1) // blocks
    part = np.zeros(blocks, dtype=np.uint8)
    for b in prange(blocks):
        lo = min(n, b * size)
        hi = min(n, lo + size)
        if hi > lo:
            # The slice's max is vectorized; a written-out loop measured 100x slower.
            part[b] = x[lo:hi].max()
    return part.max()


def layout(n: int, threads: int, groups_per_thread: int,
           chunk: int | None) -> tuple[int, int]:
    """(groups, size): LANES × groups chunks of ``size`` symbols (a multiple of READ)
    at the front of an input of n symbols; groups is 0 when the input is too short."""
    if chunk is not None:
        size = -(-chunk // READ) * READ
        return n // (LANES * size), size
    groups = max(1, threads * groups_per_thread)
    size = n // (LANES * groups) // READ * READ
    return (groups, size) if size > 0 else (0, READ)


def _summaries(monoid: tuple[np.ndarray, np.ndarray, int], x32: np.ndarray, n_chunks: int,
               steps: int, parallel: bool) -> np.ndarray:
    """Phase 1: each chunk's monoid element, the chains run on the Cayley table."""
    cayley, _, identity = monoid
    tables = chains(np.ascontiguousarray(cayley.T), None,
                    step_length(cayley.shape[1], cayley.shape[0]))
    return run_chains(tables, x32, np.full(n_chunks, identity, dtype=np.uint32), steps, None,
                      parallel)


def evaluate_interleaved(delta: np.ndarray, out_ids: np.ndarray, monoid: tuple[np.ndarray,
                         np.ndarray, int], symbols: np.ndarray, q0: int, outputs: str,
                         groups: int, size: int,
                         parallel: bool = True) -> tuple[np.ndarray | None, int]:
    """The three phases on ``groups`` groups of LANES chunks of ``size`` symbols, then
    the rest of the input in the plain loop.  ``monoid`` is (right Cayley table,
    elements, identity) of the automaton's transition monoid; ``symbols`` a uint8
    array; labels (outputs="all") are int8 and need at most MAX_LABELS labels."""
    elements = monoid[1]
    n = len(symbols)
    covered = groups * LANES * size
    steps = size // READ
    x32 = np.ascontiguousarray(symbols[:covered]).view(np.uint32)
    n_chunks = groups * LANES
    summary = _summaries(monoid, x32, n_chunks, steps, parallel)
    # Phase 2: the start state of every chunk, one gather a chunk.
    starts = np.empty(n_chunks, dtype=np.uint32)
    q = q0
    for c in range(n_chunks):
        starts[c] = q
        q = int(elements[summary[c], q])
    if outputs == "last":
        tail = np.zeros(0, dtype=np.int8)
        return None, int(run_sequential(delta, out_ids, symbols[covered:], q, tail))
    # Phase 3: replay every chunk from its start, m labels a packed store.
    res = np.empty(n, dtype=np.int8)
    on_states = chains(delta, out_ids, step_length(delta.shape[0], delta.shape[1]))
    run_chains(on_states, x32, starts, steps, res[:covered].view(on_states.labels.dtype),
               parallel)
    q = int(run_sequential(delta, out_ids, symbols[covered:], q, res[covered:]))
    return res, q


def transformation(delta: np.ndarray, monoid: tuple[np.ndarray, np.ndarray, int],
                   symbols: np.ndarray) -> np.ndarray:
    """The map of states ``symbols`` (uint8) induces, ``images[q]``, on the calling
    thread: LANES chunk chains on the Cayley table, composed, then the last symbols."""
    elements = monoid[1]
    groups, size = layout(len(symbols), 1, 1, None)
    covered = groups * LANES * size
    x32 = np.ascontiguousarray(symbols[:covered]).view(np.uint32)
    images = np.arange(delta.shape[1], dtype=np.int64)
    for e in _summaries(monoid, x32, groups * LANES, size // READ, False):
        images = elements[e][images]
    return _tail_images(delta, symbols[covered:], images)


@njit(cache=True, nogil=True)
def _tail_images(delta, symbols, images):  # pragma: no cover - jitted
    for t in range(symbols.shape[0]):
        row = delta[symbols[t]]
        for q in range(images.shape[0]):
            images[q] = row[images[q]]
    return images


__all__ = ["AVAILABLE", "LANES", "MAX_LABELS", "MONOID_LIMIT", "MAX_SYMBOLS", "Chains", "chains",
           "evaluate_interleaved", "layout", "max_byte", "run_chains", "step_length",
           "transformation", "usable"]
