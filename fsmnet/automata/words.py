"""Words over an automaton's alphabet: random words and shortest access words."""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import numpy as np

from fsmnet.errors import SpecError

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


def symbol_indices(word: Iterable[int] | np.ndarray, n_symbols: int, source: str, what: str,
                   error: type[Exception] = SpecError) -> np.ndarray:
    """``word`` as an int64 array of symbol indices ``0..n_symbols-1``, or ``error``
    naming the first bad value (a name, a bool, a fraction, an index out of range)."""
    arr = word if isinstance(word, np.ndarray) else np.asarray(list(word))
    if arr.size == 0:
        return np.zeros(0, dtype=np.int64)
    if arr.ndim != 1 or arr.dtype.kind not in "iu":
        flat = arr.ravel().tolist()
        bad = next((x for x in flat if isinstance(x, bool) or not isinstance(x, int)), flat[0])
        hint = "; symbol names go through encode() or output_of()" if isinstance(bad, str) else ""
        raise _word_error(error, f"{what}() takes a flat sequence of symbol indices "
                          f"0..{n_symbols - 1}{hint}", source, bad)
    out_of_range = (arr < 0) | (arr >= n_symbols)
    if out_of_range.any():
        bad = int(arr[np.argmax(out_of_range)])
        raise _word_error(error, f"symbol index out of range 0..{n_symbols - 1}", source, bad)
    return arr.astype(np.int64, copy=False)


def _word_error(error: type[Exception], message: str, source: str, value: Any) -> Exception:
    if issubclass(error, SpecError):
        return error(message, source=source, field="word", value=value)
    return error(f"{source}: field 'word': {message} (value: {value!r:.80})")
