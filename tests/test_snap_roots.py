"""Root-of-unity snapping of bilinear-r2 networks (fsmnet.train.snap_roots), and the
float32 certificates of networks whose exact header has irrational rotations.

Independent routes: the exact header's multipliers against numpy's cos/sin of
2πk/n (the roots the angles were drawn near); the header check that loading a file
runs (bit for bit, fsmnet.nets.exact_header); the automaton's transition table
against the network's float32 or exact run on every word up to length 8; the
certificate checker against the saved file; tampered certificates.
"""

from __future__ import annotations

import copy
import json
import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples

import fsmnet
from fsmnet.nets import Network, load_network
from fsmnet.proofs.abstract.certify import certify
from fsmnet.proofs.certificate import check_against_network
from fsmnet.proofs.checker import CertificateError, check_certificate
from fsmnet.train.snap_roots import TOLERANCES, root_of_unity_snaps

SYMBOLS, LABELS = ("0", "1"), ("False", "True")


def _r2(angle: np.ndarray, modulus: np.ndarray, readout: np.ndarray, h0: np.ndarray) -> Network:
    return Network(arch="bilinear-r2", params={"angle": angle, "modulus": modulus,
                                               "readout": readout, "h0": h0},
                   symbols=SYMBOLS, labels=LABELS, name="drawn")


@st.composite
def near_roots(draw):
    """A bilinear-r2 network whose angles are 2πk/n (n ≤ 6) moved by less than 0.04 and
    whose moduli are 2^-j moved by less than 3 %, with float32 readout and h0."""
    channels = draw(st.integers(1, 3))
    orders = [draw(st.integers(1, 6)) for _ in range(channels)]
    ks = np.array([[draw(st.integers(0, n - 1)) for n in orders] for _ in SYMBOLS])
    noise = st.floats(-0.04, 0.04)
    angle = np.array([[2 * math.pi * ks[a, c] / orders[c] + draw(noise)
                       for c in range(channels)] for a in range(len(SYMBOLS))])
    js = np.array([[draw(st.integers(-1, 3)) for _ in range(channels)] for _ in SYMBOLS])
    modulus = 2.0 ** -js * np.array([[1 + draw(st.floats(-0.03, 0.03))
                                      for _ in range(channels)] for _ in SYMBOLS])
    small = st.floats(-2, 2, width=32)
    readout = np.array([[draw(small) for _ in range(2 * channels)] for _ in LABELS])
    h0 = np.array([draw(small) for _ in range(2 * channels)])
    assume(np.any(h0 != 0))
    return _r2(angle, modulus, readout, h0), ks, orders, js


def _multipliers(net: Network) -> np.ndarray:
    """The exact header's multipliers as complex floats (letter, channel)."""
    exact = net.semantics.exact_factors(net)
    return np.array([[complex(float(re), float(im)) for re, im in row] for row in exact])


@settings(max_examples=examples(30))
@given(drawn=near_roots())
def test_every_snap_is_a_valid_header_near_the_weights_and_keeps_readout(drawn, tmp_path_factory):
    """Oracle: numpy's cos/sin of the drawn roots 2πk/n.  Distinct roots of orders ≤ 6 lie
    at least 2π/30 ≈ 0.21 rad apart, so at the tightest tolerance (0.05) an angle moved
    by < 0.04 finds its own root: some candidate's exact multipliers are the drawn
    2^-j·e^(2πik/n), within 1e-12 as floats.  Every candidate's multipliers are 2^-j'
    times e^(i·its stored angle), moves no angle by more than its tolerance, loads back
    (the header is checked bit for bit), and keeps the readout's bits and h0's outside
    the channels it silences."""
    net, ks, orders, js = drawn
    found = list(root_of_unity_snaps(net))
    drawn_roots = np.array([[2.0 ** -js[a, c] * np.exp(2j * math.pi * ks[a, c] / n)
                             for c, n in enumerate(orders)] for a in range(len(SYMBOLS))])
    assert any(np.allclose(_multipliers(s), drawn_roots, rtol=0, atol=1e-12)
               for _, s in found)
    path = tmp_path_factory.mktemp("snap") / "net.safetensors"
    for record, snapped in found:
        assert record["tolerance"] in TOLERANCES
        stored = snapped.params["angle"]
        moved = np.angle(np.exp(1j * (stored - net.params["angle"])))
        assert np.all(np.abs(moved) <= record["tolerance"] + 1e-12)
        multipliers = _multipliers(snapped)
        scale = np.abs(multipliers)
        assert np.allclose(multipliers, scale * np.exp(1j * stored), rtol=0, atol=1e-12)
        assert np.allclose(scale, 2.0 ** np.rint(np.log2(scale)), rtol=1e-12, atol=0)
        assert np.array_equal(snapped.params["readout"], net.params["readout"])
        kept = np.ones(net.params["h0"].shape, dtype=bool)
        kept[[2 * c + i for c in record["silenced"] for i in (0, 1)]] = False
        assert np.array_equal(snapped.params["h0"][kept], net.params["h0"][kept])
        snapped.save(path)
        assert load_network(path).exact == snapped.exact


