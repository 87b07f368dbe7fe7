"""Numba kernels for MinMax networks: ``minmax-dense``, ``minmax-cascade``, ``minmax-scalar``.

Semantics are those of :mod:`fsmnet.nets.minmax` and :mod:`fsmnet.nets.minmax_cascade`
(a unit's controller reads the coordinates of the units above it at t−1).
Max and min only select values, so every path below returns exactly the
floats of the reference evaluator.

Paths
-----
``sequential``
    one pass, every unit stepped per symbol (any cascade, and ``minmax-dense``).
``levelwise``
    any cascade: the units level by level, each a three-phase chunked scan of
    its steps (:mod:`fsmnet.gpu.numba_levelwise`).

Prefix-indexed cascades (links, format 2; components and joins, format 3)
run on the links kernel of :mod:`fsmnet.gpu.numba_linked` (``sequential``) or
on the NumPy level-by-level scans (``levelwise``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numba import njit

SCALAR_KIND = 0


# ------------------------------------------------------------------ packing
@dataclass(frozen=True)
class CascadePack:
    """A cascade's tensors flattened into a few arrays a kernel can take."""

    kinds: np.ndarray  # (U,) 0 scalar, 1 matrix
    sizes: np.ndarray  # (U,) k
    above: np.ndarray  # (U,) number of units read by the controller
    dom: np.ndarray  # (U,) controller domain D_u
    pstr: np.ndarray  # (U, U) mixed-radix strides of the units above
    stride_all: np.ndarray  # (U,) strides of the readout code
    soff: np.ndarray  # (U,) offset of the unit in the flat state vector
    off_rs: np.ndarray  # (U,) offset into rtab / stab (scalar units)
    rtab: np.ndarray
    stab: np.ndarray
    off_m: np.ndarray  # (U,) offset into mR (matrix units)
    off_ms: np.ndarray  # (U,) offset into ms
    mR: np.ndarray
    ms: np.ndarray
    readout: np.ndarray  # (n_codes,) label per code
    linked: bool = False  # prefix-indexed tables (formats 2, 3): fsmnet.gpu.numba_linked

    @property
    def all_scalar(self) -> bool:
        return bool(np.all(self.kinds == SCALAR_KIND))


def pack_cascade(net: Any) -> CascadePack:
    """Flatten a ``minmax-cascade`` / ``minmax-scalar`` network (cached on the network)."""
    return net.cached("numba_cascade_pack", lambda: _pack(net))  # type: ignore[no-any-return]


def _pack(net: Any) -> CascadePack:
    lay = net.semantics.layout(net)
    p = net.params
    u_count = lay.n_units
    pstr = np.zeros((u_count, max(u_count, 1)), dtype=np.int64)
    for u in range(u_count):
        pstr[u, :lay.above[u]] = lay.prefix_strides[u]
    soff = np.zeros(u_count, dtype=np.int64)
    off_rs = np.zeros(u_count, dtype=np.int64)
    off_m = np.zeros(u_count, dtype=np.int64)
    off_ms = np.zeros(u_count, dtype=np.int64)
    r_parts, s_parts, mr_parts, ms_parts = [], [], [], []
    pos = n_rs = n_m = n_ms = 0
    for u in range(u_count):
        soff[u] = pos
        if lay.kinds[u] == SCALAR_KIND:
            pos += 1
            off_rs[u] = n_rs
            r_parts.append(np.ravel(p[f"unit{u}_r"]).astype(np.float64))
            s_parts.append(np.ravel(p[f"unit{u}_s"]).astype(np.float64))
            n_rs += r_parts[-1].size
        else:
            pos += lay.sizes[u]
            off_m[u], off_ms[u] = n_m, n_ms
            mr_parts.append(np.ravel(p[f"unit{u}_R"]).astype(np.float64))
            ms_parts.append(np.ravel(p[f"unit{u}_s"]).astype(np.float64))
            n_m += mr_parts[-1].size
            n_ms += ms_parts[-1].size

    def cat(parts: list[np.ndarray]) -> np.ndarray:
        return np.ascontiguousarray(np.concatenate(parts)) if parts else np.zeros(1)

    return CascadePack(
        kinds=np.array(lay.kinds, dtype=np.int64), sizes=np.array(lay.sizes, dtype=np.int64),
        above=np.array(lay.above, dtype=np.int64), dom=np.array(lay.domains, dtype=np.int64),
        pstr=pstr, stride_all=np.asarray(lay.strides, dtype=np.int64), soff=soff,
        off_rs=off_rs, rtab=cat(r_parts), stab=cat(s_parts), off_m=off_m, off_ms=off_ms,
        mR=cat(mr_parts), ms=cat(ms_parts),
        readout=np.ascontiguousarray(p["readout"], dtype=np.int64), linked=lay.linked)


