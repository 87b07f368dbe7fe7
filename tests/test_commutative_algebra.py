"""Commutativity, thresholds/periods and count tables, checked against brute force."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from fsmnet.algebra.commutative import (
    commutation_witness,
    count_table,
    index_and_period,
    is_commutative,
)
from fsmnet.automata import Automaton
from fsmnet.errors import SpecError
from fsmnet.testing.strategies import automata


def counter_product(specs: list[tuple[int, int]], labels: list[int]) -> Automaton:
    """Product of per-letter counters: letter a counts up to t_a + p_a − 1, then cycles
    back with period p_a; the output is ``labels`` indexed by the product state."""
    sizes = [t + p for t, p in specs]
    states = list(itertools.product(*(range(s) for s in sizes)))
    index = {s: i for i, s in enumerate(states)}
    rows = []
    for a, (t, p) in enumerate(specs):
        row = []
        for s in states:
            nxt = list(s)
            nxt[a] = s[a] + 1 if s[a] + 1 < t + p else t
            row.append(index[tuple(nxt)])
        rows.append(row)
    return Automaton(delta=np.array(rows), symbols=[chr(ord("a") + i) for i in range(len(specs))],
                     initial=0, outputs=[labels[i] for i in range(len(states))])


@st.composite
def commutative_machines(draw: st.DrawFn) -> Automaton:
    n_letters = draw(st.integers(1, 3))
    specs = [(draw(st.integers(0, 2)), draw(st.integers(1, 3))) for _ in range(n_letters)]
    size = int(np.prod([t + p for t, p in specs]))
    labels = draw(st.lists(st.integers(0, 2), min_size=size, max_size=size))
    return counter_product(specs, labels)


def _brute_commutative(a: Automaton) -> bool:
    # Every state is reached by a word shorter than n, and two states that
    # differ do so on a word shorter than n (Moore), so these swaps suffice.
    n = a.n_states
    short = [w for k in range(n) for w in itertools.product(range(a.n_symbols), repeat=k)]
    for u in short:
        for x, y in itertools.combinations(range(a.n_symbols), 2):
            for v in short:
                if a.output_ids[a.run([*u, x, y, *v])] != a.output_ids[a.run([*u, y, x, *v])]:
                    return False
    return True


@given(automata(max_states=4, max_symbols=3, max_labels=3))
def test_commutativity_matches_brute_force(a: Automaton) -> None:
    assert is_commutative(a) == _brute_commutative(a)
    witness = commutation_witness(a)
    if witness is not None:
        ab, ba = a.encode(list(witness.word_ab)), a.encode(list(witness.word_ba))
        assert sorted(ab.tolist()) == sorted(ba.tolist())
        assert a.output(a.run(ab)) == witness.output_ab != witness.output_ba
        assert a.output(a.run(ba)) == witness.output_ba


def test_non_minimal_machine_with_commutative_language() -> None:
    # Two letters that do not commute on a redundant copy of a state, while
    # the output is constant: commutative language (docs/theory.md).
    a = Automaton(delta=np.array([[1, 1, 1], [2, 2, 2]]), symbols=("a", "b"), initial=0,
                  outputs=(True, True, True))
    assert a.delta[1, a.delta[0, 0]] != a.delta[0, a.delta[1, 0]]
    assert is_commutative(a)


@given(st.lists(st.integers(0, 5), min_size=1, max_size=6))
def test_index_and_period_brute_force(values: list[int]) -> None:
    f = np.array([min(v, len(values) - 1) for v in values])
    t, p = index_and_period(f)
    powers = [np.arange(len(f))]
    for _ in range(2 * len(f) + 2):
        powers.append(f[powers[-1]])
    pairs = [(i, j - i) for j in range(len(powers)) for i in range(j)
             if np.array_equal(powers[i], powers[j])]
    assert (t, p) == min(pairs)
    assert min(q for _, q in pairs) == p


@given(commutative_machines())
def test_count_table_is_the_smallest_description(a: Automaton) -> None:
    table = count_table(a)
    m = a.minimal()
    # The output must be a function of the count classes.
    rng = np.random.default_rng(0)
    for _ in range(30):
        w = rng.integers(0, a.n_symbols, size=int(rng.integers(0, 12)))
        counts = np.bincount(w, minlength=a.n_symbols)
        assert table.labels[table.label_index(counts)] == a.output(a.run(w))
    # Brute force over count vectors: the least period and threshold for
    # which f(n) = f(n + p e_a) for all n with n_a >= t.  The machines are
    # built with thresholds <= 2 and periods <= 3, so counts 3..8 hold two
    # full periods and counts up to 8 + 6 cover every shift tried.
    box, shift = 9, 6
    state: dict[tuple[int, ...], int] = {}
    assert m.initial is not None
    for n in itertools.product(range(box + shift), repeat=m.n_symbols):
        # Commutative: drop one letter of the last non-zero count.
        last = max((j for j, k in enumerate(n) if k), default=None)
        if last is None:
            state[n] = m.initial
        else:
            prev = tuple(k - (j == last) for j, k in enumerate(n))
            state[n] = int(m.delta[last, state[prev]])
    grid = list(itertools.product(range(box), repeat=m.n_symbols))
    for a_i, letter in enumerate(table.letters):
        def works(t: int, p: int, a_i: int = a_i) -> bool:
            return all(m.output_ids[state[n]] == m.output_ids[
                state[tuple(k + p * (j == a_i) for j, k in enumerate(n))]]
                for n in grid if n[a_i] >= t)
        p = min(q for q in range(1, shift + 1) if works(3, q))
        t = min(s for s in range(box) if works(s, p))
        assert (letter.threshold, letter.period) == (t, p)


def test_count_table_rejects_non_commutative_and_semiautomata() -> None:
    contains_ab = Automaton(delta=np.array([[1, 1, 2], [0, 2, 2]]), symbols=("a", "b"),
                            initial=0, outputs=(False, False, True))
    with pytest.raises(SpecError, match="not commutative"):
        count_table(contains_ab)
    with pytest.raises(SpecError):
        count_table(contains_ab.replace(initial=None, outputs=None))



def test_count_table_refuses_more_types_than_its_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    """Modular addition m = 10: letter a has period 10/gcd(a, 10) and threshold 0 (the
    group Z_10 acts), so it has Π_a 10/gcd(a, 10) count types, computed here from gcds
    rather than from the table.  Above the limit: a typed error naming the count, and no
    table (enumerating 12.5 million types was the hang this guards).  Lowering the limit
    shows the test is about the count: mod 5 (5^4 types) passes at 625 and fails at 624."""
    import math

    import fsmnet.algebra.commutative as commutative
    from fsmnet import expressivity
    from fsmnet.train.data import task_automaton

    types = math.prod(10 // math.gcd(a, 10) for a in range(10))
    assert types > commutative.COUNT_TYPE_LIMIT
    with pytest.raises(commutative.CountTableTooLarge, match=f"{types} count types"):
        count_table(task_automaton("modadd:10"))
    # The construction goes through the group's characters instead (test_group_characters).
    (result,) = expressivity("modadd:10", ["bilinear-r2"])
    assert result.verdict == "possible"
    mod5 = task_automaton("modadd:5")
    monkeypatch.setattr(commutative, "COUNT_TYPE_LIMIT", 5 ** 4)
    assert count_table(mod5).table.size == 5 ** 4
    monkeypatch.setattr(commutative, "COUNT_TYPE_LIMIT", 5 ** 4 - 1)
    with pytest.raises(commutative.CountTableTooLarge):
        count_table(mod5)
