"""The counterexample pool of train-until-proved: the words a refutation adds to the
training distribution, and how batches are drawn from them.

A refuted round's counterexample w joins the pool with weight 1, with its pumped
variants p·u^n (w = p·u^m for each short suffix loop u: a drifting loop found at one
length shows at others; weight 1 shared) and up to :data:`MAX_NEIGHBOURS` of its
single-symbol edits (weight 1 shared).  :class:`WeightedWords` draws batches from the
pool by weight for :func:`fsmnet.train.loop.train` (``extra=``), each word padded with
random symbols, which only appends prefixes that the automaton labels.

Cost: a word of length L has O(|Σ|·L) edits and O(L) pumped variants, all capped at
:data:`MAX_WORD` symbols (or L, if longer).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

KINDS = ("counterexample", "pumped", "neighbour")
MAX_SUFFIX = 4          # pumped suffixes u of length 1..4
PUMPS = (2, 3, 4, 8)
MAX_WORD = 256          # variants longer than this (or than their word) are left out
MAX_NEIGHBOURS = 32     # edits sampled per counterexample (a word of length L has ~2|Σ|L)


@dataclass(frozen=True)
class PoolWord:
    """A word in the extra training distribution (symbol ids), its sampling weight, what
    it came from and the round whose certification found it."""

    word: tuple[int, ...]
    weight: float
    kind: str
    round: int



class WeightedWords:
    """The pool as :class:`fsmnet.train.loop.ExtraWords`: words drawn by weight, padded
    with random symbols to the longest drawn; fewer words when they are long, so a
    batch holds at most ``size · max(4·hi, 64)`` symbols.  Counts what it drew."""

    def __init__(self, pool: list[PoolWord], n_symbols: int, hi: int, fraction: float):
        self.pool, self.n_symbols, self.fraction = pool, n_symbols, fraction
        self.hi = max(4 * hi, 64)
        weights = np.array([p.weight for p in pool], dtype=np.float64)
        self.p = weights / weights.sum()
        self.drawn = dict.fromkeys(KINDS, 0)

    def sample(self, rng: np.random.Generator, size: int) -> np.ndarray:
        picks = rng.choice(len(self.pool), size=size, p=self.p)
        longest = max(len(self.pool[i].word) for i in picks)
        keep = max(1, min(size, size * self.hi // max(1, longest)))
        picks = picks[:keep]
        length = max(1, max(len(self.pool[i].word) for i in picks))
        out = rng.integers(0, self.n_symbols, size=(len(picks), length), dtype=np.int64)
        for row, i in enumerate(picks):
            word = self.pool[i].word
            out[row, :len(word)] = word
            self.drawn[self.pool[i].kind] += 1
        return out


def variants(word: list[int], n_symbols: int, rng: np.random.Generator
             ) -> tuple[list[list[int]], list[list[int]]]:
    """(pumped, neighbours) of a counterexample w.

    Pumped: for each suffix u (|u| ≤ 4), w = p·u^m with m the largest such count, the
    words p·u^n for n in :data:`PUMPS` and n = 1 and 2m (a drifting loop found at
    one length shows at others).  Neighbours: its single-symbol edits
    (substitutions, deletions, insertions), at most :data:`MAX_NEIGHBOURS` of them
    (a deterministic sample from ``rng``).  Nothing longer than the word itself or
    :data:`MAX_WORD`, whichever is larger."""
    cap = max(MAX_WORD, len(word))
    pumped: list[tuple[int, ...]] = []
    for k in range(1, min(MAX_SUFFIX, len(word)) + 1):
        u, m = word[-k:], 1
        while (m + 1) * k <= len(word) and word[len(word) - (m + 1) * k:][:k] == u:
            m += 1
        p = word[:len(word) - m * k]
        pumped += [tuple(p + u * n) for n in (1, *PUMPS, 2 * m)
                   if n != m and len(p) + k * n <= cap]
    edits: list[tuple[int, ...]] = []
    for i in range(len(word) + 1):
        edits += [tuple(word[:i] + [a] + word[i:]) for a in range(n_symbols)]   # insertions
        if i < len(word):
            edits.append(tuple(word[:i] + word[i + 1:]))                       # deletion
            edits += [tuple(word[:i] + [a] + word[i + 1:]) for a in range(n_symbols)
                      if a != word[i]]                                         # substitutions
    unique = [e for e in dict.fromkeys(edits) if len(e) <= cap and e != tuple(word)]
    if len(unique) > MAX_NEIGHBOURS:
        chosen = sorted(rng.choice(len(unique), size=MAX_NEIGHBOURS, replace=False))
        unique = [unique[i] for i in chosen]
    return ([list(w) for w in dict.fromkeys(pumped) if w != tuple(word)],
            [list(e) for e in unique])
