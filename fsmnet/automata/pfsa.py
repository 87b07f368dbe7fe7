"""Probabilistic finite-state automata with state reveals (PFSA-SR), exactly.

A PFSA-SR is a tuple (Q, Σ, δ, ρ, q0) (arXiv 2602.14814): δ(q, a) is a
probability distribution over Q, and the reveal map ρ sends each input
symbol a to a set of states ρ(a) ⊆ Q.  Reading a tells the observer that the
hidden state *at the moment a is read* lies in ρ(a) (a hard constraint that
prunes the support, not a soft likelihood); then the state moves by δ(·, a).
A symbol that reveals nothing has ρ(a) = Q.

Belief update (all in :class:`fractions.Fraction`), for a belief b over Q::

    b' = T_a · normalize₁(D_a · b)

with D_a = diag(1[q ∈ ρ(a)]) the reveal mask and T_a[q', q] = δ(q, a)(q') the
column-stochastic transition matrix: mask by the reveal, renormalize, then
transition.  Renormalizing after the transition instead gives the same belief,
because T_a preserves the ℓ1 mass of a non-negative vector (its columns sum to
1): normalize₁(T_a D_a b) = T_a normalize₁(D_a b).  That identity is what lets
the *linear* recurrence h_t = (T_a D_a) h_{t-1} carry the belief up to scale
(:mod:`fsmnet.constructions.pfsa_bilinear`, :mod:`fsmnet.proofs.pfsa_proof`);
its ℓ1 mass ‖h_w‖₁ is then the probability P(w) that a run is consistent with
every reveal of w.  A word with P(w) = 0 has no belief:
:class:`ZeroProbability` is raised.

>>> from fractions import Fraction as F
>>> coin = PFSA(states=("h", "t"), symbols=("flip", "saw-h"),
...             kernel=(((F(1, 2), F(1, 2)), (F(1, 2), F(1, 2))),   # flip: fair coin
...                     ((F(1), F(0)), (F(0), F(1)))),               # saw-h: stays
...             reveals=((0, 1), (0,)), initial=0, name="coin")
>>> coin.belief(["flip"])
(Fraction(1, 2), Fraction(1, 2))
>>> coin.belief(["flip", "saw-h"]), coin.probability(["flip", "saw-h"])
((Fraction(1, 1), Fraction(0, 1)), Fraction(1, 2))
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from fractions import Fraction
from typing import Any

from fsmnet.errors import FsmnetError, SpecError

Vector = tuple[Fraction, ...]
Matrix = tuple[tuple[Fraction, ...], ...]

__all__ = ["PFSA", "Matrix", "Vector", "ZeroProbability", "normalize1"]


class ZeroProbability(FsmnetError, ValueError):
    """A word whose reveals no run of the PFSA-SR can satisfy (P(w) = 0): no belief."""


def normalize1(vector: Sequence[Fraction]) -> Vector:
    """``vector / ‖vector‖₁`` for a non-negative vector; ZeroProbability for 0."""
    total = sum(vector, Fraction(0))
    if total == 0:
        raise ZeroProbability("the reveal is inconsistent with every state of the belief")
    return tuple(x / total for x in vector)


def _exact(value: Any, field: str, source: str) -> Fraction:
    # Floats are refused: 0.1 is not 1/10, and a proof about the wrong number is no proof.
    if isinstance(value, bool) or not isinstance(value, (int, Fraction)):
        raise SpecError("a probability must be an exact rational (int or Fraction; in a "
                        "spec file a string like \"1/3\")", source=source, field=field,
                        value=value)
    return Fraction(value)


class PFSA:
    """An immutable, validated PFSA-SR with exact rational probabilities.

    Parameters
    ----------
    states, symbols
        Distinct names, in index order.
    kernel
        ``kernel[a][q][q']`` = δ(q, a)(q'): for each symbol and source state a
        row of exact probabilities (int or Fraction) over the target states,
        non-negative and summing to 1.
    reveals
        ``reveals[a]``: the state indices ρ(a) (non-empty; all states when the
        symbol reveals nothing).
    initial
        Index of q0.
    name, description
        Free text.
    source
        Where the data came from, for error messages.

    Raises
    ------
    SpecError
        For a row that does not sum to 1, a negative or inexact entry, a reveal
        of an unknown state, an empty reveal, wrong shapes or duplicate names.
    """

    __slots__ = ("_states", "_symbols", "_kernel", "_reveals", "_initial", "_name",
                 "_description", "_index")

    _states: tuple[str, ...]
    _symbols: tuple[str, ...]
    _kernel: tuple[Matrix, ...]
    _reveals: tuple[tuple[int, ...], ...]
    _initial: int
    _name: str
    _description: str
    _index: dict[str, int]

    def __init__(self, *, states: Sequence[str], symbols: Sequence[str],
                 kernel: Sequence[Sequence[Sequence[Any]]], reveals: Sequence[Iterable[int]],
                 initial: int, name: str = "", description: str = "",
                 source: str = "<pfsa>") -> None:
        st, sy = tuple(states), tuple(symbols)
        for names, field in ((st, "states"), (sy, "input_symbols")):
            if not names:
                raise SpecError("must not be empty", source=source, field=field, value=[])
            if any(not isinstance(x, str) for x in names) or len(set(names)) != len(names):
                raise SpecError("names must be distinct strings", source=source, field=field,
                                value=list(names))
        n = len(st)
        if len(kernel) != len(sy):
            raise SpecError(f"one table per symbol is needed ({len(sy)})", source=source,
                            field="transitions", value=len(kernel))
        rows: list[Matrix] = []
        for a, table in enumerate(kernel):
            if len(table) != n:
                raise SpecError(f"one row per state is needed ({n})", source=source,
                                field=f"transitions.{sy[a]}", value=len(table))
            mat = []
            for q, row in enumerate(table):
                field = f"transitions.{st[q]}.{sy[a]}"
                if len(row) != n:
                    raise SpecError(f"a distribution over the {n} states is needed",
                                    source=source, field=field, value=len(row))
                probs = tuple(_exact(x, field, source) for x in row)
                for target, x in enumerate(probs):
                    if x < 0:
                        raise SpecError("negative probability", source=source,
                                        field=f"{field}.{st[target]}", value=str(x))
                if sum(probs) != 1:
                    raise SpecError("the probabilities of a row must sum to 1",
                                    source=source, field=field, value=str(sum(probs)))
                mat.append(probs)
            rows.append(tuple(mat))
        masks: list[tuple[int, ...]] = []
        if len(reveals) != len(sy):
            raise SpecError(f"one reveal set per symbol is needed ({len(sy)})",
                            source=source, field="reveals", value=len(reveals))
        for a, revealed in enumerate(reveals):
            shown = tuple(sorted(set(revealed)))
            field = f"reveals.{sy[a]}"
            bad = [q for q in shown if isinstance(q, bool) or not isinstance(q, int)
                   or not 0 <= q < n]
            if bad:
                raise SpecError("reveal of an unknown state", source=source, field=field,
                                value=bad[0])
            if not shown:
                raise SpecError("a reveal must allow at least one state", source=source,
                                field=field, value=[])
            masks.append(shown)
        if isinstance(initial, bool) or not isinstance(initial, int) or not 0 <= initial < n:
            raise SpecError("not a state index", source=source, field="initial_state",
                            value=initial)
        for slot, value in (("_states", st), ("_symbols", sy), ("_kernel", tuple(rows)),
                            ("_reveals", tuple(masks)), ("_initial", initial),
                            ("_name", name), ("_description", description),
                            ("_index", {s: i for i, s in enumerate(sy)})):
            object.__setattr__(self, slot, value)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("PFSA is immutable")

    # ----------------------------------------------------------------- fields
    @property
    def states(self) -> tuple[str, ...]:
        return self._states

    @property
    def symbols(self) -> tuple[str, ...]:
        return self._symbols

    @property
    def kernel(self) -> tuple[Matrix, ...]:
        """``kernel[a][q][q']`` = δ(q, a)(q')."""
        return self._kernel

    @property
    def reveals(self) -> tuple[tuple[int, ...], ...]:
        """``reveals[a]`` = the sorted state indices of ρ(a)."""
        return self._reveals

    @property
    def initial(self) -> int:
        return self._initial

    @property
    def name(self) -> str:
        return self._name

    @property
    def description(self) -> str:
        return self._description

    @property
    def n_states(self) -> int:
        return len(self._states)

    @property
    def n_symbols(self) -> int:
        return len(self._symbols)

    @property
    def is_deterministic(self) -> bool:
        """Every δ(q, a) is a point mass (a DFA with reveals)."""
        return all(max(row) == 1 for table in self._kernel for row in table)

    def reveals_nothing(self, a: int) -> bool:
        return len(self._reveals[a]) == self.n_states

    # --------------------------------------------------------------- algebra
    def encode(self, word: Iterable[str | int]) -> list[int]:
        """Symbol indices of a word given by names (or already by indices)."""
        out = []
        for s in word:
            if isinstance(s, int) and not isinstance(s, bool) and 0 <= s < self.n_symbols:
                out.append(s)
            elif isinstance(s, str) and s in self._index:
                out.append(self._index[s])
            else:
                raise SpecError("symbol not in the alphabet", source=self._src(),
                                field="word", value=s)
        return out

    def transition_matrix(self, a: int) -> Matrix:
        """T_a, column-stochastic: ``T[q'][q]`` = δ(q, a)(q')."""
        k, n = self._kernel[a], self.n_states
        return tuple(tuple(k[q][t] for q in range(n)) for t in range(n))

    def mask(self, a: int) -> tuple[bool, ...]:
        """The diagonal of D_a: which states ρ(a) allows."""
        shown = set(self._reveals[a])
        return tuple(q in shown for q in range(self.n_states))

    def step_matrix(self, a: int) -> Matrix:
        """M_a = T_a D_a: the linear map of the unnormalized belief on symbol a."""
        keep = self.mask(a)
        return tuple(tuple(x if keep[q] else Fraction(0) for q, x in enumerate(row))
                     for row in self.transition_matrix(a))

    def initial_belief(self) -> Vector:
        return tuple(Fraction(int(q == self._initial)) for q in range(self.n_states))

    def unnormalized_step(self, b: Sequence[Fraction], a: int) -> Vector:
        """M_a b (no renormalization)."""
        k, keep, n = self._kernel[a], self.mask(a), self.n_states
        out = [Fraction(0)] * n
        for q, mass in enumerate(b):
            if mass and keep[q]:
                for t, p in enumerate(k[q]):
                    if p:
                        out[t] += p * mass
        return tuple(out)

    def update(self, b: Sequence[Fraction], a: int) -> Vector:
        """The exact belief update: mask by ρ(a), renormalize, then transition by δ."""
        keep = self.mask(a)
        masked = normalize1([x if keep[q] else Fraction(0) for q, x in enumerate(b)])
        k, n = self._kernel[a], self.n_states
        out = [Fraction(0)] * n
        for q, mass in enumerate(masked):
            if mass:
                for t, p in enumerate(k[q]):
                    if p:
                        out[t] += p * mass
        return tuple(out)

    def belief(self, word: Iterable[str | int]) -> Vector:
        """The exact belief after ``word``; ZeroProbability when P(word) = 0."""
        b = self.initial_belief()
        for a in self.encode(word):
            try:
                b = self.update(b, a)
            except ZeroProbability:
                raise ZeroProbability(f"{self._src()}: the word has probability 0 "
                                      f"(the reveal of {self._symbols[a]!r} excludes every "
                                      "state of the belief)") from None
        return b

    def unnormalized(self, word: Iterable[str | int]) -> Vector:
        """M_w e_{q0}: the linear recurrence's state after ``word``."""
        b = self.initial_belief()
        for a in self.encode(word):
            b = self.unnormalized_step(b, a)
        return b

    def probability(self, word: Iterable[str | int]) -> Fraction:
        """P(w): the probability that a run is consistent with every reveal of w."""
        return sum(self.unnormalized(word), Fraction(0))

    def sample_word(self, length: int, *, seed: int = 0) -> list[int]:
        """A random word of positive probability: a hidden run, and at each step a
        symbol drawn uniformly among those whose reveal the hidden state satisfies."""
        rng = random.Random(seed)
        q = self._initial
        allowed = [[a for a in range(self.n_symbols) if q2 in self._reveals[a]]
                   for q2 in range(self.n_states)]
        word = []
        for _ in range(length):
            a = rng.choice(allowed[q])
            word.append(a)
            q = rng.choices(range(self.n_states), weights=self._kernel[a][q])[0]
        return word

    # ------------------------------------------------------------ identity
    def to_dict(self) -> dict[str, Any]:
        """The spec-file form (:mod:`fsmnet.automata.pfsa_spec`)."""
        st = self._states
        transitions = {}
        for q, name in enumerate(st):
            row: dict[str, Any] = {}
            for a, sym in enumerate(self._symbols):
                dist = {st[t]: str(p) for t, p in enumerate(self._kernel[a][q]) if p}
                row[sym] = next(iter(dist)) if len(dist) == 1 else dist
            transitions[name] = row
        reveals = {sym: [st[q] for q in self._reveals[a]]
                   for a, sym in enumerate(self._symbols) if not self.reveals_nothing(a)}
        return {"kind": "pfsa-sr", "name": self._name, "description": self._description,
                "states": list(st), "input_symbols": list(self._symbols),
                "transitions": transitions, "reveals": reveals,
                "initial_state": st[self._initial]}

    def _key(self) -> tuple[Any, ...]:
        return (self._states, self._symbols, self._kernel, self._reveals, self._initial)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, PFSA) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        kind = "deterministic" if self.is_deterministic else "probabilistic"
        return (f"<PFSA {self._name!r}: {self.n_states} states, {self.n_symbols} symbols, "
                f"{kind}>")

    def _src(self) -> str:
        return f"<pfsa {self._name}>" if self._name else "<pfsa>"
