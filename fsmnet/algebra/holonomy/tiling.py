"""Tiles: the maximal proper subsets of each image set within the extended image set.

Sets are Python-int bitmasks.  For each set P the candidates are the sets
inside it (one vectorized subset test against all sets, as rows of 64-bit
words); taken largest first in the canonical tile order, a candidate is a
tile unless a tile already found contains it, so each tile found removes
every candidate inside it (another vectorized test).  This is the same rule,
in the same order, as checking each candidate against the tiles found so far,
but the work per set is a few array operations instead of a Python loop over
every set: O(N^2) word operations in NumPy for N sets instead of in Python.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

_WORD = (1 << 64) - 1


def _rows(masks: Sequence[int], words: int) -> np.ndarray:
    """(len(masks), words) uint64: word w of a mask holds its bits 64w .. 64w+63."""
    out = np.zeros((len(masks), words), dtype=np.uint64)
    for i, m in enumerate(masks):
        for w in range(words):
            out[i, w] = (m >> (64 * w)) & _WORD
    return out


def _inside(rows: np.ndarray, row: np.ndarray) -> np.ndarray:
    """Which rows are subsets of ``row`` (1-D fast path for masks of one word)."""
    if rows.shape[1] == 1:
        flat = rows[:, 0]
        return (flat & row[0]) == flat  # type: ignore[no-any-return]
    return np.all((rows & row) == rows, axis=1)  # type: ignore[no-any-return]


def tiles(sets: Sequence[int], order_key: Callable[[int], Any]) -> list[tuple[int, ...]]:
    """For each set P: the indices of its tiles, in the order ``order_key`` sorts them
    (larger sets first); a set of at most one point has none."""
    if not sets:
        return []
    order = np.array(sorted(range(len(sets)), key=lambda i: order_key(sets[i])), dtype=np.int64)
    words = max(1, -(-max(s.bit_length() for s in sets) // 64))
    table = _rows([sets[i] for i in order], words)  # rows in tile order
    # Minus the sizes, in tile order (ascending): a proper subset of P is smaller than P,
    # so its candidates lie after the rows of P's size and up.
    minus_sizes = np.array([-sets[i].bit_count() for i in order], dtype=np.int64)
    out: list[tuple[int, ...]] = []
    for p in sets:
        size = p.bit_count()
        if size <= 1:
            out.append(())
            continue
        row = _rows([p], words)[0]
        start = int(np.searchsorted(minus_sizes, -size, side="right"))
        smaller = table[start:]
        candidates = start + np.flatnonzero(_inside(smaller, row))
        found: list[int] = []
        while len(candidates):
            first = candidates[0]  # the largest left: no candidate contains it
            found.append(int(order[first]))
            candidates = candidates[~_inside(table[candidates], table[first])]
        out.append(tuple(found))
    return out
