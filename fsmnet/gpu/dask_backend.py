"""Dask backend of the scan engine: the three phases over the blocks of a ``dask.array``.

1. **summaries** — one task per block computes the block's summary with a
   single-threaded Numba kernel (``nogil``, so a threaded worker runs several
   at once): an automaton's transformation (one Cayley-table lookup a symbol,
   or all start states when the monoid is too large), a linear network's
   renormalized block product;
2. **scan** — the summaries (a few bytes each) come back to the client and are
   combined in order from the start state;
3. **replay** — one task per block runs the block again from its known start
   state and writes the labels; skipped when only the last state is wanted.

Networks with finitely many reachable states (every MinMax network) run as
their reachable-state automaton (fsmnet.gpu.tabulate) through the same three
phases.  Others without a block summary here are *chased*:
each block's task starts from the previous block's final state.  That is
sequential, but the data never leaves the workers.

A dask array of CuPy chunks (``da.from_array(cupy_array)``, or
``x.map_blocks(cupy.asarray)``) runs each block's summary and replay with the
CuPy backend on the worker's GPU, and the path says ``+cupy``.

The tasks run on whatever scheduler is active: a ``dask.distributed.Client``
if one was created (``Client(LocalCluster())`` or ``Client("tcp://host:8786")``
for a real cluster), else a client connected to Dask's ``scheduler-address``
setting (the ``DASK_SCHEDULER_ADDRESS`` environment variable, so that
``fsmnet run --backend dask`` reaches a cluster), else Dask's threaded
scheduler.  A NumPy input is cut into blocks of ``chunk`` symbols; on a
distributed client the blocks are scattered to the workers once, and both
phases run where their block lies.  A dask-array input keeps its own blocks,
and then ``outputs="all"`` returns a lazy dask array.  Automaton labels come
back in the narrow label type of the other backends (int8 for up to 127 labels).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from fsmnet.automata import Automaton
from fsmnet.gpu.common import automaton_label_dtype
from fsmnet.gpu.words import monoid_element, run_words, word_length

DEFAULT_BLOCK = 1 << 22


# ----------------------------------------------------------------- kernels
@njit(cache=True, nogil=True)
def block_cayley(cayley, identity, elements, symbols):  # pragma: no cover - jitted
    e = identity
    for t in range(symbols.shape[0]):
        e = cayley[e, symbols[t]]
    return elements[e].copy()


@njit(cache=True, nogil=True)
def block_all_states(delta, symbols):  # pragma: no cover - jitted
    """The block's transformation by running every start state (no table needed)."""
    images = np.arange(delta.shape[1])
    for t in range(symbols.shape[0]):
        row = delta[symbols[t]]
        for q in range(images.shape[0]):
            images[q] = row[images[q]]
    return images


@njit(cache=True, nogil=True)
def block_product(mats, symbols):  # pragma: no cover - jitted
    """A[x_n] ... A[x_1], rescaled by powers of two (exact) to stay in range."""
    size = mats.shape[1]
    prod = np.eye(size)
    tmp = np.empty((size, size))
    for t in range(symbols.shape[0]):
        a = mats[symbols[t]]
        big = 0.0
        for i in range(size):
            for j in range(size):
                acc = 0.0
                for k in range(size):
                    acc += a[i, k] * prod[k, j]
                tmp[i, j] = acc
                big = max(big, abs(acc))
        scale = 1.0
        if big > 0.0:
            scale = 2.0 ** -np.floor(np.log2(big))
        for i in range(size):
            for j in range(size):
                prod[i, j] = tmp[i, j] * scale
    return prod


# ---------------------------------------------------------- task functions
# A block that is a CuPy array (a dask array of CuPy chunks, on GPU workers) is
# summarized and replayed by the CuPy backend on its device; labels come back
# as NumPy, like the other blocks'.
def _on_device(block: Any, n_symbols: int) -> bool:
    from fsmnet.gpu.cupy_backend import check_device_symbols, is_cupy

    if not is_cupy(block):
        return False
    check_device_symbols(block, n_symbols)
    return True


