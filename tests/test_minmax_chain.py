"""Congruence-chain cascades (fsmnet/constructions/minmax_chain.py).

Independent sources:
- the chain's congruence and refinement conditions are checked here by brute
  force over all pairs of states, not by the union-find that built them;
- the expected outputs come from the automaton's own table (``Automaton.trace``)
  on every word up to length 6;
- random cascades of reset units (tests/aperiodic_corpus.py) are aperiodic by
  construction (a cascade product of identity-reset semigroups);
- the up/down counter has no congruence at all: brute force over all merges.
"""

from __future__ import annotations

import itertools
import json

import numpy as np
from aperiodic_corpus import reset_cascade
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples

import fsmnet
from fsmnet.automata import Automaton
from fsmnet.constructions.minmax_cascade import cascade_network
from fsmnet.constructions.minmax_chain import chain_spec, congruence_chain
from fsmnet.proofs.checker import check_certificate
from fsmnet.proofs.verifier import verify


def _is_congruence(delta: np.ndarray, part) -> bool:
    n = len(part)
    return all(part[int(row[p])] == part[int(row[q])]
               for p in range(n) for q in range(n) if part[p] == part[q] for row in delta)


def _refines(fine, coarse) -> bool:
    return all(coarse[p] == coarse[q] for p in range(len(fine)) for q in range(len(fine))
               if fine[p] == fine[q])


def _agrees(a: Automaton, net, length: int = 6) -> bool:
    for k in range(length + 1):
        for w in itertools.product(range(a.n_symbols), repeat=k):
            word = np.array(w, dtype=np.int64)
            if int(net.label_trace(word)[-1]) != int(a.output_ids[a.trace(word)[-1]]):
                return False
    return True


@settings(max_examples=examples(10))
@given(sizes=st.lists(st.integers(2, 3), min_size=2, max_size=4),
       letters=st.integers(2, 3), seed=st.integers(0, 10**6))
def test_chain_cascades_of_reset_cascades_are_exact(sizes, letters, seed) -> None:
    a = reset_cascade(sizes, letters, seed)
    delta = np.asarray(a.delta)
    spec = chain_spec(a, scalar=True)
    # Not every minimal machine keeps a chain (the holonomy cascade is used).
    assume(spec is not None)
    chain = congruence_chain(delta, lambda coarse, fine: True)
    assert chain is not None and chain[-1] == tuple(range(a.n_states))
    for coarse, fine in zip([(0,) * a.n_states, *chain], chain):
        assert _is_congruence(delta, fine) and _refines(fine, coarse)
    net = cascade_network(spec, a, arch="minmax-scalar")
    assert net.options["reachable_coordinates"] == a.n_states  # an injective code
    assert set(net.options["unit_kinds"]) == {"scalar"}
    assert _agrees(a, net)
    assert verify(a, net).verdict == "proved"


def test_a_42_state_reset_cascade_compiles_to_n_tuples(tmp_path) -> None:
    # Its holonomy cascade reaches 16,109 tuples and its product cascade 1,154
    # (docs/performance.md); the chain has one binary level per step, 42 tuples.
    a = reset_cascade([2, 3, 3, 3, 3], 5, 0)
    assert a.n_states == 42
    net = fsmnet.compile(a, "minmax-scalar")
    assert net.options["construction"] == "congruence chain"
    assert net.options["reachable_coordinates"] == 42
    words = np.random.default_rng(4).integers(0, a.n_symbols, (3, 400))
    for word in words:
        assert np.array_equal(net.label_trace(word), a.output_ids[a.trace(word)])
    cert = tmp_path / "cert.json"
    assert verify(a, net, certificate=str(cert)).verdict == "proved"
    assert check_certificate(json.loads(cert.read_text())).startswith("valid")
    # A wrong readout entry (one reached code's label changed) is refuted.
    readout = np.array(net.params["readout"], copy=True)
    readout[0] = (readout[0] + 1) % len(a.labels)
    assert verify(a, net.with_params(readout=readout)).verdict == "refuted"


def test_the_up_down_counter_has_no_chain() -> None:
    k = 6
    a = Automaton(delta=np.array([[min(x + 1, k) for x in range(k + 1)],
                                  [max(x - 1, 0) for x in range(k + 1)]]),
                  symbols=["u", "d"], states=[f"c{x}" for x in range(k + 1)], initial=0,
                  outputs=[x == k for x in range(k + 1)], name="updown6").minimal()
    delta = np.asarray(a.delta)
    # Brute force: merging any two states and closing under the letters gives
    # the universal relation, so only the trivial congruences exist.
    for p, q in itertools.combinations(range(a.n_states), 2):
        part = list(range(a.n_states))
        changed = True
        part[q] = part[p]
        while changed:
            changed = False
            for x, y in itertools.combinations(range(a.n_states), 2):
                if part[x] == part[y]:
                    for row in delta:
                        i, j = part[int(row[x])], part[int(row[y])]
                        if i != j:
                            part = [i if c == j else c for c in part]
                            changed = True
        assert len(set(part)) == 1
    assert chain_spec(a, scalar=True) is None
