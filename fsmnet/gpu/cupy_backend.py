"""CuPy backend of the scan engine: the CUDA C kernels of ``kernels/*.cu``.

The phases are described in docs/architecture.md, "Scan engine".

Automata (``cupy_automaton``), linear recurrences (bilinear networks, H ≤ 16)
and MinMax cascades (``cupy_networks``) run as three-phase chunked
scans on the device (see each ``.cu`` file's header).  Networks with few
reachable states run as that automaton (``fsmnet.gpu.tabulate``).  Anything
else (``minmax-dense`` beyond the table limit, matrix units wider than 8, H >
16) runs on the host with Numba and reports the path ``host-sequential``.
This module holds the driver and what the kernels' callers share.

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


def kernel_source(name: str) -> str:
    """The CUDA C source of ``kernels/<name>.cu``, after ``kernels/common.cuh``."""
    return (KERNELS / "common.cuh").read_text() + "\n" + (KERNELS / f"{name}.cu").read_text()


@functools.cache
def compiled_module(name: str) -> Any:
    import cupy

    return cupy.RawModule(code=kernel_source(name), options=("-std=c++17",))


def kernel_for(module: str, name: str, shared: int) -> tuple[Any, int, int]:
    """(kernel, shared bytes to ask for, use_shared flag)."""
    kern = compiled_module(module).get_function(name)
    if shared <= SHARED_LIMIT:
        if shared > 48 * 1024:
            kern.max_dynamic_shared_size_bytes = shared
        return kern, shared, 1
    return kern, 0, 0


def grid_for(count: int) -> tuple[int]:
    return (max(1, -(-count // THREADS)),)


def chunk_length(n: int, chunk: int | None) -> int:
    if chunk:
        return int(chunk)
    # About 2^18 threads per piece keep 132 SMs busy; multiples of 16 allow vector loads.
    size = max(256, min(4096, n // (1 << 18)))
    return -(-size // 16) * 16


def device_symbols(piece: Any, n_symbols: int) -> tuple[Any, str]:
    """The piece on the device as the kernels read it: contiguous, 16-byte aligned."""
    import cupy

    dtype = np.uint8 if n_symbols <= 256 else np.int32
    sym = cupy.ascontiguousarray(cupy.asarray(piece).astype(dtype, copy=False))
    if sym.data.ptr % 16:  # a view such as word[1:]: the kernels' vector loads would fault
        sym = sym.copy()
    return sym, ("u8" if dtype == np.uint8 else "i32")


def check_device_symbols(arr: Any, n_symbols: int) -> None:
    """The checks ``symbols_array`` makes on the host, made on the device (two reductions)."""
    if arr.ndim != 1 or arr.dtype.kind not in "iu":
        raise SpecError("symbols must be a 1-D integer array of symbol indices",
                        source="<evaluate>", field="symbols",
                        value=f"{arr.dtype} array of shape {arr.shape}")
    # Unsigned symbols cannot be negative: one reduction over the input, not two.
    lo = 0 if arr.dtype.kind == "u" or not len(arr) else int(arr.min())
    hi = int(arr.max()) if len(arr) else 0
    if lo < 0 or hi >= n_symbols:
        raise SpecError(f"symbol index out of range 0..{n_symbols - 1}", source="<evaluate>",
                        field="symbols", value=lo if lo < 0 else hi)


def pieces(arr: Any, outputs: str = "all") -> Any:
    """(begin, piece) over the input.  Pieces bound the device memory of a host input
    and of the labels; an input already on the device with outputs "last" needs
    neither, and one piece saves every per-piece host round trip."""
    if outputs == "last" and is_cupy(arr):
        yield 0, arr
        return
    for begin in range(0, len(arr), PIECE):
        yield begin, arr[begin:begin + PIECE]


def host_labels(n: int, outputs: str, n_labels: int) -> np.ndarray | None:
    """The host array for the labels: the narrowest integer type that holds them, like
    the Numba backend's, since copying 10^9 labels back is what bounds outputs="all"."""
    from fsmnet.gpu.common import label_dtype

    return np.empty(n, dtype=label_dtype(n_labels)) if outputs == "all" else None


