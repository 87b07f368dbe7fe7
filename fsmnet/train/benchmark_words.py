"""Benchmark-shaped words for the MinMax paper's tasks, and which positions are scored.

Source: MinMax Recurrent Neural Cascades (arXiv 2605.06384; seed summary 004).  The
summary names Latching(2n), Sequences(n) and InductionHeads(M), reports one accuracy
per task, and gives InductionHeads(30) baselines at 1/30 (chance over the key), so
the paper scores the *answer* on words shaped like the benchmark, not every position
of uniform words (where Sequences tracks almost never complete and InductionHeads
almost always outputs ``-``, so the constant predictor scores 0.88–1.00).

The summary does not describe the paper's generators.  Everything below beyond
"InductionHeads words end with the query, whose answer is the key" is fsmnet's choice:

* ``induction:M``: random tokens, one ``@`` at a uniform position followed by the key,
  random tokens, a final ``@``; scored: the final position.
* ``sequences:n`` (any number of tracks): each track is completed with probability 1/2
  (its n sets in order at random positions); a track that is not is one of three near
  misses drawn uniformly: one set dropped, all n sets then a reset, or all n sets with
  one adjacent pair swapped (n ≥ 2).  The events of all tracks are interleaved at
  random positions, every other position is a distractor; scored: the final position.
* ``latch:V``: uniform words (as :func:`fsmnet.train.data.batch`); scored: every
  position after the empty prefix.

The labels always come from :func:`fsmnet.train.data.label_traces` on the automaton
(the ground truth), never from a sampler, so a sampler can only make words easy or
hard, never mislabel them.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from fsmnet.automata import Automaton
from fsmnet.errors import SpecError

Sampler = Callable[[Automaton, np.random.Generator, int, int], tuple[np.ndarray, np.ndarray]]


def _last_only(size: int, length: int) -> np.ndarray:
    mask = np.zeros((size, length + 1), dtype=bool)
    mask[:, length] = True
    return mask


def _index(automaton: Automaton, name: str) -> int:
    return list(automaton.symbols).index(name)


def _check(family: str, length: int, minimum: int) -> None:
    if length < minimum:
        raise SpecError(f"{family} words need length >= {minimum}", source="benchmark_words",
                        field="length", value=length)


def induction_words(automaton: Automaton, rng: np.random.Generator, size: int,
                    length: int) -> tuple[np.ndarray, np.ndarray]:
    """Tokens, ``@`` key, tokens, final ``@``; the final position is scored."""
    _check("induction", length, 3)
    query = _index(automaton, "@")
    m = automaton.n_symbols - 1  # the tokens are every symbol but "@"
    tokens = [i for i in range(automaton.n_symbols) if i != query]
    words = np.asarray(tokens, dtype=np.int64)[rng.integers(0, m, size=(size, length))]
    marker = rng.integers(0, length - 2, size=size)  # "@" at p, key at p + 1 < T − 1
    rows = np.arange(size)
    words[rows, marker] = query
    words[:, length - 1] = query
    return words, _last_only(size, length)


def minimum_length(automaton: Automaton) -> int:
    """The shortest word each sampler accepts for this automaton's family."""
    family = automaton.name.split(":")[0]
    if family == "sequences":
        tracks, n = _tracks_n(automaton)
        return tracks * (n + 1)  # room for every track's longest near miss
    return {"induction": 3, "latch": 1}[family]


def _tracks_n(automaton: Automaton) -> tuple[int, int]:
    """(tracks, n) read off the symbol names ``s{t}.{i}``."""
    sets = [s.split(".") for s in automaton.symbols if s.startswith("s")]
    tracks = 1 + max(int(t[1:]) for t, _ in sets)
    n = 1 + max(int(i) for _, i in sets)
    return tracks, n


def _track_events(automaton: Automaton, rng: np.random.Generator, track: int,
                  n: int) -> list[int]:
    """The letters of one track, in order: a completion with probability 1/2, else a
    near miss (the labels are recomputed by the automaton either way)."""
    sets = [_index(automaton, f"s{track}.{i}") for i in range(n)]
    if rng.random() < 0.5:
        return sets
    misses = ["drop", "reset"] + (["swap"] if n >= 2 else [])
    kind = misses[int(rng.integers(len(misses)))]
    if kind == "drop":
        del sets[int(rng.integers(n))]
    elif kind == "reset":
        sets.append(_index(automaton, f"r{track}"))
    else:
        i = int(rng.integers(n - 1))
        sets[i], sets[i + 1] = sets[i + 1], sets[i]
    return sets


def sequences_words(automaton: Automaton, rng: np.random.Generator, size: int,
                    length: int) -> tuple[np.ndarray, np.ndarray]:
    """Each track's events interleaved at random positions among distractors; the
    final position is scored."""
    tracks, n = _tracks_n(automaton)
    _check("sequences", length, tracks * (n + 1))
    distractors = np.array([i for i, s in enumerate(automaton.symbols) if s.startswith("x")],
                           dtype=np.int64)
    words = distractors[rng.integers(0, len(distractors), size=(size, length))]
    for b in range(size):
        per_track = [_track_events(automaton, rng, t, n) for t in range(tracks)]
        owners = rng.permutation(np.repeat(np.arange(tracks),
                                           [len(e) for e in per_track]))
        # A random interleaving that keeps each track's own order.
        queues = [iter(e) for e in per_track]
        letters = [next(queues[t]) for t in owners]
        positions = np.sort(rng.choice(length, size=len(letters), replace=False))
        words[b, positions] = letters
    return words, _last_only(size, length)


def latch_words(automaton: Automaton, rng: np.random.Generator, size: int,
                length: int) -> tuple[np.ndarray, np.ndarray]:
    """Uniform words; every position after the empty prefix is scored."""
    _check("latch", length, 1)
    words = rng.integers(0, automaton.n_symbols, size=(size, length), dtype=np.int64)
    mask = np.ones((size, length + 1), dtype=bool)
    mask[:, 0] = False
    return words, mask


SAMPLERS: dict[str, Sampler] = {"induction": induction_words,
                                "sequences": sequences_words,
                                "latch": latch_words}


def sampler(automaton: Automaton) -> Sampler:
    """The sampler of the automaton's family (its spec's name before ``:``)."""
    family = automaton.name.split(":")[0]
    if family not in SAMPLERS:
        raise SpecError(f"no benchmark words for this task (families: {', '.join(SAMPLERS)})",
                        source="benchmark_words", field="task", value=automaton.name)
    return SAMPLERS[family]


def benchmark_words(automaton: Automaton, rng: np.random.Generator, size: int,
                    length: int) -> tuple[np.ndarray, np.ndarray]:
    """``size`` benchmark words of ``length`` for the automaton's family: (words (B, T)
    int64 symbol indices, answer_mask (B, T + 1) bool, index 0 = the empty prefix, as
    the label traces of :func:`fsmnet.train.data.label_traces`)."""
    return sampler(automaton)(automaton, rng, size, length)
