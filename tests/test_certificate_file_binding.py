"""``fsmnet check CERT --network NET`` ties the certificate to the file's tensors, not only
to the SHA-256 the certificate states: a valid proof about another network, relabelled
with this file's digest, must not pass for this file."""

from __future__ import annotations

import json

import fsmnet
from fsmnet.cli import main
from fsmnet.nets import Network
from fsmnet.proofs.certificate import file_sha256


def _doubled(net: Network) -> Network:
    # The same automaton (outputs are invariant under positive scaling), other tensors.
    return net.with_params(W=2.0 * net.params["W"])


def test_a_relabelled_proof_of_another_network_is_refused(tmp_path, capsys) -> None:
    real, other = tmp_path / "real.safetensors", tmp_path / "other.safetensors"
    net = fsmnet.compile("modadd:3", "bilinear-full")
    net.save(str(real))
    _doubled(net).save(str(other))
    cert_path = tmp_path / "c.json"
    result = fsmnet.verify("modadd:3", fsmnet.load_network(str(other)),
                           certificate=str(cert_path), network_path=str(other))
    assert result.verdict == "proved"
    assert main(["check", str(cert_path), "--network", str(other)]) == 0
    cert = json.loads(cert_path.read_text())
    cert["network"]["sha256"] = file_sha256(real)  # the forger's only edit
    forged = tmp_path / "forged.json"
    forged.write_text(json.dumps(cert))
    assert main(["check", str(forged)]) == 0  # the claim itself is true (about `other`)
    capsys.readouterr()
    assert main(["check", str(forged), "--network", str(real)]) == 1
    assert "differs from the network file" in capsys.readouterr().out
    # The same from Python: the checker alone compares only the stated digest (and so
    # passes the forgery); check_against_network refuses it, and accepts the original.
    import pytest

    from fsmnet.proofs.certificate import check_against_network
    from fsmnet.proofs.checker import CertificateError, check_certificate

    assert check_certificate(cert, str(real)).startswith("valid")
    with pytest.raises(CertificateError, match="differs from the network file"):
        check_against_network(cert, str(real))
    original = json.loads(cert_path.read_text())
    assert check_against_network(original, str(other)).startswith("valid")


def test_a_certificate_about_another_architecture_is_refused(tmp_path, capsys) -> None:
    full, dense = tmp_path / "full.safetensors", tmp_path / "dense.safetensors"
    fsmnet.compile("parity", "bilinear-full").save(str(full))
    fsmnet.compile("parity", "minmax-dense").save(str(dense))
    cert_path = tmp_path / "c.json"
    fsmnet.verify("parity", fsmnet.load_network(str(dense)), certificate=str(cert_path),
                  network_path=str(dense))
    cert = json.loads(cert_path.read_text())
    cert["network"]["sha256"] = file_sha256(full)
    cert_path.write_text(json.dumps(cert))
    capsys.readouterr()
    assert main(["check", str(cert_path), "--network", str(full)]) == 1
    assert "minmax-dense network" in capsys.readouterr().out
