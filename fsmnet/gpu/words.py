"""Word tables: run an automaton m symbols a step instead of one.

The sequential loop ``q = delta[x_t, q]`` is bound by the latency of one
dependent load a symbol.  With ``images[w, q]``, the state reached from q
after the word w of m symbols, the dependent chain has one load every m
symbols; the word's index ``w = x_t + k x_{t+1} + ... + k^(m-1) x_{t+m-1}``
depends only on the input, so the core computes it ahead, off the chain.  For
outputs="all", ``labels[w, q]`` holds the m label indices met on the way,
packed into one 2-, 4- or 8-byte word and written with one store.

The tables have k^m x Q entries, so they pay only while they stay in cache:
:func:`word_length` picks the largest m in 8, 4, 2 with k^m x Q <= LIMIT
(docs/performance.md: the gain falls as the tables outgrow the cache).  The CuPy
backend's live kernels use the same tables.
"""

from __future__ import annotations

import numpy as np
from numba import njit

LIMIT = 1 << 14  # table entries (k^m x Q) for the Numba path


def word_length(n_symbols: int, n_states: int, limit: int = LIMIT) -> int:
    """The largest m in 8, 4, 2 with n_symbols^m x n_states <= limit, else 1."""
    for m in (8, 4, 2):
        if n_symbols ** m * n_states <= limit:
            return m
    return 1


def _digits(n_symbols: int, m: int) -> np.ndarray:
    """(k^m, m): digit i of word w is its (i+1)-th symbol (the first is least significant)."""
    words = np.arange(n_symbols ** m, dtype=np.int64)
    return (words[:, None] // n_symbols ** np.arange(m, dtype=np.int64)[None, :]) % n_symbols


def word_images(delta: np.ndarray, m: int) -> np.ndarray:
    """``images[w, q]`` (int64, k^m x Q): the state q reaches after the word w."""
    k, q_count = delta.shape
    digits = _digits(k, m)
    current = np.tile(np.arange(q_count, dtype=np.int64), (len(digits), 1))
    for i in range(m):
        current = delta[digits[:, i][:, None], current]
    return current


def word_labels(delta: np.ndarray, out_ids: np.ndarray, m: int) -> np.ndarray:
    """``labels[w, q, i]`` (int8, k^m x Q x m): the label index after symbol i of w."""
    k, q_count = delta.shape
    digits = _digits(k, m)
    current = np.tile(np.arange(q_count, dtype=np.int64), (len(digits), 1))
    labels = np.empty((len(digits), q_count, m), dtype=np.int8)
    for i in range(m):
        current = delta[digits[:, i][:, None], current]
        labels[:, :, i] = out_ids[current]
    return labels


def run_words(delta: np.ndarray, out_ids: np.ndarray, symbols: np.ndarray, q: int,
              outputs: np.ndarray, m: int) -> int:
    """Run from q, m symbols a step; writes int8 labels into ``outputs`` unless it is
    empty; returns the last state.  Needs m in (2, 4, 8) and out_ids < 128."""
    k = delta.shape[0]
    write = len(outputs) > 0
    images, packed = _tables(delta, out_ids, m, write)
    full = len(symbols) // m
    lanes = packed.dtype
    out_words = outputs[:full * m].view(lanes) if write else np.zeros(0, dtype=lanes)
    kernel = {2: _run2, 4: _run4, 8: _run8}[m]
    q = int(kernel(images, packed, symbols, k, q, out_words))
    for t in range(full * m, len(symbols)):  # the tail, fewer than m symbols
        q = int(delta[symbols[t], q])
        if len(outputs):
            outputs[t] = out_ids[q]
    return q


def monoid_element(cayley: np.ndarray, identity: int, symbols: np.ndarray, m: int) -> int:
    """The transition monoid element of ``symbols`` (an index into the elements of the
    right Cayley table ``cayley[e, s]`` = e·s), m symbols a lookup: the elements act on
    themselves as an automaton does on its states, so the same kernels run them."""
    k = cayley.shape[1]
    key = (cayley.tobytes(), b"cayley", cayley.shape, m, False)
    if key not in _CACHE:
        _CACHE[key] = (np.ascontiguousarray(word_images(cayley.T, m), dtype=np.int32),
                       np.zeros((1, 1), dtype={2: np.uint16, 4: np.uint32, 8: np.uint64}[m]))
    table, dummy = _CACHE[key]
    kernel = {2: _run2, 4: _run4, 8: _run8}[m]
    e = int(kernel(table, dummy, symbols, k, identity, dummy[0, :0]))
    for t in range(len(symbols) // m * m, len(symbols)):
        e = int(cayley[e, symbols[t]])
    return e


_CACHE: dict[tuple[bytes, bytes, tuple[int, ...], int, bool], tuple[np.ndarray, np.ndarray]] = {}


def _tables(delta: np.ndarray, out_ids: np.ndarray, m: int,
            labels: bool) -> tuple[np.ndarray, np.ndarray]:
    """(images as int32, packed labels or a dummy), cached: building them costs about
    as much as running 10^5 symbols."""
    key = (delta.tobytes(), np.asarray(out_ids).tobytes(), delta.shape, m, labels)
    if key not in _CACHE:
        lanes = {2: np.uint16, 4: np.uint32, 8: np.uint64}[m]
        images = np.ascontiguousarray(word_images(delta, m), dtype=np.int32)
        packed = (word_labels(delta, out_ids, m).view(lanes).reshape(images.shape) if labels
                  else np.zeros((1, 1), dtype=lanes))
        if len(_CACHE) > 16:
            _CACHE.clear()
        _CACHE[key] = (images, packed)
    return _CACHE[key]


# One kernel a word length, each with its index written out: Numba does not
# unroll a loop over a run-time m, and the unrolled index is what makes it pay.
@njit(cache=True, nogil=True)
def _run2(images, packed, x, k, q, out):  # pragma: no cover - jitted
    write = out.shape[0] > 0
    for b in range(x.shape[0] // 2):
        t = 2 * b
        w = x[t + 1] * k + x[t]
        if write:
            out[b] = packed[w, q]
        q = images[w, q]
    return q


@njit(cache=True, nogil=True)
def _run4(images, packed, x, k, q, out):  # pragma: no cover - jitted
    write = out.shape[0] > 0
    for b in range(x.shape[0] // 4):
        t = 4 * b
        w = ((x[t + 3] * k + x[t + 2]) * k + x[t + 1]) * k + x[t]
        if write:
            out[b] = packed[w, q]
        q = images[w, q]
    return q


@njit(cache=True, nogil=True)
def _run8(images, packed, x, k, q, out):  # pragma: no cover - jitted
    write = out.shape[0] > 0
    for b in range(x.shape[0] // 8):
        t = 8 * b
        w = ((((((x[t + 7] * k + x[t + 6]) * k + x[t + 5]) * k + x[t + 4]) * k
               + x[t + 3]) * k + x[t + 2]) * k + x[t + 1]) * k + x[t]
        if write:
            out[b] = packed[w, q]
        q = images[w, q]
    return q
