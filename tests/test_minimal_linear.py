"""The minimal linear representation (fsmnet.proofs.abstract.minimal_linear).

Independent routes: brute force over all words (the scores W A_w h0 of the
original system, computed directly), and the rank of the Hankel matrix of the
score function (its rank is the minimal dimension: Fliess 1974, Carlyle–Paz
1971), computed with the shared exact row reduction.
"""

from __future__ import annotations

from fractions import Fraction
from itertools import product

import numpy as np
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples

import fsmnet
from fsmnet.nets.exact_linalg import row_reduce
from fsmnet.proofs.abstract.minimal_linear import (
    minimal_representation,
    reduce_network,
    surely_minimal,
)

# small rationals, zero half of the time (so that many systems are not minimal)
ENTRY = st.one_of(st.just(Fraction(0)),
                  st.builds(Fraction, st.integers(-3, 3), st.integers(1, 3)))


@st.composite
def systems(draw: st.DrawFn) -> tuple[list, list, list]:
    h = draw(st.integers(1, 4))
    k = draw(st.integers(1, 2))
    labels = draw(st.integers(1, 3))
    mats = [[[draw(ENTRY) for _ in range(h)] for _ in range(h)] for _ in range(k)]
    h0 = [draw(ENTRY) for _ in range(h)]
    readout = [[draw(ENTRY) for _ in range(h)] for _ in range(labels)]
    return mats, h0, readout


def scores(mats: list, h0: list, readout: list, word: tuple[int, ...]) -> list[Fraction]:
    """W A_w h0 straight from the definition (the first symbol applied first)."""
    v = list(h0)
    for a in word:
        v = [sum((x * y for x, y in zip(row, v)), Fraction(0)) for row in mats[a]]
    return [sum((x * y for x, y in zip(row, v)), Fraction(0)) for row in readout]


def words(k: int, length: int) -> list[tuple[int, ...]]:
    return [w for n in range(length + 1) for w in product(range(k), repeat=n)]


def hankel_rank(mats: list, h0: list, readout: list) -> int:
    """rank of [W A_v A_u h0] (rows: prefixes u, columns: suffixes v × labels)."""
    n = len(h0)
    ws = words(len(mats), n)
    rows = [[x for v in ws for x in scores(mats, h0, readout, u + v)] for u in ws]
    return len(row_reduce(rows, len(rows[0]))[1])


@settings(max_examples=examples(60))
@given(systems())
def test_reduced_scores_equal_on_every_word_up_to_length_6(system: tuple) -> None:
    mats, h0, readout = system
    red = minimal_representation(mats, h0, readout)
    assert red.dim <= len(h0)
    for w in words(len(mats), 6):  # brute force is the oracle
        assert red.scores(w) == scores(mats, h0, readout, w)


@given(systems())
def test_dimension_is_the_hankel_rank(system: tuple) -> None:
    mats, h0, readout = system
    red = minimal_representation(mats, h0, readout)
    assert red.dim == hankel_rank(mats, h0, readout)
    if surely_minimal(mats, h0, readout):  # the mod-p shortcut never claims too much
        assert red.dim == len(h0)


@given(systems())
def test_the_maps_satisfy_the_checked_identities(system: tuple) -> None:
    # A_x P = P B_x, Q B_x = A'_x Q on the reachable part, i.e. T A_x P = A'_x T P,
    # T h0 = h0' and W P = W' T P (T = the projection d × H).
    mats, h0, readout = system
    red = minimal_representation(mats, h0, readout)
    assume(red.dim > 0)
    a = [np.array(m, dtype=object) for m in mats]
    p = np.array(red.reachable, dtype=object)
    t = np.array(red.projection(), dtype=object)
    for m, mr in zip(a, red.matrices):
        assert (t.dot(m).dot(p) == np.array(mr, dtype=object).dot(t).dot(p)).all()
    assert list(t.dot(np.array(h0, dtype=object))) == red.h0
    assert (np.array(readout, dtype=object).dot(p) ==
            np.array(red.readout, dtype=object).dot(t).dot(p)).all()


