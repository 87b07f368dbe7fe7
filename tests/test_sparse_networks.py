"""Sparse tensors in networks and files (fsmnet.nets.sparse, docs/formats.md).

The oracle throughout is the dense tensor: a network that stores ``W`` or
``readout`` sparse must be the network whose dense tensors are ``to_dense()``
of them, bit for bit, in every consumer (labels, proofs, the scan engine's
table, torch), and a file whose sparse parts are not a valid sparse tensor is
refused with the file, the field and the value named.
"""

from __future__ import annotations

import json
import os
import struct
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import fsmnet
from fsmnet.constructions.bilinear_full import one_hot_coordinates
from fsmnet.errors import NetworkFileError
from fsmnet.gpu.tabulate import tabulate
from fsmnet.nets import Network
from fsmnet.nets.network import load_network
from fsmnet.nets.sparse import SparseTensor, coo, first_argmax_of_columns
from fsmnet.proofs.product import explore_product
from fsmnet.testing.strategies import automata

ENTRIES = st.sampled_from([0.0, -0.0, 1.0, -1.0, 0.5, -2.0, 3.0, 1e-300, -5e-324])


@given(hnp.arrays(np.float64, hnp.array_shapes(min_dims=1, max_dims=3, max_side=5),
                  elements=ENTRIES))
def test_dense_to_sparse_to_dense_keeps_every_bit(array) -> None:
    back = SparseTensor.from_dense(array).to_dense()
    assert back.tobytes() == array.tobytes()  # -0.0 included


@given(hnp.arrays(np.float64, hnp.array_shapes(min_dims=2, max_dims=2, max_side=6),
                  elements=ENTRIES), st.sampled_from([1, -1]))
def test_first_argmax_of_columns_is_numpys_argmax(matrix, sign) -> None:
    # Independent source: np.argmax on the dense matrix (first index of the maximum;
    # ±0.0 compare equal).
    want = np.argmax(sign * matrix, axis=0)
    assert np.array_equal(first_argmax_of_columns(SparseTensor.from_dense(matrix), sign),
                          want)


def _dense_one_hot(a: fsmnet.Automaton) -> dict[str, np.ndarray]:
    """The one-hot tensors written out from the definition W[δ(j, σ), j, σ] = 1 (a second
    construction, independent of the coordinates the compiler builds)."""
    n, k = a.n_states, a.n_symbols
    w = np.zeros((n, n, k))
    for sym in range(k):
        for j in range(n):
            w[a.delta[sym][j], j, sym] = 1.0
    h0 = np.zeros(n)
    h0[a.initial] = 1.0
    readout = np.zeros((len(a.labels), n))
    for j in range(n):
        readout[a.output_ids[j], j] = 1.0
    return {"W": w, "h0": h0, "readout": readout}


def _twins(a: fsmnet.Automaton) -> tuple[Network, Network]:
    """The one-hot network of ``a`` stored sparse (whatever its size) and dense."""
    w, h0, readout = one_hot_coordinates(a)
    common = {"arch": "bilinear-full", "symbols": a.symbols, "labels": a.labels}
    return (Network(params={"W": w, "h0": h0, "readout": readout}, **common),
            Network(params=_dense_one_hot(a), **common))


@given(automata(max_states=7, max_symbols=3, max_labels=3), st.data())
def test_sparse_and_dense_twins_are_the_same_network(a, data) -> None:
    sparse, dense = _twins(a)
    for name in ("W", "h0", "readout"):
        assert sparse.params[name].tobytes() == dense.params[name].tobytes()
    word = np.array(data.draw(st.lists(st.integers(0, a.n_symbols - 1), max_size=60)),
                    dtype=np.int64)
    assert np.array_equal(sparse.label_trace(word), dense.label_trace(word))
    assert np.array_equal(sparse.label_trace(word, exact=True), dense.label_trace(word))
    # The exact product: the fast path on coordinates against the generic rational one.
    fast = explore_product(sparse, a)
    generic = explore_product(dense, a, fast_paths=False)
    assert (fast.status, fast.pairs, fast.transitions) == \
        (generic.status, generic.pairs, generic.transitions)


@given(automata(max_states=7, max_symbols=3, max_labels=3))
def test_the_table_from_coordinates_is_the_breadth_first_float_table(a) -> None:
    from unittest import mock

    sparse, dense = _twins(a)
    fast = tabulate(sparse)
    with mock.patch("fsmnet.nets.one_hot.one_hot_codes", lambda net, exact: None):
        slow = tabulate(dense)  # the generic loop: float steps of H-vectors
    assert fast is not None and slow is not None
    assert np.array_equal(fast.automaton.delta, slow.automaton.delta)
    assert list(fast.automaton.output_ids) == list(slow.automaton.output_ids)
    assert fast.automaton.labels == slow.automaton.labels
    for q in range(len(slow.states)):
        assert np.array_equal(fast.states[q], slow.states[q])
        assert fast.index.get(((sparse.hidden_size,), tuple(slow.states[q].tolist()))) == q


