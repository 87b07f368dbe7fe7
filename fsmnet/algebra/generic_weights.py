"""Theorem G: what a linear network with generic real weights can track (docs/theory.md, §5).

For a homogeneous linear network (h ← A(x)·h, label = first argmax of R·h)
with weights outside a Lebesgue-null set, every word u has a simple dominant
eigenvalue of A(u) (real, or a complex pair at an angle that is not a
rational multiple of π), every reachable state has a non-zero component on
it, and the readout separates its direction.  So along p·u^n, for n large,
the label is L₊ or L₋ by the sign of that component (times the sign of the
eigenvalue to the n):

* a positive dominant eigenvalue: every state's labels settle to one
  constant, and at most two constants occur over all states;
* a negative one: every state's labels alternate between the same two labels;
* a complex pair at an irrational angle: the labels are not eventually
  periodic unless constant on the plane, so one constant for all states.

An automaton whose element u has reachable states with eventual output
sequences outside these patterns (a cycle of outputs of length ≥ 3, three
distinct eventual behaviours, or a mix of constant and alternating ones) is
tracked for every length by *no* generic-weight linear network: only exact
(measure-zero) weights, such as an exact rotation by 2π/3, can do it.  Nor is
one where a word x merges two states of different behaviours (δ(p·uⁿ·x) =
δ(p'·uⁿ·x) for large n): their network states are near c·v and c'·v with
c·c' < 0, so A(x) sends them to near ±A(x)v, whose labels along u^m differ for
generic weights (ℓ_u·A(x)·v_u ≠ 0) while the automaton's cannot.  A flip-flop
is such a case: after a long hold its two states are near ±v, and "set" sends
both to one state.

The check runs over the elements of the transition monoid of the minimal
automaton (the eventual behaviour along u^n depends only on u's
transformation), found breadth first with their shortest words, so its cost
is O(|monoid| · Q) transformation steps plus one cycle search per state and
element.  A monoid larger than ``limit`` is searched only up to the limit:
an obstruction found is still an obstruction, and ``complete`` says whether
its absence was decided.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

import numpy as np

from fsmnet.automata import Automaton, access_words
from fsmnet.automata.automaton import Label

__all__ = ["EventualOutputs", "GenericWeightsObstruction", "GenericWeightsReport",
           "generic_weights_obstruction"]

DEFAULT_LIMIT = 20_000  # monoid elements searched before the answer is "incomplete"
MERGE_STATES = 400  # the merge condition needs all Q² state pairs; above, it is skipped


@dataclass(frozen=True)
class EventualOutputs:
    """Outputs along q·u^n for large n: ``cycle`` repeats from ``n = start`` on,
    ``cycle[i]`` the output at n = start + i (mod its length)."""

    access_word: tuple[str, ...]
    start: int
    cycle: tuple[Label, ...]

    @property
    def period(self) -> int:
        """The least period of the output cycle (≥ 1)."""
        n = len(self.cycle)
        return next(d for d in range(1, n + 1)
                    if n % d == 0 and self.cycle == self.cycle[d:] + self.cycle[:d])

    def at(self, n: int) -> Label:
        """The output at ``n`` (for n ≥ start)."""
        return self.cycle[(n - self.start) % len(self.cycle)]


@dataclass(frozen=True)
class GenericWeightsObstruction:
    """A word u whose powers no generic-weight linear network follows.

    ``reason`` names the pattern: ``"output cycle of length d ≥ 3"``, ``"more than
    two eventual behaviours"``, ``"constant and alternating behaviours mixed"`` or
    ``"two eventual behaviours merged by the word x"``; ``behaviours`` lists one
    reachable state per distinct eventual behaviour."""

    word: tuple[str, ...]
    reason: str
    behaviours: tuple[EventualOutputs, ...]

    def describe(self) -> str:
        u = "".join(self.word) if all(len(s) == 1 for s in self.word) else " ".join(self.word)
        shown = "; ".join(
            f"after {'·'.join(b.access_word) or 'ε'}: "
            f"{' '.join(str(x) for x in b.cycle[:b.period])} repeating"
            for b in self.behaviours[:3])
        return (f"along ({u})^n: {self.reason} ({shown}); no linear network with generic real "
                "weights follows this for every length (docs/theory.md, Theorem G)")


@dataclass(frozen=True)
class GenericWeightsReport:
    """The result of the check: ``obstruction`` is None when none was found;
    ``complete`` is False when the monoid was cut at ``limit`` elements."""

    obstruction: GenericWeightsObstruction | None
    elements_searched: int
    complete: bool


def _eventual(f: np.ndarray, q: int, outputs: np.ndarray) -> tuple[int, tuple[int, ...]]:
    """(start, output-id cycle) of n ↦ outputs[f^n(q)]."""
    seen: dict[int, int] = {}
    path: list[int] = []
    while q not in seen:
        seen[q] = len(path)
        path.append(q)
        q = int(f[q])
    start = seen[q]
    return start, tuple(int(outputs[s]) for s in path[start:])


def _aligned(start: int, cycle: tuple[int, ...], at: int) -> tuple[int, ...]:
    """The cycle rotated so that it begins at n = ``at`` (any at ≥ start)."""
    k = (at - start) % len(cycle)
    return cycle[k:] + cycle[:k]


def _least_period(cycle: tuple[int, ...]) -> tuple[int, ...]:
    n = len(cycle)
    d = next(d for d in range(1, n + 1) if n % d == 0 and cycle == cycle[d:] + cycle[:d])
    return cycle[:d]


def _violation(behaviours: dict[tuple[int, ...], int]) -> str | None:
    """Why a set of eventual behaviours (each a least-period cycle aligned at one
    common n) cannot come from a generic network, or None if it can."""
    periods = {len(c) for c in behaviours}
    long = max(periods)
    if long >= 3:
        return f"output cycle of length {long} ≥ 3"
    if len(behaviours) > 2:
        return "more than two eventual behaviours"
    if periods == {1, 2}:
        return "constant and alternating behaviours mixed"
    if periods == {2} and len(behaviours) == 2:
        a, b = behaviours
        if a != b[1:] + b[:1]:
            return "two alternations between different pairs of outputs"
    return None


def _check_element(f: np.ndarray, states: list[int], outputs: np.ndarray,
                   merging: dict[tuple[int, int], tuple[int, ...]], symbols: tuple[str, ...]
                   ) -> tuple[str, dict[tuple[int, ...], int]] | None:
    eventual = {q: _eventual(f, q, outputs) for q in states}
    at = max(start for start, _ in eventual.values())
    behaviours: dict[tuple[int, ...], int] = {}
    for q, (start, cycle) in eventual.items():
        least = _least_period(cycle)
        key = _least_period(_aligned(start, cycle, at)) if len(least) > 1 else least
        behaviours.setdefault(key, q)
    reason = _violation(behaviours)
    if reason is None and len(behaviours) == 2:
        p, p2 = behaviours.values()
        for _ in range(at):  # both at n = at, past every tail
            p, p2 = int(f[p]), int(f[p2])
        x = merging.get((min(p, p2), max(p, p2)))
        if x is not None:
            shown = " ".join(symbols[i] for i in x)
            reason = f"two eventual behaviours merged by the word {shown}"
    return None if reason is None else (reason, behaviours)


def _merging_words(delta: np.ndarray) -> dict[tuple[int, int], tuple[int, ...]]:
    """A shortest word x with δ(a·x) = δ(b·x), per pair a < b that has one: breadth
    first backwards from the diagonal over the pair automaton (O(Q²·k))."""
    k, n = delta.shape
    back: dict[tuple[int, int], list[tuple[int, tuple[int, int]]]] = {}
    for a in range(n):
        for b in range(a + 1, n):
            for x in range(k):
                s, t = int(delta[x][a]), int(delta[x][b])
                back.setdefault((min(s, t), max(s, t)), []).append((x, (a, b)))
    word: dict[tuple[int, int], tuple[int, ...]] = {(a, a): () for a in range(n)}
    queue = deque(word)
    while queue:
        pair = queue.popleft()
        for x, prev in back.get(pair, ()):
            if prev not in word:
                word[prev] = (x,) + word[pair]
                queue.append(prev)
    return {p: w for p, w in word.items() if p[0] != p[1]}


def generic_weights_obstruction(automaton: Automaton, *, limit: int = DEFAULT_LIMIT
                                ) -> GenericWeightsReport:
    """Search the transition monoid of the minimal automaton for a word whose
    powers no generic-weight linear network follows (Theorem G)."""
    m = automaton.minimal()
    states = list(range(m.n_states))
    access = access_words(m)
    outputs = np.asarray(m.output_ids, dtype=np.int64)
    delta = np.asarray(m.delta, dtype=np.int64)
    merging = _merging_words(delta) if m.n_states <= MERGE_STATES else {}
    identity = np.arange(m.n_states, dtype=np.int64)
    queue: deque[tuple[np.ndarray, tuple[int, ...]]] = deque([(identity, ())])
    seen = {identity.tobytes()}
    searched = 0
    identity_word: tuple[int, ...] | None = None  # a nonempty word acting as the identity
    while queue and searched < limit:
        f, word = queue.popleft()
        searched += 1
        if not word and identity_word is not None:
            word = identity_word  # the identity is an element u too (a no-op letter), last
        found = _check_element(f, states, outputs, merging, m.symbols) if word else None
        if found is not None:
            reason, behaviours = found
            labels = m.labels
            listed = tuple(EventualOutputs(
                access_word=tuple(m.symbols[i] for i in access[q] or ()),  # minimal: all reachable
                start=_eventual(f, q, outputs)[0],
                cycle=tuple(labels[o] for o in _eventual(f, q, outputs)[1]))
                for q in behaviours.values())
            return GenericWeightsReport(GenericWeightsObstruction(
                tuple(m.symbols[i] for i in word), reason, listed), searched, True)
        for x in range(m.n_symbols):
            g = delta[x][f]  # first f, then the letter x
            if identity_word is None and g.tobytes() == identity.tobytes():
                identity_word = word + (x,)
            if g.tobytes() not in seen:
                seen.add(g.tobytes())
                queue.append((g, word + (x,)))
        if not queue and identity_word is not None and word != identity_word:
            queue.append((identity, ()))  # then check the identity once, as u
    return GenericWeightsReport(None, searched, not queue)
