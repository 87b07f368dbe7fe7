"""Belief-tracking proof and certificate for the PFSA-SR bilinear construction.

Independent sources: the exact belief (fsmnet.automata.pfsa, itself checked
against brute-force path enumeration in test_pfsa_model) run against the
network's own exact semantics on every short word; the stdlib checker.
"""

from __future__ import annotations

import copy
import itertools
from fractions import Fraction as F

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from fsmnet.automata.pfsa import PFSA, ZeroProbability
from fsmnet.automata.pfsa_families import cups
from fsmnet.constructions.pfsa_bilinear import compile_pfsa_bilinear
from fsmnet.nets.linear import to_fractions
from fsmnet.proofs.checker import CertificateError, check_certificate
from fsmnet.proofs.pfsa_proof import belief_certificate, prove_belief


def exact_network_state(net, word):
    sem = net.semantics
    h = sem.initial_state(net, True)
    for a in word:
        h = sem.step(net, h, a, True)
    return h


@pytest.mark.parametrize("n", [2, 3])
def test_network_state_is_the_belief_on_every_short_word(n):
    m = cups(n)
    net = compile_pfsa_bilinear(m)
    for length in range(4 if n == 3 else 6):
        for word in itertools.product(range(m.n_symbols), repeat=length):
            h = exact_network_state(net, word)
            try:
                b = m.belief(word)
            except ZeroProbability:
                assert not any(h)
                continue
            total = sum(h, F(0))
            assert tuple(x / total for x in h) == b
            assert net.label_trace(list(word), exact=True)[-1] == int(np.argmax(
                np.array([float(x) for x in b])))  # first most likely state


def test_proved_and_certificate_accepted(tmp_path):
    m = cups(3)
    net = compile_pfsa_bilinear(m)
    path = tmp_path / "net.safetensors"
    net.save(path)
    proof = prove_belief(m, net)
    assert proof.verdict == "proved"
    cert = belief_certificate(m, net, network_path=path)
    assert "valid: belief tracking" in check_certificate(cert, str(path))


def _tamper(cert, how):
    c = copy.deepcopy(cert)
    if how == "matrix":
        c["network"]["matrices"][1][0][0] = "1/3"
    elif how == "kernel-row":
        c["pfsa"]["kernel"][1][0][0] = "3/4"      # row no longer sums to 1
    elif how == "kernel-consistent":
        # a different but valid distribution: the matrices no longer match it
        c["pfsa"]["kernel"][1][0] = ["1/4", "3/4"] + ["0"] * 4
    elif how == "reveal":
        c["pfsa"]["reveals"][-1] = [0, 1, 2, 3, 4, 5]
    elif how == "reveal-unknown":
        c["pfsa"]["reveals"][-1] = [9]
    elif how == "h0":
        c["network"]["h0"] = ["0", "1"] + ["0"] * 4
    elif how == "readout":
        c["network"]["readout"][0][1] = "1"
    elif how == "labels":
        c["network"]["labels"] = list(reversed(c["network"]["labels"]))
    elif how == "float":
        c["network"]["h0"][0] = 1.0
    return c


@pytest.mark.parametrize("how", ["matrix", "kernel-row", "kernel-consistent", "reveal",
                                 "reveal-unknown", "h0", "readout", "labels", "float"])
def test_tampered_certificates_rejected(how):
    m = cups(3)
    cert = belief_certificate(m, compile_pfsa_bilinear(m))
    with pytest.raises(CertificateError):
        check_certificate(_tamper(cert, how))


def test_network_file_digest_checked(tmp_path):
    m = cups(2)
    net = compile_pfsa_bilinear(m)
    path = tmp_path / "net.safetensors"
    net.save(path)
    cert = belief_certificate(m, net, network_path=path)
    other = tmp_path / "other.safetensors"
    net.with_params(h0=np.array([2.0, 0.0])).save(other)
    with pytest.raises(CertificateError, match="SHA-256"):
        check_certificate(cert, str(other))


def test_wrong_network_refuted_with_a_confirmed_word():
    m = cups(3)
    net = compile_pfsa_bilinear(m)
    w = np.array(net.params["W"])
    a = m.symbols.index("pswap01")
    w[:, :, a] = np.eye(6)                       # forgets the hidden branch
    bad = net.with_params(W=w)
    proof = prove_belief(m, bad)
    assert proof.verdict == "refuted"
    word = proof.counterexample["word"]
    assert word == ["pswap01"]                   # shortest: one hidden swap
    h = exact_network_state(bad, m.encode(word))
    assert tuple(x / sum(h) for x in h) != m.belief(word)


def test_non_binary_probabilities():
    # float64 rounds 1/3 and 2/3 by the same factor: W = alpha * T D, still proved.
    m = cups(3, "1/3")
    net = compile_pfsa_bilinear(m)
    assert net.exact is not None and not net.options["exact_weights"]
    assert to_fractions(net.params["W"])[0, 0, 1] != F(2, 3)
    assert prove_belief(m, net).verdict == "proved"
    check_certificate(belief_certificate(m, net))
    # 1/10 and 9/10 round by different factors: not proportional, not proved.
    m = cups(3, "1/10")
    proof = prove_belief(compile_pfsa_bilinear(m) and m, compile_pfsa_bilinear(m))
    assert proof.verdict in ("refuted", "unknown") and "round" in proof.reason
    if proof.verdict == "refuted":  # a confirmed word: the exact states differ
        net = compile_pfsa_bilinear(m)
        h = exact_network_state(net, m.encode(proof.counterexample["word"]))
        assert tuple(x / sum(h) for x in h) != m.belief(proof.counterexample["word"])


@st.composite
def random_pfsas(draw):
    """Small PFSA-SRs with dyadic probabilities (exact in float64) and random reveals."""
    n = draw(st.integers(2, 3))
    k = draw(st.integers(1, 3))
    kernel = []
    for _ in range(k):
        table = []
        for _ in range(n):
            cuts = sorted(draw(st.lists(st.integers(0, 4), min_size=n - 1, max_size=n - 1)))
            edges = [0, *cuts, 4]
            table.append([F(edges[i + 1] - edges[i], 4) for i in range(n)])
        kernel.append(table)
    reveals = [draw(st.sets(st.integers(0, n - 1), min_size=1)) for _ in range(k)]
    return PFSA(states=[f"q{i}" for i in range(n)], symbols=[f"s{a}" for a in range(k)],
                kernel=kernel, reveals=reveals, initial=draw(st.integers(0, n - 1)))


@given(random_pfsas(), st.data())
def test_random_pfsas_are_proved_and_track_the_belief(m, data):
    net = compile_pfsa_bilinear(m)
    assert prove_belief(m, net).verdict == "proved"
    check_certificate(belief_certificate(m, net))
    word = data.draw(st.lists(st.integers(0, m.n_symbols - 1), max_size=12))
    h = exact_network_state(net, word)
    try:
        b = m.belief(word)
    except ZeroProbability:
        assert not any(h)
        return
    assert tuple(x / sum(h) for x in h) == b