@given(automata(min_states=2, max_states=6, max_symbols=3, max_labels=3), st.data())
def test_a_wrong_sparse_entry_is_refuted_with_a_confirmed_word(a, data) -> None:
    # Mutant: one column of one letter sent to another state.  The verdict must match
    # the dense twin's generic proof, and a counterexample must replay on the automaton.
    w, h0, readout = one_hot_coordinates(a)
    e = data.draw(st.integers(0, w.nnz - 1))
    rows = w.indices[0].copy()
    rows[e] = (rows[e] + data.draw(st.integers(1, a.n_states - 1))) % a.n_states
    mutant_w = coo(w.shape, np.stack([rows, w.indices[1], w.indices[2]]), w.values)
    mutant = Network(arch="bilinear-full", params={"W": mutant_w, "h0": h0,
                                                   "readout": readout},
                     symbols=a.symbols, labels=a.labels)
    dense = Network(arch="bilinear-full", params={"W": mutant_w.to_dense(), "h0": h0,
                                                  "readout": readout.to_dense()},
                    symbols=a.symbols, labels=a.labels)
    got = fsmnet.verify(a, mutant)
    assert got.verdict == explore_product_verdict(dense, a)
    if got.verdict == "refuted":
        word = list(got.counterexample.word)
        names = [a.symbols[i] if isinstance(i, (int, np.integer)) else i for i in word]
        assert mutant.output_of(names) != a.output_of(names)


def explore_product_verdict(net: Network, a: fsmnet.Automaton) -> str:
    status = explore_product(net, a, fast_paths=False).status
    return {"closed": "proved", "mismatch": "refuted"}[status]


def test_a_column_with_two_entries_takes_the_generic_path() -> None:
    # Not one-hot: column 0 of letter 0 is (e_0 + e_1)/2.  The codes do not apply, and
    # the network is still the dense one.
    a = fsmnet.load("parity").minimal()
    w, h0, readout = one_hot_coordinates(a)
    dense_w = w.to_dense()
    dense_w[:, 0, 0] = 0.5
    net = Network(arch="bilinear-full", params={"W": SparseTensor.from_dense(dense_w),
                                                "h0": h0, "readout": readout},
                  symbols=a.symbols, labels=a.labels)
    from fsmnet.nets.one_hot import one_hot_codes

    assert one_hot_codes(net, exact=True) is None
    twin = Network(arch="bilinear-full", params={"W": dense_w, "h0": h0,
                                                 "readout": readout.to_dense()},
                   symbols=a.symbols, labels=a.labels)
    assert fsmnet.verify(a, net).verdict == fsmnet.verify(a, twin).verdict


# ------------------------------------------------------------------ files

def test_a_large_one_hot_network_is_stored_and_filed_sparse(tmp_path) -> None:
    a = fsmnet.load("symmetric:5,gens").minimal()  # 120 states, 2 letters, 120 labels
    net = fsmnet.compile(a, "bilinear-full")
    stored = net.stored
    assert isinstance(stored["W"], SparseTensor) and isinstance(stored["readout"], SparseTensor)
    assert stored["W"].nnz == 120 * 2 and stored["readout"].nnz == 120
    assert net.params["W"].tobytes() == _dense_one_hot(a)["W"].tobytes()
    path = tmp_path / "s5.safetensors"
    net.save(path)
    dense_bytes = 8 * (120 * 120 * 2 + 120 * 120)
    assert os.path.getsize(path) < dense_bytes / 20
    back = load_network(path)
    assert back.header()["format_version"] == 4
    assert back.header()["sparse"] == {"W": [120, 120, 2], "readout": [120, 120]}
    assert back.params["W"].tobytes() == net.params["W"].tobytes()
    assert fsmnet.verify(a, back).verdict == "proved"


def test_a_small_network_stays_dense_and_version_1() -> None:
    net = fsmnet.compile("modadd:5", "bilinear-full")
    assert not any(isinstance(v, SparseTensor) for v in net.stored.values())
    assert net.header()["format_version"] == 1 and "sparse" not in net.header()


