"""bilinear-full: the one-hot construction (docs/constructions.md).

On the minimal automaton with n states, H = n and W[i, j, σ] = 1 iff
δ(j, σ) = i, so A(e_σ) is the 0/1 matrix of σ acting on one-hot vectors and
h_t = e_{δ(q0, x_1..x_t)} exactly (no renormalization is ever needed: every
column has exactly one 1).  The readout row of label c is the indicator of the
states labelled c, so argmax picks λ(q) with score 1 against 0.  Above about 32
states the file keeps only the non-zeros of W (and of a readout with many labels):
docs/formats.md, "Sparse tensors".
"""

from __future__ import annotations

import numpy as np

from fsmnet.automata import Automaton
from fsmnet.nets import Network
from fsmnet.nets.sparse import SparseTensor, compact, coo


def one_hot_coordinates(automaton: Automaton) -> tuple[SparseTensor, np.ndarray, SparseTensor]:
    """(W, h0, readout) of the one-hot construction for a (minimal) automaton, W and the
    readout as their non-zeros: n·k and n entries."""
    n, k = automaton.n_states, automaton.n_symbols
    states = np.tile(np.arange(n), k)
    symbols = np.repeat(np.arange(k), n)
    targets = np.asarray(automaton.delta, dtype=np.int64).ravel()  # delta[σ][j], σ-major
    w = coo((n, n, k), np.stack([targets, states, symbols]), np.ones(n * k))
    readout = coo((len(automaton.labels), n),
                  np.stack([np.asarray(automaton.output_ids, dtype=np.int64), np.arange(n)]),
                  np.ones(n))
    h0 = np.zeros(n, dtype=np.float64)
    assert automaton.initial is not None
    h0[automaton.initial] = 1.0
    return w, h0, readout


def one_hot_tensors(automaton: Automaton) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(W, h0, readout) of the one-hot construction, dense."""
    w, h0, readout = one_hot_coordinates(automaton)
    return w.to_dense(), h0, readout.to_dense()


def one_hot_stored(automaton: Automaton) -> dict[str, np.ndarray | SparseTensor]:
    """The one-hot tensors as a network stores them: sparse when that is much smaller
    (fsmnet.nets.sparse.compact), so a 5,040-state automaton never allocates its
    406 MB dense ``W``."""
    w, h0, readout = one_hot_coordinates(automaton)
    return {"W": compact(w), "h0": h0, "readout": compact(readout)}


def compile_bilinear_full(automaton: Automaton) -> Network:
    """One-hot bilinear network on the (already minimal) automaton; H = |Q|."""
    return Network(arch="bilinear-full", params=one_hot_stored(automaton),
                   symbols=automaton.symbols, labels=automaton.labels,
                   options={"construction": "one-hot", "states": list(automaton.states)},
                   name=automaton.name)
