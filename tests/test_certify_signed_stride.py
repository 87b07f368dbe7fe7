"""Chart boxes with signs and strides (docs/certify.md, "Signed charts and strides").

Subject: a parity network built by hand, h = (s, y1, y2) with three coordinates.  The
letter '0' keeps s and maps y by N0 = [[t, b], [0, t]]; the letter '1' negates s and
maps y by N1 = [[t, 0], [b, t]]; the readout compares ±(s − ε y1).  So:

* the states after an even and an odd number of ones are near ±u: no linear
  functional is positive on both (a single chart fails; a signed one holds both);
* each N_x stretches some box: ‖N_x‖∞ = t + b, and with t + b ≥ 1 (the third subject)
  no weighted box closes in one step, while every product of two letters contracts;
* independent proof that it is right for every length (by hand, exact): s_t =
  (−1)^{#1} exactly, and ‖y_t‖∞ ≤ (t + b)·‖y_0‖∞ for every t because every product of
  two letters has ∞-norm < 1 (checked below in Fractions), so |ε y1| < |s| = 1 and the
  sign of s − ε y1 is the parity: the label is right.  Brute force over every word up
  to length 10 in the exact evaluator agrees.
"""

from __future__ import annotations

import copy
import json
from fractions import Fraction
from itertools import product
from pathlib import Path

import numpy as np
import pytest
from certify_helpers import exhaustive_agree
from hypothesis import given
from hypothesis import strategies as st

import fsmnet
from fsmnet.cli import main as cli
from fsmnet.proofs.abstract.certify import certify
from fsmnet.proofs.checker import CertificateError, check_certificate

PARITY = fsmnet.load("parity")


def sign_net(t: float, b: float, eps: float, h0: tuple[float, float, float] = (1, 0.375, -0.25)
             ) -> fsmnet.nets.Network:
    w = np.zeros((3, 3, 2))
    w[0, 0, 0], w[1:, 1:, 0] = 1, [[t, b], [0, t]]
    w[0, 0, 1], w[1:, 1:, 1] = -1, [[t, 0], [b, t]]
    readout = np.array([[-1.0, eps, 0], [1.0, -eps, 0]])  # labels (False, True): odd, even
    return fsmnet.compile("parity", "bilinear-full").with_params(W=w, h0=np.array(h0),
                                                                readout=readout)


def pair_norms(t: float, b: float) -> list[Fraction]:
    """‖N_x N_z‖∞ for every pair of letters, in Fractions."""
    n = [[[Fraction(t), Fraction(b)], [Fraction(0), Fraction(t)]],
         [[Fraction(t), Fraction(0)], [Fraction(b), Fraction(t)]]]
    out = []
    for x, z in product(range(2), repeat=2):
        m = [[sum(n[x][i][k] * n[z][k][j] for k in range(2)) for j in range(2)]
             for i in range(2)]
        out.append(max(abs(m[i][0]) + abs(m[i][1]) for i in range(2)))
    return out