def _rewrite(path, tensors: dict[str, np.ndarray], header: dict) -> None:
    """Write a safetensors file by hand (its layout is an 8-byte length, a JSON table
    and the raw bytes), so that a test can store what fsmnet never writes."""
    table: dict = {"__metadata__": {"fsmnet": json.dumps(header)}}
    blob = b""
    kinds = {np.dtype("float64"): "F64", np.dtype("int64"): "I64", np.dtype("float32"): "F32"}
    for name, arr in tensors.items():
        arr = np.ascontiguousarray(arr)
        table[name] = {"dtype": kinds[arr.dtype], "shape": list(arr.shape),
                       "data_offsets": [len(blob), len(blob) + arr.nbytes]}
        blob += arr.tobytes()
    text = json.dumps(table).encode()
    path.write_bytes(struct.pack("<Q", len(text)) + text + blob)


def _sparse_file(tmp_path, **change):
    net = fsmnet.compile("symmetric:5,gens", "bilinear-full")
    header = net.header()
    from fsmnet.nets.sparse import encode

    tensors = encode(net.stored)[0]
    for key, value in change.items():
        key = key.replace("__", ":")
        if key == "header":
            value(header)
        elif value is None:
            del tensors[key]
        else:
            tensors[key] = value(tensors[key]) if callable(value) else value
    path = tmp_path / "bad.safetensors"
    _rewrite(path, tensors, header)
    return path


def _swap_first_two(idx: np.ndarray) -> np.ndarray:
    out = idx.copy()
    out[:, [0, 1]] = out[:, [1, 0]]
    return out


def _repeat_first(idx: np.ndarray) -> np.ndarray:
    out = idx.copy()
    out[:, 1] = out[:, 0]
    return out


def _out_of_range(idx: np.ndarray) -> np.ndarray:
    out = idx.copy()
    out[0, -1] = 120
    return out


def _nan_value(values: np.ndarray) -> np.ndarray:
    out = values.copy()
    out[3] = np.nan
    return out


BAD_FILES = [
    ({"W__indices": _swap_first_two}, r"'W:indices'.*out of row-major order"),
    ({"W__indices": _repeat_first}, r"'W:indices'.*repeats an earlier entry"),
    ({"W__indices": _out_of_range}, r"'W:indices'.*outside the shape"),
    ({"W__values": _nan_value}, r"'W:values'.*NaN"),
    ({"W__indices": lambda i: i.astype(np.float64)}, r"'W:indices'.*int64"),
    ({"W__values": lambda v: v[:-1]}, r"'W:values'.*shape"),
    ({"W__values": None}, r"'sparse.W'.*missing"),
    ({"W__junk": np.zeros(2)}, r"'W:junk'.*does not name"),
    ({"header": lambda h: h.update(format_version=3)}, r"'format_version'.*needs version 4"),
    ({"header": lambda h: h["sparse"].update(W=[120, 120, 3])}, r"'W'.*wrong shape"),
    ({"header": lambda h: h["sparse"].update(W=[120, -1, 2])}, r"'sparse.W'.*non-negative"),
    ({"header": lambda h: h.update(sparse=[1])}, r"'sparse'.*must map"),
    ({"header": lambda h: h.update(arch="bilinear-cp")}, r"'W'.*stored sparse"),
]


@pytest.mark.parametrize("change, message", BAD_FILES)
def test_a_bad_sparse_file_is_refused_naming_the_field(tmp_path, change, message) -> None:
    path = _sparse_file(tmp_path, **change)
    with pytest.raises(NetworkFileError, match=message) as info:
        load_network(path)
    assert str(path) in str(info.value)


