"""PFSA-SR → bilinear network whose state is the unnormalized belief.

The recurrence is b_t = M_{x_t} b_{t-1} with M_a = T_a D_a (the reveal as a
diagonal 0/1 mask D_a, then the column-stochastic transition T_a) and
b_0 = e_{q0}.  It is exactly the ``bilinear-full`` format (h_t = A(x_t)
h_{t-1}, one matrix per one-hot symbol, ``W[:, :, a] = M_a``), so no new
architecture is needed: the semantics rescale the state every step by its
largest entry, a positive factor that changes neither the normalized belief
nor the argmax.  That per-step rescaling *is* the paper's hybrid (a linear
recurrence with periodic renormalization, period 1); without it the ℓ1 mass
of b_t is P(x_1..x_t) and decays exponentially (:mod:`fsmnet.proofs.pfsa_underflow`).

Readout: the identity, labels = state names, so the output is the first most
likely state of the belief (a MAP estimate); the belief itself is h / ‖h‖₁.

Weights are float64; a probability that is not a binary fraction (1/3) is
rounded, and the network's ``exact`` field keeps the rational matrices.  The
proof (:mod:`fsmnet.proofs.pfsa_proof`) is about the float weights as they
are, so it only succeeds when they are exact.

>>> from fsmnet.automata.pfsa_families import cups
>>> net = compile_pfsa_bilinear(cups(3))
>>> net.arch, net.hidden_size, net.output_of(["pswap01", "show0=b"])
('bilinear-full', 6, 'bac')
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from fsmnet.automata.pfsa import PFSA
from fsmnet.nets import Network

__all__ = ["belief_matrices", "compile_pfsa_bilinear", "is_dyadic"]


def is_dyadic(x: Fraction) -> bool:
    """Exactly representable as a float64 (for probabilities in [0, 1])."""
    d = x.denominator
    return d & (d - 1) == 0 and d <= 1 << 1074 and x.numerator < 1 << 53


def belief_matrices(pfsa: PFSA) -> list[tuple[tuple[Fraction, ...], ...]]:
    """The exact M_a = T_a D_a, one per symbol."""
    return [pfsa.step_matrix(a) for a in range(pfsa.n_symbols)]


def compile_pfsa_bilinear(pfsa: PFSA) -> Network:
    """A ``bilinear-full`` network with W[:, :, a] = T_a D_a, h0 = e_{q0}, readout I."""
    n, k = pfsa.n_states, pfsa.n_symbols
    mats = belief_matrices(pfsa)
    w = np.zeros((n, n, k), dtype=np.float64)
    for a, m in enumerate(mats):
        w[:, :, a] = np.array([[float(x) for x in row] for row in m])
    h0 = np.zeros(n, dtype=np.float64)
    h0[pfsa.initial] = 1.0
    exact_weights = all(is_dyadic(x) for m in mats for row in m for x in row)
    exact = None if exact_weights else {
        "kind": "rational-W", "W": [[[str(x) for x in row] for row in m] for m in mats]}
    return Network(arch="bilinear-full",
                   params={"W": w, "h0": h0, "readout": np.eye(n, dtype=np.float64)},
                   symbols=pfsa.symbols, labels=pfsa.states,
                   options={"construction": "pfsa-belief", "representation": "joint",
                            "readout": "most likely state", "exact_weights": exact_weights,
                            "states": list(pfsa.states)},
                   exact=exact, name=pfsa.name)
