"""minmax-dense networks whose R and readout are stored sparse, their Boolean codes
(fsmnet.nets.one_hot) and the ``minmax-sparse`` certificate model.

Oracles: the dense twin through the dense max-min step (``maxmin_matvec`` on every
entry), the generic exploration and tabulation (no codes), and the checker's own
``minmax-dense`` model for the checker's ``minmax-sparse`` one.
"""

from __future__ import annotations

import copy
import json
from fractions import Fraction
from unittest import mock

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from hypothesis_budget import examples
from sparse_helpers import assert_certificate_checks_against_the_file

import fsmnet
from fsmnet.errors import NetworkFileError
from fsmnet.gpu.tabulate import tabulate
from fsmnet.nets import Network
from fsmnet.nets.minmax import affine_step, first_argmax, maxmin_matvec
from fsmnet.nets.one_hot import one_hot_codes
from fsmnet.nets.sparse import SparseTensor
from fsmnet.proofs.certificate import build_certificate
from fsmnet.proofs.checker import CertificateError, check_certificate
from fsmnet.proofs.checker import models as checker_models
from fsmnet.proofs.product import explore_product
from fsmnet.testing.strategies import automata


def _twins(params: dict, symbols, labels) -> tuple[Network, Network]:
    dense = {k: np.asarray(v.to_dense() if isinstance(v, SparseTensor) else v)
             for k, v in params.items()}
    sparse = {**dense, "R": SparseTensor.from_dense(dense["R"]),
              "readout": SparseTensor.from_dense(dense["readout"])}
    common = {"arch": "minmax-dense", "symbols": symbols, "labels": labels}
    return Network(params=sparse, **common), Network(params=dense, **common)


def _dense_labels(p: dict, word) -> list[int]:
    """The definition, entry by entry: x' = (R ⊗ x) ⊕ s, label = first argmax of readout ⊗ x."""
    x = np.array(p["x0"], dtype=np.float64)
    out = [first_argmax(maxmin_matvec(p["readout"], x))]
    for a in word:
        x = affine_step(p["R"][a], p["s"][a], x)
        out.append(first_argmax(maxmin_matvec(p["readout"], x)))
    return out


@given(automata(max_states=7, max_symbols=3, max_labels=3), st.data())
def test_sparse_r_is_the_dense_network(a, data) -> None:
    net = fsmnet.compile(a, "minmax-dense")
    sparse, dense = _twins(net.params, net.symbols, net.labels)
    word = data.draw(st.lists(st.integers(0, a.n_symbols - 1), max_size=40))
    want = _dense_labels(dense.params, word)
    assert sparse.label_trace(word).tolist() == want
    assert sparse.label_trace(word, exact=True).tolist() == want
    fast = explore_product(sparse, a)
    generic = explore_product(dense, a, fast_paths=False)
    assert (fast.status, fast.pairs, fast.transitions) == \
        (generic.status, generic.pairs, generic.transitions)
    table = tabulate(sparse)
    with mock.patch("fsmnet.nets.one_hot.one_hot_codes", lambda net, exact: None):
        slow = tabulate(dense)
    assert table is not None and slow is not None
    assert np.array_equal(table.automaton.delta, slow.automaton.delta)
    assert list(table.automaton.output_ids) == list(slow.automaton.output_ids)


VALUES = st.one_of(st.sampled_from([0.0, 1.0]), st.sampled_from([0.0, 1.0]),
                   st.sampled_from([0.0, 1.0]), st.sampled_from([-0.0, 0.5, 2.0, -1.0]))


