"""The threshold family ``atleast:k`` against its definition (count the 1s)."""

from hypothesis import given
from hypothesis import strategies as st

import fsmnet
from fsmnet.automata import is_minimal


@given(st.integers(1, 5), st.lists(st.sampled_from("01"), max_size=30))
def test_atleast_matches_definition(k, word) -> None:
    a = fsmnet.load(f"atleast:{k}")
    assert a.accepts(word) == (word.count("1") >= k)
    assert is_minimal(a) and a.n_states == k + 1
