"""The negative results (theorems J and M) as witnesses re-checked by the checker.

Expected numbers are derived by hand in the comments (independent of the
builder, which shares nothing with these formulas but the definitions).
"""

from __future__ import annotations

import copy
import math
from fractions import Fraction as F

import numpy as np
import pytest

from fsmnet.automata.pfsa_families import cups, joint_decay_period
from fsmnet.decide.belief_decay import joint_witness, marginal_witness, pfsa_expressivity
from fsmnet.proofs.checker import CertificateError, check_certificate


def test_joint_witness_values_by_hand():
    w = joint_witness(cups(3))
    assert w is not None and w["period"] == ["pswap01", "show0=a"] and w["rate"] == "1/2"
    # show0=a fixes e_abc, then pswap01 reveals nothing: blocks = show^k pswap^k.
    assert w["blocks"] == ["show0=a", "pswap01"]
    # float32: Q r^k <= 2^(s-E-2) = 2^(-149-127-2) with Q = 6, r = 1/2:
    # 2^k >= 6 * 2^278, k >= 278 + log2(6) = 280.58 -> 281.  bfloat16: 262 + 2.58 -> 265.
    assert w["periods"]["float32"] == 281 and w["periods"]["bfloat16"] == 265
    assert "valid decay witness" in check_certificate(w)


def test_joint_norm_ratio_is_r_to_the_k():
    m = cups(3)
    u = list(joint_decay_period())
    for k in (1, 5, 20):
        w1 = u * k
        w2 = ["show0=a"] * k + ["pswap01"] * k        # same symbol counts
        assert sorted(w1) == sorted(w2)
        assert m.probability(w1) / m.probability(w2) == F(1, 2) ** k


@pytest.mark.parametrize("how", ["rate", "blocks", "additive", "periods", "period"])
def test_tampered_joint_witness_rejected(how):
    w = copy.deepcopy(joint_witness(cups(3)))
    if how == "rate":
        w["rate"] = "1/3"
    elif how == "blocks":
        w["blocks"] = ["pswap01", "show0=a"]   # the reveal after a mixing block loses mass
    elif how == "additive":
        w["additive"]["show0=a"] = [[], []]    # the same posterior twice: parallel
    elif how == "periods":
        w["periods"]["float32"] = 280
    else:
        w["period"] = ["pswap01"]
    with pytest.raises(CertificateError):
        check_certificate(w)


def test_full_reveals_escape_theorem_j():
    # pcups:2: show0=a reveals everything, so every posterior after it is e_ab and
    # no witness forces B = 0.  Indeed an affine net with B = e_ab (a reset) tracks
    # the belief in float32 with norm 1 forever, where the linear one underflows.
    m = cups(2)
    assert joint_witness(m) is None
    pswap = np.array([[0.5, 0.5], [0.5, 0.5]], dtype=np.float32)
    h = np.array([1.0, 0.0], dtype=np.float32)
    for _ in range(2000):
        h = pswap.dot(h)
        h = np.zeros(2, dtype=np.float32) * h + np.array([1.0, 0.0], dtype=np.float32)
    assert h.tolist() == [1.0, 0.0] == [float(x) for x in m.belief(["pswap01", "show0=a"])]


def test_marginal_witness_and_float32_run():
    w = marginal_witness(cups(3), F(1, 2))
    assert w is not None and w["rate"] == "3/4" and w["true_marginal_min"] == "1/2"
    assert "valid decay witness" in check_certificate(w)
    # After the prefix period the unrevealed block is [[1/4, 1/2], [1/4, 1/2]]; its top
    # entry (1/2)(3/4)^k is below 2^-126 once k > 125 / log2(4/3) = 301.2: k = 302.
    k_sub = math.floor(125 / math.log2(4 / 3)) + 1
    assert w["periods"]["float32"]["subnormal"] == k_sub == 302
    # An independent float32 run of the masking marginal net.
    p = np.eye(3, dtype=np.float32)
    half = np.float32(0.5)
    first = None
    for period in range(1, 400):
        for i, j in ((0, 1), (1, 2)):
            ri, rj = p[i].copy(), p[j].copy()
            p[i], p[j] = half * ri + half * rj, half * rj + half * ri
        p[0, :], p[:, 0] = 0, 0
        p[0, 0] = 1
        if first is None and p[1:, 1:].max() < 2.0 ** -126:
            first = period
    assert first == k_sub + 1                     # + the prefix period
    # Afterwards rounding holds them at a few smallest subnormals, all equal: the
    # 1 : 2 ratio the exact recurrence keeps in each row (1/4 : 1/2 times (3/4)^k) is gone.
    block = p[1:, 1:].ravel().tolist()
    assert len(set(block)) == 1 and 0 < block[0] <= 4 * 2.0 ** -149


@pytest.mark.parametrize("how", ["rate", "true", "periods", "p", "kernel"])
def test_tampered_marginal_witness_rejected(how):
    w = copy.deepcopy(marginal_witness(cups(3), F(1, 2)))
    if how == "rate":
        w["rate"] = "1/2"
    elif how == "true":
        w["true_marginal_min"] = "1/3"
    elif how == "periods":
        w["periods"]["bfloat16"]["zero"] += 1
    elif how == "p":
        w["p"] = "1/3"
    else:  # a valid PFSA whose pswap01 is not the one the marginal maps assume
        w["pfsa"]["kernel"][1][0] = ["3/4", "0", "1/4", "0", "0", "0"]
    with pytest.raises(CertificateError):
        check_certificate(w)


def test_expressivity_rows():
    rows = pfsa_expressivity(cups(3))
    assert [r.verdict for r in rows] == ["possible", "impossible", "impossible"]
    assert marginal_witness(cups(4), F(1, 2)) is None   # position 3 never moves
