"""bilinear-cp networks whose factors U and Z are stored sparse (fsmnet.nets.bilinear).

Oracles: the dense twin (the same factors dense) through its own exact and float64
matrices (``matrices_exact``'s integer path, ``einsum``), the CP definition summed
term by term in Fractions, and the generic exploration without the one-hot codes.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from sparse_helpers import (
    assert_certificate_checks_against_the_file,
    assert_twins_run_and_prove_alike,
    assert_verdict_of_dense_twin,
    move_one_entry,
)

import fsmnet
from fsmnet.nets import Network
from fsmnet.nets.sparse import SparseTensor
from fsmnet.testing.strategies import automata

# The networks are compiled with search=False: the Z3 rank search (seconds an example)
# changes the factors, not how sparse factors are read.


def _twins(net: Network) -> tuple[Network, Network]:
    dense = {k: np.asarray(v.to_dense() if isinstance(v, SparseTensor) else v)
             for k, v in net.stored.items()}
    sparse = {**dense, **{k: SparseTensor.from_dense(dense[k]) for k in ("U", "Z", "readout")}}
    common = {"arch": "bilinear-cp", "symbols": net.symbols, "labels": net.labels}
    return Network(params=sparse, **common), Network(params=dense, **common)


def _definition(u, v, z) -> np.ndarray:
    """A(e_σ)[i, j] = Σ_r U[i, r]·V[σ, r]·Z[j, r], in Fractions, entry by entry."""
    n, k, rank = u.shape[0], v.shape[0], u.shape[1]
    out = np.full((k, n, n), Fraction(0), dtype=object)
    for s in range(k):
        for i in range(n):
            for j in range(n):
                out[s, i, j] = sum((Fraction(u[i, r]) * Fraction(v[s, r]) * Fraction(z[j, r])
                                    for r in range(rank)), Fraction(0))
    return out


@given(automata(max_states=6, max_symbols=3, max_labels=3), st.data())
def test_sparse_factors_are_the_dense_network(a, data) -> None:
    sparse, dense = _twins(fsmnet.compile(a, "bilinear-cp", search=False))
    sem = sparse.semantics
    placed = np.full(dense.semantics.matrices_float(dense).shape, Fraction(0), dtype=object)
    symbols, rows, cols, values = sem.matrix_entries(sparse, True)
    placed[symbols, rows, cols] = values
    assert np.array_equal(placed, dense.semantics.matrices_exact(dense))
    entries = sem.matrix_entries(sparse, False)  # None where an entry sums two terms
    if entries is not None:
        floats = np.zeros(placed.shape)
        floats[entries[0], entries[1], entries[2]] = entries[3]
        assert floats.tobytes() == (dense.semantics.matrices_float(dense) + 0.0).tobytes()
    word = data.draw(st.lists(st.integers(0, a.n_symbols - 1), max_size=40))
    assert_twins_run_and_prove_alike(a, sparse, dense, word)


FACTOR = st.sampled_from([0.0, 0.0, 1.0, -1.0, 0.5, 3.0, 1e-200, 2.0**-1074])


@given(st.integers(1, 3), st.integers(1, 2), st.integers(0, 4), st.data())
def test_float64_entries_are_einsum_or_none(n, k, rank, data) -> None:
    u = data.draw(hnp.arrays(np.float64, (n, rank), elements=FACTOR))
    v = data.draw(hnp.arrays(np.float64, (k, rank), elements=FACTOR))
    z = data.draw(hnp.arrays(np.float64, (n, rank), elements=FACTOR))
    net = Network(arch="bilinear-cp",
                  params={"U": SparseTensor.from_dense(u), "V": v,
                          "Z": SparseTensor.from_dense(z), "h0": np.eye(n)[0],
                          "readout": np.eye(n)[:1]},
                  symbols=[f"s{i}" for i in range(k)], labels=[0])
    exact = np.full((k, n, n), Fraction(0), dtype=object)
    symbols, rows, cols, values = net.semantics.matrix_entries(net, True)
    exact[symbols, rows, cols] = values
    assert np.array_equal(exact, _definition(u, v, z))
    entries = net.semantics.matrix_entries(net, False)
    if entries is None:
        return
    floats = np.zeros((k, n, n))
    floats[entries[0], entries[1], entries[2]] = entries[3]
    # Independent source: numpy's einsum over every term, zeros included.
    assert floats.tobytes() == (np.einsum("ir,sr,jr->sij", u, v, z) + 0.0).tobytes()


def test_an_entry_of_two_terms_takes_the_dense_float_path() -> None:
    # A(e_0)[0, 0] = 1·1·1 + 1·1·1: a sum the float64 einsum forms in its own order, so
    # the sparse float64 entries decline (the exact ones still give 2).
    u = SparseTensor.from_dense(np.array([[1.0, 1.0]]))
    net = Network(arch="bilinear-cp",
                  params={"U": u, "V": np.array([[1.0, 1.0]]), "Z": u, "h0": np.ones(1),
                          "readout": np.ones((1, 1))}, symbols=["a"], labels=[0])
    assert net.semantics.matrix_entries(net, False) is None
    assert net.semantics.matrix_entries(net, True)[3].tolist() == [Fraction(2)]


@given(automata(min_states=2, max_states=6, max_symbols=3, max_labels=3), st.data())
def test_a_wrong_sparse_factor_is_refuted_with_a_confirmed_word(a, data) -> None:
    net = fsmnet.compile(a, "bilinear-cp", search=False)
    mutant_u = move_one_entry(SparseTensor.from_dense(np.asarray(net.params["U"])), 0, data)
    params = {**net.params, "U": mutant_u, "Z": SparseTensor.from_dense(net.params["Z"])}
    mutant = Network(arch="bilinear-cp", params=params, symbols=net.symbols,
                     labels=net.labels)
    dense = Network(arch="bilinear-cp",
                    params={**net.params, "U": mutant_u.to_dense()},
                    symbols=net.symbols, labels=net.labels)
    assert_verdict_of_dense_twin(a, mutant, dense)


def test_s6_compiles_sparse_and_its_certificate_checks_against_the_file(tmp_path) -> None:
    a = fsmnet.load("symmetric:6,gens").minimal()  # 720 states
    net = fsmnet.compile(a, "bilinear-cp", search=False)
    u, z = net.stored["U"], net.stored["Z"]
    # Hand count (the image terms): one term per (letter, state), 2 × 720 = 1,440, each
    # U = e_i and Z = e_j (a permutation's preimage is one state).
    assert isinstance(u, SparseTensor) and u.shape == (720, 1440) and u.nnz == 1440
    assert isinstance(z, SparseTensor) and z.nnz == 1440
    cert = assert_certificate_checks_against_the_file(a, net, tmp_path, "linear-sparse")
    assert (tmp_path / "net.safetensors").stat().st_size < 200_000
    assert cert["pairs"][0] == [0, 0]


def test_torch_reads_sparse_factors() -> None:
    torch = pytest.importorskip("torch")
    a = fsmnet.load("modadd:3").minimal()
    sparse, dense = _twins(fsmnet.compile(a, "bilinear-cp", search=False))
    word = [0, 1, 2, 2, 1, 0, 1]
    with torch.no_grad():
        got = fsmnet.to_torch(sparse)(torch.tensor([word]))[0].tolist()
    assert got == dense.label_trace(word).tolist()