def test_an_angle_far_from_every_root_does_not_snap():
    """Oracle: brute force over every root 2πk/n, n ≤ 12: 2π/24 lies halfway between two
    12th roots, 0.26 rad from each and further from the others, beyond the loosest
    tolerance."""
    angle = np.array([[2 * math.pi / 24], [0.0]])
    moves = [abs(angle[0, 0] - 2 * math.pi * k / n) for n in range(1, 13) for k in range(n)]
    assert min(moves) > max(TOLERANCES)
    net = _r2(angle, np.ones((2, 1)), np.array([[1.0, 0.0], [-1.0, 0.0]]), np.array([1.0, 0.0]))
    assert list(root_of_unity_snaps(net)) == []


def test_other_architectures_have_no_root_snaps():
    net = fsmnet.compile("parity", "bilinear-real-diag")
    assert list(root_of_unity_snaps(net)) == []


@pytest.mark.parametrize("spec", ["parity", "modcount:3", "modcount:5"])
def test_compiled_rotations_certify_in_float32_with_a_certificate_tied_to_the_file(
        spec, tmp_path):
    """``certify --float32`` of a compiled r2 network (irrational header for n = 3, 5)
    crashed with a TypeError.  Now: a verdict; a proof's certificate passes the checker
    against the file, its model states the file's doubles; a tampered entry is refused.
    Oracle for a proof: the float32 run against the table on every word up to 8."""
    from test_train_until_proved import wrong_words

    automaton = fsmnet.load(spec)
    net = fsmnet.compile(automaton, "bilinear-r2")
    path = tmp_path / "net.safetensors"
    net.save(path)
    net = load_network(path)
    cert_path = tmp_path / "cert.json"
    result = certify(automaton, net, float32=True, certificate=str(cert_path),
                     network_path=str(path))
    assert result.verdict == "proved", result
    assert wrong_words(net, automaton, exact=False) == []
    cert = json.loads(cert_path.read_text())
    check_against_network(cert, str(path))
    matrices = cert["network"]["model"]["matrices"]
    tampered = copy.deepcopy(cert)
    entry = Fraction(matrices[1][0][0])
    tampered["network"]["model"]["matrices"][1][0][0] = str(entry + Fraction(1, 2**40))
    with pytest.raises(CertificateError):
        check_against_network(tampered, str(path))
    check_certificate(cert)


def test_a_wrong_root_is_never_proved():
    """A snapped mod-3 network whose letter 1 is moved to the next root (a rotation of
    2π·2/3 where 2π/3 was learned, or the like): certify must not prove it unless the
    table agrees on every word up to 8 (it cannot: the counts differ at length 1 or 2)."""
    from test_train_until_proved import wrong_words

    from fsmnet.nets.diagonal import R2Bilinear

    automaton = fsmnet.load("modcount:3")
    net = fsmnet.compile(automaton, "bilinear-r2")
    header = copy.deepcopy(net.exact)
    order = header["zeta_order"]
    for channel in header["channels"]:
        channel[1][1] = (channel[1][1] + order // 3) % order
    params = R2Bilinear().rounded_tensors(header, len(net.symbols), len(net.labels))
    wrong = Network(arch="bilinear-r2", params={**params, "h0": net.params["h0"]},
                    symbols=net.symbols, labels=net.labels, exact=header, name="wrong")
    for float32 in (True, False):
        result = certify(automaton, wrong, float32=float32)
        assert result.verdict != "proved"
        if result.verdict == "refuted":
            word = list(automaton.encode(result.counterexample.word))
            assert wrong_words(wrong, automaton, exact=not float32, length=len(word)) != []
