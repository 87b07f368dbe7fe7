"""PFSA-SR model, spec files, families and the exact belief update.

Expected beliefs come from an independent route: a brute-force enumeration of
every hidden path with its probability (no matrices, no renormalization).
"""

from __future__ import annotations

import itertools
import json
from fractions import Fraction as F

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from fsmnet.automata.pfsa import PFSA, ZeroProbability, normalize1
from fsmnet.automata.pfsa_families import (
    build_pfsa_family,
    cups,
    joint_decay_period,
    marginal_adversarial_period,
)
from fsmnet.automata.pfsa_spec import from_dict, is_pfsa_spec, load_file, load_pfsa, save_file
from fsmnet.errors import SpecError

COIN = {
    "kind": "pfsa-sr", "name": "coin", "states": ["h", "t"],
    "input_symbols": ["flip", "bias", "saw-h"],
    "transitions": {"h": {"flip": {"h": "1/2", "t": "1/2"}, "bias": {"h": "1/3", "t": "2/3"},
                          "saw-h": "h"},
                    "t": {"flip": {"h": "1/2", "t": "1/2"}, "bias": {"t": 1}, "saw-h": "t"}},
    "reveals": {"saw-h": ["h"]},
    "initial_state": "h",
}


def brute_force(m: PFSA, word: list[int]) -> tuple[dict[int, F], F]:
    """Posterior over the final state by enumerating every hidden path.

    A path q0 q1 ... qt is consistent when q_{i-1} lies in ρ(x_i) (the reveal
    of a symbol constrains the state it is read in); its weight is the product
    of the transition probabilities.
    """
    weights: dict[int, F] = {}
    for path in itertools.product(range(m.n_states), repeat=len(word)):
        full = (m.initial, *path)
        w = F(1)
        for i, a in enumerate(word):
            if full[i] not in m.reveals[a]:
                w = F(0)
                break
            w *= m.kernel[a][full[i]][full[i + 1]]
        if w:
            weights[full[-1]] = weights.get(full[-1], F(0)) + w
    return weights, sum(weights.values(), F(0))


def test_coin_spec_loads_and_round_trips(tmp_path):
    m = from_dict(COIN)
    assert m.n_states == 2 and not m.is_deterministic
    assert m.kernel[1][0] == (F(1, 3), F(2, 3))
    assert m.reveals == ((0, 1), (0, 1), (0,))
    for suffix in (".json", ".yaml"):
        path = tmp_path / f"coin{suffix}"
        save_file(m, path)
        assert load_file(path) == m and is_pfsa_spec(str(path))
    plain = tmp_path / "plain.json"
    plain.write_text(json.dumps({"states": ["a"], "input_symbols": ["x"],
                                 "transitions": {"a": {"x": "a"}}}))
    assert not is_pfsa_spec(str(plain))


@pytest.mark.parametrize("patch, field", [
    ({"transitions": {**COIN["transitions"], "t": {**COIN["transitions"]["t"],
                                                    "flip": {"h": "1/2", "t": "1/3"}}}},
     "transitions.t.flip"),                                      # row sums to 5/6
    ({"transitions": {**COIN["transitions"], "t": {**COIN["transitions"]["t"],
                                                    "flip": {"h": "3/2", "t": "-1/2"}}}},
     "transitions.t.flip.t"),                                    # negative entry
    ({"reveals": {"saw-h": ["h", "x"]}}, "reveals.saw-h"),        # unknown state
    ({"reveals": {"nope": ["h"]}}, "reveals.nope"),               # unknown symbol
    ({"reveals": {"saw-h": []}}, "reveals.saw-h"),                # empty reveal
    ({"transitions": {**COIN["transitions"], "t": {**COIN["transitions"]["t"],
                                                    "flip": {"h": 0.5, "t": 0.5}}}},
     "transitions.t.flip.h"),                                    # float: not exact
    ({"transitions": {**COIN["transitions"], "t": {"flip": "h", "bias": "t"}}},
     "transitions.t.saw-h"),                                     # missing entry
    ({"kind": "dfa"}, "kind"),
    ({"extra": 1}, "extra"),
])
def test_spec_errors_name_the_field(patch, field):
    with pytest.raises(SpecError) as err:
        from_dict({**COIN, **patch}, source="coin.yaml")
    assert err.value.field == field and "coin.yaml" in str(err.value)


def test_constructor_is_keyword_only_and_immutable():
    m = cups(2)
    with pytest.raises(TypeError):
        PFSA(("a",), ("x",), [[[1]]], [[0]], 0)  # type: ignore[misc]
    with pytest.raises(AttributeError):
        m.initial = 1  # type: ignore[misc]
    with pytest.raises(SpecError, match="unknown state"):
        PFSA(states=("a",), symbols=("x",), kernel=[[[1]]], reveals=[[1]], initial=0)
    with pytest.raises(SpecError, match="sum to 1"):
        PFSA(states=("a", "b"), symbols=("x",), kernel=[[[F(1, 2), 0], [0, 1]]],
             reveals=[[0, 1]], initial=0)


def test_cups_family_shapes_and_paper_decay():
    m = build_pfsa_family("pcups:3")
    assert m.n_states == 6 and m.n_symbols == 3 + 3 + 9
    # The paper's 1/2, 1/4, 1/8: (pswap01 show0=a)^k has probability 2^-k.
    word = list(joint_decay_period())
    assert [m.probability(word * k) for k in (1, 2, 3)] == [F(1, 2), F(1, 4), F(1, 8)]
    assert build_pfsa_family("pcups:n=3,p=1/3").kernel[1][0][0] == F(2, 3)
    assert len(marginal_adversarial_period()) == 3
    for bad in ("pcups:9", "pcups:n=3,p=2", "pcups:q=1", "pcups:3,1/2,7"):
        with pytest.raises(SpecError):
            build_pfsa_family(bad)
    assert load_pfsa("pcups:2") == cups(2, name="pcups:2")


COIN_M = from_dict(COIN)
CUPS3 = cups(3, "1/3")


@given(st.sampled_from([COIN_M, CUPS3, cups(2)]), st.data())
def test_belief_equals_brute_force(m, data):
    word = data.draw(st.lists(st.integers(0, m.n_symbols - 1), max_size=4 if m is CUPS3 else 7))
    weights, total = brute_force(m, word)
    assert m.probability(word) == total
    if total == 0:
        with pytest.raises(ZeroProbability):
            m.belief(word)
        assert all(x == 0 for x in m.unnormalized(word))
        return
    expected = tuple(weights.get(q, F(0)) / total for q in range(m.n_states))
    assert m.belief(word) == expected
    # Scale invariance: the unnormalized linear state is P(w) times the belief.
    assert m.unnormalized(word) == tuple(total * x for x in expected)


@given(st.data())
def test_renormalizing_before_or_after_the_transition_agrees(data):
    # normalize(T D b) = T normalize(D b): T is column-stochastic.
    m = CUPS3
    a = data.draw(st.integers(0, m.n_symbols - 1))
    b = normalize1([F(data.draw(st.integers(0, 5))) + (q == 0) for q in range(m.n_states)])
    masked = [x if keep else F(0) for x, keep in zip(b, m.mask(a))]
    assume(sum(masked) != 0)
    assert normalize1(m.unnormalized_step(b, a)) == m.update(b, a)


def test_sampled_words_have_positive_probability():
    m = cups(3)
    for seed in range(5):
        assert m.probability(m.sample_word(30, seed=seed)) > 0
    assert m.sample_word(30, seed=3) == m.sample_word(30, seed=3)
