"""bilinear-full: the one-hot construction (docs/constructions.md).

On the minimal automaton with n states, H = n and W[i, j, σ] = 1 iff
δ(j, σ) = i, so A(e_σ) is the 0/1 matrix of σ acting on one-hot vectors and
h_t = e_{δ(q0, x_1..x_t)} exactly (no renormalization is ever needed: every
column has exactly one 1).  The readout row of label c is the indicator of the
states labelled c, so argmax picks λ(q) with score 1 against 0.
"""

from __future__ import annotations

import numpy as np

from fsmnet.automata import Automaton
from fsmnet.nets import Network


def one_hot_tensors(automaton: Automaton) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(W, h0, readout) of the one-hot construction for a (minimal) automaton."""
    n, k = automaton.n_states, automaton.n_symbols
    w = np.zeros((n, n, k), dtype=np.float64)
    for sym in range(k):
        w[automaton.delta[sym], np.arange(n), sym] = 1.0
    h0 = np.zeros(n, dtype=np.float64)
    assert automaton.initial is not None
    h0[automaton.initial] = 1.0
    readout = np.zeros((len(automaton.labels), n), dtype=np.float64)
    readout[automaton.output_ids, np.arange(n)] = 1.0
    return w, h0, readout


def compile_bilinear_full(automaton: Automaton) -> Network:
    """One-hot bilinear network on the (already minimal) automaton; H = |Q|."""
    w, h0, readout = one_hot_tensors(automaton)
    return Network(arch="bilinear-full", params={"W": w, "h0": h0, "readout": readout},
                   symbols=automaton.symbols, labels=automaton.labels,
                   options={"construction": "one-hot", "states": list(automaton.states)},
                   name=automaton.name)
