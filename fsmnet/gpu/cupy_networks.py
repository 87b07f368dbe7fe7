"""Networks on the CuPy backend: linear recurrences and MinMax cascades.

Linear recurrences (bilinear networks, H <= 16, padded to 4, 8 or 16) run the
chunk-product scan of ``kernels/linear.cu``; cascades of MinMax units (scalar,
or matrix units of at most KMAX values) run level by level with
``kernels/minmax.cu``.  :func:`linear_product`
returns the whole input's (rescaled) product, the block summary of the Dask
backend when blocks are CuPy arrays.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

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


# ------------------------------------------------------------------ linear
def padded(h: int) -> int:
    """The compiled width for hidden size h, or 0 when there is none (h > 16)."""
    for size in (4, 8, 16):  # each size is a full unroll: 32 compiles far too slowly
        if h <= size:
            return size
    return 0


@dataclass
class _LinearTables:
    """Matrices and readout padded to a compiled width, on the device."""

    mats: Any
    readout: Any
    n_classes: int
    width: int
    hidden: int


def _linear_tables(net: Any) -> _LinearTables:
    import cupy

    mats = np.asarray(net.semantics.matrices(net, False), dtype=np.float64)
    s_count, h_size, _ = mats.shape
    width = padded(h_size)
    pad = np.zeros((s_count, width, width))
    pad[:, :h_size, :h_size] = mats
    readout = np.asarray(net.params["readout"], dtype=np.float64)
    rpad = np.zeros((readout.shape[0], width))
    rpad[:, :h_size] = readout
    return _LinearTables(cupy.asarray(pad), cupy.asarray(rpad), readout.shape[0], width, h_size)


def _chunk_products(t: _LinearTables, sym: Any, kind: str, size: int) -> tuple[Any, np.ndarray]:
    """Phases 1 and 2a: every chunk's product (device) and every group's (host)."""
    import cupy

    n, w = len(sym), t.width
    n_chunks = -(-n // size)
    mod = compiled_module("linear")
    prod = cupy.empty((n_chunks, w, w))
    exps = cupy.empty((n_chunks, w), dtype=np.int32)
    kern, smem, flag = kernel_for("linear", f"chunk_products_{w}_{kind}", t.mats.nbytes)
    kern(grid_for(n_chunks * w), (THREADS,), (t.mats, np.int32(len(t.mats)), sym, np.int64(n),
         np.int64(size), np.int64(n_chunks), np.int32(flag), prod, exps), shared_mem=smem)
    mod.get_function(f"normalize_products_{w}")(
        grid_for(n_chunks), (THREADS,), (prod, exps, np.int64(n_chunks)))
    n_groups = -(-n_chunks // GROUP)
    gprod = cupy.empty((n_groups, w, w))
    gexps = cupy.empty((n_groups, w), dtype=np.int32)
    mod.get_function(f"group_products_{w}")(
        grid_for(n_groups * w), (THREADS,), (prod, np.int64(n_chunks), np.int64(GROUP),
                                          np.int64(n_groups), gprod, gexps))
    mod.get_function(f"normalize_products_{w}")(
        grid_for(n_groups), (THREADS,), (gprod, gexps, np.int64(n_groups)))
    return prod, cupy.asnumpy(gprod)


def run_linear(net: Any, arr: Any, outputs: str, start: Any,
               chunk: int | None) -> tuple[Any, Any, str]:
    """A linear recurrence h_t = A[x_t] h_{t-1}: ``(argmax labels, h, path)``."""
    import cupy

    from fsmnet.nets.linear import normalize

    t = _linear_tables(net)
    w = t.width
    h = np.zeros(w)
    h[:t.hidden] = net.semantics.initial_state(net, False) if start is None else start
    result = host_labels(len(arr), outputs, len(net.labels))
    out_kind = "u8" if t.n_classes <= 256 else "i32"
    for begin, piece in pieces(arr, outputs):
        sym, kind = device_symbols(piece, len(t.mats))
        n = len(sym)
        size = chunk_length(n, chunk)
        prod, groups = _chunk_products(t, sym, kind, size)
        n_chunks, n_groups = len(prod), len(groups)
        group_start = np.empty((n_groups, w))
        for g in range(n_groups):  # chase h through the few group products
            group_start[g] = h
            h = normalize(groups[g].dot(h))
        if outputs == "all":
            cstart = cupy.empty((n_chunks, w))
            compiled_module("linear").get_function(f"expand_groups_{w}")(
                grid_for(n_groups), (THREADS,), (prod, np.int64(n_chunks), np.int64(GROUP),
                                              np.int64(n_groups), cupy.asarray(group_start),
                                              cstart))
            out = cupy.empty(n, dtype=np.uint8 if out_kind == "u8" else np.int32)
            kern, smem, flag = kernel_for("linear", f"replay_{w}_{kind}_{out_kind}",
                                       t.mats.nbytes + t.readout.nbytes)
            kern(grid_for(n_chunks), (THREADS,), (t.mats, t.readout, np.int32(len(t.mats)),
                 np.int32(t.n_classes), sym, np.int64(n), np.int64(size), np.int64(n_chunks),
                 cstart, np.int32(flag), out), shared_mem=smem)
            result[begin:begin + n] = cupy.asnumpy(out)  # type: ignore[index]
    return result, normalize(h[:t.hidden]), "chunk-products"


def linear_product(net: Any, arr: Any, chunk: int | None = None) -> np.ndarray:
    """A[x_n] ... A[x_1] for the whole input, rescaled to largest magnitude 1 (H x H)."""
    t = _linear_tables(net)
    total = np.eye(t.width)
    for _, piece in pieces(arr, "last"):
        sym, kind = device_symbols(piece, len(t.mats))
        for group in _chunk_products(t, sym, kind, chunk_length(len(sym), chunk))[1]:
            total = group.dot(total)
            top = np.abs(total).max()
            if top > 0:
                total = total / 2.0 ** np.floor(np.log2(top))  # a power of two: exact
    return total[:t.hidden, :t.hidden]


# ------------------------------------------------------------------ minmax
KMAX = 8  # widest matrix unit the minmax.cu kernels take (KMAX there)


def cascade_fits(pack: Any) -> bool:
    """Whether the device kernels take this cascade (u8 coordinates, matrix units <= KMAX,
    mixed-radix controller codes: prefix-indexed cascades run on the host)."""
    if getattr(pack, "linked", False):
        return False
    widths = [int(k) for k, kind in zip(pack.sizes, pack.kinds) if kind != 0]
    return int(pack.sizes.max()) <= 255 and max(widths, default=1) <= KMAX


@dataclass
class _Level:
    """What one unit's kernels need for a piece."""

    sym: Any
    kind: str
    n_symbols: int
    n: int
    size: int
    coords: Any
    pitch: int


