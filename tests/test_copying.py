"""fsmnet.train.copying: the copying task's words and labels, against a plain loop that
reads the task's definition (a string, a separator, the string again, labels only
where the string is being repeated)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from fsmnet.errors import FsmnetError
from fsmnet.train.copying import copy_batch, copy_symbols
from fsmnet.train.fp_training import IGNORE


def _expected(word: list[int], alphabet: int) -> tuple[list[int], list[int]]:
    """The string before the first separator, and the label after every prefix."""
    sep = word.index(alphabet)
    string = word[:sep]
    labels = []
    for p in range(len(word) + 1):  # the prefix word[:p]
        j = p - (sep + 1)  # how many answer letters the prefix has read past the separator
        labels.append(string[j] if 0 <= j < len(string) else IGNORE)
    return string, labels


@given(st.integers(0, 4), st.integers(1, 9), st.integers(1, 9), st.booleans(),
       st.integers(0, 2**32 - 1))
def test_labels_are_the_string_after_the_separator(size: int, n: int, alphabet: int,
                                                   feed: bool, seed: int) -> None:
    words, labels = copy_batch(np.random.default_rng(seed), size, n, alphabet,
                               feed_answer=feed)
    assert words.shape == (size, 2 * n) and labels.shape == (size, 2 * n + 1)
    assert words.max(initial=0) < copy_symbols(alphabet, feed)
    for word, label in zip(words.tolist(), labels.tolist(), strict=True):
        string, expected = _expected(word, alphabet)
        assert len(string) == n and all(0 <= s < alphabet for s in string)
        assert label == expected
        second = word[n + 1:]
        if feed:  # teacher forcing: the answer so far is the input
            assert second == string[:-1]
        else:
            assert second == [alphabet + 1] * (n - 1)
        assert sum(x != IGNORE for x in label) == n


def test_same_seed_same_batch_and_seeds_differ() -> None:
    a = copy_batch(np.random.default_rng(5), 8, 6, 8)
    b = copy_batch(np.random.default_rng(5), 8, 6, 8)
    c = copy_batch(np.random.default_rng(6), 8, 6, 8)
    assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))
    assert not np.array_equal(a[0], c[0])


def test_bad_sizes_are_refused() -> None:
    rng = np.random.default_rng(0)
    for kwargs in ({"size": 2, "n": 0, "alphabet": 3}, {"size": -1, "n": 2, "alphabet": 3},
                   {"size": 2, "n": 2, "alphabet": 0}, {"size": 2, "n": True, "alphabet": 3}):
        with pytest.raises(FsmnetError):
            copy_batch(rng, **kwargs)  # type: ignore[arg-type]