@given(st.integers(1, 4), st.integers(1, 3), st.integers(1, 3), st.data())
def test_boolean_codes_are_the_max_min_semantics_or_none(n, k, labels, data) -> None:
    # Random tensors, mostly Boolean: where the codes apply they must give the labels
    # of the definition, and where a value is not 1 or +0 they must not apply.
    draw = data.draw
    p = {"R": draw(hnp.arrays(np.float64, (k, n, n), elements=VALUES)),
         "s": draw(hnp.arrays(np.float64, (k, n), elements=st.sampled_from([0.0, 0.0, -1.0]))),
         "x0": draw(hnp.arrays(np.float64, (n,), elements=VALUES)),
         "readout": draw(hnp.arrays(np.float64, (labels, n), elements=VALUES))}
    sparse, _ = _twins(p, [f"a{i}" for i in range(k)], [f"c{i}" for i in range(labels)])
    codes = one_hot_codes(sparse, exact=True)
    boolean = all(np.all((v == 1) | ((v == 0) & ~np.signbit(v)))
                  for v in (p["R"], p["x0"], p["readout"])) and not np.any(p["s"])
    if not boolean:
        assert codes is None
        return
    assume(codes is not None)  # a column or x0 with two ones: no codes (a subset state)
    word = draw(st.lists(st.integers(0, k - 1), max_size=12))
    c, got = codes.initial, [codes.label(codes.initial)]
    for a in word:
        c = codes.step(c, a)
        got.append(codes.label(c))
    assert got == _dense_labels(p, word)
    assert codes.vector(c).tobytes() == _dense_state(p, word).tobytes()


def _dense_state(p: dict, word) -> np.ndarray:
    x = np.array(p["x0"], dtype=np.float64)
    for a in word:
        x = affine_step(p["R"][a], p["s"][a], x)
    return x


@st.composite
def sparse_models(draw):
    """A random non-negative minmax-sparse model and its dense minmax-dense twin."""
    n, k, labels = draw(st.integers(1, 4)), draw(st.integers(1, 3)), draw(st.integers(1, 3))
    vals = st.sampled_from([0, 0, 0, 1, 2, Fraction(1, 2), 3])
    r = [[[draw(vals) for _ in range(n)] for _ in range(n)] for _ in range(k)]
    s = [[draw(vals) for _ in range(n)] for _ in range(k)]
    x0 = [draw(vals) for _ in range(n)]
    readout = [[draw(vals) for _ in range(n)] for _ in range(labels)]

    def mat(m):
        rows = [(i, j, v) for i, row in enumerate(m) for j, v in enumerate(row) if v]
        return {"rows": [i for i, _, _ in rows], "cols": [j for _, j, _ in rows],
                "values": [str(v) for _, _, v in rows]}

    def vec(v):
        return {"index": [j for j, x in enumerate(v) if x], "values": [str(x) for x in v if x]}

    def strings(m):
        return [strings(x) for x in m] if isinstance(m, list) else str(m)

    sparse = {"type": "minmax-sparse", "dim": n, "R": [mat(m) for m in r],
              "s": [vec(v) for v in s], "x0": vec(x0), "readout": mat(readout)}
    dense = {"type": "minmax-dense", "R": strings(r), "s": strings(s), "x0": strings(x0),
             "readout": strings(readout)}
    return sparse, dense, k, labels


@given(sparse_models(), st.data())
def test_the_checkers_sparse_model_is_its_dense_model(models, data) -> None:
    sparse_json, dense_json, k, labels = models
    sparse = checker_models.MODELS["minmax-sparse"](sparse_json, k, labels)
    dense = checker_models.MODELS["minmax-dense"](dense_json, k, labels)
    x, h = sparse.h0, dense.h0
    for a in data.draw(st.lists(st.integers(0, k - 1), max_size=10)):
        assert sparse.label(x) == dense.label(h)
        assert [v for v in h] == [dict(x).get(j, 0) for j in range(len(h))]
        x, h = sparse.step(x, a), dense.step(h, a)
    assert sparse.label(x) == dense.label(h)


def _sparse_cert(a):
    net = fsmnet.compile(a, "minmax-dense")
    sparse, _ = _twins(net.params, net.symbols, net.labels)
    return sparse, build_certificate(sparse, a, explore_product(sparse, a))