# ------------------------------------------------------------------ driver
def evaluate_cupy(model: Any, symbols: Any, *, outputs: str, start: Any, chunk: int | None,
                  path: str) -> tuple[Any, Any, str]:
    """The CuPy backend behind :func:`fsmnet.gpu.evaluate` (same contract as the others)."""
    from fsmnet.gpu.common import symbols_array
    from fsmnet.gpu.numba_backend import evaluate_numba

    n_symbols = model.n_symbols if isinstance(model, Automaton) else len(model.symbols)
    if is_cupy(symbols):
        check_device_symbols(symbols, n_symbols)
        arr = symbols
    else:
        arr = symbols_array(symbols, n_symbols)
    from fsmnet.gpu.cupy_automaton import run_automaton
    from fsmnet.gpu.cupy_networks import cascade_fits, padded, run_cascade, run_linear

    if isinstance(model, Automaton):
        return run_automaton(model, arr, outputs, start, chunk, path)
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
    if isinstance(sem, LinearRecurrence) and padded(sem.hidden_size(model)):
        return run_linear(model, arr, outputs, start, chunk)
    if isinstance(sem, MinMaxCascade):
        from fsmnet.gpu.numba_minmax import pack_cascade

        if cascade_fits(pack_cascade(model)):
            return run_cascade(model, arr, outputs, start, chunk)
    host = arr.get() if is_cupy(arr) else arr  # type: ignore[union-attr]
    out, state, _ = evaluate_numba(model, host, outputs=outputs, start=start, chunk=chunk,
                                    path="auto")
    return out, state, "host-sequential"


def _tabulated(net: Any, arr: Any, outputs: str, start: Any, chunk: int | None,
               forced: bool) -> tuple[Any, Any, str] | None:
    """Run a network with finitely many reachable states as that automaton (one table
    lookup a symbol instead of a mat-vec or min/max), as the Numba backend does; None
    when it has too many states or ``start`` is not one of them."""
    from fsmnet.gpu.cupy_automaton import run_automaton
    from fsmnet.gpu.tabulate import freeze, tabulate

    table = tabulate(net)
    q0 = None if table is None else (0 if start is None else table.index.get(freeze(start)))
    if table is None or q0 is None:
        if forced:
            raise SpecError("the network has too many reachable states to tabulate, or the "
                            "start state is not reachable", source="<evaluate>", field="path",
                            value="tabulated")
        return None
    out, q, inner = run_automaton(table.automaton, arr, outputs, q0, chunk, "auto")
    from fsmnet.gpu.common import label_dtype

    labels = table.labels.astype(label_dtype(len(net.labels)))
    return (None if out is None else labels[out]), table.states[q], f"tabulated-{inner}"


def is_cupy(x: Any) -> bool:
    return type(x).__module__.startswith("cupy")


def expected_kernels() -> dict[str, set[str]]:
    """Every kernel name this module may ask each ``.cu`` file for (checked in CI)."""
    kinds, outs = ("u8", "i32"), ("u8", "i32")
    automaton = {f"cayley_summary_{k}" for k in kinds} | {f"all_states_summary_{k}"
                                                         for k in kinds}
    automaton |= {f"replay_{k}_{o}" for k in kinds for o in outs}
    automaton |= {"compose_groups", "expand_groups"}
    automaton |= {f"live_words_q{w}_m{m}" for w in (8, 16) for m in (1, 2, 4, 8)}
    linear: set[str] = set()
    for h in (4, 8, 16):
        linear |= {f"chunk_products_{h}_{k}" for k in kinds}
        linear |= {f"normalize_products_{h}", f"group_products_{h}", f"expand_groups_{h}"}
        linear |= {f"replay_{h}_{k}_{o}" for k in kinds for o in outs}
    minmax = {f"scalar_summary_{k}" for k in kinds} | {f"scalar_replay_{k}" for k in kinds}
    minmax |= {"compose_pair_groups", "expand_pair_groups", "cascade_labels_i32"}
    minmax |= {f"matrix_summary_{k}" for k in kinds} | {f"matrix_replay_{k}" for k in kinds}
    minmax |= {"compose_matrix_groups", "expand_matrix_groups"}
    return {"automaton": automaton, "linear": linear, "minmax": minmax}