def _interleaved(block: np.ndarray, table: Any, a: Automaton, outputs: str) -> bool:
    """Whether the interleaved chains (fsmnet.gpu.numba_interleaved) can run this block:
    a small Cayley table, byte symbols, int8 labels for the replay."""
    from fsmnet.gpu.numba_interleaved import MONOID_LIMIT, usable

    return (table is not None and table[0].size <= MONOID_LIMIT and usable(a.n_symbols)
            and (outputs == "last" or automaton_label_dtype(a) == np.int8))


def _summary_automaton(block: Any, table: Any, delta: np.ndarray, a: Automaton) -> np.ndarray:
    if _on_device(block, a.n_symbols):
        from fsmnet.gpu.cupy_automaton import transformation

        return transformation(a, block)
    if _interleaved(block, table, a, "last"):
        # Four chunk chains on the task's thread (serial kernels: a threaded worker runs
        # several tasks at once, and Numba's thread pool takes one launch at a time).
        from fsmnet.gpu.numba_interleaved import transformation as chains_transformation

        return chains_transformation(delta, table, _bytes(block))
    if table is not None:
        cayley, elements, identity = table
        m = word_length(cayley.shape[1], cayley.shape[0])
        if m >= 4:  # m symbols a lookup (fsmnet.gpu.words)
            return elements[monoid_element(cayley, identity, block, m)].copy()
        return block_cayley(cayley, identity, elements, block)
    return block_all_states(delta, block)


def _replay_automaton(block: Any, table: Any, delta: np.ndarray, out_ids: np.ndarray, q: int,
                      a: Automaton) -> np.ndarray:
    if _on_device(block, a.n_symbols):
        from fsmnet.gpu.cupy_automaton import run_automaton

        return run_automaton(a, block, "all", q, None, "auto")[0]  # type: ignore[no-any-return]
    if _interleaved(block, table, a, "all"):
        from fsmnet.gpu.numba_interleaved import evaluate_interleaved, layout

        groups, size = layout(len(block), 1, 1, None)
        labels, _ = evaluate_interleaved(delta, out_ids, table, _bytes(block), q, "all", groups,
                                         size, parallel=False)
        assert labels is not None
        return labels
    m = word_length(a.n_symbols, a.n_states)
    if m >= 4 and len(a.labels) <= 127:  # m symbols a step, int8 labels packed
        small = np.empty(len(block), dtype=np.int8)
        run_words(delta, out_ids, block, q, small, m)
        return small
    from fsmnet.gpu.numba_automaton import run_sequential

    res = np.empty(len(block), dtype=automaton_label_dtype(a))
    run_sequential(delta, out_ids, block, q, res)
    return res


def _bytes(block: np.ndarray) -> np.ndarray:
    """A block as contiguous uint8 (its symbols are below 256)."""
    if block.dtype == np.uint8:
        return np.ascontiguousarray(block)
    return block.astype(np.uint8)


def _linear_on_device(block: Any, net: Any) -> bool:
    from fsmnet.gpu.cupy_networks import padded

    return _on_device(block, len(net.symbols)) and bool(padded(net.semantics.hidden_size(net)))


def _host(block: Any) -> np.ndarray:
    from fsmnet.gpu.cupy_backend import is_cupy

    return block.get() if is_cupy(block) else block  # type: ignore[no-any-return]


def _summary_linear(block: Any, mats: np.ndarray, net: Any) -> np.ndarray:
    if _linear_on_device(block, net):
        from fsmnet.gpu.cupy_networks import linear_product

        return linear_product(net, block)
    return block_product(mats, _host(block))  # type: ignore[no-any-return]


def _replay_linear(block: Any, mats: np.ndarray, readout: np.ndarray, h: np.ndarray,
                   net: Any) -> np.ndarray:
    if _linear_on_device(block, net):
        from fsmnet.gpu.cupy_networks import run_linear

        return run_linear(net, block, "all", h, None)[0]  # type: ignore[no-any-return]
    from fsmnet.gpu.numba_linear import run_linear as run_host

    res = np.empty(len(block), dtype=np.int64)
    run_host(mats, readout, _host(block), np.array(h, dtype=np.float64), res)
    return res


