"""Random words over an automaton's alphabet."""

from __future__ import annotations

import numpy as np


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
