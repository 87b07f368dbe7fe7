"""Aperiodic automata up to 200 states, built here, for the MinMax cascade scale tests.

Every builder returns a *minimal* Moore machine.  Why each one is aperiodic
(no letter word acts as a non-trivial cycle; the transition monoid satisfies
x^n = x^(n+1)) is said beside it, and :func:`is_aperiodic` re-checks small
ones by brute force, independently of fsmnet's own monoid code: it
enumerates the transition monoid and tests t^N == t^(N+1) (N = number of
states) on every element.

Sources of the families:
- threshold counters and a^k detectors: the textbook star-free languages
  "at least k a's" and "ends with a^k";
- Tomita grammars 1, 2, 4, 7 (Tomita 1982; the aperiodic ones: 3, 5 and 6
  count parities), combined by the product construction;
- Sequences(n) with more tracks (MinMax paper, arXiv 2605.06384);
- random cascades of reset units (flip-flop-like levels of k values whose
  letters act, given the levels above, as the identity or a constant): a
  cascade product of aperiodic semigroups is aperiodic (Krohn-Rhodes);
- "contains the factor w" for long w (Knuth-Morris-Pratt automata; star-free
  since the language is Σ* w Σ*), and products of two of them.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence

import numpy as np

from fsmnet.automata import Automaton

Table = list[list[int]]  # table[symbol][state]


def machine(table: Sequence[Sequence[int]], outputs: Sequence[object], symbols: Sequence[str],
            name: str, initial: int = 0) -> Automaton:
    """The minimal automaton of a raw table (symbol-major)."""
    n = len(outputs)
    return Automaton(delta=np.array(table, dtype=np.int64), symbols=list(symbols),
                     states=[f"q{i}" for i in range(n)], initial=initial,
                     outputs=list(outputs), name=name).minimal()


# ------------------------------------------------------------ counters
def threshold(k: int) -> Automaton:
    """At least k a's (letters a, b): the counter min(x + 1, k) on a, identity on b."""
    n = k + 1
    inc = [min(x + 1, k) for x in range(n)]
    return machine([inc, list(range(n))], [x == k for x in range(n)], "ab", f"at_least_{k}")


def suffix_run(k: int) -> Automaton:
    """The word ends with a^k: run of a's capped at k, reset to 0 by b."""
    n = k + 1
    return machine([[min(x + 1, k) for x in range(n)], [0] * n], [x == k for x in range(n)],
                   "ab", f"ends_a^{k}")


# ------------------------------------------------------------- Tomita
# Minimal complete DFAs over {0, 1} (state 0 initial), written from the
# languages' definitions; the tests check them on every word up to length 8.
TOMITA: dict[int, tuple[Table, list[bool]]] = {
    1: ([[1, 1], [0, 1]], [True, False]),  # 1*
    2: ([[2, 0, 2], [1, 2, 2]], [True, False, False]),  # (10)*
    # no three consecutive 0s: state = trailing 0s (3 = dead)
    4: ([[1, 2, 3, 3], [0, 0, 0, 3]], [True, True, True, False]),
    # 0*1*0*1*: state = number of blocks started (4 = dead)
    7: ([[0, 2, 2, 4, 4], [1, 1, 3, 3, 4]], [True, True, True, True, False]),
}

