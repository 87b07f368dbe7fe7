"""Minimization of Moore machines and language equivalence.

Minimization is Moore's partition refinement: start from the partition by
output label and split classes by the classes of their successors until
nothing changes.  It works for acceptors and multi-class Moore machines
alike, and is O(n² k) in the worst case, plenty for the automata we compile.
"""

from __future__ import annotations

from collections import deque

import numpy as np

from fsmnet.automata.automaton import Automaton, Label
from fsmnet.errors import SpecError


def state_classes(automaton: Automaton) -> np.ndarray:
    """Equivalence class of each state (states with the same future outputs).

    For a semiautomaton (no outputs) states are only equivalent to themselves.
    Classes are numbered in order of first appearance, so the result is
    canonical for a given table.
    """
    n = automaton.n_states
    if automaton.outputs is None:
        return np.arange(n, dtype=np.int64)
    cls = _renumber(automaton.output_ids)
    delta = automaton.delta
    while True:
        signature = np.vstack([cls[None, :], cls[delta]])  # (1 + k, n)
        _, new = np.unique(signature.T, axis=0, return_inverse=True)
        new = _renumber(new.reshape(-1))
        if new.max() == cls.max():
            return new
        cls = new


def minimize(automaton: Automaton) -> Automaton:
    """The minimal Moore machine equivalent to ``automaton``.

    Unreachable states are dropped, then equivalent states merged.  The state
    of each class is named after its first member.  A semiautomaton has no
    language, so it is returned unchanged.
    """
    if automaton.is_semiautomaton:
        return automaton
    trimmed = automaton.restrict(automaton.reachable_states())
    cls = state_classes(trimmed)
    m = int(cls.max()) + 1
    first = [int(np.flatnonzero(cls == c)[0]) for c in range(m)]
    table = cls[trimmed.delta[:, first]]
    assert trimmed.outputs is not None and trimmed.initial is not None
    return trimmed.replace(
        delta=table,
        states=[trimmed.states[q] for q in first],
        initial=int(cls[trimmed.initial]),
        outputs=[trimmed.outputs[q] for q in first],
    )


def is_minimal(automaton: Automaton) -> bool:
    """True when every state is reachable and no two states are equivalent."""
    if automaton.is_semiautomaton:
        return True
    if len(automaton.reachable_states()) != automaton.n_states:
        return False
    return int(state_classes(automaton).max()) + 1 == automaton.n_states


def distinguishing_word(a: Automaton, b: Automaton) -> tuple[list[str], Label, Label] | None:
    """A shortest word on which two automata give different outputs, or ``None``.

    Breadth-first search on the product from the pair of initial states.
    Both automata must have outputs, an initial state and the same alphabet
    (as a set of symbol names; the order may differ).

    Returns
    -------
    (word, output_a, output_b) or None
        ``None`` means the two are equivalent on every word.
    """
    for m, tag in ((a, "first"), (b, "second")):
        if m.is_semiautomaton:
            raise SpecError("equivalence needs an initial state and outputs",
                            source=f"<{tag} automaton>", field="initial_state", value=None)
    if set(a.symbols) != set(b.symbols):
        raise SpecError("the automata have different alphabets", source="<equivalence>",
                        field="input_symbols", value=sorted(set(a.symbols) ^ set(b.symbols)))
    to_b = [b.symbol_index(s) for s in a.symbols]
    assert a.initial is not None and b.initial is not None
    start = (a.initial, b.initial)
    parent: dict[tuple[int, int], tuple[tuple[int, int], int] | None] = {start: None}
    queue = deque([start])
    while queue:
        p, q = queue.popleft()
        if a.output(p) != b.output(q) or type(a.output(p)) is not type(b.output(q)):
            word: list[int] = []
            node = (p, q)
            while parent[node] is not None:
                prev, sym = parent[node]  # type: ignore[misc]
                word.append(sym)
                node = prev
            return a.decode(reversed(word)), a.output(p), b.output(q)
        for i in range(a.n_symbols):
            nxt = (int(a.delta[i, p]), int(b.delta[to_b[i], q]))
            if nxt not in parent:
                parent[nxt] = ((p, q), i)
                queue.append(nxt)
    return None


def equivalent(a: Automaton, b: Automaton) -> bool:
    """True when the two automata give the same output on every word."""
    return distinguishing_word(a, b) is None


def _renumber(labels: np.ndarray) -> np.ndarray:
    """Renumber class ids in order of first appearance."""
    _, first_idx, inv = np.unique(labels, return_index=True, return_inverse=True)
    order = np.argsort(first_idx)
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    return rank[inv.reshape(-1)].astype(np.int64)
