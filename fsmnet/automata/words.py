"""Words over an automaton's alphabet: random words and shortest access words."""

from __future__ import annotations

from collections import deque
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from fsmnet.automata.automaton import Automaton


def random_word(n_symbols: int, length: int, seed: int | None = None) -> np.ndarray:
    """A uniformly random word of symbol indices, as an int64 array.

    Parameters
    ----------
    n_symbols
        Alphabet size (symbols are ``0..n_symbols-1``).
    length
        Number of symbols.
    seed
        Seed of a :func:`numpy.random.default_rng`; ``None`` for fresh entropy.
    """
    rng = np.random.default_rng(seed)
    return rng.integers(0, n_symbols, size=int(length), dtype=np.int64)


def access_words(automaton: Automaton) -> list[list[int] | None]:
    """A shortest word (symbol indices) reaching each state from the initial state.

    Breadth-first from the initial state; ``None`` for an unreachable state.
    """
    assert automaton.initial is not None, "access words need an initial state"
    words: list[list[int] | None] = [None] * automaton.n_states
    words[automaton.initial] = []
    queue = deque([automaton.initial])
    while queue:
        q = queue.popleft()
        for a in range(automaton.n_symbols):
            r = int(automaton.delta[a, q])
            if words[r] is None:
                words[r] = [*words[q], a]  # type: ignore[misc]
                queue.append(r)
    return words
