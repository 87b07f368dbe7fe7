"""What the scan backends share: input checks, Cayley tables and label types.

Each backend module (``numba_backend``, ``reference_backend``, ``cupy_backend``,
``dask_backend``) imports from here, never from the engine, so the engine can
import every backend without an import circle.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from fsmnet.automata import Automaton
from fsmnet.errors import SpecError

CAYLEY_LIMIT = 1 << 20  # monoid elements; a table of 2^20 × |Σ| int64 is 8 MB a symbol
# The table's size, not the element count, is what must stay small: with 200
# symbols 2^20 elements would be a 1.6 GB table, and a search that gives up at
# 2^20 elements costs far more than the plain loop it was to beat.
CAYLEY_ENTRIES = 1 << 22
MIN_PARALLEL = 1 << 16  # shorter inputs are not worth a parallel scan


def symbols_array(symbols: Any, n_symbols: int) -> np.ndarray:
    arr = np.asarray(symbols)
    if arr.ndim != 1 or not np.issubdtype(arr.dtype, np.integer):
        raise SpecError("symbols must be a 1-D integer array of symbol indices",
                        source="<evaluate>", field="symbols",
                        value=f"{arr.dtype} array of shape {arr.shape}")
    lo, hi = (int(arr.min()), int(arr.max())) if arr.size else (0, 0)
    if lo < 0 or hi >= n_symbols:
        raise SpecError(f"symbol index out of range 0..{n_symbols - 1}", source="<evaluate>",
                        field="symbols", value=lo if lo < 0 else hi)
    return arr


def network_start(net: Any, start: Any) -> Any:
    """``start`` for a network run, checked against the shape of its initial state
    (a vector of H floats, or a tuple of unit states); ``None`` means h0."""
    h0 = net.semantics.initial_state(net, False)
    if start is None:
        return h0
    if isinstance(h0, tuple):
        want = f"{len(h0)} unit states"
        ok = isinstance(start, (tuple, list)) and len(start) == len(h0) and all(
            np.shape(s) == np.shape(h) for s, h in zip(start, h0))
        shown: Any = type(start).__name__
    else:
        want = f"shape {np.shape(h0)}"
        arr = np.asarray(start)
        ok = arr.shape == np.shape(h0) and arr.dtype.kind in "fiu" and bool(
            np.all(np.isfinite(arr)))
        shown = f"{arr.dtype} array of shape {arr.shape}"
    if not ok:
        raise SpecError(f"start must be a network state like h0 ({want})",
                        source="<evaluate>", field="start", value=shown)
    return start


def label_dtype(n_labels: int) -> np.dtype:
    """The narrowest integer type for label indices 0..n_labels-1: writing the outputs
    is what bounds outputs="all", so int8 instead of int64 moves 8× fewer bytes."""
    for dtype in (np.int8, np.int16, np.int32):
        if max(n_labels, 1) <= np.iinfo(dtype).max:
            return np.dtype(dtype)
    return np.dtype(np.int64)


def _label_dtype(a: Automaton) -> np.dtype:
    return label_dtype(len(a.labels))


def automaton_label_dtype(a: Automaton) -> np.dtype:
    return label_dtype(len(a.labels))


def cayley_table(a: Automaton,
                 entries: int = CAYLEY_ENTRIES) -> tuple[np.ndarray, np.ndarray, int] | None:
    """(right Cayley table, elements, identity index), cached per automaton; None when
    the table would have more than ``entries`` entries (elements × symbols).

    A caller that wants only a small table passes a small ``entries``: the monoid
    search then gives up early instead of running to the default limit."""
    key = (a.delta.tobytes(), a.delta.shape)
    if key in _CAYLEY_CACHE:
        found = _CAYLEY_CACHE[key]
        return found if found is None or found[0].size <= entries else None
    if _TOO_LARGE.get(key, 0) >= entries:
        return None
    from fsmnet.algebra.monoid import MonoidTooLarge, TransitionMonoid

    try:
        limit = max(1, min(CAYLEY_LIMIT, min(entries, CAYLEY_ENTRIES) // max(1, a.n_symbols)))
        monoid = TransitionMonoid.from_automaton(a, limit=limit)
        value: tuple[np.ndarray, np.ndarray, int] | None = (
            np.ascontiguousarray(monoid.right_cayley_table(), dtype=np.int64),
            np.ascontiguousarray(monoid.elements(), dtype=np.int64),
            int(monoid.identity_index),
        )
    except MonoidTooLarge:
        if entries < CAYLEY_ENTRIES:  # a larger search may still succeed
            _TOO_LARGE[key] = max(entries, _TOO_LARGE.get(key, 0))
            return None
        value = None
    if len(_CAYLEY_CACHE) > 16:
        _CAYLEY_CACHE.clear()
        _TOO_LARGE.clear()
    _CAYLEY_CACHE[key] = value
    return value if value is None or value[0].size <= entries else None


_CAYLEY_CACHE: dict[Any, tuple[np.ndarray, np.ndarray, int] | None] = {}
_TOO_LARGE: dict[Any, int] = {}  # the largest ``entries`` a search gave up at