def _scalar_unit(pack: Any, u: int, table: Any, pstr: Any, lv: _Level, state: np.ndarray,
                 needed: bool) -> None:
    """Three phases for scalar unit u: (r, s) pairs; updates state and coordinates."""
    import cupy

    mod = compiled_module("minmax")
    n_chunks = -(-lv.n // lv.size)
    n_groups = -(-n_chunks // GROUP)
    rr, ss = cupy.empty(n_chunks), cupy.empty(n_chunks)
    gr, gs = cupy.empty(n_groups), cupy.empty(n_groups)
    common = (np.int32(lv.n_symbols), np.int32(pack.dom[u]))
    kern, smem, flag = kernel_for("minmax", f"scalar_summary_{lv.kind}", table.nbytes)
    kern(grid_for(n_chunks), (THREADS,), (table, *common, lv.sym, np.int64(lv.n), lv.coords,
         np.int64(lv.pitch), np.int32(pack.above[u]), pstr, np.int64(lv.size),
         np.int64(n_chunks), np.int32(flag), rr, ss), shared_mem=smem)
    mod.get_function("compose_pair_groups")(
        grid_for(n_groups), (THREADS,), (rr, ss, np.int64(n_chunks), np.int64(GROUP),
                                         np.int64(n_groups), gr, gs))
    hr, hs = cupy.asnumpy(gr), cupy.asnumpy(gs)
    x = float(state[pack.soff[u]])
    gstart = np.empty(n_groups)
    for g in range(n_groups):
        gstart[g] = x
        x = max(min(hr[g], x), hs[g])
    state[pack.soff[u]] = x
    if needed:
        cstart = cupy.empty(n_chunks)
        mod.get_function("expand_pair_groups")(
            grid_for(n_groups), (THREADS,), (rr, ss, np.int64(n_chunks), np.int64(GROUP),
                                             np.int64(n_groups), cupy.asarray(gstart), cstart))
        kern, smem, flag = kernel_for("minmax", f"scalar_replay_{lv.kind}", table.nbytes)
        kern(grid_for(n_chunks), (THREADS,), (table, *common, np.int32(pack.sizes[u]), lv.sym,
             np.int64(lv.n), lv.coords, np.int64(lv.pitch), np.int32(u),
             np.int32(pack.above[u]), pstr, np.int64(lv.size), np.int64(n_chunks), cstart,
             np.int32(flag)), shared_mem=smem)


def _matrix_unit(pack: Any, u: int, tables: tuple[Any, Any], pstr: Any, lv: _Level,
                 state: np.ndarray, needed: bool) -> None:
    """Three phases for matrix unit u: max-min affine maps (R, s); updates state, coords."""
    import cupy

    mod = compiled_module("minmax")
    tab_r, tab_s = tables
    k = int(pack.sizes[u])
    n_chunks = -(-lv.n // lv.size)
    n_groups = -(-n_chunks // GROUP)
    rr, ss = cupy.empty((n_chunks, k, k)), cupy.empty((n_chunks, k))
    gr, gs = cupy.empty((n_groups, k, k)), cupy.empty((n_groups, k))
    common = (np.int32(lv.n_symbols), np.int32(pack.dom[u]), np.int32(k))
    kern, smem, flag = kernel_for("minmax", f"matrix_summary_{lv.kind}",
                                  tab_r.nbytes + tab_s.nbytes)
    kern(grid_for(n_chunks), (THREADS,), (tab_r, tab_s, *common, lv.sym, np.int64(lv.n),
         lv.coords, np.int64(lv.pitch), np.int32(pack.above[u]), pstr, np.int64(lv.size),
         np.int64(n_chunks), np.int32(flag), rr, ss), shared_mem=smem)
    mod.get_function("compose_matrix_groups")(
        grid_for(n_groups), (THREADS,), (rr, ss, np.int64(n_chunks), np.int32(k),
                                         np.int64(GROUP), np.int64(n_groups), gr, gs))
    hr, hs = cupy.asnumpy(gr), cupy.asnumpy(gs)
    lo = int(pack.soff[u])
    v = state[lo:lo + k].copy()
    gstart = np.empty((n_groups, k))
    for g in range(n_groups):  # v <- (R ⊗ v) ⊕ s through the few group maps
        gstart[g] = v
        v = np.maximum(hs[g], np.max(np.minimum(hr[g], v[None, :]), axis=1))
    state[lo:lo + k] = v
    if needed:
        cstart = cupy.empty((n_chunks, k))
        mod.get_function("expand_matrix_groups")(
            grid_for(n_groups), (THREADS,), (rr, ss, np.int64(n_chunks), np.int32(k),
                                             np.int64(GROUP), np.int64(n_groups),
                                             cupy.asarray(gstart), cstart))
        kern, smem, flag = kernel_for("minmax", f"matrix_replay_{lv.kind}",
                                      tab_r.nbytes + tab_s.nbytes)
        kern(grid_for(n_chunks), (THREADS,), (tab_r, tab_s, *common, lv.sym, np.int64(lv.n),
             lv.coords, np.int64(lv.pitch), np.int32(u), np.int32(pack.above[u]), pstr,
             np.int64(lv.size), np.int64(n_chunks), cstart, np.int32(flag)), shared_mem=smem)


def run_cascade(net: Any, arr: Any, outputs: str, start: Any,
                chunk: int | None) -> tuple[Any, Any, str]:
    """A cascade of MinMax units, level by level (``kernels/minmax.cu``)."""
    import cupy

    from fsmnet.gpu.numba_minmax import _coords, flat_state, pack_cascade, unflat_state

    pack = pack_cascade(net)
    state = flat_state(pack, net.semantics.initial_state(net, False) if start is None
                       else start)
    n_units, s_count = len(pack.kinds), len(net.symbols)
    tables: list[Any] = []
    for u in range(n_units):
        cells = s_count * int(pack.dom[u])
        if pack.kinds[u] == 0:
            lo = int(pack.off_rs[u])
            tables.append(cupy.asarray(np.concatenate([pack.rtab[lo:lo + cells],
                                                       pack.stab[lo:lo + cells]])))
        else:
            k, lo_r, lo_s = int(pack.sizes[u]), int(pack.off_m[u]), int(pack.off_ms[u])
            tables.append((cupy.asarray(pack.mR[lo_r:lo_r + cells * k * k]),
                           cupy.asarray(pack.ms[lo_s:lo_s + cells * k])))
    pstr = [cupy.asarray(np.ascontiguousarray(pack.pstr[u])) for u in range(n_units)]
    needed = [outputs == "all" or bool(np.any(pack.above > u)) for u in range(n_units)]
    readout = cupy.asarray(pack.readout.astype(np.int32))
    stride_all = cupy.asarray(pack.stride_all)
    result = host_labels(len(arr), outputs, len(net.labels))
    c0 = np.empty(n_units, dtype=np.int64)
    for begin, piece in pieces(arr, outputs):
        sym, kind = device_symbols(piece, s_count)
        n = len(sym)
        lv = _Level(sym, kind, s_count, n, chunk_length(n, chunk),
                    cupy.zeros((n_units, n + 1), dtype=np.uint8), n + 1)
        _coords(pack.kinds, pack.sizes, pack.soff, state, c0)
        lv.coords[:, 0] = cupy.asarray(c0.astype(np.uint8))
        for u in range(n_units):  # top level first: a unit reads the coordinates above it
            run_unit = _scalar_unit if pack.kinds[u] == 0 else _matrix_unit
            run_unit(pack, u, tables[u], pstr[u], lv, state, needed[u])
        if outputs == "all":
            out = cupy.empty(n, dtype=np.int32)
            compiled_module("minmax").get_function("cascade_labels_i32")(
                grid_for(n), (THREADS,), (lv.coords, np.int64(lv.pitch), np.int32(n_units),
                                          stride_all, readout, np.int64(n), out))
            result[begin:begin + n] = cupy.asnumpy(out)  # type: ignore[index]
    return result, unflat_state(pack, state), "levelwise"
