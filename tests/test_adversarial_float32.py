"""Float32 extremes never give a false "proved" or "refuted" (issue: float32 as the truth).

Independent oracle in every test: ``numpy_float32_labels`` below, a numpy float32
loop written here (matrices rounded from the file's float64 tensors, h0 by its
direction, left-to-right dot products of numpy float32 scalars), which shares no
code with fsmnet.nets.float32 or the checker's replay.
"""

from __future__ import annotations

import copy
import json
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples

import fsmnet
from fsmnet.automata import Automaton
from fsmnet.nets import Network
from fsmnet.proofs.checker import CertificateError, check_certificate


def numpy_float32_labels(net: Network, word: list[int]) -> list[object]:
    """Labels after every prefix of a bilinear-full net run in numpy float32; the string
    "overflow" once a state or score is not finite."""
    w = np.asarray(net.params["W"], dtype=np.float32)  # (H, H, S)
    r = np.asarray(net.params["readout"], dtype=np.float32)
    h0 = np.asarray(net.params["h0"])
    h = (h0 / np.abs(h0).max()).astype(np.float32)
    out: list[object] = []
    over = False
    with np.errstate(all="ignore"):
        for t in range(len(word) + 1):
            if t and not over:
                a = w[:, :, word[t - 1]]
                g = np.array([sum((a[i, j] * h[j] for j in range(1, len(h))), a[i, 0] * h[0])
                              for i in range(len(h))], dtype=np.float32)
                over = not np.all(np.isfinite(g))
                h = h if over else (g / np.abs(g).max() if np.abs(g).max() else g)
            scores = np.array([sum((row[j] * h[j] for j in range(1, len(h))), row[0] * h[0])
                               for row in r], dtype=np.float32)
            if over or not np.all(np.isfinite(scores)):
                over = True
                out.append("overflow")
            else:
                out.append(net.labels[int(np.argmax(scores))])
    return out


def _parity(**change: np.ndarray) -> Network:
    return fsmnet.compile("parity", "bilinear-full").with_params(**change)


PARITY = fsmnet.load("parity")


def _truth(word_names: list[str]) -> bool:
    return PARITY.output_of(word_names)


def _wide_parity(score: float, step: float) -> Network:
    """Parity, exactly right: coordinates 0/1 one-hot, 2/3 constant.  A score sums
    ``score`` twice, and a step sums ``step`` twice in coordinates 2 and 3: every
    weight is a finite float32, the sums need not be."""
    w = np.zeros((4, 4, 2))
    w[:2, :2, 0], w[:2, :2, 1] = np.eye(2), np.eye(2)[::-1]
    w[2:, 2:, :] = (np.eye(2) if step == 1.0 else np.full((2, 2), step))[:, :, None]
    readout = np.array([[score, 0, score, 0], [0, score, score, 0]])
    return Network(arch="bilinear-full", params={"W": w, "h0": np.array([1.0, 0, 1, 1]),
                                                 "readout": readout},
                   symbols=["0", "1"], labels=[True, False], name="wide-parity")


@pytest.mark.parametrize(("score", "step", "length"), [(2e38, 1.0, 0), (1.0, 2e38, 1)])
def test_networks_that_overflow_in_float32_are_refuted_with_a_real_word(score, step, length):
    """The exact run is parity (checked over all words to length 8); the float32 run
    overflows from the empty word (scores) or from step 1 (A h)."""
    big = _wide_parity(score, step)
    assert np.all(np.isfinite(np.asarray(big.params["W"], dtype=np.float32)))
    assert np.all(np.isfinite(np.asarray(big.params["readout"], dtype=np.float32)))
    for n in range(9):
        for bits in range(2**n):
            word = [(bits >> i) & 1 for i in range(n)]
            assert big.labels[big.label_trace(word, exact=True)[-1]] == (sum(word) % 2 == 0)
    result = fsmnet.certify("parity", big, float32=True)
    assert result.verdict == "refuted"
    word = result.counterexample.word
    assert len(word) == length
    index = [big.symbols.index(s) for s in word]
    assert numpy_float32_labels(big, index)[-1] == "overflow"  # the oracle agrees
    assert result.counterexample.got.startswith("overflow")
    if step == 1.0:  # exact states close: the exact claim is proved
        assert fsmnet.verify("parity", big).verdict == "proved"


