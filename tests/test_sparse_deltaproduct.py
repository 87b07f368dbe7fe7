"""DeltaProduct networks whose keys are stored sparse (fsmnet.nets.deltaproduct).

The oracles: the dense twin (the same keys written out dense) run through the
dense products, the generic rational product of Householder factors
(``householder_product`` on Fractions, which forms every H × H matrix), and for
the float64 shortcut the dense float64 product itself, compared bit for bit.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples
from sparse_helpers import (
    assert_certificate_checks_against_the_file,
    assert_twins_run_and_prove_alike,
    assert_verdict_of_dense_twin,
    move_one_entry,
)

import fsmnet
from fsmnet.errors import NetworkFileError
from fsmnet.gpu.tabulate import tabulate
from fsmnet.nets import Network
from fsmnet.nets.deltaproduct import householder_columns, householder_product
from fsmnet.nets.linear import to_fractions
from fsmnet.nets.one_hot import one_hot_codes
from fsmnet.nets.sparse import SparseTensor, coo
from fsmnet.testing.strategies import automata


def _twins(net: Network) -> tuple[Network, Network]:
    """``net`` with its keys and readout stored sparse, and with both dense."""
    dense = {name: np.asarray(value) for name, value in net.params.items()}
    sparse = {**dense, "keys": SparseTensor.from_dense(dense["keys"]),
              "readout": SparseTensor.from_dense(dense["readout"])}
    common = {"arch": "deltaproduct", "symbols": net.symbols, "labels": net.labels}
    return Network(params=sparse, **common), Network(params=dense, **common)


def _generic_exact(net: Network) -> np.ndarray:
    keys, betas = to_fractions(net.params["keys"]), to_fractions(net.params["betas"])
    return np.array([householder_product(keys[s], betas[s]) for s in range(len(keys))],
                    dtype=object)


@given(automata(max_states=6, max_symbols=3, max_labels=3), st.data())
def test_sparse_keys_are_the_dense_network(a, data) -> None:
    sparse, dense = _twins(fsmnet.compile(a, "deltaproduct"))
    sem = sparse.semantics
    # Exact matrices from the stored entries = the generic rational product.
    assert np.array_equal(sem.matrices_exact(sparse), _generic_exact(dense))
    # Float64 entries (the shortcut applies: keys in {−1, 0, 1}) = the dense float64 product.
    symbols, rows, cols, values = sem.matrix_entries(sparse, False)
    placed = np.zeros_like(dense.semantics.matrices_float(dense))
    placed[symbols, rows, cols] = values
    assert placed.tobytes() == dense.semantics.matrices_float(dense).tobytes()
    for exact in (True, False):
        assert _same_codes(one_hot_codes(sparse, exact=exact), one_hot_codes(dense, exact=exact))
    word = data.draw(st.lists(st.integers(0, a.n_symbols - 1), max_size=40))
    assert_twins_run_and_prove_alike(a, sparse, dense, word)
    table, twin = tabulate(sparse), tabulate(dense)
    assert table is not None and twin is not None
    assert np.array_equal(table.automaton.delta, twin.automaton.delta)


def _same_codes(x, y) -> bool:
    return x is not None and y is not None and x.initial == y.initial and all(
        np.array_equal(getattr(x, f), getattr(y, f)) for f in ("succ", "positive", "negative"))


KEY_VALUES = st.sampled_from([1.0, -1.0, 0.5, -2.0, 3.0, 1e-200, 2.0**-1074])
BETAS = st.sampled_from([0.0, 0.5, 1.0, 2.0, 0.3, 1.75])


@st.composite
def factors(draw, hidden: int = 4):
    out = []
    for _ in range(draw(st.integers(1, 5))):
        where = draw(st.lists(st.integers(0, hidden - 1), min_size=1, max_size=2, unique=True))
        out.append(({i: draw(KEY_VALUES) for i in where}, draw(BETAS)))
    return out


@given(factors())
def test_the_float64_columns_are_the_dense_float64_product_or_none(fs) -> None:
    hidden = 4
    keys = np.zeros((len(fs), hidden))
    for j, (key, _) in enumerate(fs):
        for i, v in key.items():
            keys[j, i] = v
    betas = np.array([b for _, b in fs])
    exact = householder_columns(fs, hidden)
    assert np.array_equal(_dense(exact, hidden),
                          householder_product(to_fractions(keys), to_fractions(betas)))
    columns = householder_columns(fs, hidden, as_float64=True)
    if columns is None:
        return
    # Independent source: numpy's dense float64 product (BLAS dot products, any order).
    want = householder_product(keys, betas)
    got = np.array(_dense(columns, hidden), dtype=np.float64)
    assert got.tobytes() == (want + 0.0).tobytes()  # +0.0: a zero's sign is no entry
    assert columns == exact


def _dense(columns, hidden: int) -> np.ndarray:
    out = np.full((hidden, hidden), Fraction(0), dtype=object)
    for q, column in enumerate(columns):
        for i, v in column.items():
            out[i, q] = v
    return out


def test_a_scale_that_is_not_a_double_takes_the_dense_path() -> None:
    # Key (1, 2): ‖k‖² = 5 and β/5 is no double, so float64 rounds where Fractions do
    # not; the shortcut must decline rather than claim the rounded product.
    fs = [({0: 1.0, 1: 2.0}, 1.0)]
    assert householder_columns(fs, 2, as_float64=True) is None
    rounded = householder_product(np.array([[1.0, 2.0]]), np.array([1.0]))
    exact = householder_columns(fs, 2)
    assert Fraction(float(rounded[0, 0])) != exact[0][0]  # why: the float64 product rounds


@given(automata(min_states=2, max_states=6, max_symbols=3, max_labels=3), st.data())
def test_a_wrong_sparse_key_is_refuted_with_a_confirmed_word(a, data) -> None:
    net = fsmnet.compile(a, "deltaproduct")
    # a key entry moved to another state (the minimal automaton's)
    mutant_keys = move_one_entry(SparseTensor.from_dense(np.asarray(net.params["keys"])), 2,
                                 data)
    params = {**net.params, "keys": mutant_keys}
    mutant = Network(arch="deltaproduct", params=params, symbols=net.symbols,
                     labels=net.labels)
    dense = Network(arch="deltaproduct", params={**params, "keys": mutant_keys.to_dense()},
                    symbols=net.symbols, labels=net.labels)
    assert_verdict_of_dense_twin(a, mutant, dense)


def test_s6_compiles_sparse_and_its_certificate_checks_against_the_file(tmp_path) -> None:
    a = fsmnet.load("symmetric:6,gens").minimal()  # 720 states, n_h = 600
    net = fsmnet.compile(a, "deltaproduct")
    keys = net.stored["keys"]
    assert isinstance(keys, SparseTensor) and keys.shape == (2, 600, 720)
    # Hand count: the transposition letter is 360 reflections of two entries; the
    # 6-cycle letter has 120 cycles of length 6, so 720 − 120 = 600 reflections.
    assert keys.nnz == 2 * (360 + 600)
    cert = assert_certificate_checks_against_the_file(a, net, tmp_path, "linear-sparse")
    from fsmnet.proofs.checker import CertificateError, check_certificate

    cert["network"]["model"]["matrices"][0]["values"][0] = "-1"
    with pytest.raises(CertificateError):
        check_certificate(cert)


def test_a_zero_sparse_key_with_a_step_is_refused() -> None:
    net = fsmnet.compile("modadd:3", "deltaproduct")
    keys = SparseTensor.from_dense(np.asarray(net.params["keys"]))
    betas = np.array(net.params["betas"])
    # a letter that uses every factor
    s, last = int(np.flatnonzero(betas[:, -1])[0]), betas.shape[1] - 1
    betas[s, last] = 1.0
    keep = ~((keys.indices[0] == s) & (keys.indices[1] == last))
    assert not keep.all()  # the key had entries
    hollow = coo(keys.shape, keys.indices[:, keep], keys.values[keep])
    with pytest.raises(NetworkFileError, match=rf"'keys'.*key \[{s}, {last}\] is zero"):
        Network(arch="deltaproduct", params={**net.params, "keys": hollow, "betas": betas},
                symbols=net.symbols, labels=net.labels)
    with pytest.raises(NetworkFileError, match=r"'betas'.*stored sparse"):
        Network(arch="deltaproduct",
                params={**net.params, "betas": SparseTensor.from_dense(betas)},
                symbols=net.symbols, labels=net.labels)


@settings(max_examples=examples(10))  # a torch module per example
@given(automata(max_states=5, max_symbols=3, max_labels=3), st.data())
def test_torch_reads_sparse_keys(a, data) -> None:
    torch = pytest.importorskip("torch")
    sparse, dense = _twins(fsmnet.compile(a, "deltaproduct"))
    assume(len(sparse.labels) > 1)
    word = data.draw(st.lists(st.integers(0, a.n_symbols - 1), min_size=1, max_size=30))
    with torch.no_grad():
        got = fsmnet.to_torch(sparse)(torch.tensor([word]))[0].tolist()
    assert got == dense.label_trace(word).tolist()