def flat_state(pack: CascadePack, state: Any) -> np.ndarray:
    """Tuple of per-unit arrays -> one float64 vector."""
    return np.ascontiguousarray(np.concatenate([np.ravel(np.asarray(x, dtype=np.float64))
                                                for x in state]))


def unflat_state(pack: CascadePack, flat: np.ndarray) -> tuple[np.ndarray, ...]:
    out = []
    for u in range(len(pack.kinds)):
        width = 1 if pack.kinds[u] == SCALAR_KIND else int(pack.sizes[u])
        out.append(np.array(flat[pack.soff[u]:pack.soff[u] + width], dtype=np.float64))
    return tuple(out)


# ----------------------------------------------------------------- kernels
@njit(cache=True, nogil=True)
def _scalar_coord(x, k):  # pragma: no cover - jitted
    # clip(floor(x), 1, k) - 1, in floats first so that ±inf never reach an int cast
    f = np.floor(x)
    if f < 1.0:
        f = 1.0
    if f > k:
        f = float(k)
    return np.int64(f) - 1


@njit(cache=True, nogil=True)
def _coords(kinds, sizes, soff, state, coords):  # pragma: no cover - jitted
    for u in range(kinds.shape[0]):
        k = sizes[u]
        if kinds[u] == 0:
            coords[u] = _scalar_coord(state[soff[u]], k)
        else:
            best = 0
            for i in range(1, k):
                if state[soff[u] + i] > state[soff[u] + best]:
                    best = i
            coords[u] = best


@njit(cache=True, nogil=True)
def cascade_sequential(kinds, sizes, above, dom, pstr, stride_all, soff, off_rs, rtab, stab,
                       off_m, off_ms, mR, ms, readout, symbols, state,
                       outputs):  # pragma: no cover - jitted
    """Steps the whole cascade per symbol; ``state`` (flat) is updated in place."""
    n_units = kinds.shape[0]
    coords = np.empty(n_units, dtype=np.int64)
    tmp = np.empty(max(1, sizes.max()))
    _coords(kinds, sizes, soff, state, coords)
    write = outputs.shape[0] > 0
    for t in range(symbols.shape[0]):
        x = symbols[t]
        for u in range(n_units):
            code = 0
            for j in range(above[u]):
                code += coords[j] * pstr[u, j]
            cell = x * dom[u] + code
            if kinds[u] == 0:
                i = off_rs[u] + cell
                v = min(rtab[i], state[soff[u]])
                state[soff[u]] = max(v, stab[i])
            else:
                k = sizes[u]
                base = off_m[u] + cell * k * k
                sbase = off_ms[u] + cell * k
                _affine_step(mR, ms, base, sbase, k, state[soff[u]:soff[u] + k], tmp)
                for i in range(k):
                    state[soff[u] + i] = tmp[i]
        _coords(kinds, sizes, soff, state, coords)  # every controller reads t-1: after all
        if write:
            code = 0
            for u in range(n_units):
                code += coords[u] * stride_all[u]
            outputs[t] = readout[code]
    return state


@njit(cache=True, nogil=True)
def _unit_cell(symbols, coords, pstr, u, a, d, t):  # pragma: no cover - jitted
    """The row of unit u's controller table at time t: (x_t, code of the a units above)."""
    code = 0
    for j in range(a):
        code += coords[j, t] * pstr[u, j]
    return symbols[t] * d + code


@njit(cache=True, nogil=True)
def _affine_step(mR, ms, base, sbase, k, v, out):  # pragma: no cover - jitted
    """out = (R ⊗ v) ⊕ s for the k x k matrix at mR[base:] and the vector at ms[sbase:]."""
    for i in range(k):
        acc = ms[sbase + i]
        for j in range(k):
            acc = max(acc, min(mR[base + i * k + j], v[j]))
        out[i] = acc


@njit(cache=True, nogil=True)
def dense_sequential(R, s, readout, symbols, x, outputs):  # pragma: no cover - jitted
    """``x_t = (R[x_t] ⊗ x_{t-1}) ⊕ s[x_t]``; first-argmax max-min readout."""
    n = x.shape[0]
    classes = readout.shape[0]
    tmp = np.empty(n)
    write = outputs.shape[0] > 0
    for t in range(symbols.shape[0]):
        a = symbols[t]
        for i in range(n):
            acc = s[a, i]
            for j in range(n):
                acc = max(acc, min(R[a, i, j], x[j]))
            tmp[i] = acc
        for i in range(n):
            x[i] = tmp[i]
        if write:
            best = 0
            best_score = -np.inf
            for c in range(classes):
                sc = -np.inf
                for j in range(n):
                    sc = max(sc, min(readout[c, j], x[j]))
                if c == 0 or sc > best_score:
                    best_score = sc
                    best = c
            outputs[t] = best
    return x


