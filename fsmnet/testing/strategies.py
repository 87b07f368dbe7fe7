"""Public Hypothesis strategies: random automata, words, and compiled networks.

Users can reuse them to fuzz their own implementations, e.g.::

    from hypothesis import given
    from fsmnet.testing.strategies import automata, words_for

    @given(automata(max_states=6))
    def test_mine(a):
        ...
"""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import strategies as st

from fsmnet.automata import Automaton


@st.composite
def automata(
    draw: Any,
    *,
    min_states: int = 1,
    max_states: int = 6,
    min_symbols: int = 1,
    max_symbols: int = 3,
    max_labels: int = 2,
    semiautomaton: bool = False,
    permutations_only: bool = False,
) -> Automaton:
    """Random complete automata.

    Parameters
    ----------
    max_labels
        2 gives acceptors (``True``/``False``); more gives Moore machines with
        integer labels ``0..max_labels-1``.
    semiautomaton
        No initial state and no outputs.
    permutations_only
        Every letter permutes the states (group automata).
    """
    n = draw(st.integers(min_states, max_states))
    k = draw(st.integers(min_symbols, max_symbols))
    rows = []
    for _ in range(k):
        if permutations_only:
            rows.append(draw(st.permutations(list(range(n)))))
        else:
            rows.append(draw(st.lists(st.integers(0, n - 1), min_size=n, max_size=n)))
    delta = np.array(rows, dtype=np.int64)
    symbols = [chr(ord("a") + i) for i in range(k)]
    if semiautomaton:
        return Automaton(delta=delta, symbols=symbols, initial=None, outputs=None)
    initial = draw(st.integers(0, n - 1))
    if max_labels <= 2:
        outputs: list[Any] = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    else:
        outputs = draw(st.lists(st.integers(0, max_labels - 1), min_size=n, max_size=n))
    return Automaton(delta=delta, symbols=symbols, initial=initial, outputs=outputs)


def words_for(automaton: Automaton, *, max_length: int = 30) -> st.SearchStrategy[list[int]]:
    """Words of symbol indices over the automaton's alphabet."""
    return st.lists(st.integers(0, automaton.n_symbols - 1), max_size=max_length)


def networks(arch: str, **automaton_options: Any) -> st.SearchStrategy[Any]:
    """Networks compiled for ``arch`` from random automata it can express."""
    from fsmnet.constructions import compile_automaton
    from fsmnet.errors import NotExpressible

    def build(a: Automaton) -> Any:
        try:
            return (a, compile_automaton(a, arch))
        except NotExpressible:
            return None

    return automata(**automaton_options).map(build).filter(lambda x: x is not None)
