"""Memory-style families: flip-flop, latch, Sequences(n), InductionHeads(M),
and the star-free "contains a factor" task.

All of them are aperiodic (star-free, group-free): every letter acts as an
identity or a reset on each component.  They are the group-free benchmarks
of the MinMax recurrent cascades paper (arXiv 2605.06384, seed 004).  The
paper summary names the tasks without defining them; the definitions below
follow the task descriptions of the authors' public benchmark generators
(read for understanding, nothing copied) and are made total: every word over
the alphabet has a defined output, not only the words the generators draw.
"""

from __future__ import annotations

import itertools

import numpy as np

from fsmnet.automata.automaton import Automaton
from fsmnet.automata.families_common import bad, check_size

MAX_FACTOR = 64
"""Longest factor ``contains`` accepts (the table is built naively, O(k³|Σ|))."""

NO_TOKEN = "-"
"""Output of latch and induction states that hold no token yet."""


def flipflop(*, spec: str) -> Automaton:
    """Set/reset flip-flop (the "latch"/flip-flop task of arXiv 2605.06384).

    Symbols ``"set"``, ``"reset"`` and ``"read"``; the state is one stored bit,
    initially 0.  ``set`` stores 1, ``reset`` stores 0, ``read`` leaves it
    unchanged.  The output is the stored bit (int 0 or 1).  Minimal: the
    canonical identity-reset semiautomaton with two states.
    """
    delta = np.array([[1, 1], [0, 0], [0, 1]], dtype=np.int64)
    return Automaton(delta=delta, symbols=("set", "reset", "read"), states=("0", "1"),
                     initial=0, outputs=(0, 1), name=spec,
                     description="set/reset flip-flop: output the stored bit")


def latch(*, n: int, spec: str) -> Automaton:
    """Latching (MinMax cascades, arXiv 2605.06384, Latching benchmark).

    Symbols ``"0".."n-1"``.  The machine remembers the **first** symbol of
    the word and outputs it (a string) at every later step; before any
    symbol it outputs ``"-"``.  In the paper's benchmark the first token comes
    from a subset of the vocabulary and later tokens from all of it; on those
    words ``latch:V`` with V the vocabulary size gives the same outputs.
    States ``"-"`` (initial) and ``"0".."n-1"``; minimal.
    """
    check_size(n, n + 1, spec=spec)
    delta = np.empty((n, n + 1), dtype=np.int64)
    delta[:, 0] = np.arange(1, n + 1)  # first symbol: latch it
    delta[:, 1:] = np.arange(1, n + 1)[None, :]  # afterwards: keep it
    names = [str(a) for a in range(n)]
    return Automaton(delta=delta, symbols=names, states=[NO_TOKEN, *names], initial=0,
                     outputs=[NO_TOKEN, *names], name=spec,
                     description=f"remember the first of {n} symbols and output it")


def sequences(*, n: int, tracks: int, others: int, spec: str) -> Automaton:
    """Sequences(n) (MinMax cascades, arXiv 2605.06384).

    There are ``tracks`` independent ordered sequences, each of length ``n``.
    Letters (``t`` a track, ``i`` a position):

    - ``"s{t}.{i}"`` (set): if track t has progress exactly i, its progress
      becomes i+1; otherwise nothing happens (out-of-order sets are ignored);
    - ``"r{t}"`` (reset): the progress of track t returns to 0;
    - ``"x{j}"`` (``others`` distractors): no effect.

    A track is **completed** when its progress is n (all n sets seen in
    order since its last reset); it stays completed until reset.  The output
    is the set of completed tracks, written ``"{}"``, ``"{0}"``, ``"{0,1}"``...
    The benchmark's defaults are 2 tracks and n ∈ {2, 3, 4, 8, 16}; the
    generator's repeated copies of each letter and its 10 distractors do not
    change the language beyond these letters, so they are left out (1
    distractor by default).  States are progress tuples ``"p0|p1|..."``,
    (n+1)^tracks of them, all reachable and pairwise distinguishable.
    """
    size = (n + 1) ** tracks
    n_symbols = tracks * (n + 1) + others
    check_size(n_symbols, size, spec=spec)
    progress = np.array(list(itertools.product(range(n + 1), repeat=tracks)),
                        dtype=np.int64).reshape(size, tracks)
    radix = (n + 1) ** np.arange(tracks - 1, -1, -1, dtype=np.int64)
    symbols: list[str] = []
    rows: list[np.ndarray] = []
    for t in range(tracks):
        for i in range(n):
            nxt = progress.copy()
            nxt[nxt[:, t] == i, t] = i + 1
            symbols.append(f"s{t}.{i}")
            rows.append(nxt @ radix)
        nxt = progress.copy()
        nxt[:, t] = 0
        symbols.append(f"r{t}")
        rows.append(nxt @ radix)
    for j in range(others):
        symbols.append(f"x{j}")
        rows.append(np.arange(size, dtype=np.int64))
    outputs = ["{" + ",".join(str(t) for t in range(tracks) if p[t] == n) + "}"
               for p in progress.tolist()]
    return Automaton(delta=np.array(rows, dtype=np.int64), symbols=symbols,
                     states=["|".join(map(str, p)) for p in progress.tolist()], initial=0,
                     outputs=outputs, name=spec,
                     description=f"Sequences({n}): {tracks} tracks of {n} ordered sets; "
                                 "output the completed tracks")


