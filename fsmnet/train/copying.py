"""The copying task, as the fixed-point RNN paper runs it (arXiv 2503.10799; the
task of Jelassi et al., "Repeat After Me", arXiv 2402.01032).

A word is a random string s_1 … s_n over an alphabet of ``alphabet`` letters, a
separator, then the string again, fed back one token at a time (teacher forcing, as
a language model reads its own output): s_1 … s_n | s_1 … s_{n−1}, length 2n.
After the prefix that ends with the separator the label is s_1, after
"… | s_1 … s_j" it is s_{j+1}; every other prefix (the empty one and the string
itself) has the label :data:`~fsmnet.train.fp_training.IGNORE`.  Letters are
symbols 0 … alphabet − 1, the separator is symbol ``alphabet``; labels are letters.

With ``feed_answer=False`` the second half is a run of a blank symbol
(``alphabet + 1``) instead, the older copy-memory form: the model then has to keep
its place in the string without seeing its own output.

Copying is not a finite-automaton family of fsmnet: for a fixed n the task has
|Σ|ⁿ reachable states, so it is trained on these words and labels directly.
"""

from __future__ import annotations

import numpy as np

from fsmnet.errors import FsmnetError
from fsmnet.train.fp_training import IGNORE

__all__ = ["copy_batch", "copy_symbols"]


def copy_symbols(alphabet: int, feed_answer: bool = True) -> int:
    """Number of input symbols: the letters, the separator and, without
    ``feed_answer``, the blank."""
    return alphabet + (1 if feed_answer else 2)


def copy_batch(rng: np.random.Generator, size: int, n: int, alphabet: int, *,
               feed_answer: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """``size`` copying words of string length ``n``: symbol ids (size, 2n) and labels
    (size, 2n + 1), one per prefix, the empty prefix first (module docstring)."""
    for name, value, low in (("size", size, 0), ("n", n, 1), ("alphabet", alphabet, 1)):
        if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < low:
            raise FsmnetError(f"copy_batch: field '{name}' must be an integer ≥ {low} "
                              f"(value: {value!r})")
    string = rng.integers(0, alphabet, size=(size, n), dtype=np.int64)
    sep = np.full((size, 1), alphabet, dtype=np.int64)
    second = string[:, :-1] if feed_answer else np.full((size, n - 1), alphabet + 1,
                                                        dtype=np.int64)
    words = np.concatenate([string, sep, second], axis=1)
    labels = np.full((size, 2 * n + 1), IGNORE, dtype=np.int64)
    # Prefix length n + 1 ends with the separator: from there on, the string in order.
    labels[:, n + 1:] = string
    return words, labels