TOMITA_LANGUAGE: dict[int, Callable[[str], bool]] = {
    1: lambda w: "0" not in w,
    2: lambda w: w == "10" * (len(w) // 2),
    4: lambda w: "000" not in w,
    7: lambda w: _blocks(w) <= 4,
}


def _blocks(w: str) -> int:
    """How many blocks of 0*1*0*1* a word needs (the first 0-block may be empty)."""
    runs = [k for k, _ in itertools.groupby(w)]
    return len(runs) + (1 if runs and runs[0] == "1" else 0)


def product(parts: Sequence[tuple[Table, Sequence[object]]], symbols: Sequence[str],
            name: str) -> Automaton:
    """The product machine; the output is the tuple of the parts' outputs (as a string)."""
    sizes = [len(out) for _, out in parts]
    states = list(itertools.product(*[range(s) for s in sizes]))
    index = {s: i for i, s in enumerate(states)}
    table = [[index[tuple(t[a][x] for (t, _), x in zip(parts, s))] for s in states]
             for a in range(len(symbols))]
    outputs = ["".join("1" if out[x] else "0" for (_, out), x in zip(parts, s)) for s in states]
    return machine(table, outputs, symbols, name)


def tomita_product(which: Sequence[int]) -> Automaton:
    """Tomita grammars run side by side; the output says which accept."""
    return product([TOMITA[i] for i in which], "01", "tomita" + "x".join(map(str, which)))


# ----------------------------------------------------------- cascades
def reset_cascade(sizes: Sequence[int], n_symbols: int, seed: int, *, p_reset: float = 0.5,
                  classes: int = 3) -> Automaton:
    """A random cascade of reset units: level i holds 0..sizes[i]-1; a letter,
    given the levels above (read before the update), leaves level i alone or
    sets it to a constant.  Aperiodic: a cascade product of aperiodic
    (identity-reset) semigroups.  Outputs are random labels of the full state."""
    rng = np.random.default_rng(seed)
    states = list(itertools.product(*[range(k) for k in sizes]))
    index = {s: i for i, s in enumerate(states)}
    rules = []  # rules[a][i][prefix] = None (identity) or a constant
    for _ in range(n_symbols):
        per_level = []
        for i, k in enumerate(sizes):
            prefixes = itertools.product(*[range(m) for m in sizes[:i]])
            per_level.append({p: (int(rng.integers(0, k)) if rng.random() < p_reset else None)
                              for p in prefixes})
        rules.append(per_level)
    table = []
    for a in range(n_symbols):
        row = []
        for s in states:
            new = tuple(s[i] if rules[a][i][s[:i]] is None else rules[a][i][s[:i]]
                        for i in range(len(sizes)))
            row.append(index[new])
        table.append(row)
    outputs = [int(c) for c in rng.integers(0, classes, len(states))]
    return machine(table, outputs, [f"l{a}" for a in range(n_symbols)],
                   f"reset_cascade{list(sizes)}s{seed}")


# ------------------------------------------------------------ factors
def fibonacci_word(length: int) -> str:
    """The prefix of the Fibonacci word abaababaabaab... (a factor-rich, non-periodic word)."""
    a, b = "a", "ab"
    while len(b) < length:
        a, b = b, b + a
    return b[:length]


def contains(word: str, alphabet: str = "ab") -> Automaton:
    """Σ* word Σ* (the KMP automaton: longest prefix of ``word`` that is a suffix)."""
    m = len(word)
    table = [[0] * (m + 1) for _ in alphabet]
    for state in range(m + 1):
        for a, ch in enumerate(alphabet):
            if state == m:
                table[a][state] = m
                continue
            text = word[:state] + ch
            k = min(len(text), m)
            while k and not text.endswith(word[:k]):
                k -= 1
            table[a][state] = k
    return machine(table, [s == m for s in range(m + 1)], alphabet, f"contains_{word[:12]}")


def contains_both(u: str, v: str) -> Automaton:
    """Contains u and contains v (a product of two KMP automata)."""
    parts = []
    for w in (u, v):
        c = contains(w)
        parts.append((c.delta.tolist(), [bool(x) for x in c.outputs or ()]))
    return product(parts, "ab", f"contains_{u[:6]}_and_{v[:6]}")


# ----------------------------------------------------------- checks
def is_aperiodic(a: Automaton, *, limit: int = 200_000) -> bool:
    """Brute force: every element t of the transition monoid has t^N == t^(N+1).

    Independent of fsmnet: a plain closure of the letters' maps, then powers
    by composition.  Raises ValueError beyond ``limit`` elements."""
    n = a.n_states
    gens = [tuple(int(v) for v in row) for row in a.delta]
    seen = {tuple(range(n))}
    frontier = list(seen)
    while frontier:
        nxt = []
        for t in frontier:
            for g in gens:
                u = tuple(g[x] for x in t)
                if u not in seen:
                    seen.add(u)
                    nxt.append(u)
        if len(seen) > limit:
            raise ValueError(f"monoid larger than {limit}")
        frontier = nxt
    for t in seen:
        p = t
        for _ in range(n - 1):
            p = tuple(t[x] for x in p)  # p = t^n
        if tuple(t[x] for x in p) != p:
            return False
    return True
