"""The levelwise scan of a MinMax cascade on Numba (see :mod:`fsmnet.gpu.numba_minmax`).

The input is cut into blocks; within a block the units are done one at a
time, top level first.  Once the coordinates of the units above are known
for the whole block, a unit's steps are known for every t, and its trajectory
is a three-phase chunked scan: scalar units compose (r, s) pairs
(:func:`scalar_unit_block`), matrix units max-min affine maps (R, s)
(:func:`matrix_unit_block`); the replay writes the unit's coordinates (int8)
for the units below and the readout.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from fsmnet.gpu.numba_minmax import (
    SCALAR_KIND,
    CascadePack,
    _affine_step,
    _coords,
    _scalar_coord,
    _unit_cell,
)

BLOCK = 1 << 22  # symbols per levelwise block: coordinates cost U bytes a symbol


@njit(cache=True, parallel=True, nogil=True)
def scalar_unit_block(u, above, dom, pstr, sizes, off_rs, rtab, stab, symbols, xs, coords,
                      chunk, needed):  # pragma: no cover - jitted
    """One block of scalar unit u (see the module docstring).

    ``coords[v, 0]`` holds unit v's coordinate before the block and the units
    above u have their coordinates for the whole block; the replay writes
    ``coords[u, t + 1]`` when ``needed``.  ``xs[u]`` is updated in place.
    """
    n = symbols.shape[0]
    n_chunks = (n + chunk - 1) // chunk
    rr = np.empty(n_chunks)
    ss = np.empty(n_chunks)
    starts = np.empty(n_chunks)
    d = dom[u]
    off = off_rs[u]
    a = above[u]
    for c in prange(n_chunks):  # phase 1: compose each chunk's pairs
        r_acc = np.inf
        s_acc = -np.inf
        for t in range(c * chunk, min(n, (c + 1) * chunk)):
            i = off + _unit_cell(symbols, coords, pstr, u, a, d, t)
            r = rtab[i]
            s_acc = max(min(r, s_acc), stab[i])
            r_acc = min(r_acc, r)
        rr[c] = r_acc
        ss[c] = s_acc
    v = xs[u]
    for c in range(n_chunks):  # phase 2: scan the summaries from the unit's value
        starts[c] = v
        v = max(min(rr[c], v), ss[c])
    xs[u] = v
    if needed:
        k = sizes[u]
        for c in prange(n_chunks):  # phase 3: replay, writing coordinates
            w = starts[c]
            for t in range(c * chunk, min(n, (c + 1) * chunk)):
                i = off + _unit_cell(symbols, coords, pstr, u, a, d, t)
                w = max(min(rtab[i], w), stab[i])
                coords[u, t + 1] = _scalar_coord(w, k)


@njit(cache=True, nogil=True)
def _matrix_chunk_summary(u, a, d, pstr, off_m, off_ms, mR, ms, symbols, coords, k, lo, hi,
                          racc, sacc):  # pragma: no cover - jitted
    """Phase 1 for one chunk [lo, hi): its max-min affine summary into ``racc``, ``sacc``."""
    for i in range(k):
        for j in range(k):
            racc[i, j] = -np.inf
        racc[i, i] = np.inf  # the max-min identity: +inf on the diagonal, -inf off it
        sacc[i] = -np.inf
    rnew = np.empty((k, k))
    snew = np.empty(k)
    for t in range(lo, hi):
        cell = _unit_cell(symbols, coords, pstr, u, a, d, t)
        base = off_m[u] + cell * k * k
        sbase = off_ms[u] + cell * k
        _affine_step(mR, ms, base, sbase, k, sacc, snew)
        for i in range(k):
            for col in range(k):
                best = -np.inf
                for j in range(k):
                    best = max(best, min(mR[base + i * k + j], racc[j, col]))
                rnew[i, col] = best
        for i in range(k):
            sacc[i] = snew[i]
            for j in range(k):
                racc[i, j] = rnew[i, j]


@njit(cache=True, nogil=True)
def _matrix_chunk_replay(u, a, d, pstr, off_m, off_ms, mR, ms, symbols, coords, k, lo, hi,
                         start):  # pragma: no cover - jitted
    """Phase 3 for one chunk: step from ``start``, writing first-argmax coordinates."""
    w = start.copy()
    wt = np.empty(k)
    for t in range(lo, hi):
        cell = _unit_cell(symbols, coords, pstr, u, a, d, t)
        _affine_step(mR, ms, off_m[u] + cell * k * k, off_ms[u] + cell * k, k, w, wt)
        top = 0
        for i in range(k):
            w[i] = wt[i]
            if w[i] > w[top]:
                top = i
        coords[u, t + 1] = top


@njit(cache=True, nogil=True)
def _matrix_scan(rr, ss, starts, vec, k):  # pragma: no cover - jitted
    """Phase 2: apply the chunk summaries in order from ``vec``, recording each start."""
    cur = vec.copy()
    tmp = np.empty(k)
    for c in range(rr.shape[0]):
        for i in range(k):
            starts[c, i] = cur[i]
        _affine_step(rr[c].ravel(), ss[c], 0, 0, k, cur, tmp)
        for i in range(k):
            cur[i] = tmp[i]
    for i in range(k):
        vec[i] = cur[i]


# The chunk bodies live in plain helpers: array code written inside a prange
# loop is itself parallelized by Numba's parfors pass, and compiling that is
# several times slower (cold cache) than this form, with the same machine code
# in the hot loops.
@njit(cache=True, parallel=True, nogil=True)
def matrix_unit_block(u, above, dom, pstr, sizes, off_m, off_ms, mR, ms, symbols, vec, coords,
                      chunk, needed):  # pragma: no cover - jitted
    """One block of matrix unit u: the same three phases with max-min affine maps.

    A chunk's summary is ``(R_c, s_c)``, composed step by step as
    ``(R_t ⊗ R_c, (R_t ⊗ s_c) ⊕ s_t)`` (exact: ⊗ distributes over ⊕ on a chain);
    phase 1 costs k³ a symbol against the sequential k², so it pays only with
    more than k threads.  ``vec`` (the unit's k values) is updated in place.
    """
    n = symbols.shape[0]
    k = sizes[u]
    n_chunks = (n + chunk - 1) // chunk
    rr = np.empty((n_chunks, k, k))
    ss = np.empty((n_chunks, k))
    starts = np.empty((n_chunks, k))
    d = dom[u]
    a = above[u]
    for c in prange(n_chunks):  # phase 1
        _matrix_chunk_summary(u, a, d, pstr, off_m, off_ms, mR, ms, symbols, coords, k,
                              c * chunk, min(n, (c + 1) * chunk), rr[c], ss[c])
    _matrix_scan(rr, ss, starts, vec, k)  # phase 2
    if needed:
        for c in prange(n_chunks):  # phase 3: replay, writing first-argmax coordinates
            _matrix_chunk_replay(u, a, d, pstr, off_m, off_ms, mR, ms, symbols, coords, k,
                                 c * chunk, min(n, (c + 1) * chunk), starts[c])


@njit(cache=True, parallel=True, nogil=True)
def cascade_block_labels(coords, stride_all, readout, outputs, chunk):  # pragma: no cover
    n = outputs.shape[0]
    n_chunks = (n + chunk - 1) // chunk
    for c in prange(n_chunks):
        for t in range(c * chunk, min(n, (c + 1) * chunk)):
            code = 0
            for u in range(stride_all.shape[0]):
                code += coords[u, t + 1] * stride_all[u]
            outputs[t] = readout[code]


def levelwise(pack: CascadePack, arr: np.ndarray, state: np.ndarray, res: np.ndarray,
              outputs: str, chunk: int | None, threads: int) -> None:
    """Run the cascade over ``arr``; ``state`` (flat) is updated, labels go to ``res``."""
    n_units = len(pack.kinds)
    block = min(BLOCK, max(1, len(arr)))
    if chunk is not None:
        block = max(block, chunk)
    size = chunk or max(1024, -(-block // (4 * threads)))
    # A unit's coordinates are needed by the units that read it, or by the readout.
    needed = np.array([outputs == "all" or bool(np.any(pack.above > u))
                       for u in range(n_units)], dtype=np.bool_)
    # int8 coordinates keep the memory traffic at a byte per unit and symbol.
    ctype = np.int8 if int(pack.sizes.max()) <= 127 else np.int32
    coords = np.zeros((n_units, block + 1), dtype=ctype)
    c0 = np.empty(n_units, dtype=np.int64)
    xs = np.ascontiguousarray(state[pack.soff])
    for begin in range(0, len(arr), block):
        piece = arr[begin:begin + block]
        _coords(pack.kinds, pack.sizes, pack.soff, state, c0)
        coords[:, 0] = c0
        for u in range(n_units):  # top level first: a unit reads the coordinates above it
            if pack.kinds[u] == SCALAR_KIND:
                scalar_unit_block(u, pack.above, pack.dom, pack.pstr, pack.sizes, pack.off_rs,
                                  pack.rtab, pack.stab, piece, xs, coords, size, needed[u])
                state[pack.soff[u]] = xs[u]
            else:
                lo = int(pack.soff[u])
                vec = state[lo:lo + int(pack.sizes[u])]  # a view: updated in place
                matrix_unit_block(u, pack.above, pack.dom, pack.pstr, pack.sizes, pack.off_m,
                                  pack.off_ms, pack.mR, pack.ms, piece, vec, coords, size,
                                  needed[u])
        if outputs == "all":
            cascade_block_labels(coords, pack.stride_all, pack.readout,
                                 res[begin:begin + len(piece)], size)
