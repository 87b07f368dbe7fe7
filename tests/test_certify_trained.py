"""``certify`` on networks trained by ``fsmnet.train`` (fixed seeds and budgets)."""

from __future__ import annotations

import json

import pytest
from certify_helpers import exhaustive_agree

import fsmnet
from fsmnet.proofs.checker import check_certificate

pytest.importorskip("torch")


def _trained(spec: str, arch: str) -> fsmnet.nets.Network:
    from fsmnet.train.convert import to_network
    from fsmnet.train.loop import TrainConfig, train

    res = train(spec, TrainConfig(arch=arch, hidden=4, steps=300, seed=0))
    return to_network(res.module, res.automaton.symbols, res.automaton.labels)


def test_trained_minmax_flipflop_is_proved(tmp_path) -> None:
    net = _trained("flipflop", "minmax-dense")
    path = tmp_path / "c.json"
    result = fsmnet.certify("flipflop", net, certificate=str(path))
    assert result.verdict == "proved" and result.proved_length is None
    assert check_certificate(json.loads(path.read_text())).startswith("valid")
    # independent: every word up to length 8, exactly
    assert exhaustive_agree(net, fsmnet.load("flipflop").minimal(), 8)


def test_trained_parity_that_did_not_generalize_is_refuted() -> None:
    net = _trained("parity", "bilinear-full")
    result = fsmnet.certify("parity", net)
    assert result.verdict == "refuted"
    word = result.counterexample.word
    # independent: the exact reference evaluator against the automaton
    assert net.output_of(word, exact=True) != fsmnet.load("parity").output_of(word)


def test_trained_certificate_rejects_mutated_networks_and_states(tmp_path) -> None:
    import copy

    import numpy as np

    from fsmnet.proofs.checker import CertificateError

    net = _trained("flipflop", "minmax-dense")
    file = tmp_path / "net.safetensors"
    net.save(file)
    path = tmp_path / "c.json"
    assert fsmnet.certify("flipflop", net, certificate=str(path),
                          network_path=str(file)).verdict == "proved"
    cert = json.loads(path.read_text())
    assert check_certificate(cert, str(file)).startswith("valid")
    r = np.array(net.params["R"])
    r[0, 0, 0] += 0.5
    other = tmp_path / "mutant.safetensors"
    net.with_params(R=r).save(other)
    with pytest.raises(CertificateError):  # a mutated network never passes
        check_certificate(cert, str(other))
    for i in range(len(cert["states"])):
        m = copy.deepcopy(cert)
        m["states"][i][0] = "1000001/1000"
        with pytest.raises(CertificateError):
            check_certificate(m)
