"""Commutative languages: the decision, a witness, and the count-type table.

A language is commutative (invariant under reordering the input) exactly when
the letters of its **minimal** automaton act as commuting transformations: if
the language is commutative, the states reached by ``u·ab`` and ``u·ba`` agree
on every suffix, hence are equal in the minimal automaton; conversely
commuting letters make the state a function of the letter counts alone.  A
non-minimal machine may have non-commuting letters and a commutative output,
so everything here minimizes first (docs/theory.md).

For a commutative language the output is a function of the count vector
(n_a)_a, and letter a's count matters only up to its class:
``n_a`` itself when ``n_a < t_a``, else ``n_a mod p_a``.  Here t_a and p_a are
the index and period of the transformation δ_a (the least t, p with
δ_a^(t+p) = δ_a^t).  They are the smallest that work for the language: on the
minimal automaton δ_a^t = δ_a^(t+p) holds iff every state q reached by some u
satisfies δ_a^t(q) ≡ δ_a^(t+p)(q), i.e. iff the output never tells n_a apart
from n_a + p once n_a ≥ t.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from fsmnet.automata import Automaton, access_words, distinguishing_word
from fsmnet.automata.automaton import Label
from fsmnet.errors import FsmnetError, SpecError


@dataclass(frozen=True)
class CommutationWitness:
    """Two words with equal letter counts and different outputs.

    ``prefix + [a, b] + suffix`` and ``prefix + [b, a] + suffix`` (symbol
    names) lead to the outputs ``output_ab`` and ``output_ba``.
    """

    prefix: tuple[str, ...]
    a: str
    b: str
    suffix: tuple[str, ...]
    output_ab: Label
    output_ba: Label

    @property
    def word_ab(self) -> tuple[str, ...]:
        return (*self.prefix, self.a, self.b, *self.suffix)

    @property
    def word_ba(self) -> tuple[str, ...]:
        return (*self.prefix, self.b, self.a, *self.suffix)


@dataclass(frozen=True)
class LetterCount:
    """How much the count of one letter matters: threshold t and period p.

    Count classes are numbered by their smallest member: class ``k < t`` is
    "exactly k", class ``t + r`` (``0 <= r < p``) is "at least t and
    ≡ t + r (mod p)".
    """

    symbol: str
    threshold: int
    period: int

    @property
    def n_classes(self) -> int:
        return self.threshold + self.period

    def classify(self, count: int) -> int:
        """The class (= its smallest member) of a count."""
        if count < self.threshold:
            return int(count)
        return self.threshold + (int(count) - self.threshold) % self.period


@dataclass(frozen=True)
class CountTable:
    """The output of a commutative language as a function of count classes.

    ``table[k_1, ..., k_L]`` is the label index (into ``labels``) of every word
    whose letter counts fall in classes ``k_1 .. k_L`` (letters in alphabet
    order).  The array is read-only.
    """

    letters: tuple[LetterCount, ...]
    labels: tuple[Label, ...]
    table: np.ndarray

    def label_index(self, counts: Sequence[int]) -> int:
        """Label index for a vector of letter counts (any sizes)."""
        key = tuple(c.classify(n) for c, n in zip(self.letters, counts, strict=True))
        return int(self.table[key])

    def types(self) -> list[tuple[int, ...]]:
        """Every count type (vector of classes), in lexicographic order."""
        return list(itertools.product(*(range(c.n_classes) for c in self.letters)))


def _require_machine(automaton: Automaton) -> Automaton:
    if automaton.is_semiautomaton:
        raise SpecError("commutativity of a language needs an initial state and outputs",
                        source=automaton.name or "<automaton>", field="initial_state",
                        value=None)
    return automaton.minimal()


def _access_words(m: Automaton) -> list[list[int]]:
    """A shortest word reaching each state (every state of a minimal machine is reachable)."""
    return [w if w is not None else [] for w in access_words(m)]


def commutation_witness(automaton: Automaton) -> CommutationWitness | None:
    """Two reorderings with different outputs, or ``None`` for a commutative language.

    Computed on the minimal automaton: a state q (reached by a shortest word
    u) and letters a, b with δ(q, ab) ≠ δ(q, ba); the two states are
    distinguishable (minimality), and a shortest distinguishing suffix v
    completes the witness u·ab·v versus u·ba·v.
    """
    m = _require_machine(automaton)
    d = m.delta
    access = _access_words(m)
    # Shortest prefix first, so the witness is short.
    for q in sorted(range(m.n_states), key=lambda s: len(access[s])):
        for a, b in itertools.combinations(range(m.n_symbols), 2):
            qab, qba = int(d[b, d[a, q]]), int(d[a, d[b, q]])
            if qab == qba:
                continue
            found = distinguishing_word(m.replace(initial=qab), m.replace(initial=qba))
            assert found is not None, "distinct states of a minimal automaton"
            suffix, out_ab, out_ba = found
            return CommutationWitness(prefix=tuple(m.decode(access[q])),
                                      a=m.symbols[a], b=m.symbols[b], suffix=tuple(suffix),
                                      output_ab=out_ab, output_ba=out_ba)
    return None


def letters_commute(automaton: Automaton) -> bool:
    """True when every two letters' transition maps commute (δ_a δ_b = δ_b δ_a on every
    state): then a state depends on the letter counts only."""
    maps = [tuple(int(x) for x in automaton.delta[a]) for a in range(automaton.n_symbols)]
    return all(tuple(maps[a][q] for q in maps[b]) == tuple(maps[b][q] for q in maps[a])
               for a, b in itertools.combinations(range(len(maps)), 2))


def is_commutative(automaton: Automaton) -> bool:
    """True when the language (the output function) is invariant under reordering."""
    return commutation_witness(automaton) is None


def index_and_period(transformation: Sequence[int] | np.ndarray) -> tuple[int, int]:
    """Index t and period p of a transformation f: the least t, p with f^(t+p) = f^t."""
    f = np.asarray(transformation, dtype=np.int64)
    power = np.arange(len(f), dtype=np.int64)
    seen: dict[bytes, int] = {}
    k = 0
    while power.tobytes() not in seen:
        seen[power.tobytes()] = k
        power = f[power]
        k += 1
    t = seen[power.tobytes()]
    return t, k - t


class CountTableTooLarge(FsmnetError):
    """The language has more count types than ``COUNT_TYPE_LIMIT``."""


COUNT_TYPE_LIMIT = 1 << 20
"""The most count types :func:`count_table` enumerates.  The table has one entry per
type, Π_a (t_a + p_a), filled by a Python loop and then contracted letter by letter by
the commutative construction: modular addition m = 10 has 1·10·5·10·5·2·5·10·5·10 =
12,500,000 types, hours of work where the limit's million take seconds."""


