"""Minimization and equivalence, checked against brute force over all short words."""

import itertools

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from fsmnet.automata import Automaton, distinguishing_word, equivalent, is_minimal, minimize
from fsmnet.testing.strategies import automata


def _brute_equivalent_states(a: Automaton, p: int, q: int) -> bool:
    # Two states of an n-state machine that agree on all words of length < n
    # agree on all words (Moore's bound), so brute force up to n-1 is exact.
    for length in range(a.n_states):
        for w in itertools.product(range(a.n_symbols), repeat=length):
            if a.output(a.run(w, start=p)) != a.output(a.run(w, start=q)):
                return False
    return True


@given(automata(max_states=5, max_symbols=2, max_labels=3))
def test_minimal_is_equivalent_and_has_no_equivalent_states(a: Automaton) -> None:
    m = minimize(a)
    assert equivalent(a, m)
    assert is_minimal(m)
    for p, q in itertools.combinations(range(m.n_states), 2):
        assert not _brute_equivalent_states(m, p, q)


# Two machines over one alphabet (of one or two letters).
SAME_ALPHABET = st.integers(1, 2).flatmap(lambda k: st.tuples(
    automata(max_states=4, min_symbols=k, max_symbols=k),
    automata(max_states=4, min_symbols=k, max_symbols=k)))


@given(SAME_ALPHABET)
def test_distinguishing_word_is_shortest(pair: tuple[Automaton, Automaton]) -> None:
    a, b = pair
    found = distinguishing_word(a, b)
    # Brute force, shortest first, over all words of length < n_a + n_b: Moore's
    # bound on the disjoint union of the two machines (n_a + n_b states) says two
    # of its states that agree on every such word agree on all words.  (The
    # product size n_a * n_b is also enough, but its 2^16 words are too many here.)
    brute = None
    for length in range(a.n_states + b.n_states):
        for w in itertools.product(range(a.n_symbols), repeat=length):
            if a.output(a.run(w)) != b.output(b.run(w)):
                brute = list(w)
                break
        if brute is not None:
            break
    if brute is None:
        assert found is None
    else:
        assert found is not None
        word, out_a, out_b = found
        assert len(word) == len(brute)
        enc = a.encode(word)
        assert a.output(a.run(enc)) == out_a != out_b == b.output(b.run(enc))


def test_known_minimal_size_parity_unrolled() -> None:
    # Counting mod 4 with output "count is even" is parity: 2 states (by definition).
    a = Automaton(delta=np.array([[1, 2, 3, 0]]), symbols=("a",), initial=0,
                  outputs=(True, False, True, False))
    assert minimize(a).n_states == 2