def _pad(net: fsmnet.nets.Network, extra: int, seed: int = 0) -> fsmnet.nets.Network:
    """The same net with ``extra`` unreachable directions (fed nowhere from the
    original block, but read out) and ``extra`` unobservable ones (fed by the
    original block, never read), all couplings random dyadic."""
    rng = np.random.default_rng(seed)
    w = net.params["W"]
    h, k = w.shape[0], w.shape[2]
    big = np.zeros((h + 2 * extra, h + 2 * extra, k))
    u = slice(h, h + extra)           # unreachable
    o = slice(h + extra, h + 2 * extra)  # unobservable

    def r(*shape: int) -> np.ndarray:
        return rng.integers(-4, 5, size=shape) / 4

    for a in range(k):
        big[:h, :h, a] = w[:, :, a]
        big[:h, u, a] = r(h, extra)       # the original block reads the unreachable part
        big[u, u, a] = r(extra, extra)
        big[o, :h, a] = r(extra, h)       # the unobservable part reads the original
        big[o, o, a] = r(extra, extra)
        big[o, u, a] = r(extra, extra)
    h0 = np.r_[net.params["h0"], np.zeros(2 * extra)]
    readout = np.c_[net.params["readout"], r(len(net.labels), extra),
                    np.zeros((len(net.labels), extra))]
    return fsmnet.nets.Network(arch="bilinear-full", params={"W": big, "h0": h0,
                               "readout": readout}, symbols=net.symbols, labels=net.labels)


def test_padded_compiled_nets_reduce_to_the_original_size() -> None:
    for spec in ("parity", "contains:ab", "modcount:3"):
        net = fsmnet.compile(spec, "bilinear-full")
        sem = net.semantics
        plain = minimal_representation(sem.matrices(net, True), sem.initial_state(net, True),
                                       sem.readout_matrix(net, True))
        # independent: the compiled one-hot nets are minimal (Hankel rank = H)
        assert plain.dim == net.hidden_size == hankel_rank(
            sem.matrices(net, True).tolist(), list(sem.initial_state(net, True)),
            sem.readout_matrix(net, True).tolist())
        padded = _pad(net, 3)
        found = reduce_network(padded)
        assert found is not None
        red, small = found
        assert red.dim == net.hidden_size and small.hidden_size == net.hidden_size
        automaton = fsmnet.load(spec)
        for w in words(len(net.symbols), 6):  # brute force: the labels agree
            word = [net.symbols[a] for a in w]
            assert small.output_of(word, exact=True) == padded.output_of(word, exact=True) \
                == automaton.output_of(word)


def test_a_generic_network_is_already_minimal_and_is_not_reduced() -> None:
    net = fsmnet.compile("parity", "bilinear-full")
    rng = np.random.default_rng(1)
    noisy = net.with_params(**{k: v + 1e-3 * rng.standard_normal(v.shape)
                               for k, v in net.params.items()})
    assert reduce_network(noisy) is None


# ------------------------------------------------------------ certify on the reduced system
def _numbers(node: object, path: tuple = ()) -> list[tuple]:
    """Paths to every number string under a JSON node."""
    if isinstance(node, list):
        return [p for i, x in enumerate(node) for p in _numbers(x, path + (i,))]
    if isinstance(node, dict):
        return [p for k, x in node.items() for p in _numbers(x, path + (k,))]
    return [path] if isinstance(node, str) else []


def _set(cert: dict, path: tuple, value: object) -> dict:
    import copy

    out = copy.deepcopy(cert)
    node = out
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    return out


def _padded_ends_ab() -> fsmnet.nets.Network:
    from certify_helpers import ENDS_AB, perturb

    return _pad(perturb(fsmnet.compile(ENDS_AB, "bilinear-full"), 1e-4), 3)


