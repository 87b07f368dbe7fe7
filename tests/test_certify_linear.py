"""``certify`` on perturbed compiled linear networks: proofs, refutations, partial results.

Independent routes for the expected verdicts (named per test): exhaustive words
through the exact reference evaluator, and the independent checker for proofs.
"""

from __future__ import annotations

import copy
import json

import pytest
from certify_helpers import ENDS_AB, exhaustive_agree, perturb

import fsmnet
from fsmnet.proofs.abstract.certify import certify
from fsmnet.proofs.checker import CertificateError, check_certificate


@pytest.fixture(scope="module")
def ends_ab_certs(tmp_path_factory: pytest.TempPathFactory) -> dict[float, tuple]:
    out = {}
    base = fsmnet.compile(ENDS_AB, "bilinear-full")
    for eps in (1e-6, 1e-4, 1e-2):
        net = perturb(base, eps)
        path = tmp_path_factory.mktemp("c") / "cert.json"
        out[eps] = (net, certify(ENDS_AB, net, certificate=str(path)), path)
    return out


@pytest.mark.parametrize("eps", [1e-6, 1e-4, 1e-2])
def test_definite_automaton_certifies_at_every_eps(ends_ab_certs: dict, eps: float) -> None:
    net, result, path = ends_ab_certs[eps]
    assert result.verdict == "proved" and result.method == "box-invariant"
    assert result.domain == "slice-box" and result.proved_length is None
    # independent: brute force over all 8191 words up to length 12, exactly
    assert exhaustive_agree(net, ENDS_AB, 12)
    cert = json.loads(path.read_text())
    assert check_certificate(cert).startswith("valid: slice-box")


def test_perturbed_parity_is_refuted_with_a_confirmed_word() -> None:
    # A perturbed identity letter drifts towards its dominant eigenvector: the long
    # repetition goes wrong.  Independent: the exact reference evaluator on the word.
    net = perturb(fsmnet.compile("parity", "bilinear-full"), 1e-2)
    result = certify("parity", net)
    assert result.verdict == "refuted"
    word = result.counterexample.word
    automaton = fsmnet.load("parity")
    assert net.output_of(word, exact=True) != automaton.output_of(word)
    assert result.proved_length == len(word) - 1


def test_tiny_perturbation_of_parity_is_unknown_with_a_proved_length() -> None:
    net = perturb(fsmnet.compile("parity", "bilinear-full"), 1e-6)
    result = certify("parity", net, max_pairs=600)
    assert result.verdict == "unknown" and result.method == "bounded"
    assert result.proved_length is not None and result.proved_length >= 8
    # independent: every word up to the reported length agrees exactly
    assert exhaustive_agree(net, fsmnet.load("parity"), result.proved_length)


def _mutations(cert: dict) -> list[dict]:
    """Mutations that make a claim false whatever the slack: box ends crossed, a
    successor moved to another box, φ negated, a multiplier made huge, outputs
    negated, readout rows swapped."""
    out = []
    for b, box in enumerate(cert["boxes"]):
        for j in range(len(box["lo"])):
            m = copy.deepcopy(cert)
            m["boxes"][b]["lo"][j] = "1000"  # lo above hi
            out.append(m)
    for b in range(len(cert["successors"])):
        for a in range(len(cert["successors"][b])):
            m = copy.deepcopy(cert)
            m["successors"][b][a] = (m["successors"][b][a] + 1) % len(cert["boxes"])
            out.append(m)
    m = copy.deepcopy(cert)
    m["phi"] = [x[1:] if x.startswith("-") else "-" + x for x in m["phi"]]
    out.append(m)
    for b, rec in enumerate(cert["multipliers"]):
        for a, row in enumerate(rec["steps"]):
            for k in range(len(row)):
                m = copy.deepcopy(cert)
                m["multipliers"][b]["steps"][a][k] = "-1000000000"
                out.append(m)
    m = copy.deepcopy(cert)
    m["automaton"]["outputs"] = [not x for x in m["automaton"]["outputs"]]
    out.append(m)
    m = copy.deepcopy(cert)
    m["network"]["model"]["readout"] = m["network"]["model"]["readout"][::-1]
    out.append(m)
    return out


def test_mutated_certificates_never_pass(ends_ab_certs: dict) -> None:
    cert = json.loads(ends_ab_certs[1e-4][2].read_text())
    mutants = _mutations(cert)
    assert len(mutants) > 30
    for m in mutants:
        with pytest.raises(CertificateError):
            check_certificate(m)


def test_mutated_networks_never_pass(ends_ab_certs: dict, tmp_path) -> None:
    net, _, path = ends_ab_certs[1e-4]
    cert = json.loads(path.read_text())
    other = perturb(net, 1e-3, seed=5)
    file = tmp_path / "net.safetensors"
    other.save(file)
    with pytest.raises(CertificateError):
        check_certificate(cert, str(file))  # the file is not the certified one


def test_verify_falls_back_to_box_invariants(tmp_path) -> None:
    net = perturb(fsmnet.compile(ENDS_AB, "bilinear-full"), 1e-4)
    result = fsmnet.verify(ENDS_AB, net, max_states=300,
                           certificate=str(tmp_path / "c.json"))
    assert (result.verdict, result.method) == ("proved", "box-invariant")
    assert check_certificate(json.loads((tmp_path / "c.json").read_text())).startswith("valid")


def test_float32_certificate_covers_rounding_and_binds_the_float32_model(tmp_path) -> None:
    net = perturb(fsmnet.compile(ENDS_AB, "bilinear-full"), 1e-4)
    path = tmp_path / "c32.json"
    result = certify(ENDS_AB, net, float32=True, certificate=str(path))
    assert result.verdict == "proved"
    cert = json.loads(path.read_text())
    assert cert["rounding"] == "float32-step"
    assert "float32-step" in check_certificate(cert)
    # independent: a float32 run of the step semantics agrees on 2000 random symbols
    import numpy as np

    rng = np.random.default_rng(0)
    mats = np.asarray(net.semantics.matrices(net, False), dtype=np.float32)
    readout = net.params["readout"].astype(np.float32)
    h = net.params["h0"].astype(np.float32)
    h = h / np.abs(h).max()
    q = ENDS_AB.initial
    for a in rng.integers(0, 2, size=2000):
        h = mats[a] @ h
        h = (h / np.abs(h).max()).astype(np.float32)
        q = int(ENDS_AB.delta[ENDS_AB.symbol_index(net.symbols[a]), q])
        assert net.labels[int(np.argmax(readout @ h))] == ENDS_AB.output(q)
    m = copy.deepcopy(cert)
    m["model32"]["matrices"][0][0][0] = "1/3"
    with pytest.raises(CertificateError):
        check_certificate(m)


def test_chart_functional_stays_positive_when_its_largest_entry_is_negative() -> None:
    # Regression: dividing by a negative pivot flipped φ, making it negative on
    # every state (a trained flip-flop net).  Independent: the dot product itself.
    import numpy as np

    from fsmnet.proofs.abstract.linear import choose_chart

    points = [np.array([1.0, -2.0]), np.array([0.9, -2.1])]
    chart = choose_chart(points)
    assert chart is not None
    phi = np.array([float(x) for x in chart.phi])
    assert all(p @ phi > 0 for p in points)