def _chase_block(block: Any, net: Any, state: Any, want: str) -> tuple[Any, Any]:
    if _on_device(block, len(net.symbols)):
        from fsmnet.gpu.cupy_backend import evaluate_cupy

        out, new, _ = evaluate_cupy(net, block, outputs=want, start=state, chunk=None,
                                    path="direct")
        return out, new
    from fsmnet.gpu.numba_backend import evaluate_numba

    out, new, _ = evaluate_numba(net, block, outputs=want, start=state, chunk=None,
                                  path="sequential")
    return out, new


# ------------------------------------------------------------------ driver
_CONNECTED: list[Any] = []  # the client this module opened from the Dask config, if any


def distributed_client() -> Any:
    """The active ``dask.distributed`` client; else one connected to the address in
    Dask's ``scheduler-address`` setting (``DASK_SCHEDULER_ADDRESS``), opened once;
    else None (Dask's threaded scheduler runs the tasks)."""
    try:
        from distributed import Client, default_client
    except ImportError:
        return None
    try:
        return default_client()
    except ValueError:
        pass
    import dask

    address = dask.config.get("scheduler-address", None)
    if not address:
        return None
    if not _CONNECTED or _CONNECTED[0].status != "running":
        _CONNECTED[:] = [Client(address)]  # the default from now on: dask.compute uses it
    return _CONNECTED[0]


def evaluate_dask(model: Any, symbols: Any, *, outputs: str, start: Any, chunk: int | None,
                  path: str) -> tuple[Any, Any, str]:
    """The Dask backend behind :func:`fsmnet.gpu.evaluate` (same contract as the others).

    The path says ``+cupy`` when the blocks are CuPy arrays (run on their GPU)."""
    from fsmnet.gpu.cupy_backend import is_cupy

    out, state, used = _evaluate(model, symbols, outputs=outputs, start=start, chunk=chunk,
                                 path=path)
    on_gpu = is_cupy(getattr(symbols, "_meta", None))
    return out, state, used + ("+cupy" if on_gpu else "")


def _evaluate(model: Any, symbols: Any, *, outputs: str, start: Any, chunk: int | None,
              path: str) -> tuple[Any, Any, str]:
    import dask
    import dask.array as da

    from fsmnet.errors import SpecError
    from fsmnet.gpu.common import symbols_array

    n_symbols = model.n_symbols if isinstance(model, Automaton) else len(model.symbols)
    lazy = isinstance(symbols, da.Array)
    if path not in ("auto", "blocks", "chase"):
        raise SpecError("dask paths are auto, blocks and chase", source="<evaluate>",
                        field="path", value=path)
    if lazy:
        if symbols.ndim != 1 or not np.issubdtype(symbols.dtype, np.integer):
            raise SpecError("symbols must be a 1-D integer array of symbol indices",
                            source="<evaluate>", field="symbols", value=str(symbols.dtype))
        arr = symbols
        blocks: list[Any] = list(arr.to_delayed().ravel())
        lengths = [int(c) for c in arr.chunks[0]]
    else:
        host = symbols_array(symbols, n_symbols)
        arr = da.from_array(host, chunks=chunk or min(DEFAULT_BLOCK, max(1, len(host))))
        lengths = [int(c) for c in arr.chunks[0]]
        client = distributed_client()
        if client is None:
            blocks = list(arr.to_delayed().ravel())
        else:
            # On a cluster the blocks go to the workers once and both phases run where
            # they lie; embedded in the task graph they would travel with every phase.
            cuts = np.cumsum([0, *lengths])
            # Keys of their own (hash=False): content-hashed keys are shared with an
            # earlier call's blocks of the same content, whose release loses them.
            blocks = list(client.scatter([host[b:e] for b, e in zip(cuts[:-1], cuts[1:])],
                                         hash=False))
    if isinstance(model, Automaton):
        if path == "chase":
            raise SpecError("automata use the 'blocks' path on dask", source="<evaluate>",
                            field="path", value=path)
        return _automaton(model, arr, blocks, lengths, outputs, start, lazy)
    from fsmnet.nets.linear import LinearRecurrence

    if isinstance(model.semantics, LinearRecurrence) and path != "chase":
        return _linear(model, blocks, lengths, outputs, start, lazy)
    if path == "auto":
        done = _tabulated(model, arr, blocks, lengths, outputs, start, lazy)
        if done is not None:
            return done
    # Chase: task b waits for task b-1's state.
    state = model.semantics.initial_state(model, False) if start is None else start
    parts = []
    for block in blocks:
        step = dask.delayed(_chase_block, nout=2)(block, model, state, outputs)
        parts.append(step[0])
        state = step[1]
    outs, final = dask.compute(parts, state)
    return _collect(outs, lengths, outputs, lazy), final, "chase"


