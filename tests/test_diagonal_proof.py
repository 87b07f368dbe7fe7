"""Count-abstraction proofs for diagonal networks (states that never close).

Soundness oracle: brute force over all words up to a length bound with the
exact reference evaluator, independent of the prover.
"""

import itertools

import numpy as np
from hypothesis import given, reject, settings
from hypothesis import strategies as st
from hypothesis_budget import examples

import fsmnet
from fsmnet.automata import Automaton
from fsmnet.errors import NotExpressible
from fsmnet.proofs.verifier import verify


@st.composite
def commutative_automata(draw):
    """Products of per-letter counters (threshold t, period p ≤ 2), random outputs."""
    k = draw(st.integers(1, 2))
    shapes = [(draw(st.integers(0, 2)), draw(st.integers(1, 2))) for _ in range(k)]
    sizes = [t + p for t, p in shapes]
    states = list(itertools.product(*[range(s) for s in sizes]))
    index = {s: i for i, s in enumerate(states)}

    def bump(c, t, p):
        return c + 1 if c + 1 < t + p else t  # counts beyond t + p - 1 wrap to t

    delta = [[index[tuple(bump(c, *shapes[a]) if b == a else c for b, c in enumerate(s))]
              for s in states] for a in range(k)]
    outputs = draw(st.lists(st.booleans(), min_size=len(states), max_size=len(states)))
    return Automaton(delta=np.array(delta), symbols=[chr(97 + a) for a in range(k)],
                     initial=0, outputs=outputs)


@given(commutative_automata(), st.sampled_from(["bilinear-positive-diag",
                                               "bilinear-real-diag"]))
def test_constructions_are_proved(a, arch) -> None:
    try:
        net = fsmnet.compile(a, arch)
    except NotExpressible:
        reject()  # the class cannot express this language: not an example
    assert verify(a, net, max_states=300).verdict == "proved"


@settings(max_examples=examples(40))
@given(commutative_automata(), st.data())
def test_mutants_are_never_proved_wrongly(shortest_disagreement, a, data) -> None:
    try:
        net = fsmnet.compile(a, "bilinear-real-diag")
    except NotExpressible:
        reject()  # the class cannot express this language: not an example
    name = data.draw(st.sampled_from(sorted(net.params)))
    arr = np.array(net.params[name])
    idx = tuple(data.draw(st.integers(0, d - 1)) for d in arr.shape)
    arr[idx] = data.draw(st.sampled_from([0.0, 0.5, -0.5, 1.0, 0.3, 2.0]))
    try:
        mutant = net.with_params(**{name: arr})
    except fsmnet.NetworkFileError:
        reject()  # structurally invalid (e.g. out of range for the class)
    result = verify(a, mutant, max_states=300)
    if result.verdict == "proved":
        assert shortest_disagreement(mutant, a.minimal(), 7) is None


def test_threshold_language_needs_count_abstraction() -> None:
    # "at least two a's" over {a, b}: the positive-diagonal states μ^n never repeat,
    # so only the count abstraction can prove it.
    a = Automaton(delta=np.array([[1, 2, 2], [0, 1, 2]]), symbols=("a", "b"), initial=0,
                  outputs=(False, False, True))
    result = verify(a, fsmnet.compile(a, "bilinear-positive-diag"), max_states=200)
    assert result.verdict == "proved" and result.method == "count-abstraction"