def _letters(m: Automaton) -> tuple[LetterCount, ...]:
    return tuple(LetterCount(symbol=s, threshold=tp[0], period=tp[1])
                 for s, tp in zip(m.symbols, (index_and_period(row) for row in m.delta),
                                  strict=True))


def letter_counts(automaton: Automaton) -> tuple[LetterCount, ...]:
    """Every letter's threshold and period on the minimal automaton, without the
    table (which has Π_a (t_a + p_a) entries).

    Raises
    ------
    SpecError
        For a semiautomaton.
    """
    return _letters(_require_machine(automaton))


def count_types(letters: Sequence[LetterCount]) -> int:
    """How many count types the letters make: Π_a (t_a + p_a)."""
    return math.prod(c.n_classes for c in letters)


def count_table(automaton: Automaton) -> CountTable:
    """Thresholds, periods and the output of every count type of a commutative language.

    Raises
    ------
    SpecError
        For a semiautomaton, or a non-commutative language (the message gives
        the witness).
    CountTableTooLarge
        For more than :data:`COUNT_TYPE_LIMIT` count types.
    """
    m = _require_machine(automaton)
    witness = commutation_witness(m)
    if witness is not None:
        raise SpecError(
            f"the language is not commutative: {format_word(witness.word_ab)!r} and "
            f"{format_word(witness.word_ba)!r} lead to different outputs",
            source=automaton.name or "<automaton>", field="transitions",
            value=(witness.output_ab, witness.output_ba))
    letters = _letters(m)
    shape = tuple(c.n_classes for c in letters)
    types = count_types(letters)
    if types > COUNT_TYPE_LIMIT:
        raise CountTableTooLarge(
            f"{automaton.name or '<automaton>'}: {types} count types (the product of "
            f"every letter's threshold + period, {' x '.join(map(str, shape))}) exceed "
            f"the limit of {COUNT_TYPE_LIMIT}")
    table = np.empty(shape, dtype=np.int64)
    assert m.initial is not None
    for key in itertools.product(*(range(n) for n in shape)):
        q = m.initial
        # The class index is its smallest member: that many letters reach it.
        for a, count in enumerate(key):
            for _ in range(count):
                q = int(m.delta[a, q])
        table[key] = m.output_ids[q]
    table.setflags(write=False)
    return CountTable(letters=letters, labels=m.labels, table=table)


def format_word(word: Sequence[str]) -> str:
    """A word for messages: concatenated one-character symbols, else space-separated."""
    if all(len(s) == 1 for s in word):
        return "".join(word)
    return " ".join(word)


__all__ = [
    "CommutationWitness",
    "COUNT_TYPE_LIMIT",
    "CountTable",
    "CountTableTooLarge",
    "LetterCount",
    "commutation_witness",
    "count_table",
    "count_types",
    "format_word",
    "index_and_period",
    "is_commutative",
    "letter_counts",
]