@pytest.fixture(scope="module")
def proved(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("signed")
    net = sign_net(0.125, 0.875, 0.0625)
    path = folder / "net.safetensors"
    net.save(path)
    cert = folder / "cert.json"
    res = certify(PARITY, net, certificate=str(cert), network_path=str(path))
    assert res.verdict == "proved", res.details
    return path, cert


def test_the_subject_is_right_for_every_length_by_hand_and_by_brute_force() -> None:
    # the hand argument's premises, exactly: pairs contract, one step does not
    assert all(x < 1 for x in pair_norms(0.125, 0.875))
    assert Fraction(0.125) + Fraction(0.875) >= 1
    assert Fraction(0.0625) * (Fraction(0.125) + Fraction(0.875)) * Fraction(0.375) < 1
    assert exhaustive_agree(sign_net(0.125, 0.875, 0.0625), PARITY, 10)


def test_a_sign_flipping_non_normal_parity_net_is_proved_with_signs_and_a_stride(
        proved: tuple[Path, Path]) -> None:
    path, cert_path = proved
    cert = json.loads(cert_path.read_text())
    assert cert["method"] == "box-invariant" and cert["domain"] == "chart-box"
    assert any(box.get("sign") == -1 for box in cert["boxes"])  # odd states: −K
    assert cert.get("stride", 1) >= 2  # no single step closes (‖N_x‖∞ = 1)
    assert cli(["check", str(cert_path), "--network", str(path)]) == 0


TAMPERS = {
    "a sign dropped": lambda c: [box.pop("sign", None) for box in c["boxes"]],
    "every sign flipped": lambda c: [box.__setitem__("sign", -box.get("sign", 1))
                                     for box in c["boxes"]],
    "sign 2": lambda c: c["boxes"][0].__setitem__("sign", 2),
    "stride dropped": lambda c: c.pop("stride"),
    "stride one more": lambda c: c.__setitem__("stride", c["stride"] + 1),
    "stride zero": lambda c: c.__setitem__("stride", 0),
    "float32 with a stride": lambda c: c.__setitem__("rounding", "float32-step"),
    "a box narrowed": lambda c: c["boxes"][1].__setitem__("hi", c["boxes"][1]["lo"]),
}


@pytest.mark.parametrize("name", sorted(TAMPERS))
def test_a_tampered_signed_stride_certificate_is_refused(proved: tuple[Path, Path],
                                                         name: str) -> None:
    cert = json.loads(proved[1].read_text())
    check_certificate(copy.deepcopy(cert))  # the untouched one passes
    TAMPERS[name](cert)
    with pytest.raises((CertificateError, KeyError, TypeError)):
        check_certificate(cert)


@given(t=st.sampled_from([0.0625, 0.125, 0.25]), b=st.sampled_from([0.5, 0.875, 1.5, 3.0]),
       eps=st.sampled_from([0.0625, 0.5, 2.0, 8.0]),
       y=st.tuples(st.sampled_from([0.0, 0.375, -1.0]), st.sampled_from([0.0, -0.25, 2.0])))
def test_signed_and_strided_proofs_are_never_wrong(t: float, b: float, eps: float,
                                                  y: tuple[float, float]) -> None:
    # Many of these nets are wrong (a large ε or a growing y flips a label): whatever
    # certify proves must agree with brute force, and a refutation is a real error.
    net = sign_net(t, b, eps, (1.0, *y))
    res = certify(PARITY, net, max_pairs=300)
    right = exhaustive_agree(net, PARITY, 9)
    if res.verdict == "proved":
        assert right
    if res.verdict == "refuted":
        assert res.counterexample is not None
        word = [str(x) for x in res.counterexample.word]
        assert net.output_of(word, exact=True) != PARITY.output_of(word)


def _float32_run(mats32: list[np.ndarray], h: np.ndarray, word: tuple[int, ...]
                 ) -> tuple[np.ndarray, Fraction]:
    """The float32 reference step (docs/formats.md), written again here: each entry a
    left-to-right float32 dot product, then division by the largest |entry|.  Returns
    the last state and the product of the divisors (exact), so that state·product is
    the run unnormalized."""
    scale = Fraction(1)
    for a in word:
        g = np.zeros(len(h), dtype=np.float32)
        for i in range(len(h)):
            acc = np.float32(0)
            for j in range(len(h)):
                acc = np.float32(acc + np.float32(mats32[a][i, j] * h[j]))
            g[i] = acc
        m = np.float32(np.abs(g).max())
        assert m > 0 and np.isfinite(m)
        h = (g / m).astype(np.float32)
        scale *= Fraction(float(m))
    return h, scale


@given(seed=st.integers(0, 10_000), k=st.integers(1, 4),
       size=st.sampled_from([2, 3, 5]), spread=st.sampled_from([1e-3, 1.0, 40.0]))
def test_the_float32_stray_of_a_word_bounds_the_float32_run(seed: int, k: int, size: int,
                                                            spread: float) -> None:
    # Independent route: the float32 step re-implemented above, against the bound the
    # checker uses (fsmnet.proofs.checker.stride.word_error32): the float32 run of w
    # from a normalized h, unnormalized, lies within E_w of A_w h, entry by entry.
    from fsmnet.proofs.checker.linear_model import LinearModel
    from fsmnet.proofs.checker.stride import word_error32

    rng = np.random.default_rng(seed)
    mats32 = [(rng.standard_normal((size, size)) * spread ** rng.uniform(-1, 1, (size, size))
               ).astype(np.float32) for _ in range(2)]
    h = rng.standard_normal(size).astype(np.float32)
    h = (h / np.abs(h).max()).astype(np.float32)
    word = tuple(int(x) for x in rng.integers(0, 2, k))
    exact = [tuple(tuple(Fraction(float(x)) for x in row) for row in m) for m in mats32]
    model = LinearModel(tuple(exact), tuple(Fraction(float(x)) for x in h),
                        ((Fraction(1),) * size,))
    bound, _ = word_error32(model, word, {})
    u = [Fraction(float(x)) for x in h]
    for a in word:  # A_w h, exactly
        u = [sum((x * y for x, y in zip(row, u)), Fraction(0)) for row in exact[a]]
    last, scale = _float32_run(mats32, h, word)
    for i in range(size):
        assert abs(Fraction(float(last[i])) * scale - u[i]) <= bound[i]
