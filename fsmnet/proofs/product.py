"""Exact exploration of the product of a network and an automaton.

Starting from (h0, q0), every symbol is applied to every reached pair, in
exact arithmetic (the architecture's ``exact=True`` semantics: Fractions with
projective normalization for linear networks, max/min selections for MinMax).
Breadth-first order makes the first disagreement a *shortest* counterexample.

If the set of reached pairs closes up, it is a proof for all lengths: by
induction on |w|, the pair (h_w, q_w) is in the set, and every pair in the set
has readout(h) = λ(q).  If it does not close within the budget the answer is
"unknown" from this method (never "proved").
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from fsmnet.automata import Automaton
from fsmnet.nets import Network
from fsmnet.nets.alignment import label_map


@dataclass(frozen=True)
class ProductExploration:
    """Outcome of :func:`explore_product`.

    Attributes
    ----------
    status
        ``"closed"`` (every reachable pair agrees: a proof), ``"mismatch"``
        (``word`` reaches a pair whose outputs differ), or ``"budget"``.
    states
        The distinct exact network states reached, in discovery order (each made
        when it is read: a one-hot state is an integer until then).
    pairs
        (network-state index, automaton state) per reached pair.
    transitions
        ``transitions[p][a]`` = index of the pair reached from pair p on symbol a
        (complete only when ``status == "closed"``).
    word
        The shortest disagreeing word (symbol indices), for ``"mismatch"``.
    """

    status: str
    states: ReachedStates
    pairs: list[tuple[int, int]]
    transitions: list[list[int]]
    word: list[int] | None = None


def freeze(state: Any) -> Hashable:
    """A hashable, exact key for a network state (arrays become nested tuples)."""
    if isinstance(state, np.ndarray):
        if state.dtype == np.float64 and not np.isnan(state).any():
            # Equal float64 arrays have equal bytes once -0.0 is made +0.0
            # (x + 0.0 does that and changes no other value): an exact key,
            # much cheaper than a tuple of Python floats.
            return ("f8", state.shape, (state + 0.0).tobytes())
        return ("nd", state.shape, tuple(freeze(x) for x in state.ravel()))
    if isinstance(state, (list, tuple)):
        return tuple(freeze(x) for x in state)
    if isinstance(state, float):
        return state  # MinMax values are exact selections of stored floats
    return state


def explore_product(net: Network, automaton: Automaton, *, max_states: int = 20_000,
                    progress: Any = None, fast_paths: bool = True) -> ProductExploration:
    """Breadth-first exploration of (network state, automaton state) pairs, exactly.

    Parameters
    ----------
    net, automaton
        Same alphabet, in the same order (checked by the caller).
    max_states
        Budget on distinct network states; beyond it the status is ``"budget"``.
    progress
        Optional callable ``progress(n_pairs)`` for a progress display.
    fast_paths
        Use :func:`one_hot_model` when it applies (same result, much faster);
        False forces the generic path (the tests compare the two).
    """
    fast = one_hot_model(net) if fast_paths else None
    if fast is None and fast_paths:  # bilinear-block: the same look-up per block
        from fsmnet.proofs.product_block import block_one_hot_model

        parts = block_one_hot_model(net)
        fast = None if parts is None else _StateModel(**parts)
    if fast is None and fast_paths:  # MinMax cascades: the same step on plain floats
        from fsmnet.proofs.cascade_model import cascade_model

        parts = cascade_model(net)
        fast = None if parts is None else _StateModel(**parts)
    if fast is not None:
        return _explore(fast, automaton, net, max_states=max_states, progress=progress)
    sem = net.semantics
    generic = _StateModel(
        initial=sem.initial_state(net, True),
        step=lambda h, a: sem.step(net, h, a, True),
        readout=lambda h: sem.readout(net, h, True),
        key=freeze,
        materialize=lambda h: h,
    )
    return _explore(generic, automaton, net, max_states=max_states, progress=progress)


@dataclass(frozen=True)
class _StateModel:
    """How the exploration handles one network's states (see :func:`one_hot_model`)."""

    initial: Any
    step: Callable[[Any, int], Any]
    readout: Callable[[Any], int]
    key: Callable[[Any], Hashable]
    materialize: Callable[[Any], Any]
    entries: Callable[[Any], tuple[list[int], list[Fraction]]] | None = None
    """The non-zero entries (indices, values) of a state, where a model knows them
    without making the vector (one-hot codes)."""


