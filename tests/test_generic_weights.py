"""Theorem G (docs/theory.md §5): generic-weight linear networks follow at most two rays.

Expected values come from three independent places: the hand derivation in
docs/theory.md (mod m cycles, latch values held by a no-op letter), a brute-force
simulation of words written here (no monoid, no minimization), and float64 runs of
random real matrices (the lemma the theorem rests on)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from certify_helpers import perturb
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples

import fsmnet
from fsmnet.algebra.generic_weights import generic_weights_obstruction
from fsmnet.automata import Automaton


@pytest.mark.parametrize(("spec", "reason"), [
    ("modadd:3", "output cycle of length 3 ≥ 3"),
    ("modadd:5", "output cycle of length 5 ≥ 3"),
    ("latch:4", "more than two eventual behaviours"),
])
def test_the_theorems_examples_are_obstructed(spec: str, reason: str) -> None:
    """mod m: the letter 1 cycles the outputs with period m; latch 4: a no-op
    letter holds four values (docs/theory.md, §5, by hand)."""
    report = generic_weights_obstruction(fsmnet.load(spec))
    assert report.complete
    assert report.obstruction is not None
    assert report.obstruction.reason == reason
    assert "Theorem G" in report.obstruction.describe()


def test_parity_passes_the_necessary_condition() -> None:
    """Parity (a negative dominant eigenvalue; its letters are permutations, so no word
    merges its two states): real-diagonal nets with a dominant channel track it on an
    open set of weights."""
    report = generic_weights_obstruction(fsmnet.load("parity"))
    assert report.complete and report.obstruction is None


@pytest.mark.parametrize(("spec", "word", "merge"), [("flipflop", ("read",), "reset"),
                                                     ("contains:ab", ("a",), "b")])
def test_a_word_that_merges_two_behaviours_is_an_obstruction(spec: str, word: tuple[str, ...],
                                                            merge: str) -> None:
    """By hand (docs/theory.md §5): flip-flop's no-op letter holds two outputs and
    "set" or "reset" sends both held states to one state; in contains:ab, along aⁿ the
    states "a seen" and "ab seen" keep two outputs and b sends both to "ab seen"."""
    report = generic_weights_obstruction(fsmnet.load(spec))
    assert report.complete and report.obstruction is not None
    assert report.obstruction.word == word
    assert report.obstruction.reason == f"two eventual behaviours merged by the word {merge}"


@settings(max_examples=examples(40), deadline=None)
@given(seed=st.integers(0, 2**31 - 1))
def test_random_real_flipflop_networks_fail_on_a_long_word(seed: int) -> None:
    """The merge argument on float64 runs of random real weights (the lemma's generic
    case): after readⁿ the set and reset states sit near ±v, so after one more "set"
    and readᵐ their labels differ, though the automaton gives both 1: every such
    network is wrong on one of four words."""
    rng = np.random.default_rng(seed)
    a_set, a_reset, a_read = (rng.standard_normal((3, 3)) for _ in range(3))
    vals = np.linalg.eigvals(a_read)
    order = np.argsort(-np.abs(vals))
    assume(abs(vals[order[0]].imag) < 1e-9 and abs(vals[order[1]]) < 0.7 * abs(vals[order[0]]))
    h0, readout = rng.standard_normal(3), rng.standard_normal((2, 3))

    def label(*mats: np.ndarray) -> int:
        h = h0
        for m in mats:
            h = m @ h
            h = h / np.abs(h).max()
        return int(np.argmax(readout @ h))

    reads = [a_read] * 60
    after_set, after_reset = label(a_set, *reads), label(a_reset, *reads)
    again_set = label(a_set, *reads, a_set, *reads)
    again_reset = label(a_reset, *reads, a_set, *reads)
    right = after_set != after_reset and again_set == again_reset == after_set
    assert not right


def _tail(delta: np.ndarray, out: list[int], q: int, word: tuple[int, ...], n_states: int
          ) -> tuple[int, ...]:
    """Outputs at n = N .. N + 2·lcm-free window along q·u^n, N past every tail:
    a plain simulation of the automaton, one letter at a time."""
    def power(q: int, n: int) -> int:
        for _ in range(n):
            for x in word:
                q = int(delta[x][q])
        return q

    start = n_states  # every orbit of u's transformation is periodic after Q steps
    window = 2 * 720  # a multiple of every cycle length for Q ≤ 6
    q = power(q, start)
    seq = []
    for _ in range(window):
        seq.append(out[q])
        q = power(q, 1)
    return tuple(seq)


def _breaks(a: Automaton, word: tuple[int, ...]) -> bool:
    """Whether the eventual behaviours of the reachable states along ``word``^n break
    the two-ray pattern, by simulating every reachable state."""
    out = [int(a.output_ids[q]) for q in range(a.n_states)]
    tails = {_tail(a.delta, out, q, word, a.n_states) for q in a.reachable_states()}
    periods = {next(d for d in (1, 2, 3, 4, 5, 6, 720) if t[d:] == t[:-d]) for t in tails}
    alternations_agree = all(t[1:] + t[:1] in tails for t in tails) or len(tails) == 1
    if not ((periods <= {1} and len(tails) <= 2)
            or (periods == {2} and len(tails) <= 2 and alternations_agree)):
        return True
    return _merged(a, word, out)


def _merged(a: Automaton, word: tuple[int, ...], out: list[int]) -> bool:
    """Whether some word x sends two states of different tails along ``word``^n, taken at
    the same large n, to one state: every x up to the pair bound Q(Q−1)/2, by brute force."""
    n = a.n_states

    def after(q: int, letters: tuple[int, ...]) -> int:
        for x in letters:
            q = int(a.delta[x][q])
        return q

    at = {q: after(q, word * n) for q in a.reachable_states()}
    for q1, q2 in itertools.combinations(sorted(at), 2):
        if _tail(a.delta, out, q1, word, n) == _tail(a.delta, out, q2, word, n):
            continue
        for size in range(1, max(1, n * (n - 1) // 2) + 1):
            if any(after(at[q1], x) == after(at[q2], x)
                   for x in itertools.product(range(a.n_symbols), repeat=size)):
                return True
    return False


def _brute_violation(a: Automaton, max_len: int) -> tuple[int, ...] | None:
    """The first word of length ≤ max_len that breaks the pattern, if any."""
    return next((word for n in range(1, max_len + 1)
                 for word in itertools.product(range(a.n_symbols), repeat=n)
                 if _breaks(a, word)), None)


automata = st.builds(
    lambda n, k, seed, classes: fsmnet.load(f"random:n={n},k={k},seed={seed},classes={classes}"),
    st.integers(2, 5), st.integers(1, 2), st.integers(0, 10_000), st.integers(2, 3))


@given(automata)
@settings(max_examples=examples(40))
def test_a_violation_found_by_brute_force_is_found_by_the_monoid_search(a: Automaton) -> None:
    word = _brute_violation(a, max_len=3)
    report = generic_weights_obstruction(a)
    assume(report.complete)
    if word is not None:
        assert report.obstruction is not None


@given(automata)
@settings(max_examples=examples(40))
def test_every_reported_obstruction_is_confirmed_by_simulation(a: Automaton) -> None:
    report = generic_weights_obstruction(a)
    assume(report.obstruction is not None)
    word = tuple(a.symbols.index(s) for s in report.obstruction.word)
    assert _breaks(a, word)


@given(st.integers(0, 2**31), st.integers(2, 4))
@settings(max_examples=examples(30))
def test_powers_of_a_random_real_matrix_end_in_at_most_two_labels(seed: int, labels: int) -> None:
    """The lemma behind Theorem G, on random (generic) real matrices: along A^n h
    the label of every start h settles to one of two constants (positive dominant
    eigenvalue) or alternates between the same two labels (negative one)."""
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((4, 4))
    eig = np.linalg.eigvals(a)
    order = np.argsort(-np.abs(eig))
    top, second = eig[order[0]], eig[order[1]]
    assume(abs(top.imag) < 1e-12 and abs(top) > 1.2 * abs(second))  # a real, well-separated top
    readout = rng.standard_normal((labels, 4))
    tails = set()
    for h in rng.standard_normal((6, 4)):
        seq = []
        for n in range(400):
            h = a @ h
            h /= np.abs(h).max()
            if n >= 396:
                seq.append(int(np.argmax(readout @ h)))
        tails.add(tuple(seq))
    if top.real > 0:
        assert all(len(set(t)) == 1 for t in tails) and len(tails) <= 2
    else:
        assert all(t[0] == t[2] and t[1] == t[3] for t in tails)
        assert len({frozenset(t) for t in tails}) == 1


def test_a_perturbed_mod3_network_is_refuted_and_the_theorem_is_named() -> None:
    """A compiled bilinear-full mod-3 net, every weight moved by 1e-2: generic, so by
    Theorem G wrong at some length. certify must not say "proved"; it refutes with a
    word confirmed by the exact reference evaluator, and says why no retraining of
    such a net can help. A perturbed parity net (the condition holds) gets no note."""
    net = perturb(fsmnet.compile("modadd:3", arch="bilinear-full"), 1e-2, 0)
    result = fsmnet.certify("modadd:3", net)
    assert result.verdict == "refuted"
    word = result.counterexample.word
    automaton = fsmnet.load("modadd:3")
    state = automaton.run([automaton.symbol_index(s) for s in word])
    assert str(net.output_of(word, exact=True)) != str(automaton.output(state))
    assert "Theorem G" in result.to_json()["theorem"]
    parity = perturb(fsmnet.compile("parity", arch="bilinear-full"), 1e-2, 0)
    assert fsmnet.certify("parity", parity).to_json()["theorem"] is None
