"""Typed readers shared by the methods: labels, index tables, pair and successor tables.

Why: each method first parses its certificate into frozen dataclasses (every
structural refusal raised there) and only then checks the mathematics.  The
parts of that parsing that several methods share live here, once (the
automaton in :func:`.core.read_automaton`), so a pair table or a row of
successors is refused with the same words whichever method reads it.

:data:`.schema.SCHEMA` has already fixed every key and the kind of every value
(an ``int`` field holds an integer, never a boolean) before anything here runs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from types import MappingProxyType
from typing import Any

from .core import Automaton, CertificateError, _mat, _same_label, _vec, is_index

Vector = tuple[Fraction, ...]
Matrix = tuple[Vector, ...]


def vector(x: Any) -> Vector:
    """A list of rational strings as an immutable vector."""
    return tuple(_vec(x))


def matrix(x: Any) -> Matrix:
    """A list of lists of rational strings as an immutable matrix."""
    return tuple(tuple(row) for row in _mat(x))


def label_indices(labels: Sequence[Any], output: Any) -> list[int]:
    """The network labels equal to an automaton output (same type, same value)."""
    return [c for c, lab in enumerate(labels) if _same_label(lab, output)]


def single_label(labels: Sequence[Any], outputs: Sequence[Any], q: int) -> int:
    """The one network label of state q's output; refused unless there is exactly one."""
    right = label_indices(labels, outputs[q])
    if len(right) != 1:
        raise CertificateError(f"state {q}: the network has no single label {outputs[q]!r}")
    return right[0]


@dataclass(frozen=True)
class PairTable:
    """A closed product as listed: pairs (network state, automaton state) and, per pair
    and symbol, the index of its target pair.  Indices are checked in range; whether
    each target is the right one is the method's mathematics."""

    pairs: tuple[tuple[int, int], ...]
    transitions: tuple[tuple[int, ...], ...]


@dataclass(frozen=True)
class PairWords:
    """A method's messages for a bad pair table (format fields: ``p`` a pair as listed,
    ``i`` its index, ``a`` a symbol, ``t`` a target, and the caller's ``context``)."""

    no_pairs: str  # no pair at all
    bad_pair: str  # a pair that is not [state, automaton state] in range
    rows: str  # not one row of transitions per pair
    row: str  # pair i: not one target per symbol
    target: str  # pair i, symbol a: a target that is not a pair


PRODUCT_WORDS = PairWords(
    "every pair needs its row of transitions", "bad pair {p!r}",
    "every pair needs its row of transitions", "pair {i}: needs one transition per symbol",
    "pair {i}, symbol {a}: bad target {t!r}")


def read_pair_table(pairs: Any, transitions: Any, n_states: int, n_auto: int,
                    n_symbols: int, words: PairWords,
                    context: Mapping[str, object] = MappingProxyType({})) -> PairTable:
    """Pairs and transitions of a listed product, every index in range, refused in
    ``words`` (formatted with ``context`` too)."""
    if not pairs:
        raise CertificateError(words.no_pairs.format(**context))
    for p in pairs:
        if not (isinstance(p, list) and len(p) == 2 and is_index(p[0], n_states)
                and is_index(p[1], n_auto)):
            raise CertificateError(words.bad_pair.format(p=p, **context))
    if not isinstance(transitions, list) or len(transitions) != len(pairs):
        raise CertificateError(words.rows.format(**context))
    for i, row in enumerate(transitions):
        if not isinstance(row, list) or len(row) != n_symbols:
            raise CertificateError(words.row.format(i=i, **context))
        for a, t in enumerate(row):
            if not is_index(t, len(pairs)):
                raise CertificateError(words.target.format(i=i, a=a, t=t, **context))
    return PairTable(tuple((h, q) for h, q in pairs), tuple(tuple(row) for row in transitions))


@dataclass(frozen=True)
class RefinementWords:
    """A method's messages for a bad successor table (format fields ``i``, ``a``)."""

    initial: str  # the initial set is not one of the automaton's initial state
    rows: str  # not one row of successors per set
    row: str  # set i: not one successor (in range) per symbol
    state: str  # set i, symbol a: the successor is a set of another automaton state


BOX_WORDS = RefinementWords(
    "initial_box is not a box of the initial state",
    "one row of successors per box is required",
    "box {i}: needs one successor box per symbol",
    "box {i}, symbol {a}: the successor box belongs to another automaton state")


@dataclass(frozen=True)
class Refinement:
    """Sets (boxes, zonotopes) each of an automaton state, the initial one, and the
    successor set of every set on every symbol, of the automaton's successor state."""

    states: tuple[int, ...]  # the automaton state of each set
    initial: int
    successors: tuple[tuple[int, ...], ...]


def read_refinement(states: Sequence[int], initial: Any, successors: Any,
                    automaton: Automaton, words: RefinementWords) -> Refinement:
    """The successor table of a refinement of the automaton (several sets may share a
    state), refused in ``words``."""
    n = len(states)
    if not is_index(initial, n) or states[initial] != automaton.initial:
        raise CertificateError(words.initial)
    if len(successors) != n:
        raise CertificateError(words.rows)
    for i, row in enumerate(successors):
        if len(row) != automaton.n_symbols or not all(is_index(j, n) for j in row):
            raise CertificateError(words.row.format(i=i))
        for a, j in enumerate(row):
            if states[j] != automaton.delta[a][states[i]]:
                raise CertificateError(words.state.format(i=i, a=a))
    return Refinement(tuple(states), initial, tuple(tuple(row) for row in successors))