def induction(*, m: int, spec: str) -> Automaton:
    """InductionHeads(M) (MinMax cascades, arXiv 2605.06384; task of the Mamba paper).

    Symbols: ``m`` tokens ``"0".."m-1"`` and the marker ``"@"``.  The token
    right after a ``"@"`` is stored (a later one overwrites it).  The output
    is the stored token (a string) in the step that reads a ``"@"`` (the
    query), and ``"-"`` everywhere else, also when nothing is stored yet.  On
    the benchmark's words (random tokens, one ``"@"`` followed by the key,
    a final ``"@"``) the last output is the key, as required.  Consecutive
    ``"@"`` are successive queries and store nothing.

    State = (stored token or none, whether the last letter was ``"@"``):
    2(m+1) states named ``"k"`` / ``"k@"`` (``"-"`` / ``"-@"`` when empty),
    all reachable and pairwise distinguishable.
    """
    check_size(m + 1, 2 * (m + 1), spec=spec)
    stored = [NO_TOKEN] + [str(a) for a in range(m)]  # register value r = 0..m
    # state 2r: register r, last letter not "@";  state 2r+1: last letter "@".
    n = 2 * (m + 1)
    delta = np.empty((m + 1, n), dtype=np.int64)
    for r in range(m + 1):
        for a in range(m):
            delta[a, 2 * r] = 2 * r  # ordinary token: nothing changes
            delta[a, 2 * r + 1] = 2 * (a + 1)  # token after "@": store it
        delta[m, 2 * r] = delta[m, 2 * r + 1] = 2 * r + 1  # "@": a query
    states = [s + suffix for s in stored for suffix in ("", "@")]
    outputs = [out for s in stored for out in (NO_TOKEN, s)]
    return Automaton(delta=delta, symbols=[str(a) for a in range(m)] + ["@"],
                     states=states, initial=0, outputs=outputs, name=spec,
                     description=f"InductionHeads({m}): at each '@' output the token "
                                 "that followed the previous '@'")


def contains(*, word: str, alphabet: str | None, spec: str) -> Automaton:
    """Words that contain a given factor: a star-free (aperiodic) task.

    Acceptor over the characters of ``alphabet`` (default: the distinct
    characters of ``word``, sorted) accepting exactly the words that contain
    ``word`` as a contiguous factor.  ``starfree`` is ``contains:ab`` over
    {a, b}.  The state is the length of the longest suffix of the input that
    is a prefix of ``word`` (the Knuth-Morris-Pratt automaton; ``len(word)``
    is absorbing; states are named by that length).  Minimal: from state i
    the shortest accepted continuation has length ``len(word) - i``.  Star-free: ``Σ* word Σ*``.
    """
    if not word:
        raise bad(spec, "word", word, "the factor must not be empty")
    if len(word) > MAX_FACTOR:
        raise bad(spec, "word", word, f"the factor is longer than {MAX_FACTOR} characters")
    letters = sorted(set(alphabet if alphabet is not None else word))
    missing = sorted(set(word) - set(letters))
    if missing:
        raise bad(spec, "alphabet", alphabet, f"the alphabet lacks {''.join(missing)!r}")
    k = len(word)
    check_size(len(letters), k + 1, spec=spec)
    delta = np.empty((len(letters), k + 1), dtype=np.int64)
    for i in range(k + 1):
        for a, c in enumerate(letters):
            if i == k:
                delta[a, i] = k
                continue
            text = word[:i] + c
            j = min(len(text), k)
            while j > 0 and not text.endswith(word[:j]):
                j -= 1
            delta[a, i] = j
    return Automaton(delta=delta, symbols=letters,
                     states=[str(i) for i in range(k + 1)], initial=0,
                     outputs=[i == k for i in range(k + 1)], name=spec,
                     description=f"accept words over {{{','.join(letters)}}} "
                                 f"that contain the factor '{word}'")
