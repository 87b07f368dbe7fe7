"""Lengths of shortest separating words, for all state pairs or for a few.

d(p, q) is the length of a shortest word s with λ(p·s) ≠ λ(q·s) (a large sentinel,
:data:`NEVER`, when p and q are equivalent): d = 0 where the outputs differ, and
d(p, q) = 1 + min_a d(p·a, q·a).  The witnesses of :mod:`fsmnet.decide.witness`
need it for the pairs of states that two orders of the same letters reach.

Two ways to compute it, the same values (a Hypothesis test compares them):

* :func:`separation_lengths`, every pair at once: an n × n table, one vectorized
  round per length.  It needs 8n² bytes a table (200 MB at 5,040 states, 13 GB at
  40,320), so it is for small automata.
* :func:`pair_separation_lengths`, only the pairs asked for: the same rounds on
  the pairs reachable from them (p·w, q·w).  On a group's word problem the pairs
  (g·ab, g·ba) stay pairs (x, x·c) with c a conjugate of one commutator, so the
  closure has n·|class of c| pairs (352,800 for S7 with two generators), not n².
"""

from __future__ import annotations

import numpy as np

from fsmnet.automata import Automaton

NEVER = np.iinfo(np.int64).max // 4
"""The length of a separating word of two equivalent states (room to add 1)."""


def separation_lengths(m: Automaton) -> np.ndarray:
    """``d[p, q]`` for all pairs at once (:data:`NEVER` when p and q are equivalent).

    Backward over the pair graph, one vectorized round per length, so the cost is
    O(n² |Σ|) a round instead of one product search per pair.
    """
    out = m.output_ids
    d = np.where(out[:, None] != out[None, :], 0, NEVER).astype(np.int64)
    delta = np.asarray(m.delta)
    while True:
        new = d.copy()
        for row in delta:  # one symbol at a time: n² memory, not |Σ|·n²
            np.minimum(new, d[row[:, None], row[None, :]] + 1, out=new)
        if np.array_equal(new, d):
            return d
        d = new


def pair_codes(n: int, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """The unordered pairs {x, y} as codes min·n + max (int64)."""
    lo = np.minimum(x, y).astype(np.int64)
    hi = np.maximum(x, y).astype(np.int64)
    return lo * n + hi


def _closure(delta: np.ndarray, n: int, start: np.ndarray) -> np.ndarray:
    """Sorted codes of the pairs {p·w, q·w} (p·w ≠ q·w) over all words w, from the
    sorted codes ``start``; equal states are left out (they are never separated)."""
    seen = start
    frontier = start
    while frontier.size:
        p, q = np.divmod(frontier, n)
        images = []
        for row in delta:
            a, b = row[p], row[q]
            keep = a != b
            images.append(pair_codes(n, a[keep], b[keep]))
        found = sorted_unique(np.concatenate(images))
        frontier = found[~np.isin(found, seen, assume_unique=True)]
        # Two sorted runs: a stable sort merges them in linear time (np.union1d would
        # hash every code again).
        seen = np.sort(np.concatenate([seen, frontier]), kind="stable")
    return seen


def sorted_unique(codes: np.ndarray) -> np.ndarray:
    """The distinct codes, sorted (np.unique hashes instead of sorting on NumPy 2.3+,
    several times slower on these arrays)."""
    codes = np.sort(codes)
    return codes[np.concatenate(([True], codes[1:] != codes[:-1]))] if codes.size else codes


def pair_separation_lengths(m: Automaton, codes: np.ndarray) -> np.ndarray:
    """d(p, q) for the pairs with codes ``codes`` (:func:`pair_codes`; a code with
    p = q gets :data:`NEVER`), computed on the pairs reachable from them only."""
    n = m.n_states
    delta = np.asarray(m.delta, dtype=np.int64)
    codes = np.asarray(codes, dtype=np.int64)
    p, q = np.divmod(codes, n)
    start = sorted_unique(codes[p != q])
    pairs = _closure(delta, n, start)
    lo, hi = np.divmod(pairs, n)
    out = m.output_ids
    # d has one more entry, NEVER, where a letter sends a pair onto a single state.
    d = np.append(np.where(out[lo] != out[hi], 0, NEVER), NEVER).astype(np.int64)
    succ = []
    for row in delta:
        a, b = row[lo], row[hi]
        index = np.searchsorted(pairs, pair_codes(n, a, b))
        index[a == b] = len(pairs)
        succ.append(index)
    while True:
        new = d.copy()
        for index in succ:
            np.minimum(new[:-1], d[index] + 1, out=new[:-1])
        if np.array_equal(new, d):
            break
        d = new
    found = np.full(codes.shape, NEVER, dtype=np.int64)
    apart = p != q
    found[apart] = d[np.searchsorted(pairs, codes[apart])]
    return found