def test_the_cli_refuses_a_bad_sparse_file_in_one_line(tmp_path) -> None:
    path = _sparse_file(tmp_path, W__indices=_repeat_first)
    proc = subprocess.run([sys.executable, "-m", "fsmnet", "verify", "symmetric:5,gens", str(path)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "W:indices" in lines[0] and "Traceback" not in proc.stderr


def test_an_architecture_that_reads_no_sparse_tensor_refuses_one() -> None:
    net = fsmnet.compile("parity", "bilinear-real-diag")
    with pytest.raises(NetworkFileError, match=r"'diag'.*stored sparse.*reads sparse: nothing"):
        Network(arch=net.arch, params={**net.params,
                                       "diag": SparseTensor.from_dense(net.params["diag"])},
                symbols=net.symbols, labels=net.labels)


# ------------------------------------------------------------------ scale and torch

def test_s7_compiles_to_a_small_file_and_is_proved_from_coordinates(tmp_path) -> None:
    # Issue 34's target: S7 with two generators (5,040 states) in < 100 MB of file;
    # dense it was 610 MB.  The proof reads the codes: 5,040 pairs, no H × H matrix.
    a = fsmnet.load("symmetric:7,gens").minimal()
    net = fsmnet.compile(a, "bilinear-full")
    path = tmp_path / "s7.safetensors"
    net.save(path)
    assert os.path.getsize(path) < 100 * 2**20
    assert net.stored["W"].nnz == 5040 * 2
    back = load_network(path)
    result = fsmnet.verify(a, back)
    assert result.verdict == "proved" and result.details["pairs"] == 5040
    assert not any(key.startswith("dense:") for key in back._cache)  # nothing expanded


@given(automata(max_states=5, max_symbols=3, max_labels=3), st.data())
def test_torch_reads_a_sparse_network(a, data) -> None:
    torch = pytest.importorskip("torch")
    sparse, dense = _twins(a)
    assume(len(a.labels) > 1)
    word = data.draw(st.lists(st.integers(0, a.n_symbols - 1), min_size=1, max_size=30))
    module = fsmnet.to_torch(sparse)
    with torch.no_grad():
        got = module(torch.tensor([word]))[0].tolist()
    assert got == dense.label_trace(word).tolist()


# ------------------------------------------------------------------ certificates

def _sparse_certificate(a: fsmnet.Automaton) -> dict:
    from fsmnet.proofs.certificate import build_certificate

    sparse, _ = _twins(a)
    return build_certificate(sparse, a, explore_product(sparse, a))


@given(automata(max_states=7, max_symbols=3, max_labels=3))
def test_a_sparse_network_gets_a_sparse_certificate_the_checker_accepts(a) -> None:
    from fsmnet.proofs.certificate import build_certificate
    from fsmnet.proofs.checker import check_certificate

    sparse, dense = _twins(a)
    found = explore_product(sparse, a)
    assume(found.status == "closed")
    cert = build_certificate(sparse, a, found)
    assert cert["network"]["model"]["type"] == "linear-sparse"
    check_certificate(json.loads(json.dumps(cert)))
    # The dense twin's certificate (the ``linear`` model, dense states: a second
    # encoding of the same proof) lists the same pairs and transitions.
    twin = build_certificate(dense, a, explore_product(dense, a))
    assert twin["network"]["model"]["type"] == "linear"
    assert (twin["pairs"], twin["transitions"]) == (cert["pairs"], cert["transitions"])
    for (index, values), vector in zip(cert["states"], twin["states"]):
        assert [vector[int(j)] for j in index] == values
        assert sum(v != "0" for v in vector) == len(index)


def _first_matrix(cert):
    return cert["network"]["model"]["matrices"][0]


TAMPERS = [
    ("a state moved", lambda c: c["states"][1][0].__setitem__(0, str(
        (int(c["states"][1][0][0]) + 1) % c["network"]["model"]["dim"]))),
    ("a zero listed in a state", lambda c: c["states"][0][1].__setitem__(0, "0")),
    ("a state index not decimal", lambda c: c["states"][0][0].__setitem__(0, "+0")),
    ("an entry's target changed", lambda c: _first_matrix(c)["rows"].__setitem__(
        0, (_first_matrix(c)["rows"][0] + 1) % c["network"]["model"]["dim"])),
    ("entries out of order", lambda c: (_first_matrix(c)["rows"].reverse(),
                                        _first_matrix(c)["cols"].reverse())),
    ("an entry outside the matrix", lambda c: _first_matrix(c)["cols"].__setitem__(0, 10**6)),
    ("a value dropped", lambda c: _first_matrix(c)["values"].pop()),
    ("the readout's labels swapped", lambda c: c["network"]["model"]["readout"][
        "rows"].__setitem__(0, 1 - c["network"]["model"]["readout"]["rows"][0])),
]


@pytest.mark.parametrize("what, tamper", TAMPERS, ids=[t[0] for t in TAMPERS])
def test_a_tampered_sparse_certificate_is_refused(what, tamper) -> None:
    from fsmnet.proofs.checker import CertificateError, check_certificate

    a = fsmnet.load("modadd:3").minimal()  # 3 states, every entry matters
    cert = _sparse_certificate(a)
    check_certificate(json.loads(json.dumps(cert)))
    tamper(cert)
    with pytest.raises(CertificateError):
        check_certificate(json.loads(json.dumps(cert)))


def test_s7_certificate_is_small_and_checks_against_the_file(tmp_path) -> None:
    # Dense, this certificate was 406 MB, took 4 min 47 s and 13 GB to write, and the
    # checker's dense rational steps did not finish (docs/performance.md).
    a = fsmnet.load("symmetric:7,gens").minimal()
    path = tmp_path / "s7.safetensors"
    fsmnet.compile(a, "bilinear-full").save(path)
    cert_path = tmp_path / "s7.cert.json"
    result = fsmnet.verify(a, load_network(path), certificate=str(cert_path),
                           network_path=str(path))
    assert result.verdict == "proved"
    assert os.path.getsize(cert_path) < 2 * 2**20
    from fsmnet.proofs.certificate import check_against_network

    summary = check_against_network(json.loads(cert_path.read_text()), str(path))
    assert "5040 pairs" in summary