# ------------------------------------------------------------------ driver


def evaluate_minmax(net: Any, arr: np.ndarray, *, outputs: str, start: Any, chunk: int | None,
                    path: str, threads: int,
                    min_parallel: int = 1 << 16) -> tuple[np.ndarray | None, Any, str]:
    """Run a MinMax network with Numba; returns ``(outputs | None, state, path)``."""
    from fsmnet.errors import SpecError
    from fsmnet.nets.minmax import DenseMinMax

    res = np.empty(len(arr) if outputs == "all" else 0, dtype=np.int64)
    sem = net.semantics
    if isinstance(sem, DenseMinMax):
        if path not in ("auto", "sequential"):
            raise SpecError("minmax-dense runs on the 'sequential' path only",
                            source="<evaluate>", field="path", value=path)
        x = np.array(sem.initial_state(net, False) if start is None else start,
                     dtype=np.float64)
        p = net.params
        x = dense_sequential(np.ascontiguousarray(p["R"], dtype=np.float64),
                             np.ascontiguousarray(p["s"], dtype=np.float64),
                             np.ascontiguousarray(p["readout"], dtype=np.float64), arr, x, res)
        return (res if outputs == "all" else None), x, "sequential"
    pack = pack_cascade(net)
    if pack.linked:
        return _linked(net, arr, outputs=outputs, start=start, path=path)
    state = flat_state(pack, sem.initial_state(net, False) if start is None else start)
    if path == "auto":
        # A matrix unit's chunk summaries cost k^3 a symbol (sequential: k^2), so the
        # levelwise scan waits for more threads than its widest matrix unit has values.
        widest = max([int(k) for k, kind in zip(pack.sizes, pack.kinds) if kind != SCALAR_KIND],
                     default=1)
        parallel = threads >= max(2, 2 * widest) and len(arr) >= min_parallel
        path = "levelwise" if parallel else "sequential"
    if path == "sequential":
        cascade_sequential(pack.kinds, pack.sizes, pack.above, pack.dom, pack.pstr,
                           pack.stride_all, pack.soff, pack.off_rs, pack.rtab, pack.stab,
                           pack.off_m, pack.off_ms, pack.mR, pack.ms, pack.readout, arr, state,
                           res)
    elif path == "levelwise":
        from fsmnet.gpu.numba_levelwise import levelwise

        levelwise(pack, arr, state, res, outputs, chunk, threads)
    else:
        raise SpecError("unknown path for a MinMax cascade; use auto, sequential or levelwise",
                        source="<evaluate>", field="path", value=path)
    return (res if outputs == "all" else None), unflat_state(pack, state), path


def _linked(net: Any, arr: np.ndarray, *, outputs: str, start: Any,
            path: str) -> tuple[np.ndarray | None, Any, str]:
    """A prefix-indexed cascade (formats 2 and 3): the links kernel of
    :mod:`fsmnet.gpu.numba_linked` (``auto``, ``sequential``), or the NumPy
    level-by-level scans (``levelwise``; the mixed-radix kernels above take no links)."""
    from fsmnet.errors import SpecError
    from fsmnet.nets.minmax_cascade import levelwise_label_trace, levelwise_unit_traces

    sem = net.semantics
    pack = pack_cascade(net)
    res = np.empty(len(arr) if outputs == "all" else 0, dtype=np.int64)
    if path in ("auto", "sequential"):
        from fsmnet.gpu.numba_linked import run_linked

        flat = flat_state(pack, sem.initial_state(net, False) if start is None else start)
        run_linked(net, arr, flat, res)
        return (res if outputs == "all" else None), unflat_state(pack, flat), "sequential"
    if path != "levelwise":
        raise SpecError("unknown path for a MinMax cascade; use auto, sequential or levelwise",
                        source="<evaluate>", field="path", value=path)
    if start is None:  # the level-by-level scans, vectorized over time
        traces = levelwise_unit_traces(net, arr)
        state = tuple(np.array(t[-1], dtype=np.float64).reshape(-1) for t in traces)
        labels = levelwise_label_trace(net, arr)[1:] if outputs == "all" else None
        return labels, state, "levelwise-numpy"
    state = tuple(np.array(x, dtype=np.float64) for x in start)
    for t, a in enumerate(arr):
        state = sem.step(net, state, int(a), False)
        if outputs == "all":
            res[t] = sem.readout(net, state, False)
    return (res if outputs == "all" else None), state, "reference"
