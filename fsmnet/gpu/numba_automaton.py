"""Numba kernels for running an automaton over a long symbol array.

Paths chosen by :func:`fsmnet.gpu.engine.evaluate` (the ``words`` path, m
symbols a step, lives in :mod:`fsmnet.gpu.words`; the ``ilp`` path's word
chains, in :mod:`fsmnet.gpu.numba_interleaved`):

``sequential``
    q = delta[x_t, q]; the latency-bound baseline, one dependent load a symbol.
``cayley``
    the chunked three-phase scan.  Phase 1 computes each chunk's transition
    monoid element with ONE lookup a symbol in the right Cayley table
    (elements × symbols), in parallel over chunks; phase 2 scans the chunk
    summaries from q0 (sequential, one gather per chunk); phase 3 replays each
    chunk from its now-known start state, in parallel.  When only the last
    state is wanted, phase 3 is skipped.
``live``
    when the monoid is too large for a table, phase 1 tracks the images of all
    start states, keeping only the distinct live ones (they merge quickly on
    most automata).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange


@njit(cache=True, nogil=True)
def run_sequential(delta, out_ids, symbols, q, outputs):  # pragma: no cover - jitted
    """Returns the last state; writes out_ids of each state into ``outputs`` if non-empty."""
    write = outputs.shape[0] > 0
    for t in range(symbols.shape[0]):
        q = delta[symbols[t], q]
        if write:
            outputs[t] = out_ids[q]
    return q


@njit(cache=True, parallel=True, nogil=True)
def chunk_summaries_cayley(cayley, identity, symbols, chunk):  # pragma: no cover - jitted
    n = symbols.shape[0]
    n_chunks = (n + chunk - 1) // chunk
    out = np.empty(n_chunks, dtype=np.int64)
    for c in prange(n_chunks):
        e = identity
        stop = min(n, (c + 1) * chunk)
        for t in range(c * chunk, stop):
            e = cayley[e, symbols[t]]
        out[c] = e
    return out


@njit(cache=True, parallel=True, nogil=True)
def chunk_summaries_live(delta, n_states, symbols, chunk):  # pragma: no cover - jitted
    """Each chunk's transformation (array of images), tracking distinct live states."""
    n = symbols.shape[0]
    n_chunks = (n + chunk - 1) // chunk
    out = np.empty((n_chunks, n_states), dtype=np.int64)
    for c in prange(n_chunks):
        live = np.arange(n_states)
        owner = np.arange(n_states)  # start state -> index into live
        n_live = n_states
        stop = min(n, (c + 1) * chunk)
        t = c * chunk
        seen = np.full(n_states, -1, dtype=np.int64)
        while t < stop:
            block_end = min(stop, t + 64)
            for tt in range(t, block_end):
                x = symbols[tt]
                for i in range(n_live):
                    live[i] = delta[x, live[i]]
            t = block_end
            # Merge live states that have met: they stay together from now on.
            remap = np.empty(n_live, dtype=np.int64)
            m = 0
            for i in range(n_live):
                s = live[i]
                if seen[s] < 0:
                    seen[s] = m
                    live[m] = s
                    m += 1
                remap[i] = seen[s]
            for i in range(m):
                seen[live[i]] = -1
            for q in range(n_states):
                owner[q] = remap[owner[q]]
            n_live = m
        for q in range(n_states):
            out[c, q] = live[owner[q]]
    return out


@njit(cache=True, parallel=True, nogil=True)
def replay_chunks(delta, out_ids, symbols, starts, chunk, outputs):  # pragma: no cover
    n = symbols.shape[0]
    for c in prange(starts.shape[0]):
        q = starts[c]
        stop = min(n, (c + 1) * chunk)
        for t in range(c * chunk, stop):
            q = delta[symbols[t], q]
            outputs[t] = out_ids[q]


# ---------------------------------------------------------------------------
# Interleaved ("ilp") variants, one symbol a lookup: the ilp path for automata the
# word chains of fsmnet.gpu.numba_interleaved cannot run (more than 256 symbols, or
# labels past int8).  The sequential loop is bound by the latency of one dependent
# load per symbol; four independent chunk chains advanced in the same loop
# iteration let the core overlap four loads, so even one thread beats the
# sequential loop.  Chunk c covers [c*chunk, (c+1)*chunk), except the last, which
# also takes the remainder; n_chunks is a multiple of 4.


@njit(cache=True, parallel=True, nogil=True)
def chunk_summaries_cayley4(cayley, identity, symbols, chunk, n_chunks):  # pragma: no cover
    n = symbols.shape[0]
    out = np.empty(n_chunks, dtype=np.int64)
    for g in prange(n_chunks // 4):
        b0 = 4 * g * chunk
        b1 = b0 + chunk
        b2 = b1 + chunk
        b3 = b2 + chunk
        e0 = identity
        e1 = identity
        e2 = identity
        e3 = identity
        for i in range(chunk):
            e0 = cayley[e0, symbols[b0 + i]]
            e1 = cayley[e1, symbols[b1 + i]]
            e2 = cayley[e2, symbols[b2 + i]]
            e3 = cayley[e3, symbols[b3 + i]]
        if 4 * g + 4 == n_chunks:  # the last chunk takes the remainder
            for t in range(b3 + chunk, n):
                e3 = cayley[e3, symbols[t]]
        out[4 * g] = e0
        out[4 * g + 1] = e1
        out[4 * g + 2] = e2
        out[4 * g + 3] = e3
    return out


@njit(cache=True, parallel=True, nogil=True)
def replay_chunks4(delta, out_ids, symbols, starts, chunk, outputs):  # pragma: no cover
    n = symbols.shape[0]
    n_chunks = starts.shape[0]
    for g in prange(n_chunks // 4):
        b0 = 4 * g * chunk
        b1 = b0 + chunk
        b2 = b1 + chunk
        b3 = b2 + chunk
        q0 = starts[4 * g]
        q1 = starts[4 * g + 1]
        q2 = starts[4 * g + 2]
        q3 = starts[4 * g + 3]
        for i in range(chunk):
            q0 = delta[symbols[b0 + i], q0]
            q1 = delta[symbols[b1 + i], q1]
            q2 = delta[symbols[b2 + i], q2]
            q3 = delta[symbols[b3 + i], q3]
            outputs[b0 + i] = out_ids[q0]
            outputs[b1 + i] = out_ids[q1]
            outputs[b2 + i] = out_ids[q2]
            outputs[b3 + i] = out_ids[q3]
        if 4 * g + 4 == n_chunks:
            for t in range(b3 + chunk, n):
                q3 = delta[symbols[t], q3]
                outputs[t] = out_ids[q3]
