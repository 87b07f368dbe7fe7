"""fsmnet.train.benchmark_words: the MinMax paper's benchmark-shaped words.

The expected answers come from plain-Python re-implementations of the task rules
written here (InductionHeads: the token after the last '@'; Sequences: ordered
progress per track), not from fsmnet's automata.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from fsmnet.errors import SpecError
from fsmnet.train.benchmark_words import SAMPLERS, benchmark_words, minimum_length
from fsmnet.train.data import label_traces, task_automaton


def induction_rule(letters: list[str]) -> str:
    """The output after the whole word: at a '@', the token that followed the
    previous '@' ('-' when none); elsewhere '-'."""
    stored, after_query, out = "-", False, "-"
    for letter in letters:
        if letter == "@":
            out, after_query = stored, True
        else:
            if after_query:
                stored = letter
            out, after_query = "-", False
    return out


def sequences_rule(letters: list[str], tracks: int, n: int) -> str:
    progress = [0] * tracks
    for letter in letters:
        if letter.startswith("s"):
            t, i = (int(x) for x in letter[1:].split("."))
            if progress[t] == i:
                progress[t] += 1
        elif letter.startswith("r"):
            progress[int(letter[1:])] = 0
    return "{" + ",".join(str(t) for t in range(tracks) if progress[t] == n) + "}"


@given(m=st.sampled_from([2, 5, 16, 30]), length=st.integers(3, 40),
       seed=st.integers(0, 2**32 - 1))
def test_induction_answer_is_the_key(m: int, length: int, seed: int) -> None:
    a = task_automaton(f"induction:{m}")
    words, mask = benchmark_words(a, np.random.default_rng(seed), 4, length)
    labels = label_traces(a, words)
    assert words.shape == (4, length) and mask.shape == (4, length + 1)
    assert np.all(mask.sum(axis=1) == 1) and np.all(mask[:, length])
    for word, label_row, scored in zip(words, labels, mask):
        letters = [a.symbols[i] for i in word]
        assert letters.count("@") == 2 and letters[-1] == "@"
        key = letters[letters.index("@") + 1]  # plain loop: the token after the first '@'
        assert key != "@"
        assert a.labels[label_row[scored][0]] == key == induction_rule(letters)


@given(n=st.sampled_from([1, 2, 3, 4, 8]), extra=st.integers(0, 30),
       seed=st.integers(0, 2**32 - 1))
def test_sequences_answer_follows_the_rule(n: int, extra: int, seed: int) -> None:
    a = task_automaton(f"sequences:{n}")
    length = 2 * (n + 1) + extra
    assert minimum_length(a) == 2 * (n + 1)
    words, mask = benchmark_words(a, np.random.default_rng(seed), 8, length)
    labels = label_traces(a, words)
    assert np.all(mask.sum(axis=1) == 1) and np.all(mask[:, length])
    for word, label_row in zip(words, labels):
        letters = [a.symbols[i] for i in word]
        assert a.labels[label_row[length]] == sequences_rule(letters, 2, n)


def test_sequences_final_labels_are_balanced() -> None:
    # Measured 0.24–0.27 for each of the four labels on these words.
    for n in (2, 16):
        a = task_automaton(f"sequences:{n}")
        words, mask = benchmark_words(a, np.random.default_rng(7), 2000, 40)
        answers = label_traces(a, words)[mask]
        share = {a.labels[i]: c / len(answers)
                 for i, c in enumerate(np.bincount(answers, minlength=len(a.labels)))}
        assert set(share) == {"{}", "{0}", "{1}", "{0,1}"}
        assert all(0.10 <= s <= 0.45 for s in share.values()), share


def test_latch_scores_every_position_but_the_empty_prefix() -> None:
    a = task_automaton("latch:6")
    words, mask = benchmark_words(a, np.random.default_rng(0), 5, 12)
    assert mask.shape == (5, 13) and not mask[:, 0].any() and mask[:, 1:].all()
    labels = label_traces(a, words)
    for word, row in zip(words, labels):
        assert [a.labels[i] for i in row[1:]] == [a.symbols[word[0]]] * 12


@pytest.mark.parametrize("spec", ["latch:4", "sequences:3", "induction:16"])
def test_valid_symbols_and_deterministic(spec: str) -> None:
    a = task_automaton(spec)
    first = benchmark_words(a, np.random.default_rng(3), 64, 20)
    again = benchmark_words(a, np.random.default_rng(3), 64, 20)
    other = benchmark_words(a, np.random.default_rng(4), 64, 20)
    assert first[0].dtype == np.int64 and first[1].dtype == bool
    assert first[0].min() >= 0 and first[0].max() < a.n_symbols
    assert np.array_equal(first[0], again[0]) and np.array_equal(first[1], again[1])
    assert not np.array_equal(first[0], other[0])


def test_refusals() -> None:
    assert set(SAMPLERS) == {"latch", "sequences", "induction"}
    with pytest.raises(SpecError, match="no benchmark words.*'parity'"):
        benchmark_words(task_automaton("parity"), np.random.default_rng(0), 1, 5)
    with pytest.raises(SpecError, match=r"length >= 10 \(value: 9\)"):
        benchmark_words(task_automaton("sequences:4"), np.random.default_rng(0), 1, 9)
    with pytest.raises(SpecError, match="length >= 3"):
        benchmark_words(task_automaton("induction:4"), np.random.default_rng(0), 1, 2)
