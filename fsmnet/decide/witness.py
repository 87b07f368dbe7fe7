"""Impossibility witnesses, computed on the minimal automaton (docs/theory.md).

Two kinds, each re-checkable by running the automaton alone:

``equal-counts``
    Two words with the same number of each symbol and different outputs.
    Any network whose transition matrices commute reaches the same state on
    both, so it cannot track the automaton (theorem 1).
``unsettled-powers``
    Words (p, u, s) and a step ``stride`` (1 or 2) such that the output of
    p·u^(stride·k)·s never becomes constant as k grows.  Positive-diagonal
    nets and scalar MinMax cascades make it eventually constant along every
    power (stride 1; theorems 3 and 4); real-diagonal nets along even powers
    (stride 2; theorem 2).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from fsmnet.automata import Automaton, access_words, distinguishing_word
from fsmnet.decide.separation import (  # noqa: F401  (separation_lengths: re-exported)
    NEVER,
    pair_codes,
    pair_separation_lengths,
    separation_lengths,
    sorted_unique,
)


@dataclass(frozen=True)
class Witness:
    """A re-checkable witness; words are lists of symbol names."""

    kind: str  # "equal-counts" | "unsettled-powers"
    words: dict[str, list[str]]
    stride: int = 1
    explanation: str = ""


def separating_word(m: Automaton, p: int, q: int) -> list[int] | None:
    """A shortest word s with λ(p·s) ≠ λ(q·s), or None if p and q are equivalent."""
    found = distinguishing_word(m.replace(initial=p), m.replace(initial=q))
    return None if found is None else [int(x) for x in m.encode(found[0])]


def equal_counts_witness(automaton: Automaton) -> Witness | None:
    """Shortest p·ab·s vs p·ba·s with different outputs, or None if commutative.

    Among the shortest, the first in the order (state reached by p, a, b) wins.  The
    separation lengths come from one all-pairs table up to :data:`DENSE_PAIRS` states
    (:func:`separation_lengths`), above it from the pairs (q·ab, q·ba) and those they
    reach only (:func:`pair_separation_lengths`: an n × n table is 200 MB at 5,040
    states); a separating word is searched for the winning pair only.
    """
    m = automaton.minimal()
    access = access_words(m)
    reach = np.array([q for q in range(m.n_states) if access[q] is not None], dtype=np.int64)
    k = m.n_symbols
    first, second = np.triu_indices(k, 1)  # a < b, in the order of argmin over (a, b)
    if first.size == 0:
        return None
    delta = np.asarray(m.delta, dtype=np.int64)
    n = m.n_states
    # (q·a·b, q·b·a) for a block of reachable q at a time: |block|·k(k−1)/2 pairs.
    block = max(1, _BLOCK_PAIRS // first.size)
    chunks = [reach[lo:lo + block] for lo in range(0, reach.size, block)]

    def candidates(qs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        x = delta[second[:, None], delta[first[:, None], qs[None, :]]]  # q·a·b
        y = delta[first[:, None], delta[second[:, None], qs[None, :]]]  # q·b·a
        return x.T, y.T  # (|qs|, pairs)

    if n <= DENSE_PAIRS:
        table = separation_lengths(m)

        def cost_of(x: np.ndarray, y: np.ndarray) -> np.ndarray:
            return np.asarray(table[x, y])
    else:
        wanted = sorted_unique(np.concatenate([pair_codes(n, *candidates(qs)).ravel()
                                              for qs in chunks]))
        lengths = pair_separation_lengths(m, wanted)

        def cost_of(x: np.ndarray, y: np.ndarray) -> np.ndarray:
            return np.asarray(lengths[np.searchsorted(wanted, pair_codes(n, x, y))])

    best: tuple[int, int, int] | None = None  # (total length, q, pair index)
    for qs in chunks:
        x, y = candidates(qs)
        cost = cost_of(x, y)
        pick = np.argmin(cost, axis=1)  # the first (a, b) of least cost, per q
        least = cost[np.arange(qs.size), pick]
        lengths_p = np.array([len(access[int(q)] or ()) for q in qs], dtype=np.int64)
        total = np.where(least >= NEVER, NEVER, lengths_p + 2 + least)
        i = int(np.argmin(total))  # the first q of least total in this block
        if total[i] < NEVER and (best is None or int(total[i]) < best[0]):
            best = (int(total[i]), int(qs[i]), int(pick[i]))
    if best is None:
        return None
    _, q, j = best
    a, b = int(first[j]), int(second[j])
    pre = access[q]
    assert pre is not None
    x_state, y_state = int(delta[b, delta[a, q]]), int(delta[a, delta[b, q]])
    suffix = separating_word(m, x_state, y_state)
    assert suffix is not None and len(pre) + 2 + len(suffix) == best[0]
    return Witness(
        kind="equal-counts",
        words={"first": m.decode(pre + [a, b] + suffix),
               "second": m.decode(pre + [b, a] + suffix)},
        explanation="the two words have the same number of each symbol but different "
        "outputs, so no network with commuting transitions tracks the automaton",
    )


DENSE_PAIRS = 2048
"""Up to this many states the all-pairs table (8n² bytes: 32 MB here) is built;
above it only the pairs the witness needs and those they reach."""

_BLOCK_PAIRS = 1 << 22
"""Candidate pairs (q·ab, q·ba) held at once: bounds the blocks in memory."""


def _cycle(m: Automaton, q: int, u: list[int]) -> tuple[int, int]:
    """(preperiod, period) of the state sequence q, q·u, q·u², ..."""
    seen: dict[int, int] = {}
    state, k = q, 0
    while state not in seen:
        seen[state] = k
        state = m.run(u, start=state)
        k += 1
    return seen[state], k - seen[state]


def unsettled_powers_witness(automaton: Automaton, *, stride: int = 1,
                             max_elements: int = 200_000) -> Witness | None:
    """(p, u, s) whose outputs along p·u^(stride·k)·s never settle, or None.

    Breadth-first over the transition monoid (one shortest word per element,
    at most ``max_elements`` elements, tested or extended), so u is a shortest such
    word; None also when the first ``max_elements`` elements have no witness.

    Exists (for stride 1) iff the syntactic monoid is not aperiodic; for stride 2
    iff some element has a cycle of length other than 1 and 2.

    The search runs a BFS layer at a time on NumPy arrays: each element is its map
    q ↦ q·u (composition with a letter is one gather), and whether some state lies
    on a cycle of length ℓ ∤ stride is read off G = f^(2^k), 2^k ≥ n, which sends
    every state onto its cycle: f^stride moves a point of G's image iff such a
    cycle exists.  The order of the elements (layer by layer; within a layer by
    parent, then letter) and the first element with a witness are those of a
    word-by-word BFS; only that element's words are built.
    """
    m = automaton.minimal()
    n, k = m.n_states, m.n_symbols
    # Maps as 2-byte states where they fit: the keys of the elements seen are half the
    # size (200,000 elements of 1,024 states: 400 MB of keys, not 800 MB).
    delta: np.ndarray[Any, np.dtype[np.integer[Any]]] = np.asarray(
        m.delta, dtype=np.uint16 if n <= 1 << 16 else np.int32)
    squarings = max(1, int(np.ceil(np.log2(max(n, 2)))))
    chunk = max(1, _CHUNK_ENTRIES // (k * n))
    seen: set[bytes] = set()
    # A layer: the maps and words of the elements it extends, children built per chunk.
    parents = np.arange(n, dtype=delta.dtype)[None, :]
    parent_words: list[list[int]] = [[]]  # the empty word
    while len(parent_words):
        next_maps: list[np.ndarray] = []
        next_words: list[list[int]] = []
        for lo in range(0, len(parent_words), chunk):
            block = delta[:, parents[lo:lo + chunk]].transpose(1, 0, 2).reshape(-1, n)
            keep = []
            for i in range(block.shape[0]):
                key = block[i].tobytes()
                if key in seen:
                    continue
                if len(seen) >= max_elements:
                    # The cap bounds the elements tested too, not only those extended:
                    # the last layer has up to |Σ| times as many (21 letters on
                    # sequences:3,tracks=5 made 4.2 million 2-KB keys of 200,000).
                    break
                seen.add(key)
                keep.append(i)
            if not keep:
                continue
            f = block[keep]
            words = [parent_words[lo + i // k] + [i % k] for i in keep]
            g = f
            for _ in range(squarings):  # g = f^(2^squarings): every state onto its cycle
                g = np.take_along_axis(g, g, axis=1)
            step = f
            for _ in range(stride - 1):
                step = np.take_along_axis(step, f, axis=1)
            for hit in np.flatnonzero((np.take_along_axis(step, g, axis=1) != g).any(axis=1)):
                found = _unsettled(m, words[int(hit)], stride)
                if found is not None:
                    return found
            next_maps.append(f)
            next_words += words
            if len(seen) >= max_elements:
                return None
        parents = np.concatenate(next_maps) if next_maps else parents[:0]
        parent_words = next_words
    return None


_CHUNK_ENTRIES = 1 << 22
"""Map entries of the children built at once (parents · |Σ| · n): bounds the block in
memory (16 MB of int32) whatever the number of states and letters."""


def _unsettled(m: Automaton, u: list[int], stride: int) -> Witness | None:
    """The witness of :func:`unsettled_powers_witness` for the word u (first state q,
    in order, whose cycle under u is not settled by the stride)."""
    access = access_words(m)
    for q in range(m.n_states):
        pre = access[q]
        if pre is None:
            continue
        start, period = _cycle(m, q, u)
        # Along stride-k powers the cycle has length period / gcd(period, stride).
        if period // _gcd(period, stride) <= 1:
            continue
        x = m.run(u * start, start=q)
        y = m.run(u * (start + stride), start=q)
        suffix = separating_word(m, x, y)
        if suffix is None:
            continue
        # p ends at x, on the cycle: from q itself the stride-k powers may run on
        # another sub-cycle (q = 0 -> 4 -> 1 -> 2 -> 3 -> 4 under u: from 0 the even
        # powers visit 1 and 3 only, where x = 4 and y = 2 are never seen).
        return Witness(
            kind="unsettled-powers",
            words={"p": m.decode(list(pre) + u * start), "u": m.decode(u),
                   "s": m.decode(suffix)},
            stride=stride,
            explanation=f"u permutes a cycle of {period} states, so the output of "
            f"p·u^({stride}k)·s keeps changing with period "
            f"{period // _gcd(period, stride)} and never settles",
        )
    return None


def _gcd(a: int, b: int) -> int:
    while b:
        a, b = b, a % b
    return a