def test_a_float32_tie_on_the_empty_word_is_refuted_and_the_exact_claim_proved():
    """Scores 1 and 1 − 2^-30: exact says label 1, float32 ties and says label 0."""
    net = Network(arch="bilinear-full", params={
        "W": np.ones((1, 1, 2)), "h0": np.array([1.0]),
        "readout": np.array([[1.0 - 2.0**-30], [1.0]])}, symbols=["0", "1"],
        labels=[True, False])
    every_false = Automaton(delta=[[0], [0]], symbols=["0", "1"], initial=0, outputs=[False],
                            name="never")
    assert numpy_float32_labels(net, [])[0] is True  # oracle: float32 picks label 0
    assert fsmnet.certify(every_false, net).verdict == "proved"
    f32 = fsmnet.certify(every_false, net, float32=True)
    assert f32.verdict == "refuted" and f32.counterexample.word == []
    assert f32.method == "float32-search"


@settings(max_examples=examples(30))
@given(k=st.integers(20, 32))
def test_near_ties_are_never_proved_wrong(k):
    """A bias 1 − 2^-k against 1: float32 rounds it to 1 for k ≥ 25.  Whatever certify
    --float32 says must agree with the numpy float32 oracle on the empty word."""
    net = Network(arch="bilinear-full", params={
        "W": np.ones((1, 1, 2)), "h0": np.array([1.0]),
        "readout": np.array([[1.0 - 2.0**-k], [1.0]])}, symbols=["0", "1"],
        labels=[True, False])
    never = Automaton(delta=[[0], [0]], symbols=["0", "1"], initial=0, outputs=[False],
                      name="never")
    right = numpy_float32_labels(net, [])[0] is False
    verdict = fsmnet.certify(never, net, float32=True).verdict
    assert verdict == ("refuted" if not right else verdict)
    if verdict == "proved":
        assert right


def _proved_float32_certificate(tmp_path) -> dict:
    """A float32-step certificate of a noisy 'ends with ab' net (docs/certify.md)."""
    ends_ab = Automaton(delta=[[1, 1, 1], [0, 2, 0]], symbols=["a", "b"], initial=0,
                        outputs=[False, False, True], name="ends-ab")
    net = fsmnet.compile(ends_ab, "bilinear-full")
    rng = np.random.default_rng(0)
    noisy = net.with_params(**{k: v + 1e-4 * rng.standard_normal(v.shape)
                               for k, v in net.params.items()})
    path = tmp_path / "c.json"
    assert fsmnet.certify(ends_ab, noisy, float32=True, certificate=str(path)).verdict == \
        "proved"
    return json.loads(path.read_text())


def test_the_checker_refuses_model_numbers_that_round_to_infinity(tmp_path):
    cert = _proved_float32_certificate(tmp_path)
    assert check_certificate(cert).startswith("valid")
    scaled = copy.deepcopy(cert)
    for where in (scaled["network"]["model"], scaled["model32"]):
        where["readout"] = [[str(Fraction(x) * 2**128) for x in row] for row in where["readout"]]
    with pytest.raises(CertificateError, match="overflow|infinity"):
        check_certificate(scaled)


@settings(max_examples=examples(60))
@given(seed=st.integers(0, 2**31), n=st.integers(1, 8),
       exponent=st.integers(120, 127))
def test_the_magnitude_bound_holds_exactly_where_float32_cannot_overflow(seed, n, exponent):
    """Synthetic rows against a numpy float32 oracle: a row the bound accepts never
    overflows on any ‖h‖∞ ≤ 1 tried (h = sign pattern, the worst case, and random
    h); a row whose worst-case dot product overflows in numpy is refused."""
    from fsmnet.proofs.checker.invariants import check_float32_magnitudes

    rng = np.random.default_rng(seed)
    row32 = (rng.uniform(0.1, 1.0, n) * 2.0**exponent).astype(np.float32)
    row = [Fraction(float(x)) for x in row32]
    worst = np.sign(row32).astype(np.float32)
    with np.errstate(over="ignore"):
        total = np.float32(0)
        for a, x in zip(row32, worst):
            total = np.float32(total + a * x)
    try:
        check_float32_magnitudes([[row]], [[Fraction(1)] * n], [Fraction(1)] * n)
        accepted = True
    except CertificateError:
        accepted = False
    if not np.isfinite(total):
        assert not accepted
    if accepted:
        for _ in range(5):
            h = rng.uniform(-1, 1, n).astype(np.float32)
            with np.errstate(over="ignore"):
                acc = np.float32(0)
                for a, x in zip(row32, h):
                    acc = np.float32(acc + a * x)
            assert np.isfinite(acc)
