"""The one entry point of the scan engine: :func:`evaluate`.

It runs an automaton or a network over a symbol array on the best available
backend and returns the outputs (labels after every symbol) or only the last
state.  Results equal the reference evaluator: identical states for automata,
identical readouts for networks.  ``start`` / ``EvalResult.state`` let a
caller stream an input in pieces (``fsmnet run`` does, for 10^10 symbols).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, cast

import numpy as np

from fsmnet.automata import Automaton
from fsmnet.errors import BackendUnavailable, SpecError
from fsmnet.gpu.common import network_start
from fsmnet.types import BACKENDS, OUTPUTS, Backend, EvalPath, Outputs


@dataclass(frozen=True)
class EvalResult:
    """What :func:`evaluate` returns.

    Attributes
    ----------
    outputs
        Label index after each symbol (length = input length), or ``None``
        when ``outputs="last"``.
    state
        The final state: an automaton state index, or a network state.
    backend, path
        Which backend and which algorithm ran (e.g. ``"numba"``, ``"cayley"``).
    seconds
        Wall time of the evaluation.
    """

    outputs: np.ndarray | None
    state: Any
    backend: Backend
    path: str
    seconds: float


def cuda_available() -> bool:
    """True when CuPy imports and sees a CUDA device."""
    try:
        import cupy

        return bool(cupy.cuda.runtime.getDeviceCount() > 0)
    except Exception:  # ImportError, or a CUDA runtime error without a driver
        return False


def pick_backend(backend: Backend | str) -> Backend:
    """The backend that will run: ``"auto"`` resolved, an unusable one refused."""
    if backend not in BACKENDS:
        raise SpecError(f"unknown backend; choose one of {', '.join(BACKENDS)}",
                        source="<evaluate>", field="backend", value=backend)
    if backend == "auto":
        return "cupy" if cuda_available() else "numba"
    if backend == "cupy" and not cuda_available():
        raise BackendUnavailable("backend 'cupy' needs CuPy and a CUDA device; none is usable "
                                 "here (use --backend numba, or install the 'gpu' extra)")
    return cast(Backend, backend)


def evaluate(model: Automaton | Any, symbols: Any, *, backend: Backend = "auto",
             outputs: Outputs = "all", start: Any = None, chunk: int | None = None,
             path: EvalPath = "auto") -> EvalResult:
    """Run an automaton or a network on a symbol-index array.

    Parameters
    ----------
    model
        An :class:`~fsmnet.automata.Automaton` or a :class:`~fsmnet.nets.Network`.
    symbols
        1-D integer array of symbol indices (any integer dtype; uint8 saves memory).
    backend
        ``"auto"`` (CuPy when a GPU is usable, else Numba), ``"cupy"``,
        ``"numba"``, ``"numpy"`` (the reference loop) or ``"dask"``.
    outputs
        ``"all"`` (label index after each symbol) or ``"last"`` (final state only).
    start
        State to start from (default: the initial state / h0).
    chunk
        Chunk length of the parallel scan (default: about 4 chunks a thread).
    path
        Automata: ``"auto"``, ``"sequential"``, ``"words"``, ``"ilp"``, ``"cayley"`` or
        ``"live"`` on Numba; ``"auto"``, ``"cayley"`` or ``"live"`` on CuPy.  Networks: ``"auto"``
        (run as the reachable-state automaton when its states are few), ``"tabulated"``
        (insist on that), ``"direct"`` (the network's own kernels: chunk products,
        levelwise MinMax), and on Numba ``"sequential"`` or ``"levelwise"`` for MinMax.
    """
    if outputs not in OUTPUTS:
        raise SpecError("outputs must be 'all' or 'last'", source="<evaluate>",
                        field="outputs", value=outputs)
    if chunk is not None and (isinstance(chunk, bool) or not isinstance(chunk, int)
                              or chunk < 1):
        raise SpecError("chunk must be a positive integer", source="<evaluate>",
                        field="chunk", value=chunk)
    # Every backend gets a checked start: an out-of-range state would make a
    # kernel read out of bounds instead of failing.
    if isinstance(model, Automaton):
        if start is not None:
            model.start_state(start)
    else:
        network_start(model, start)
    chosen = pick_backend(backend)
    begin = time.perf_counter()
    if chosen == "cupy":
        from fsmnet.gpu.cupy_backend import evaluate_cupy as run
    elif chosen == "dask":
        from fsmnet.gpu.dask_backend import evaluate_dask as run
    elif chosen == "numpy":
        from fsmnet.gpu.reference_backend import evaluate_reference as run
    else:
        from fsmnet.gpu.numba_backend import evaluate_numba as run
    out, state, used = run(model, symbols, outputs=outputs, start=start, chunk=chunk, path=path)
    return EvalResult(out, state, chosen, used, time.perf_counter() - begin)


__all__ = ["BACKENDS", "EvalResult", "cuda_available", "evaluate", "pick_backend"]