class ReachedStates(Sequence[Any]):
    """The exact states an exploration reached, each made when it is read."""

    def __init__(self, model: _StateModel, raw: list[Any]) -> None:
        self._model, self._raw = model, raw

    def __len__(self) -> int:
        return len(self._raw)

    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, slice):
            return [self._model.materialize(h) for h in self._raw[i]]
        return self._model.materialize(self._raw[i])

    def entries(self, i: int) -> tuple[list[int], list[Any]]:
        """State i's non-zero entries: (indices, exact values), in index order."""
        if self._model.entries is not None:
            return self._model.entries(self._raw[i])
        h = np.asarray(self[i], dtype=object)
        where = [j for j, x in enumerate(h.tolist()) if x != 0]
        return where, [h[j] for j in where]


def one_hot_model(net: Network) -> _StateModel | None:
    """An integer fast path for linear nets whose exact states are ±one-hot vectors.

    The state ``s·e_j`` is the integer ``s·(j+1)`` (0 for the zero vector) and a step
    is a table look-up (:mod:`fsmnet.nets.one_hot`, which says when this is the exact
    semantics and why; it reads sparse tensors without expanding them).  Returns None
    when the conditions do not hold.
    """
    from fsmnet.nets.one_hot import one_hot_codes

    codes = one_hot_codes(net, exact=True)
    if codes is None:
        return None
    zero, hidden = Fraction(0), codes.hidden

    def materialize(code: int) -> np.ndarray:
        h = np.full(hidden, zero, dtype=object)
        if code:
            h[abs(code) - 1] = Fraction(1 if code > 0 else -1)
        return h

    def entries(code: int) -> tuple[list[int], list[Fraction]]:
        return ([], []) if code == 0 else ([abs(code) - 1], [Fraction(1 if code > 0 else -1)])

    return _StateModel(initial=codes.initial, step=codes.step, readout=codes.label,
                       key=lambda c: c, materialize=materialize, entries=entries)


def _explore(model: _StateModel, automaton: Automaton, net: Network, *, max_states: int,
             progress: Any) -> ProductExploration:
    """The breadth-first search itself, over any state model."""
    to_auto = label_map(net, automaton)
    assert automaton.initial is not None
    out_ids = automaton.output_ids
    delta = automaton.delta
    k = automaton.n_symbols

    state_index: dict[Hashable, int] = {}
    states: list[Any] = []
    pair_index: dict[tuple[int, int], int] = {}
    pairs: list[tuple[int, int]] = []
    parent: list[tuple[int, int] | None] = []
    readouts: list[int] = []

    def intern(h: Any) -> int:
        key = model.key(h)
        idx = state_index.get(key)
        if idx is None:
            idx = len(states)
            state_index[key] = idx
            states.append(h)
            readouts.append(model.readout(h))
        return idx

    def word_to(p: int) -> list[int]:
        word: list[int] = []
        while parent[p] is not None:
            prev, sym = parent[p]  # type: ignore[misc]
            word.append(sym)
            p = prev
        return word[::-1]

    def result(status: str, word: list[int] | None = None) -> ProductExploration:
        return ProductExploration(status, ReachedStates(model, states), pairs,
                                  transitions, word)

    h0 = intern(model.initial)
    pair_index[(h0, automaton.initial)] = 0
    pairs.append((h0, automaton.initial))
    parent.append(None)
    transitions: list[list[int]] = []
    table = [[int(x) for x in row] for row in delta]
    queue = deque([0])
    while queue:
        p = queue.popleft()
        h_idx, q = pairs[p]
        if to_auto[readouts[h_idx]] != out_ids[q]:
            return result("mismatch", word_to(p))
        row = []
        for a in range(k):
            n_idx = intern(model.step(states[h_idx], a))
            if len(states) > max_states:
                return result("budget")
            target = (n_idx, table[a][q])
            t = pair_index.get(target)
            if t is None:
                t = len(pairs)
                pair_index[target] = t
                pairs.append(target)
                parent.append((p, a))
                queue.append(t)
            row.append(t)
        # Pairs are dequeued in index order, so row p is appended at position p.
        transitions.append(row)
        if progress is not None and p % 512 == 0:
            progress(len(pairs))
    return result("closed")
