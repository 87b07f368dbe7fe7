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
from fsmnet.nets.sparse import SparseTensor, compact, coo


def one_hot_coordinates(automaton: Automaton) -> dict[str, np.ndarray | SparseTensor]:
    """The ``R``, ``s``, ``x0``, ``readout`` tensors of the one-hot construction, ``R``
    and ``readout`` as their non-zeros (n·k and n entries)."""
    n, k = automaton.n_states, automaton.n_symbols
    symbols = np.repeat(np.arange(k), n)
    targets = np.asarray(automaton.delta, dtype=np.int64).ravel()  # delta[σ][j], σ-major
    r = coo((k, n, n), np.stack([symbols, targets, np.tile(np.arange(n), k)]), np.ones(n * k))
    readout = coo((len(automaton.labels), n),
                  np.stack([np.asarray(automaton.output_ids, dtype=np.int64), np.arange(n)]),
                  np.ones(n))
    x0 = np.zeros(n, dtype=np.float64)
    assert automaton.initial is not None
    x0[automaton.initial] = 1.0
    return {"R": r, "s": np.zeros((k, n), dtype=np.float64), "x0": x0, "readout": readout}


def stored_tensors(automaton: Automaton) -> dict[str, np.ndarray | SparseTensor]:
    """The one-hot tensors as a network stores them: ``R`` and ``readout`` sparse when
    that is much smaller (fsmnet.nets.sparse.compact)."""
    return {name: compact(t) if isinstance(t, SparseTensor) else t
            for name, t in one_hot_coordinates(automaton).items()}


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
    return Network(arch="minmax-dense", params=stored_tensors(automaton),
                   symbols=automaton.symbols, labels=automaton.labels,
                   options={"construction": "one-hot", "states": list(automaton.states),
                            "state_size": automaton.n_states},
                   name=automaton.name)
