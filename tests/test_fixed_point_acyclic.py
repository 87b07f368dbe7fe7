"""Behavioural merges for fixed-point networks on partially ordered automata
(fsmnet.constructions.fixed_point_acyclic) and the potential cones that prove them
(fsmnet.proofs.cones.potential_cones).

Independent references: the exact reference evaluator (Fractions) on every word up to
length 6 and on long random words, against the automaton's own run; numpy's
eigenvalues against the docstring's radius formula; the stdlib checker on the
certificates.
"""

from __future__ import annotations

import itertools
import json
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples

import fsmnet
from fsmnet.automata import Automaton
from fsmnet.constructions.fixed_point_acyclic import (
    compile_fixed_point_acyclic,
    cycle_of,
    default_epsilon,
)
from fsmnet.errors import NotExpressible
from fsmnet.nets.fixed_point import converges_exactly, spectral_radius
from fsmnet.proofs.checker import check_certificate
from fsmnet.proofs.verifier import verify


def _runs_right(net, a: Automaton, words) -> bool:
    for w in words:
        labels = net.label_trace(list(w), exact=True)
        q = a.initial
        for t in range(len(w) + 1):
            if net.labels[labels[t]] != a.labels[a.output_ids[q]]:
                return False
            if t < len(w):
                q = int(a.delta[w[t], q])
    return True


@st.composite
def partially_ordered(draw):
    """Random automata whose letters only move states up 0 < 1 < ... < n-1 (or stay)."""
    n = draw(st.integers(2, 5))
    k = draw(st.integers(1, 3))
    delta = [[draw(st.integers(q, n - 1)) for q in range(n)] for _ in range(k)]
    outputs = [draw(st.integers(0, 2)) for _ in range(n)]
    return Automaton(delta=np.array(delta), symbols=[f"s{i}" for i in range(k)], initial=0,
                     outputs=outputs)


@settings(max_examples=examples(10))
@given(partially_ordered(), st.integers(0, 2**31 - 1))
def test_the_network_follows_the_automaton_on_every_word(raw, seed):
    a = raw.minimal()
    assert cycle_of(a) is None  # minimization keeps the order
    # No merge: nothing behavioural to test.
    assume(any(len(set(row.tolist())) < a.n_states for row in a.delta))
    net = compile_fixed_point_acyclic(a)
    short = [w for length in range(7) for w in itertools.product(range(a.n_symbols),
                                                                 repeat=length)]
    rng = np.random.default_rng(seed)
    long = [rng.integers(0, a.n_symbols, 300).tolist() for _ in range(3)]
    assert _runs_right(net, a, short[:400] + long)
    result = verify(a, net)
    assert result.verdict == "proved", result.details  # the potential cones apply


@pytest.mark.parametrize("spec", ["latch:4", "starfree", "atleast:2", "contains:ab",
                                  "atleast:5"])
def test_named_tasks_compile_prove_and_check(spec, tmp_path):
    net = fsmnet.compile(spec, "fixed-point")
    assert net.options["construction"] == "behavioural merge"
    path, cert = tmp_path / "net.safetensors", tmp_path / "cert.json"
    net.save(path)
    result = verify(spec, net, certificate=str(cert), network_path=str(path))
    assert result.verdict == "proved" and result.method == "cone-invariant"
    summary = check_certificate(json.loads(cert.read_text()), str(path))
    assert summary.startswith("valid: cone invariant")


def test_radius_is_the_docstring_formula():
    a = fsmnet.load("latch:4").minimal()
    net = compile_fixed_point_acyclic(a)
    eps = default_epsilon(a.n_states)
    want = float((1 - eps) / (1 + eps))  # every letter moves some state here
    for s in range(a.n_symbols):
        assert spectral_radius(net, s) == pytest.approx(want, rel=1e-9)
        assert converges_exactly(net, s)


def test_a_wrong_readout_is_refuted_not_proved():
    a = fsmnet.load("latch:4").minimal()
    net = compile_fixed_point_acyclic(a)
    readout = np.array(net.params["readout"])
    mutant = net.with_params(readout=readout[[1, 0, *range(2, len(readout))]])
    result = verify(a, mutant)
    assert result.verdict == "refuted" and result.counterexample is not None


def test_cycles_and_large_epsilon_are_refused():
    cyclic = Automaton(delta=np.array([[1, 2, 0], [0, 0, 2]]), symbols=["a", "b"], initial=0,
                       outputs=[0, 1, 2])
    cycle = cycle_of(cyclic)
    assert cycle is not None and len(cycle) >= 2
    edges = {(q, int(row[q])) for row in cyclic.delta for q in range(3)}
    assert all((p, q) in edges for p, q in zip(cycle, cycle[1:] + cycle[:1]))  # a real cycle
    with pytest.raises(NotExpressible, match="cycle"):
        compile_fixed_point_acyclic(cyclic)
    with pytest.raises(NotExpressible, match="must lie in"):
        compile_fixed_point_acyclic(fsmnet.load("latch:4").minimal(), epsilon=Fraction(1, 4))


def test_a_longer_chain_needs_the_finer_potential_base():
    # atleast:10, 11 states, a chain of height 10: with β in steps of 1/8 the bound
    # K = β^10 passed 2 and the readout check failed; the least k/1024 keeps K < 2.
    net = fsmnet.compile("atleast:10", "fixed-point")
    result = verify("atleast:10", net)
    assert result.verdict == "proved" and result.method == "cone-invariant"


def test_above_the_default_limit_it_is_refused_at_once():
    from fsmnet.constructions.fixed_point_limits import LIMITS

    spec = f"atleast:{LIMITS.acyclic_states + 3}"
    with pytest.raises(NotExpressible, match="above 16"):
        fsmnet.compile(spec, "fixed-point")


@pytest.mark.slow
def test_the_api_builds_and_proves_atleast_20():
    a = fsmnet.load("atleast:20").minimal()
    assert verify(a, compile_fixed_point_acyclic(a)).verdict == "proved"
