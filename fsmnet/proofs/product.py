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
from collections.abc import Callable, Hashable
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
        The distinct exact network states reached, in discovery order.
    pairs
        (network-state index, automaton state) per reached pair.
    transitions
        ``transitions[p][a]`` = index of the pair reached from pair p on symbol a
        (complete only when ``status == "closed"``).
    word
        The shortest disagreeing word (symbol indices), for ``"mismatch"``.
    """

    status: str
    states: list[Any]
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


def _first_argmax(scores: Any) -> int:
    best = 0
    for i in range(1, len(scores)):
        if scores[i] > scores[best]:
            best = i
    return best


def _signs(exact: np.ndarray) -> np.ndarray:
    """Elementwise sign (−1, 0, 1) of an object array, as float64.  For Fractions it is
    the sign of the numerator (the denominator is positive): an int comparison,
    several times cheaper than Fraction's rich comparisons (1.7M entries at S5)."""
    flat = exact.ravel().tolist()
    if all(type(x) is Fraction for x in flat):
        nums = [x.numerator for x in flat]
        signs = np.fromiter(((v > 0) - (v < 0) for v in nums), dtype=np.float64,
                            count=len(nums))
        return signs.reshape(exact.shape)
    return (exact > 0).astype(np.float64) - (exact < 0).astype(np.float64)


def one_hot_model(net: Network) -> _StateModel | None:
    """An integer fast path for linear nets whose exact states are ±one-hot vectors.

    Applies when the net uses :class:`LinearRecurrence`'s own exact step,
    normalization and readout, every column of every matrix has at most one
    nonzero entry (1 for the float matrices when they are the exact ones; any
    sign and size for exact matrices of their own: ``A e_j = c·e_i``), and h0
    has at most one nonzero entry.  Then every normalized exact state is ``s·e_j`` (s = ±1) or 0: a
    state is stored as the integer ``s·(j+1)`` (0 for the zero vector), and a
    step is a table look-up.  This is the exact semantics, not an
    approximation: ``normalize(A(s·e_j)) = s·sign(c)·e_i`` exactly when column
    j of A is ``c·e_i``.  Returns None when the conditions do not hold.
    """
    from fsmnet.nets.linear import LinearRecurrence

    sem = net.semantics
    cls: Any = type(sem)
    if not isinstance(sem, LinearRecurrence) or any(
            getattr(cls, name) is not getattr(LinearRecurrence, name)
            for name in ("initial_state", "step", "readout", "readout_matrix", "matrices")):
        return None
    if cls.matrices_exact is LinearRecurrence.matrices_exact:
        # The base one: the exact matrices ARE the float ones.
        mats = np.asarray(sem.matrices(net, False), dtype=np.float64)
    else:
        # Exact matrices of their own (CP factors, Householder products): test
        # *them*.  Only the sign of a column's single nonzero entry matters:
        # normalize(c·e_i) = sign(c)·e_i exactly (the scale is |c|).
        mats = _signs(np.asarray(sem.matrices(net, True), dtype=object))
    h0 = np.asarray(net.params["h0"], dtype=np.float64)
    if not np.all((mats == 0) | (mats == 1) | (mats == -1)) or np.any(
            np.abs(mats).sum(axis=1) > 1):
        return None
    nonzero = np.flatnonzero(h0)
    if nonzero.size > 1:
        return None
    hidden = mats.shape[2]
    # succ[a, j] = ±(i + 1) when column j of A_a is ±c·e_i (c > 0), else 0 (zeros).
    where = np.abs(mats).argmax(axis=1)
    signs = np.take_along_axis(mats, where[:, None, :], axis=1)[:, 0, :]
    succ = (signs * (where + 1)).astype(np.int64)
    table = [[int(x) for x in row] for row in succ]
    readout = sem.readout_matrix(net, True)
    zero = Fraction(0)

    def step(code: int, a: int) -> int:
        if code == 0:
            return 0
        target = table[a][abs(code) - 1]
        return target if code > 0 else -target

    def read(code: int) -> int:
        if code == 0:
            return _first_argmax([zero] * readout.shape[0])
        column = readout[:, abs(code) - 1]
        return _first_argmax(column if code > 0 else -column)

    def materialize(code: int) -> np.ndarray:
        h = np.full(hidden, zero, dtype=object)
        if code:
            h[abs(code) - 1] = Fraction(1 if code > 0 else -1)
        return h

    initial = 0 if nonzero.size == 0 else int(np.sign(h0[nonzero[0]])) * int(nonzero[0] + 1)
    return _StateModel(initial=initial, step=step, readout=read, key=lambda c: c,
                       materialize=materialize)


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
        return ProductExploration(status, [model.materialize(h) for h in states], pairs,
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
