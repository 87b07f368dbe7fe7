"""The NumPy reference evaluator: runs any network on a word, one step at a time.

It is deliberately simple (a Python loop over the architecture's ``step``)
because everything else is checked against it: the scan engine, the torch
export, and counterexamples before they are reported.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from fsmnet.nets.network import Network


def reference_trace(net: Network, word: Sequence[int] | np.ndarray, *,
                    exact: bool = False) -> np.ndarray:
    """Readout label index after every prefix (the empty one included).

    Parameters
    ----------
    net
        Any network.
    word
        Symbol indices.
    exact
        Run in exact arithmetic (Fractions, or the exact description of
        irrational weights) instead of float64 with renormalization.
    """
    sem = net.semantics
    n_sym = len(net.symbols)
    state = sem.initial_state(net, exact)
    out = np.empty(len(word) + 1, dtype=np.int64)
    out[0] = sem.readout(net, state, exact)
    for t, a in enumerate(word):
        a = int(a)
        if not 0 <= a < n_sym:
            raise IndexError(f"symbol index {a} out of range 0..{n_sym - 1}")
        state = sem.step(net, state, a, exact)
        out[t + 1] = sem.readout(net, state, exact)
    return out


def reference_labels(net: Network, word: Sequence[int] | np.ndarray, *,
                     exact: bool = False) -> list[object]:
    """Output labels after every prefix (the empty one included)."""
    return [net.labels[i] for i in reference_trace(net, word, exact=exact)]