def _tabulated(net: Any, arr: Any, blocks: list[Any], lengths: list[int], outputs: str,
               start: Any, lazy: bool) -> tuple[Any, Any, str] | None:
    """MinMax (or any finite-state) network as its reachable-state automaton
    (fsmnet.gpu.tabulate): the three block phases instead of a sequential chase."""
    from fsmnet.gpu.tabulate import freeze, tabulate

    table = tabulate(net)
    if table is None:
        return None
    q0 = 0 if start is None else table.index.get(freeze(start))
    if q0 is None:
        return None
    out, q, inner = _automaton(table.automaton, arr, blocks, lengths, outputs, q0, lazy)
    if out is not None:
        labels = table.labels
        out = out.map_blocks(lambda b: labels[b], dtype=np.int64) if lazy else labels[out]
    return out, table.states[q], f"tabulated-{inner}"


def _automaton(a: Automaton, arr: Any, blocks: list[Any], lengths: list[int], outputs: str,
               start: Any, lazy: bool) -> tuple[Any, Any, str]:
    import dask

    from fsmnet.gpu.common import cayley_table

    delta = np.ascontiguousarray(a.delta)
    table = cayley_table(a) if a.n_states > 1 else None
    summary = dask.delayed(_summary_automaton, pure=True)
    maps = dask.compute(*[summary(b, table, delta, a) for b in blocks])
    starts = []
    q = int(a.start_state(start))
    for m in maps:  # phase 2 on the client: one gather per block
        starts.append(q)
        q = int(m[q])
    path = "cayley-blocks" if table is not None else "all-states-blocks"
    if outputs == "last":
        return None, q, path
    out_ids = np.ascontiguousarray(a.output_ids if a.outputs is not None
                                   else np.zeros(a.n_states, dtype=np.int64))
    replay = dask.delayed(_replay_automaton, pure=True)
    parts = [replay(b, table, delta, out_ids, s, a) for b, s in zip(blocks, starts)]
    return _finish(parts, lengths, lazy, automaton_label_dtype(a)), q, path


def _linear(net: Any, blocks: list[Any], lengths: list[int], outputs: str, start: Any,
            lazy: bool) -> tuple[Any, Any, str]:
    import dask

    from fsmnet.nets.linear import normalize

    sem = net.semantics
    mats = np.ascontiguousarray(sem.matrices(net, False), dtype=np.float64)
    readout = np.ascontiguousarray(net.params["readout"], dtype=np.float64)
    h = np.array(sem.initial_state(net, False) if start is None else start, dtype=np.float64)
    product = dask.delayed(_summary_linear, pure=True)
    prods = dask.compute(*[product(b, mats, net) for b in blocks])
    starts = []
    for p in prods:  # phase 2: chase the start vector through the block products
        starts.append(h.copy())
        h = normalize(p.dot(h))
    if outputs == "last":
        return None, h, "block-products"
    replay = dask.delayed(_replay_linear, pure=True)
    parts = [replay(b, mats, readout, s, net) for b, s in zip(blocks, starts)]
    return _finish(parts, lengths, lazy, np.dtype(np.int64)), h, "block-products"


def _finish(parts: list[Any], lengths: list[int], lazy: bool, dtype: np.dtype) -> Any:
    """The replayed blocks' labels in order: a lazy dask array for a dask input."""
    import dask
    import dask.array as da

    if lazy:
        return da.concatenate([da.from_delayed(p, shape=(n,), dtype=dtype)
                               for p, n in zip(parts, lengths)])
    done = dask.compute(*parts)
    return np.concatenate(done) if done else np.zeros(0, dtype=dtype)


def _collect(outs: list[Any], lengths: list[int], outputs: str, lazy: bool) -> Any:
    if outputs == "last":
        return None
    import dask.array as da

    res = np.concatenate(outs) if outs else np.zeros(0, dtype=np.int64)
    return da.from_array(res, chunks=(tuple(lengths),)) if lazy else res