def test_certify_runs_on_the_reduced_system_and_the_checker_rechecks_it(tmp_path) -> None:
    import json

    import pytest
    from certify_helpers import ENDS_AB, exhaustive_agree

    from fsmnet.proofs.abstract.certify import certify
    from fsmnet.proofs.checker import CertificateError, check_certificate

    net = _padded_ends_ab()
    path = tmp_path / "c.json"
    result = certify(ENDS_AB, net, certificate=str(path))
    assert result.verdict == "proved" and result.method == "box-invariant"
    assert exhaustive_agree(net, ENDS_AB, 10)  # independent: all words to length 10
    cert = json.loads(path.read_text())
    assert cert["method"] == "reduced-invariant"
    assert check_certificate(cert).startswith("valid: reduction H=9 -> d=3")
    # tampering with any number of the reduction fails the check
    red = [("reduction",) + p for p in _numbers(cert["reduction"]) if "type" not in p]
    assert len(red) > 90
    for p in red:
        bad = _set(cert, p, str(Fraction(_get(cert, p)) + 1))
        with pytest.raises(CertificateError):
            check_certificate(bad)
    # a changed weight of the network's own model fails, unless it only touches the
    # directions that the reduction drops (unreached, or never read): then the claim
    # is still true of the changed model (independent: its exact labels, all words
    # to length 6), and the network file check rejects it anyway
    own = [("network", "model") + p for p in _numbers(cert["network"]["model"])
           if "type" not in p]
    failed = passed = 0
    for p in own:
        bad = _set(cert, p, str(Fraction(_get(cert, p)) + 1))
        try:
            check_certificate(bad)
        except CertificateError:
            failed += 1
            continue
        passed += 1
        if passed % 8 == 1:  # a sample: each brute force costs a second
            assert _model_agrees(bad["network"]["model"], ENDS_AB, 6), p
    assert failed > 50


def _model_agrees(model: dict, automaton: object, length: int) -> bool:
    """Exact labels of a certificate model against the automaton, all words up to
    ``length`` (breadth first, prefixes shared)."""
    mats = [[[Fraction(x) for x in row] for row in m] for m in model["matrices"]]
    w = [[Fraction(x) for x in row] for row in model["readout"]]
    level = [([Fraction(x) for x in model["h0"]], automaton.initial)]
    for n in range(length + 1):
        for h, q in level:
            s = [sum((x * y for x, y in zip(row, h)), Fraction(0)) for row in w]
            best = max(range(len(s)), key=lambda i: (s[i], -i))
            if [False, True][best] != automaton.outputs[q]:
                return False
        if n < length:
            level = [([sum((x * y for x, y in zip(row, h)), Fraction(0)) for row in m],
                      int(automaton.delta[a, q])) for h, q in level for a, m in enumerate(mats)]
    return True


def _get(cert: dict, path: tuple) -> object:
    node: object = cert
    for key in path:
        node = node[key]  # type: ignore[index]
    return node


def test_without_the_reduction_the_padded_net_is_not_proved() -> None:
    # What the reduction buys: the boxes over all 9 coordinates find no functional
    # positive on the sampled states (the unobservable part swings in sign).
    from certify_helpers import ENDS_AB

    from fsmnet.proofs.abstract.certify import prove_invariant

    net = _padded_ends_ab()
    import fsmnet.proofs.abstract.minimal_linear as ml

    original = ml.reduce_network
    try:
        ml.reduce_network = lambda n: None  # type: ignore[assignment]
        cert, why, _ = prove_invariant(net, ENDS_AB)
    finally:
        ml.reduce_network = original
    assert cert is None, why


@given(systems())
def test_the_stdlib_checker_accepts_every_computed_reduction(system: tuple) -> None:
    # the checker's identities, on the certificate form of random reductions; a
    # changed reduced h0 entry always breaks h0' = Q b0
    import pytest

    from fsmnet.proofs.abstract.minimal_linear import reduction_record
    from fsmnet.proofs.certificate_models import exact_qs
    from fsmnet.proofs.checker import CertificateError
    from fsmnet.proofs.checker.reduction import check_reduction

    mats, h0, readout = system
    red = minimal_representation(mats, h0, readout)
    assume(red.dim > 0)
    model = {"type": "linear", "matrices": exact_qs(np.array(mats, dtype=object)),
             "h0": exact_qs(h0), "readout": exact_qs(np.array(readout, dtype=object))}
    record = reduction_record(red)
    assert check_reduction(model, record) == (len(h0), red.dim)
    record["model"]["h0"][0] = str(Fraction(record["model"]["h0"][0]) + 1)
    with pytest.raises(CertificateError):
        check_reduction(model, record)
