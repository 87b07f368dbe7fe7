"""Certificates: written by the prover, re-verified by the independent checker,
and rejected when edited by hand."""

import copy
import json

import numpy as np
import pytest

import fsmnet
from fsmnet.automata import Automaton
from fsmnet.cli import main
from fsmnet.proofs.checker import CertificateError, check_certificate
from fsmnet.proofs.verifier import verify


@pytest.fixture()
def proved(tmp_path):
    a = Automaton(delta=np.array([[1, 2, 0], [0, 0, 1]]), symbols=("a", "b"), initial=0,
                  outputs=("x", "y", "x"))
    net = fsmnet.compile(a, "bilinear-full")
    net_path = tmp_path / "n.safetensors"
    net.save(net_path)
    cert_path = tmp_path / "c.json"
    result = verify(a, net, certificate=str(cert_path), network_path=str(net_path))
    assert result.verdict == "proved"
    return json.loads(cert_path.read_text()), net_path, cert_path


def test_checker_accepts_the_prover_certificate(proved) -> None:
    cert, net_path, _ = proved
    assert check_certificate(cert, str(net_path)).startswith("valid")


def _edits(cert):
    # Each edit makes some claim false or removes an obligation.
    e1 = copy.deepcopy(cert)
    e1["network"]["model"]["matrices"][0][0][0] = "1/3"
    e2 = copy.deepcopy(cert)
    e2["transitions"].pop()
    e3 = copy.deepcopy(cert)
    e3["automaton"]["outputs"][0] = "y"
    e4 = copy.deepcopy(cert)
    e4["transitions"][0][0] = (e4["transitions"][0][0] + 1) % len(e4["pairs"])
    e5 = copy.deepcopy(cert)
    e5["network"]["model"]["h0"] = ["0", "1", "0"]
    e6 = copy.deepcopy(cert)
    e6["states"][0][0] = "2"
    e7 = copy.deepcopy(cert)
    e7["format_version"] = 99
    return [e1, e2, e3, e4, e5, e6, e7]


def test_hand_edited_certificates_fail(proved) -> None:
    cert, _, _ = proved
    for edited in _edits(cert):
        with pytest.raises(CertificateError):
            check_certificate(edited)


def test_changed_network_file_fails_the_hash(proved, tmp_path) -> None:
    cert, net_path, _ = proved
    other = tmp_path / "other.safetensors"
    a = Automaton(delta=np.array([[1, 0], [0, 1]]), symbols=("a", "b"), initial=0,
                  outputs=("x", "y"))
    fsmnet.compile(a, "bilinear-full").save(other)
    with pytest.raises(CertificateError, match="SHA-256"):
        check_certificate(cert, str(other))


def test_cli_check_exit_codes(proved, tmp_path, capsys) -> None:
    cert, net_path, cert_path = proved
    assert main(["check", str(cert_path), "--network", str(net_path)]) == 0
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(_edits(cert)[0]))
    assert main(["check", str(bad)]) == 1
    junk = tmp_path / "junk.json"
    junk.write_text("{not json")
    assert main(["check", str(junk)]) == 2


def test_checker_imports_nothing_from_fsmnet() -> None:
    # The trusted base: every module of the checker package imports the standard
    # library and its sibling modules only (relative imports), nothing else of fsmnet.
    import ast
    import pathlib
    import sys

    import fsmnet.proofs.checker as checker

    files = sorted(pathlib.Path(checker.__file__).parent.glob("*.py"))
    assert len(files) >= 6
    for path in files:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level > 0:
                continue  # a sibling in the trusted base
            names = ([a.name for a in node.names] if isinstance(node, ast.Import) else
                     [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            for name in names:
                top = name.split(".")[0]
                assert top in sys.stdlib_module_names, f"{path.name} imports {name}"
