"""minmax-dense: Boolean one-hot max-min matrices (docs/constructions-minmax.md).

On the (minimal) automaton with n states, the state is the one-hot vector
e_q ∈ {0, 1}^n.  R[σ][i, j] = 1 iff δ(j, σ) = i, so (R[σ] ⊗ e_q)_i =
max_j min(R[σ][i, j], e_q[j]) = R[σ][i, q] = [δ(q, σ) = i]: exactly e_{δ(q,σ)}.
The offset s[σ] is all 0 (the bottom of {0, 1}), so ⊕ s changes nothing.
The readout row of label c is the indicator of the states labelled c; the
max-min score of λ(q) is 1 and every other score 0, and the first argmax is λ(q).

Nothing here needs determinism beyond "a set of current states": the same
matrices run an NFA's subset construction on the fly, which is why the
construction accepts any automaton.
"""

from __future__ import annotations

import numpy as np

from fsmnet.automata import Automaton
from fsmnet.nets import Network


def dense_tensors(automaton: Automaton) -> dict[str, np.ndarray]:
    """The ``R``, ``s``, ``x0``, ``readout`` tensors of the one-hot construction."""
    n, k = automaton.n_states, automaton.n_symbols
    r = np.zeros((k, n, n), dtype=np.float64)
    for sym in range(k):
        r[sym, automaton.delta[sym], np.arange(n)] = 1.0
    s = np.zeros((k, n), dtype=np.float64)
    x0 = np.zeros(n, dtype=np.float64)
    assert automaton.initial is not None
    x0[automaton.initial] = 1.0
    readout = np.zeros((len(automaton.labels), n), dtype=np.float64)
    readout[automaton.output_ids, np.arange(n)] = 1.0
    return {"R": r, "s": s, "x0": x0, "readout": readout}


def compile_minmax_dense(automaton: Automaton) -> Network:
    """One-hot max-min network of the (already minimal) automaton; hidden size |Q|.

    Parameters
    ----------
    automaton
        A Moore machine with an initial state and outputs (the dispatcher
        :func:`fsmnet.constructions.compile_automaton` minimizes it first).

    Returns
    -------
    Network
        Architecture ``minmax-dense``; ``options`` records the construction,
        the state names (hidden coordinate i is state i) and the state size.
    """
    return Network(arch="minmax-dense", params=dense_tensors(automaton),
                   symbols=automaton.symbols, labels=automaton.labels,
                   options={"construction": "one-hot", "states": list(automaton.states),
                            "state_size": automaton.n_states},
                   name=automaton.name)
