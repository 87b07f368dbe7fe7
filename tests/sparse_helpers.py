"""Checks shared by the tests of networks stored sparse (tests/test_sparse_*.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

import fsmnet
from fsmnet.nets import Network
from fsmnet.nets.network import load_network
from fsmnet.nets.sparse import SparseTensor, coo
from fsmnet.proofs.product import explore_product


def assert_verdict_of_dense_twin(a: fsmnet.Automaton, mutant: Network, dense: Network) -> None:
    """``fsmnet.verify`` of the sparse ``mutant`` says what the generic exploration of its
    dense twin says, and a counterexample replays as a real disagreement."""
    got = fsmnet.verify(a, mutant)
    want = explore_product(dense, a, fast_paths=False).status
    assert got.verdict == {"closed": "proved", "mismatch": "refuted"}[want]
    if got.verdict == "refuted":
        names = [a.symbols[i] if isinstance(i, (int, np.integer)) else i
                 for i in got.counterexample.word]
        assert mutant.output_of(names) != a.output_of(names)


def assert_certificate_checks_against_the_file(a: fsmnet.Automaton, net: Network,
                                               folder: Path, model: str) -> dict:
    """Save ``net``, prove it from the file with a certificate, and check that
    certificate against the file: the proof read no dense tensor, the model is
    ``model``, every state of ``a`` is a pair.  Returns the certificate."""
    from fsmnet.proofs.certificate import check_against_network

    path, cert_path = folder / "net.safetensors", folder / "net.cert.json"
    net.save(path)
    back = load_network(path)
    result = fsmnet.verify(a, back, certificate=str(cert_path), network_path=str(path))
    assert result.verdict == "proved" and result.details["pairs"] == a.n_states
    assert not any(key.startswith("dense:") for key in back._cache)  # nothing expanded
    cert = json.loads(cert_path.read_text())
    assert cert["network"]["model"]["type"] == model
    assert f"{a.n_states} pairs" in check_against_network(cert, str(path))
    return cert


def assert_twins_run_and_prove_alike(a: fsmnet.Automaton, sparse: Network, dense: Network,
                                     word: list[int]) -> None:
    """Labels (float64 and exact), the float32 program's matrices and the exact product
    exploration of ``sparse`` equal those of its ``dense`` twin (the latter explored by
    the generic path, without one-hot codes)."""
    from fsmnet.nets.float32 import program

    assert np.array_equal(sparse.label_trace(word), dense.label_trace(word))
    assert np.array_equal(sparse.label_trace(word, exact=True), dense.label_trace(word))
    assert program(sparse).matrices[0].tobytes() == program(dense).matrices[0].tobytes()
    fast = explore_product(sparse, a)
    generic = explore_product(dense, a, fast_paths=False)
    assert (fast.status, fast.pairs, fast.transitions) == \
        (generic.status, generic.pairs, generic.transitions)


def move_one_entry(tensor: SparseTensor, axis: int, data: Any) -> SparseTensor:
    """A mutant: one stored entry moved along ``axis`` to another coordinate (drawn with
    Hypothesis ``data``; examples where it lands on another entry are rejected)."""
    from hypothesis import assume
    from hypothesis import strategies as st

    size = tensor.shape[axis]
    assume(tensor.nnz > 0 and size > 1)
    e = data.draw(st.integers(0, tensor.nnz - 1))
    moved = tensor.indices.copy()
    moved[axis, e] = (moved[axis, e] + data.draw(st.integers(1, size - 1))) % size
    assume(np.unique(np.ravel_multi_index(tuple(moved), tensor.shape)).size == tensor.nnz)
    return coo(tensor.shape, moved, tensor.values)