@given(automata(max_states=7, max_symbols=3, max_labels=3))
def test_a_sparse_max_min_network_gets_a_sparse_certificate(a) -> None:
    sparse, cert = _sparse_cert(a)
    assert cert["network"]["model"]["type"] == "minmax-sparse"
    check_certificate(json.loads(json.dumps(cert)))
    twin = build_certificate(Network(arch="minmax-dense", params=dict(sparse.params),
                                     symbols=sparse.symbols, labels=sparse.labels),
                             a, explore_product(sparse, a, fast_paths=False))
    assert twin["network"]["model"]["type"] == "minmax-dense"
    assert (twin["pairs"], twin["transitions"]) == (cert["pairs"], cert["transitions"])
    for (index, values), vector in zip(cert["states"], twin["states"]):
        assert [vector[int(j)] for j in index] == values
        assert sum(v != "0" for v in vector) == len(index)


def _r0(c):
    return c["network"]["model"]["R"][0]


TAMPERS = [
    ("an entry's target moved", lambda c: _r0(c)["rows"].__setitem__(
        0, (_r0(c)["rows"][0] + 1) % c["network"]["model"]["dim"])),
    ("a one made a half", lambda c: _r0(c)["values"].__setitem__(0, "1/2")),
    ("a negative offset", lambda c: c["network"]["model"]["s"][0].update(
        index=[0], values=["-1"])),
    ("a state with a negative value", lambda c: c["states"][0][1].__setitem__(0, "-1")),
    ("an offset raised", lambda c: c["network"]["model"]["s"][0].update(
        index=[0], values=["1"])),
]


@pytest.mark.parametrize("what, tamper", TAMPERS, ids=[t[0] for t in TAMPERS])
def test_a_tampered_sparse_max_min_certificate_is_refused(what, tamper) -> None:
    _, cert = _sparse_cert(fsmnet.load("modadd:3").minimal())
    check_certificate(copy.deepcopy(cert))
    tamper(cert)
    with pytest.raises(CertificateError):
        check_certificate(json.loads(json.dumps(cert)))


def test_a_negative_value_keeps_the_dense_model() -> None:
    # The sparse model is for non-negative networks; −1 in s changes no label here (the
    # max with a 0 or 1 state entry), and the certificate falls back to minmax-dense.
    a = fsmnet.load("modadd:3").minimal()
    net = fsmnet.compile(a, "minmax-dense")
    sparse, _ = _twins({**net.params, "s": np.full_like(net.params["s"], -1.0)},
                       net.symbols, net.labels)
    cert = build_certificate(sparse, a, explore_product(sparse, a))
    assert cert["network"]["model"]["type"] == "minmax-dense"
    check_certificate(cert)


def test_s7_compiles_sparse_and_its_certificate_checks_against_the_file(tmp_path) -> None:
    # Issue 34: dense, this file was 610 MB and its proof ran past 300 s.
    a = fsmnet.load("symmetric:7,gens").minimal()
    net = fsmnet.compile(a, "minmax-dense")
    assert isinstance(net.stored["R"], SparseTensor) and net.stored["R"].nnz == 5040 * 2
    assert_certificate_checks_against_the_file(a, net, tmp_path, "minmax-sparse")
    assert (tmp_path / "net.safetensors").stat().st_size < 2 * 2**20


def test_an_offset_stored_sparse_is_refused() -> None:
    net = fsmnet.compile("modadd:3", "minmax-dense")
    with pytest.raises(NetworkFileError, match=r"'s'.*stored sparse"):
        Network(arch="minmax-dense",
                params={**net.params, "s": SparseTensor.from_dense(net.params["s"])},
                symbols=net.symbols, labels=net.labels)


@settings(max_examples=examples(10))  # a torch module per example
@given(automata(max_states=5, max_symbols=3, max_labels=3), st.data())
def test_torch_reads_a_sparse_max_min_network(a, data) -> None:
    torch = pytest.importorskip("torch")
    net = fsmnet.compile(a, "minmax-dense")
    sparse, dense = _twins(net.params, net.symbols, net.labels)
    assume(len(net.labels) > 1)
    word = data.draw(st.lists(st.integers(0, a.n_symbols - 1), min_size=1, max_size=30))
    with torch.no_grad():
        got = fsmnet.to_torch(sparse)(torch.tensor([word]))[0].tolist()
    assert got == _dense_labels(dense.params, word)  # the start's label first
