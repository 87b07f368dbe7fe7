"""``fsmnet certify`` on the command line, the minmax-box domain, and L* extraction."""

from __future__ import annotations

import json

import pytest
from certify_helpers import ENDS_AB, perturb

import fsmnet
from fsmnet.cli import main
from fsmnet.proofs.abstract.certify import _rights, prove_invariant
from fsmnet.proofs.abstract.minmax import MINMAX_BOX
from fsmnet.proofs.checker import CertificateError, check_certificate
from fsmnet.proofs.verifier import prepare_automaton


@pytest.fixture(scope="module")
def nets(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    d = tmp_path_factory.mktemp("nets")
    good = d / "good.safetensors"
    perturb(fsmnet.compile(ENDS_AB, "bilinear-full"), 1e-4).save(good)
    bad = d / "bad.safetensors"
    perturb(fsmnet.compile("parity", "bilinear-full"), 1e-2).save(bad)
    spec = d / "ends_ab.json"
    spec.write_text(json.dumps(ENDS_AB.to_dict()))
    return {"good": str(good), "bad": str(bad), "spec": str(spec), "dir": str(d)}


def test_cli_proves_writes_a_certificate_that_check_accepts(nets, capsys) -> None:
    cert = f"{nets['dir']}/c.json"
    assert main(["certify", nets["good"], nets["spec"], "--certificate", cert,
                 "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out) == {"verdict", "method", "counterexample", "proved_length", "domain",
                        "covers", "theorem", "seconds"}
    assert out["theorem"] is None  # proved: nothing to explain
    assert out["covers"] == "exact arithmetic of the file's tensors"
    assert (out["verdict"], out["method"], out["domain"]) == ("proved", "box-invariant",
                                                              "slice-box")
    assert main(["check", cert, "--network", nets["good"]]) == 0
    # a different network file must not pass with this certificate
    assert main(["check", cert, "--network", nets["bad"]]) != 0


def test_cli_refutes_with_exit_1_and_a_word(nets, capsys) -> None:
    assert main(["certify", nets["bad"], "parity", "--json"]) == 1
    out = json.loads(capsys.readouterr().out)
    word = out["counterexample"]["word"]
    # independent: the exact reference evaluator disagrees with parity on it
    net = fsmnet.load_network(nets["bad"])
    assert net.output_of(word, exact=True) != fsmnet.load("parity").output_of(word)


def test_cli_bad_input_exits_2(nets, capsys) -> None:
    assert main(["certify", f"{nets['dir']}/missing.safetensors", "parity"]) == 2
    assert "missing.safetensors" in capsys.readouterr().err


def test_minmax_boxes_prove_a_perturbed_dense_network() -> None:
    # minmax-dense states are selections, so its exact product closes too: the
    # second route that agrees with the box proof (fsmnet.verify).
    net = perturb(fsmnet.compile("flipflop", "minmax-dense"), 1e-2, seed=3)
    assert fsmnet.verify("flipflop", net).verdict == "proved"
    automaton = prepare_automaton("flipflop", net)
    body, why = next(MINMAX_BOX.candidates(net, automaton, {}, _rights(net, automaton)))
    assert body is not None, why
    from fsmnet.proofs.certificate import _common, network_model

    cert = {**_common(net, automaton, "box-invariant", network_model(net), None), **body}
    assert check_certificate(cert).startswith("valid: minmax-box")
    cert["automaton"]["outputs"] = cert["automaton"]["outputs"][::-1]
    with pytest.raises(CertificateError):
        check_certificate(cert)


def test_prove_invariant_reports_float_disagreements_as_candidates() -> None:
    net = perturb(fsmnet.compile(ENDS_AB, "bilinear-full"), 0.6, seed=1)
    automaton = prepare_automaton(ENDS_AB, net)
    cert, _, candidates = prove_invariant(net, automaton)
    if cert is None and candidates:
        # each candidate is a float disagreement; the driver confirms before reporting
        result = fsmnet.certify(ENDS_AB, net)
        assert result.verdict in ("refuted", "unknown")
    else:  # independent: a proof must survive the checker
        assert cert is None or check_certificate(cert).startswith("valid")


def test_extraction_learns_the_automaton_and_proves() -> None:
    pytest.importorskip("aalpy")
    net = perturb(fsmnet.compile(ENDS_AB, "bilinear-full"), 1e-4)
    result = fsmnet.certify(None, net)
    assert result.verdict == "proved"
    assert result.details["learned"].startswith("3 states")


def test_cli_extraction_prints_what_l_star_learned(nets, capsys) -> None:
    pytest.importorskip("aalpy")
    # no SPEC: the text report names the learned machine and every L* round
    assert main(["certify", nets["good"]]) == 0
    out = capsys.readouterr().out
    assert out.startswith("proved")
    assert "learned: 3 states" in out  # ENDS_AB's minimal automaton has 3 states
    assert "L* round 1: 3 states: proved" in out
