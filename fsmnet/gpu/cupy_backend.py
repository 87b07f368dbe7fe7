"""CuPy backend of the scan engine: the CUDA C kernels of ``kernels/*.cu`` (DESIGN.md §6).

Automata, linear recurrences (bilinear networks, H ≤ 16) and scalar-only
MinMax cascades run as three-phase chunked scans on the device (see each
``.cu`` file's header).  Anything else (``minmax-dense``, cascades with matrix
units) runs on the host with Numba and reports the path ``host-sequential``.

Streaming: a NumPy input is copied to the device in pieces of :data:`PIECE`
symbols; the state is carried from piece to piece, so inputs of 10^10
symbols need only the memory of one piece (plus its labels, copied back).
A CuPy input is used in place.  CuPy is imported here only, lazily.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import numpy as np

from fsmnet.automata import Automaton
from fsmnet.errors import SpecError

PIECE = 1 << 28  # symbols on the device at once (256 MiB of uint8)
GROUP = 256  # chunk summaries per group in phase 2
THREADS = 256
SHARED_LIMIT = 160 * 1024  # bytes of table we put in shared memory (H100/H200: 227 KiB)
KERNELS = Path(__file__).with_name("kernels")
# Networks: "auto" tabulates when the reachable states are few, else runs "direct";
# "direct" runs the network's own kernels (chunk products, levelwise MinMax).
NETWORK_PATHS = ("auto", "tabulated", "direct")


@functools.cache
def _module(name: str) -> Any:
    import cupy

    return cupy.RawModule(code=(KERNELS / f"{name}.cu").read_text(), options=("-std=c++17",))


def _kernel(module: str, name: str, shared: int) -> tuple[Any, int, int]:
    """(kernel, shared bytes to ask for, use_shared flag)."""
    kern = _module(module).get_function(name)
    if shared <= SHARED_LIMIT:
        if shared > 48 * 1024:
            kern.max_dynamic_shared_size_bytes = shared
        return kern, shared, 1
    return kern, 0, 0


def _grid(count: int) -> tuple[int]:
    return (max(1, -(-count // THREADS)),)


def _chunk_for(n: int, chunk: int | None) -> int:
    if chunk:
        return int(chunk)
    # About 2^18 threads per piece keep 132 SMs busy; multiples of 16 allow vector loads.
    size = max(256, min(4096, n // (1 << 18)))
    return -(-size // 16) * 16


def _device_symbols(piece: Any, n_symbols: int) -> tuple[Any, str]:
    """The piece on the device as the kernels read it: contiguous, 16-byte aligned."""
    import cupy

    dtype = np.uint8 if n_symbols <= 256 else np.int32
    sym = cupy.ascontiguousarray(cupy.asarray(piece).astype(dtype, copy=False))
    if sym.data.ptr % 16:  # a view such as word[1:]: the kernels' vector loads would fault
        sym = sym.copy()
    return sym, ("u8" if dtype == np.uint8 else "i32")


def _check_device_symbols(arr: Any, n_symbols: int) -> None:
    """The checks ``_symbols_array`` makes on the host, made on the device (two reductions)."""
    if arr.ndim != 1 or arr.dtype.kind not in "iu":
        raise SpecError("symbols must be a 1-D integer array of symbol indices",
                        source="<evaluate>", field="symbols",
                        value=f"{arr.dtype} array of shape {arr.shape}")
    lo, hi = (int(arr.min()), int(arr.max())) if len(arr) else (0, 0)
    if lo < 0 or hi >= n_symbols:
        raise SpecError(f"symbol index out of range 0..{n_symbols - 1}", source="<evaluate>",
                        field="symbols", value=lo if lo < 0 else hi)


def _pieces(arr: Any) -> Any:
    for begin in range(0, len(arr), PIECE):
        yield begin, arr[begin:begin + PIECE]


def _host_out(n: int, outputs: str) -> np.ndarray | None:
    return np.empty(n, dtype=np.int64) if outputs == "all" else None


# ---------------------------------------------------------------- automata
def _automaton(a: Automaton, arr: Any, outputs: str, start: Any, chunk: int | None,
               path: str) -> tuple[Any, Any, str]:
    import cupy

    from fsmnet.gpu.engine import _cayley

    q_count, s_count = a.n_states, a.n_symbols
    table = None if path == "live" else _cayley(a)
    if path == "cayley" and table is None:
        raise SpecError("the transition monoid is too large for a Cayley table",
                        source="<evaluate>", field="path", value=path)
    if path not in ("auto", "cayley", "live"):
        raise SpecError("cupy automaton paths are auto, cayley and live", source="<evaluate>",
                        field="path", value=path)
    used = "cayley" if table is not None else "live"
    delta = cupy.asarray(np.ascontiguousarray(a.delta, dtype=np.int32))
    out_ids = cupy.asarray(np.ascontiguousarray(
        a.output_ids if a.outputs is not None else np.zeros(q_count), dtype=np.int32))
    if table is not None:
        cayley = cupy.asarray(table[0].astype(np.int32))
        elements = cupy.asarray(table[1].astype(np.int32))
    q = int(a._start(start))
    result = _host_out(len(arr), outputs)
    out_kind = "u8" if len(a.labels) <= 256 else "i32"
    for begin, piece in _pieces(arr):
        sym, kind = _device_symbols(piece, s_count)
        n = len(sym)
        size = _chunk_for(n, chunk)
        n_chunks = -(-n // size)
        if table is not None:
            kern, smem, flag = _kernel("automaton", f"cayley_summary_{kind}", cayley.nbytes)
            summ = cupy.empty(n_chunks, dtype=np.int32)
            kern(_grid(n_chunks), (THREADS,), (cayley, np.int32(len(table[1])), np.int32(s_count),
                 np.int32(table[2]), sym, np.int64(n), np.int64(size), np.int64(n_chunks),
                 np.int32(flag), summ), shared_mem=smem)
            trans = elements[summ]
        else:
            kern, smem, flag = _kernel("automaton", f"all_states_summary_{kind}", delta.nbytes)
            trans = cupy.empty((n_chunks, q_count), dtype=np.int32)
            kern(_grid(n_chunks), (THREADS,), (delta, np.int32(q_count), np.int32(s_count), sym,
                 np.int64(n), np.int64(size), np.int64(n_chunks), np.int32(flag), trans),
                 shared_mem=smem)
        starts, q = _scan_transformations(trans, n_chunks, q_count, q)
        if outputs == "all":
            out = cupy.empty(n, dtype=np.uint8 if out_kind == "u8" else np.int32)
            kern, smem, flag = _kernel("automaton", f"replay_{kind}_{out_kind}",
                                       delta.nbytes + out_ids.nbytes)
            kern(_grid(n_chunks), (THREADS,), (delta, out_ids, np.int32(q_count),
                 np.int32(s_count), sym, np.int64(n), np.int64(size), np.int64(n_chunks),
                 starts, np.int32(flag), out), shared_mem=smem)
            result[begin:begin + n] = cupy.asnumpy(out)  # type: ignore[index]
    return result, q, used


def _scan_transformations(trans: Any, n_chunks: int, q_count: int, q: int) -> tuple[Any, int]:
    import cupy

    n_groups = -(-n_chunks // GROUP)
    group_trans = cupy.empty((n_groups, q_count), dtype=np.int32)
    fn = _module("automaton").get_function("compose_groups")
    fn(_grid(n_groups * q_count), (THREADS,), (trans, np.int64(n_chunks), np.int32(q_count),
       np.int64(GROUP), np.int64(n_groups), group_trans))
    host = cupy.asnumpy(group_trans)
    gstart = np.empty(n_groups, dtype=np.int32)
    for g in range(n_groups):  # a few hundred gathers on the host
        gstart[g] = q
        q = int(host[g, q])
    starts = cupy.empty(n_chunks, dtype=np.int32)
    fn = _module("automaton").get_function("expand_groups")
    fn(_grid(n_groups), (THREADS,), (trans, np.int64(n_chunks), np.int32(q_count),
       np.int64(GROUP), np.int64(n_groups), cupy.asarray(gstart), starts))
    return starts, q


# ------------------------------------------------------------------ linear
def _padded(h: int) -> int:
    for size in (4, 8, 16):  # each size is a full unroll: 32 took 70 s to compile
        if h <= size:
            return size
    return 0


def _linear(net: Any, arr: Any, outputs: str, start: Any, chunk: int | None) -> tuple[Any, Any,
                                                                                       str]:
    import cupy

    from fsmnet.nets.linear import normalize

    sem = net.semantics
    mats = np.asarray(sem.matrices(net, False), dtype=np.float64)
    s_count, h_size, _ = mats.shape
    size_h = _padded(h_size)
    pad = np.zeros((s_count, size_h, size_h))
    pad[:, :h_size, :h_size] = mats
    readout = np.asarray(net.params["readout"], dtype=np.float64)
    rpad = np.zeros((readout.shape[0], size_h))
    rpad[:, :h_size] = readout
    d_mats, d_read = cupy.asarray(pad), cupy.asarray(rpad)
    h = np.zeros(size_h)
    h[:h_size] = sem.initial_state(net, False) if start is None else start
    result = _host_out(len(arr), outputs)
    out_kind = "u8" if readout.shape[0] <= 256 else "i32"
    mod = _module("linear")
    for begin, piece in _pieces(arr):
        sym, kind = _device_symbols(piece, s_count)
        n = len(sym)
        size = _chunk_for(n, chunk)
        n_chunks = -(-n // size)
        prod = cupy.empty((n_chunks, size_h, size_h))
        exps = cupy.empty((n_chunks, size_h), dtype=np.int32)
        kern, smem, flag = _kernel("linear", f"chunk_products_{size_h}_{kind}", d_mats.nbytes)
        kern(_grid(n_chunks * size_h), (THREADS,), (d_mats, np.int32(s_count), sym,
             np.int64(n), np.int64(size), np.int64(n_chunks), np.int32(flag), prod, exps),
             shared_mem=smem)
        mod.get_function(f"normalize_products_{size_h}")(
            _grid(n_chunks), (THREADS,), (prod, exps, np.int64(n_chunks)))
        n_groups = -(-n_chunks // GROUP)
        gprod = cupy.empty((n_groups, size_h, size_h))
        gexps = cupy.empty((n_groups, size_h), dtype=np.int32)
        mod.get_function(f"group_products_{size_h}")(
            _grid(n_groups * size_h), (THREADS,), (prod, np.int64(n_chunks), np.int64(GROUP),
                                                   np.int64(n_groups), gprod, gexps))
        mod.get_function(f"normalize_products_{size_h}")(
            _grid(n_groups), (THREADS,), (gprod, gexps, np.int64(n_groups)))
        host = cupy.asnumpy(gprod)
        gstart = np.empty((n_groups, size_h))
        for g in range(n_groups):  # chase h through the few group products
            gstart[g] = h
            h = normalize(host[g].dot(h))
        if outputs == "all":
            cstart = cupy.empty((n_chunks, size_h))
            mod.get_function(f"expand_groups_{size_h}")(
                _grid(n_groups), (THREADS,), (prod, np.int64(n_chunks), np.int64(GROUP),
                                              np.int64(n_groups), cupy.asarray(gstart), cstart))
            out = cupy.empty(n, dtype=np.uint8 if out_kind == "u8" else np.int32)
            kern, smem, flag = _kernel("linear", f"replay_{size_h}_{kind}_{out_kind}",
                                       d_mats.nbytes + d_read.nbytes)
            kern(_grid(n_chunks), (THREADS,), (d_mats, d_read, np.int32(s_count),
                 np.int32(rpad.shape[0]), sym, np.int64(n), np.int64(size), np.int64(n_chunks),
                 cstart, np.int32(flag), out), shared_mem=smem)
            result[begin:begin + n] = cupy.asnumpy(out)  # type: ignore[index]
    return result, normalize(h[:h_size]), "chunk-products"


# ------------------------------------------------------------------ minmax
def _cascade(net: Any, arr: Any, outputs: str, start: Any, chunk: int | None) -> tuple[Any, Any,
                                                                                        str]:
    import cupy

    from fsmnet.gpu.numba_minmax import _coords, flat_state, pack_cascade, unflat_state

    pack = pack_cascade(net)
    sem = net.semantics
    state = flat_state(pack, sem.initial_state(net, False) if start is None else start)
    n_units = len(pack.kinds)
    s_count = len(net.symbols)
    tables = []
    for u in range(n_units):
        cells = s_count * int(pack.dom[u])
        lo = int(pack.off_rs[u])
        tables.append(cupy.asarray(np.concatenate([pack.rtab[lo:lo + cells],
                                                   pack.stab[lo:lo + cells]])))
    pstr = [cupy.asarray(np.ascontiguousarray(pack.pstr[u])) for u in range(n_units)]
    needed = [outputs == "all" or bool(np.any(pack.above > u)) for u in range(n_units)]
    readout = cupy.asarray(pack.readout.astype(np.int32))
    stride_all = cupy.asarray(pack.stride_all)
    mod = _module("minmax")
    result = _host_out(len(arr), outputs)
    c0 = np.empty(n_units, dtype=np.int64)
    for begin, piece in _pieces(arr):
        sym, kind = _device_symbols(piece, s_count)
        n = len(sym)
        size = _chunk_for(n, chunk)
        n_chunks = -(-n // size)
        n_groups = -(-n_chunks // GROUP)
        pitch = n + 1
        coords = cupy.zeros((n_units, pitch), dtype=np.uint8)
        _coords(pack.kinds, pack.sizes, pack.soff, state, c0)
        coords[:, 0] = cupy.asarray(c0.astype(np.uint8))
        rr, ss = cupy.empty(n_chunks), cupy.empty(n_chunks)
        gr, gs = cupy.empty(n_groups), cupy.empty(n_groups)
        for u in range(n_units):
            common = (np.int32(s_count), np.int32(pack.dom[u]))
            kern, smem, flag = _kernel("minmax", f"scalar_summary_{kind}", tables[u].nbytes)
            kern(_grid(n_chunks), (THREADS,), (tables[u], *common, sym, np.int64(n), coords,
                 np.int64(pitch), np.int32(pack.above[u]), pstr[u], np.int64(size),
                 np.int64(n_chunks), np.int32(flag), rr, ss), shared_mem=smem)
            mod.get_function("compose_pair_groups")(
                _grid(n_groups), (THREADS,), (rr, ss, np.int64(n_chunks), np.int64(GROUP),
                                              np.int64(n_groups), gr, gs))
            hr, hs = cupy.asnumpy(gr), cupy.asnumpy(gs)
            x = float(state[pack.soff[u]])
            gstart = np.empty(n_groups)
            for g in range(n_groups):
                gstart[g] = x
                x = max(min(hr[g], x), hs[g])
            state[pack.soff[u]] = x
            if needed[u]:
                cstart = cupy.empty(n_chunks)
                mod.get_function("expand_pair_groups")(
                    _grid(n_groups), (THREADS,), (rr, ss, np.int64(n_chunks), np.int64(GROUP),
                                                  np.int64(n_groups), cupy.asarray(gstart),
                                                  cstart))
                kern, smem, flag = _kernel("minmax", f"scalar_replay_{kind}", tables[u].nbytes)
                kern(_grid(n_chunks), (THREADS,), (tables[u], *common, np.int32(pack.sizes[u]),
                     sym, np.int64(n), coords, np.int64(pitch), np.int32(u),
                     np.int32(pack.above[u]), pstr[u], np.int64(size), np.int64(n_chunks),
                     cstart, np.int32(flag)), shared_mem=smem)
        if outputs == "all":
            out = cupy.empty(n, dtype=np.int32)
            mod.get_function("cascade_labels_i32")(
                _grid(n), (THREADS,), (coords, np.int64(pitch), np.int32(n_units), stride_all,
                                       readout, np.int64(n), out))
            result[begin:begin + n] = cupy.asnumpy(out)  # type: ignore[index]
    return result, unflat_state(pack, state), "levelwise"


# ------------------------------------------------------------------ driver
def evaluate_cupy(model: Any, symbols: Any, *, outputs: str, start: Any, chunk: int | None,
                  path: str) -> tuple[Any, Any, str]:
    """The CuPy backend behind :func:`fsmnet.gpu.evaluate` (same contract as the others)."""
    from fsmnet.gpu.engine import _evaluate_numba, _symbols_array

    n_symbols = model.n_symbols if isinstance(model, Automaton) else len(model.symbols)
    if _is_cupy(symbols):
        _check_device_symbols(symbols, n_symbols)
        arr = symbols
    else:
        arr = _symbols_array(symbols, n_symbols)
    if isinstance(model, Automaton):
        return _automaton(model, arr, outputs, start, chunk, path)
    if path not in NETWORK_PATHS:
        raise SpecError(f"cupy network paths are {', '.join(NETWORK_PATHS)}",
                        source="<evaluate>", field="path", value=path)
    if path != "direct":
        done = _tabulated(model, arr, outputs, start, chunk, forced=path == "tabulated")
        if done is not None:
            return done
    from fsmnet.nets.linear import LinearRecurrence
    from fsmnet.nets.minmax_cascade import MinMaxCascade

    sem = model.semantics
    if isinstance(sem, LinearRecurrence) and _padded(sem.hidden_size(model)):
        return _linear(model, arr, outputs, start, chunk)
    if isinstance(sem, MinMaxCascade):
        from fsmnet.gpu.numba_minmax import pack_cascade

        pack = pack_cascade(model)
        if pack.all_scalar and int(pack.sizes.max()) <= 255:
            return _cascade(model, arr, outputs, start, chunk)
    host = arr.get() if _is_cupy(arr) else arr  # type: ignore[union-attr]
    out, state, _ = _evaluate_numba(model, host, outputs=outputs, start=start, chunk=chunk,
                                    path="auto")
    return out, state, "host-sequential"


def _tabulated(net: Any, arr: Any, outputs: str, start: Any, chunk: int | None,
               forced: bool) -> tuple[Any, Any, str] | None:
    """Run a network with finitely many reachable states as that automaton (one table
    lookup a symbol instead of a mat-vec or min/max), as the Numba backend does; None
    when it has too many states or ``start`` is not one of them."""
    from fsmnet.gpu.tabulate import freeze, tabulate

    table = tabulate(net)
    q0 = None if table is None else (0 if start is None else table.index.get(freeze(start)))
    if table is None or q0 is None:
        if forced:
            raise SpecError("the network has too many reachable states to tabulate, or the "
                            "start state is not reachable", source="<evaluate>", field="path",
                            value="tabulated")
        return None
    out, q, inner = _automaton(table.automaton, arr, outputs, q0, chunk, "auto")
    return (None if out is None else table.labels[out]), table.states[q], f"tabulated-{inner}"


def _is_cupy(x: Any) -> bool:
    return type(x).__module__.startswith("cupy")


def expected_kernels() -> dict[str, set[str]]:
    """Every kernel name this module may ask each ``.cu`` file for (checked in CI)."""
    kinds, outs = ("u8", "i32"), ("u8", "i32")
    automaton = {f"cayley_summary_{k}" for k in kinds} | {f"all_states_summary_{k}"
                                                         for k in kinds}
    automaton |= {f"replay_{k}_{o}" for k in kinds for o in outs}
    automaton |= {"compose_groups", "expand_groups"}
    linear: set[str] = set()
    for h in (4, 8, 16):
        linear |= {f"chunk_products_{h}_{k}" for k in kinds}
        linear |= {f"normalize_products_{h}", f"group_products_{h}", f"expand_groups_{h}"}
        linear |= {f"replay_{h}_{k}_{o}" for k in kinds for o in outs}
    minmax = {f"scalar_summary_{k}" for k in kinds} | {f"scalar_replay_{k}" for k in kinds}
    minmax |= {"compose_pair_groups", "expand_pair_groups", "cascade_labels_i32"}
    return {"automaton": automaton, "linear": linear, "minmax": minmax}
