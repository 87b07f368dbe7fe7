"""One-hot order cascades for partially ordered automata
(fsmnet.constructions.minmax_threshold.onehot_order_spec).

Independent references: the automaton's own run (a plain loop over its table) on
random words, the exact product proof and the stdlib checker, the Numba engine.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import fsmnet
from fsmnet.automata import Automaton
from fsmnet.constructions.minmax_cascade import cascade_network
from fsmnet.constructions.minmax_threshold import (
    onehot_order_spec,
    threshold_spec,
    topological_order,
)
from fsmnet.proofs.checker import check_certificate
from fsmnet.proofs.verifier import verify


def _extensive(n: int, seed: int, letters: int = 3) -> Automaton:
    """x -> min(x + 1, n - 1), then letters x -> f(x) >= x drawn at random (not
    monotone), outputs = states: the machines the holonomy cascade could not reach
    past 40 states."""
    rng = np.random.default_rng(seed)
    rows = [[min(x + 1, n - 1) for x in range(n)]]
    rows += [[int(rng.integers(x, n)) for x in range(n)] for _ in range(letters - 1)]
    return Automaton(delta=np.array(rows), symbols=[f"s{i}" for i in range(letters)],
                     initial=0, outputs=[f"q{x}" for x in range(n)], name=f"extensive:{n}")


def _expected(a: Automaton, word) -> np.ndarray:
    q, out = a.initial, [a.output_ids[a.initial]]
    for x in word:
        q = int(a.delta[int(x), q])
        out.append(a.output_ids[q])
    return np.array(out)


@given(n=st.integers(2, 12), k=st.integers(1, 3), seed=st.integers(0, 2**32 - 1),
       labels=st.integers(1, 3), resets=st.integers(0, 2))
def test_partially_ordered_machines_compile_agree_and_prove(n, k, seed, labels, resets):
    rng = np.random.default_rng(seed)
    rows = [[int(rng.integers(x, n)) for x in range(n)] for _ in range(k)]
    rows += [[int(rng.integers(0, n))] * n for _ in range(resets)]  # constant letters
    raw = Automaton(delta=np.array(rows), symbols=[f"s{i}" for i in range(len(rows))], initial=0,
                    outputs=[int(rng.integers(0, labels)) for _ in range(n)])
    a = raw.minimal()  # a quotient of a partially ordered machine is partially ordered
    spec = onehot_order_spec(a)
    if a.n_states < 2:
        assert spec is None
        return
    assert spec is not None
    net = cascade_network(spec, a, arch="minmax-scalar")
    assert net.options["reachable_coordinates"] == a.n_states  # one tuple per state
    word = rng.integers(0, a.n_symbols, 300)
    assert np.array_equal(net.label_trace(word), _expected(a, word))
    assert verify(a, net).verdict == "proved"


@pytest.mark.slow  # a scale check; the property above covers the construction
def test_a_200_state_random_acyclic_machine_compiles_proves_and_checks(tmp_path):
    a = _extensive(200, 1).minimal()
    assert threshold_spec(a) is None  # its letters are not monotone along any order tried
    net = fsmnet.compile(a, "minmax-scalar")
    assert net.options["construction"] == "one-hot order"
    assert net.options["units"] == a.n_states - 1
    path, cert = tmp_path / "x.safetensors", tmp_path / "x.json"
    net.save(path)
    assert verify(a, net, certificate=str(cert), network_path=str(path)).verdict == "proved"
    assert check_certificate(json.loads(cert.read_text()), str(path)).startswith("valid")
    word = np.random.default_rng(2).integers(0, a.n_symbols, 2_000)
    assert np.array_equal(net.label_trace(word), _expected(a, word))
    pytest.importorskip("numba")
    from fsmnet.gpu import evaluate

    res = evaluate(net, word, backend="numba")
    assert np.array_equal(np.asarray(res.outputs), _expected(a, word)[1:])


def test_forward_moves_and_a_reset_to_the_start_compile_and_prove():
    # A cycle through the reset: not partially ordered, still aperiodic (a word with
    # the reset in it is a constant map). The holonomy cascade stopped past 60 states.
    a = _extensive(60, 3)
    rows = np.vstack([np.asarray(a.delta), np.zeros((1, 60), dtype=np.int64)])
    a = Automaton(delta=rows, symbols=[*a.symbols, "reset"], initial=0,
                  outputs=list(a.outputs)).minimal()
    assert topological_order(a) is None
    net = fsmnet.compile(a, "minmax-scalar")
    assert net.options["construction"] == "one-hot order"
    word = np.random.default_rng(5).integers(0, a.n_symbols, 1_000)
    assert np.array_equal(net.label_trace(word), _expected(a, word))
    assert verify(a, net).verdict == "proved"


def test_a_letter_that_splits_the_later_states_is_refused():
    # b is no reset (1 -> 1, 2 -> 0) and closes the cycle 0 -> 1 -> 2 -> 0 with a:
    # no order of the states has every non-constant letter moving forward.
    a = Automaton(delta=np.array([[1, 2, 2], [0, 1, 0]]), symbols=["a", "b"], initial=0,
                  outputs=[0, 1, 2])
    assert onehot_order_spec(a) is None


def test_a_flipped_readout_is_refuted():
    a = _extensive(30, 4).minimal()
    net = fsmnet.compile(a, "minmax-cascade")
    readout = np.array(net.params["readout"])
    readout[1] = (readout[1] + 1) % len(net.labels)
    result = verify(a, net.with_params(readout=readout))
    assert result.verdict == "refuted" and result.counterexample is not None


def test_cycles_of_moves_have_no_order_but_resets_are_allowed():
    mod3 = fsmnet.load("modcount:3").minimal()  # a letter cycles 0 -> 1 -> 2 -> 0
    assert topological_order(mod3) is None and onehot_order_spec(mod3) is None
    flipflop = fsmnet.load("flipflop").minimal()  # set/reset: 0 -> 1 -> 0, by constants
    assert topological_order(flipflop) is None
    assert topological_order(flipflop, skip_constant=True) is not None
    assert onehot_order_spec(flipflop) is not None
    latch = fsmnet.load("latch:4").minimal()
    order = topological_order(latch)
    assert order is not None and order[0] == latch.initial
    rank = {q: i for i, q in enumerate(order)}
    assert all(rank[int(row[q])] >= rank[q] for row in latch.delta for q in range(4))
