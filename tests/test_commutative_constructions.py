"""bilinear-r2 / real-diag / positive-diag: the networks reproduce the automaton.

The reference outputs always come from running the automaton itself
(``output_ids[trace(w)]``), never from the construction.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples
from test_commutative_algebra import commutative_machines, counter_product

import fsmnet
from fsmnet.algebra.commutative import commutation_witness, count_table
from fsmnet.automata import Automaton
from fsmnet.constructions.commutative import letter_weights
from fsmnet.errors import NetworkFileError, NotExpressible, SpecError
from fsmnet.nets import Network, load_network
from fsmnet.nets.cyclotomic import cyclotomic_field
from fsmnet.train.convert import to_torch

ARCHS = ("bilinear-r2", "bilinear-real-diag", "bilinear-positive-diag")


def applicable(a: Automaton) -> list[str]:
    # Independent of the compiler: periods read off the transformations by
    # brute force (δ_a^(k+p) = δ_a^k for some k <= n).
    m = a.minimal()
    periods = []
    for row in m.delta:
        powers = [np.arange(m.n_states)]
        for _ in range(2 * m.n_states + 2):
            powers.append(row[powers[-1]])
        last = powers[-1]
        periods.append(min(p for p in range(1, m.n_states + 2)
                           if np.array_equal(powers[-1 - p], last)))
    limit = max(periods)
    return [arch for arch, ok in zip(ARCHS, (True, limit <= 2, limit == 1), strict=True) if ok]


def assert_tracks(a: Automaton, net: Network, words: list[np.ndarray], exact: bool) -> None:
    m = a.minimal()
    assert net.labels == m.labels
    for w in words:
        want = m.output_ids[m.trace(w)]
        got = net.label_trace(w, exact=exact)
        assert np.array_equal(got, want), (net.arch, w[:30], got[:30], want[:30])


def random_words(k: int, seed: int, lengths: tuple[int, ...]) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [rng.integers(0, k, size=n) for n in lengths]


FAMILIES = ["parity", "modcount:2", "modcount:3", "modcount:5", "modadd:2", "modadd:3",
            "modadd:4"]


@pytest.mark.parametrize("spec", FAMILIES)
def test_families_float_and_exact(spec: str) -> None:
    a = fsmnet.load(spec)
    archs = applicable(a)
    assert "bilinear-r2" in archs
    for arch in ARCHS:
        if arch not in archs:
            with pytest.raises(NotExpressible, match="period"):
                fsmnet.compile(a, arch)
            continue
        net = fsmnet.compile(a, arch)
        assert_tracks(a, net, random_words(a.n_symbols, 1, (2000, 300)), exact=False)
        assert_tracks(a, net, random_words(a.n_symbols, 2, (40,)), exact=True)


def test_thresholds_with_irrational_rotations() -> None:
    # "count of a is 0, 1, or >= 2 and then mod 5", "count of b mod 3": ζ_15 weights.
    g = [2, 2, 0, 1, 2, 0, 1]  # exact counts 0, 1; then residues mod 5 from 2 on
    labels = [(g[i // 3] + 2 * (i % 3)) % 3 for i in range(7 * 3)]
    a = counter_product([(2, 5), (0, 3)], labels)
    assert [(c.threshold, c.period) for c in count_table(a).letters] == [(2, 5), (0, 3)]
    net = fsmnet.compile(a, "bilinear-r2")
    assert net.exact is not None and net.exact["zeta_order"] == 15
    assert_tracks(a, net, random_words(2, 3, (2000,)), exact=False)
    assert_tracks(a, net, random_words(2, 4, (50,)), exact=True)


@settings(max_examples=examples(25))
@given(commutative_machines(), st.integers(0, 2**32 - 1))
def test_random_commutative_languages(a: Automaton, seed: int) -> None:
    for arch in applicable(a):
        net = fsmnet.compile(a, arch)
        assert_tracks(a, net, random_words(a.n_symbols, seed, (2000, 60)), exact=False)
        assert_tracks(a, net, random_words(a.n_symbols, seed + 1, (12,)), exact=True)


@settings(max_examples=examples(15))
@given(commutative_machines())
def test_scores_separate_at_one_half(a: Automaton) -> None:
    # The theorem itself, in exact arithmetic on unnormalized channel values:
    # for every count vector in a box, true score > 1/2 > every other, sum = 1.
    net = fsmnet.compile(a, "bilinear-r2")
    m, desc = a.minimal(), net.exact
    assert desc is not None
    mu, n = Fraction(desc["mu"]), desc["zeta_order"]
    field = cyclotomic_field(n)
    box = [range(4)] * a.n_symbols
    for counts in itertools.product(*box):
        values = [field.element({sum(k * c for (_, k), c in zip(ch, counts)):
                                 math.prod(mu ** (i * c) for (i, _), c in zip(ch, counts))})
                  for ch in desc["channels"]]
        scores = []
        for row in desc["readout"]:
            total = field.element({})
            for coef, v in zip(row, values, strict=True):
                total = total + field.element({int(k): Fraction(q) for k, q in coef.items()}) * v
            scores.append(total.real_part())
        truth = int(m.output_ids[m.run([s for s, c in enumerate(counts) for _ in range(c)])])
        assert sum(scores, field.element({})) == 1
        for label, s in enumerate(scores):
            assert (s > Fraction(1, 2)) if label == truth else (s < Fraction(1, 2))


@pytest.mark.parametrize("t,p", [(0, 1), (0, 4), (1, 1), (2, 3), (3, 2)])
def test_letter_weights_lemma(t: int, p: int) -> None:
    # Per letter: weights >= 0, sum exactly 1, the true class gets at least
    # Π_(i<=t)(1 − μ^i), and every class weight is exactly 0 below its count.
    mu, n = Fraction(1, 4), p
    field = cyclotomic_field(n)
    weights = letter_weights(t, p, mu, n)
    floor = math.prod(1 - mu**i for i in range(1, t + 1))
    for count in range(t + 2 * p + 3):
        vals = [sum((field.element({kc + kt * count: q * mu ** (i * count)})
                     for i, kt, q, kc in terms), field.element({})) for terms in weights]
        true_class = count if count < t else t + (count - t) % p
        assert sum(vals, field.element({})) == 1
        for cls, v in enumerate(vals):
            assert v.is_real() and v >= 0
            if cls == true_class:
                assert v >= floor
            if cls > count:
                assert v == 0


def test_not_expressible_messages() -> None:
    contains_ab = Automaton(delta=np.array([[1, 1, 2], [0, 2, 2]]), symbols=("a", "b"),
                            initial=0, outputs=(False, False, True))
    witness = commutation_witness(contains_ab)
    assert witness is not None
    for arch in ARCHS:
        with pytest.raises(NotExpressible, match="needs a commutative language") as info:
            fsmnet.compile(contains_ab, arch)
        msg = str(info.value)
        # The words quoted in the message really lead to different outputs.
        words = [part for i, part in enumerate(msg.split("'")) if i % 2 == 1][:2]
        assert contains_ab.output_of(words[0]) != contains_ab.output_of(words[1])
    with pytest.raises(NotExpressible, match="letter '1' has period 3"):
        fsmnet.compile("modcount:3", "bilinear-real-diag")
    with pytest.raises(NotExpressible, match="letter '1' has period 2"):
        fsmnet.compile("parity", "bilinear-positive-diag")


def test_mu_option() -> None:
    a = counter_product([(2, 1), (1, 1)], [0, 1, 1, 0, 1, 0])
    net = fsmnet.compile(a, "bilinear-positive-diag", mu="1/7")
    assert net.options["mu"] == "1/7"
    assert_tracks(a, net, random_words(2, 5, (500,)), exact=False)
    with pytest.raises(SpecError, match="mu too large"):
        fsmnet.compile(a, "bilinear-positive-diag", mu="1/2")
    with pytest.raises(SpecError, match="between 0 and 1"):
        fsmnet.compile(a, "bilinear-positive-diag", mu=2)


def test_structure_and_validation(tmp_path: object) -> None:
    net = fsmnet.compile("modcount:5", "bilinear-r2")
    assert set(net.params) == {"modulus", "angle", "h0", "readout"}
    assert net.hidden_size == 2 * net.params["modulus"].shape[1]
    pos = fsmnet.compile(counter_product([(2, 1)], [0, 1, 0]), "bilinear-positive-diag")
    d = pos.params["diag"]
    assert np.all((d > 0) & (d <= 1))
    with pytest.raises(NetworkFileError, match="diag"):
        pos.with_params(diag=d * 2)
    with pytest.raises(NetworkFileError, match="modulus"):
        net.with_params(modulus=-net.params["modulus"])
    # A tampered tensor under the original exact description is refused when made.
    with pytest.raises(NetworkFileError, match="exact"):
        Network(arch=net.arch, params={**net.params, "readout": net.params["readout"] + 0.5},
                symbols=net.symbols, labels=net.labels, exact=net.exact)


def test_save_load_keeps_exact_mode(tmp_path: object) -> None:
    import pathlib

    a = counter_product([(1, 3), (0, 2)], [0, 1, 2, 1, 0, 2, 2, 1])
    net = fsmnet.compile(a, "bilinear-r2")
    path = pathlib.Path(str(tmp_path)) / "net.safetensors"
    net.save(path)
    back = load_network(path)
    assert back.exact == net.exact
    assert_tracks(a, back, random_words(2, 6, (30,)), exact=True)


def test_torch_export_agrees() -> None:
    torch = pytest.importorskip("torch")
    for spec, arch in (("modadd:3", "bilinear-r2"), ("parity", "bilinear-real-diag")):
        net = fsmnet.compile(spec, arch)
        words = np.random.default_rng(7).integers(0, len(net.symbols), size=(3, 300))
        out = to_torch(net)(torch.tensor(words)).numpy()
        for w, row in zip(words, out, strict=True):
            assert np.array_equal(row, net.label_trace(w))
    pos = fsmnet.compile(counter_product([(3, 1), (1, 1)], [0, 1, 2, 2, 1, 0, 0, 2]),
                         "bilinear-positive-diag")
    words = np.random.default_rng(8).integers(0, 2, size=(3, 200))
    out = to_torch(pos)(torch.tensor(words)).numpy()
    for w, row in zip(words, out, strict=True):
        assert np.array_equal(row, pos.label_trace(w))
