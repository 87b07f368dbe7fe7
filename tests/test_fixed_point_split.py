"""fixed-point above 32 states by a subdirect split into two quotients
(fsmnet.constructions.fixed_point_split).

Independent references: the exact product proof and the stdlib checker; the exact
reference evaluator against the automaton on random words; the group orders (A_5:
60 = 5 · 12, S_5: 120 = 6 · 20) for the quotient sizes.
"""

from __future__ import annotations

import json
from fractions import Fraction

import numpy as np
import pytest
from trace_oracle import assert_follows_automaton

import fsmnet
from fsmnet.automata import Automaton
from fsmnet.constructions.fixed_point_split import compile_fixed_point_split
from fsmnet.errors import NotExpressible
from fsmnet.nets.fixed_point import converges_exactly
from fsmnet.proofs.checker import check_certificate
from fsmnet.proofs.verifier import verify


@pytest.fixture(scope="module")
def a5_net():
    return fsmnet.compile("alternating:5,gens", "fixed-point")


def test_a5_splits_into_5_and_12_classes_and_is_proved(a5_net, tmp_path):
    net = a5_net
    assert net.options["construction"] == "subdirect split"
    assert sorted(net.options["quotients"]) == [5, 12]  # A4 and C5 cosets: 5 · 12 = 60
    assert net.hidden_size == sum(net.options["blocks"]) == 17  # even letters: no sign channel
    path, cert = tmp_path / "a5.safetensors", tmp_path / "a5.json"
    net.save(path)
    result = verify("alternating:5,gens", net, certificate=str(cert), network_path=str(path))
    assert result.verdict == "proved" and result.details["network_states"] == 60
    assert check_certificate(json.loads(cert.read_text()), str(path)).startswith("valid")


@pytest.mark.slow
def test_the_iteration_is_block_diagonal_and_each_block_converges(a5_net):
    # Schur-Cohn on the whole 17 x 17 matrix takes minutes; M = I - ΛA⁻¹ is exactly
    # block diagonal (Q is), so its spectrum is the blocks' union, and each block's
    # radius is proved by compiling that quotient alone.
    sizes = a5_net.options["blocks"]
    starts = np.cumsum([0, *sizes])
    exact_q = a5_net.exact["Q"]
    for s in range(len(a5_net.symbols)):
        for i in range(a5_net.hidden_size):
            for j in range(a5_net.hidden_size):
                same = np.searchsorted(starts, i, "right") == np.searchsorted(starts, j, "right")
                assert same or Fraction(exact_q[s][i][j]) == 0
    a5 = fsmnet.load("alternating:5,gens").minimal()
    from fsmnet.constructions.congruences import product_split
    from fsmnet.constructions.fixed_point_split import _quotient

    split, _ = product_split(a5.delta, limit=4096)
    for part in split:
        block = fsmnet.compile(_quotient(a5, part), "fixed-point")
        assert all(converges_exactly(block, s) for s in range(len(block.symbols)))


def test_random_words_follow_the_group(a5_net):
    a = fsmnet.load("alternating:5,gens").minimal()
    rng = np.random.default_rng(0)
    for _ in range(3):
        assert_follows_automaton(a5_net, a, rng.integers(0, a.n_symbols, 200).tolist())


def test_a_swapped_readout_is_refuted(a5_net):
    readout = np.array(a5_net.params["readout"])
    mutant = a5_net.with_params(readout=readout[[1, 0, *range(2, len(readout))]])
    result = verify("alternating:5,gens", mutant)
    assert result.verdict == "refuted" and result.counterexample is not None


def test_outputs_that_merge_states_are_refused():
    a5 = fsmnet.load("alternating:5,gens").minimal()
    coarse = Automaton(delta=a5.delta, symbols=a5.symbols, initial=a5.initial,
                       outputs=[q % 2 for q in range(a5.n_states)])
    with pytest.raises(NotExpressible, match="tell the states apart"):
        compile_fixed_point_split(coarse)


def test_s5_is_over_the_default_block_limit():
    with pytest.raises(NotExpressible, match=r"\[6, 20\] classes"):
        compile_fixed_point_split(fsmnet.load("symmetric:5,gens").minimal())


@pytest.mark.slow
def test_s5_from_the_api_with_a_larger_block_limit():
    s5 = fsmnet.load("symmetric:5,gens").minimal()
    net = compile_fixed_point_split(s5, block_limit=32)
    assert sorted(net.options["quotients"]) == [6, 20]
    assert max(net.options["spectral_radius"].values()) < 1
    assert verify(s5, net).verdict == "proved"
