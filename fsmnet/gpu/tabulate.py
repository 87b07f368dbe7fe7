"""Turn a network with finitely many reachable states into an automaton, exactly.

MinMax networks only ever select among finitely many stored values, and
compiled bilinear networks stay one-hot, so their reachable states are few.
Breadth-first, each reachable state is stepped on every symbol with the
network's own float semantics (the same function the reference evaluator
calls), so running the table reproduces the reference trajectory state for
state and readout for readout.  The scan engine then runs the table with its
automaton kernels (one lookup a symbol, interleaved chains) instead of
re-doing min/max or mat-vec arithmetic for every symbol.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any

import numpy as np

from fsmnet.automata import Automaton

TABULATE_LIMIT = 1 << 15  # reachable states; beyond it the network runs directly


@dataclass(frozen=True)
class Tabulated:
    """``automaton`` (states 0..S-1, state 0 = h0), the network state of each, and
    ``labels[i]`` = the network label index the automaton's output id i stands for."""

    automaton: Automaton
    states: list[Any]
    index: dict[Hashable, int]
    labels: np.ndarray


def freeze(state: Any) -> Hashable:
    """A hashable key equal for equal float states (arrays become tuples)."""
    if isinstance(state, np.ndarray):
        return (state.shape, tuple(state.ravel().tolist()))
    if isinstance(state, (list, tuple)):
        return tuple(freeze(x) for x in state)
    return state


def tabulate(net: Any, limit: int = TABULATE_LIMIT) -> Tabulated | None:
    """The reachable-state automaton of ``net``, or None beyond ``limit`` states (cached)."""

    def compute() -> Tabulated | None:
        sem = net.semantics
        k = len(net.symbols)
        first = sem.initial_state(net, False)
        index: dict[Hashable, int] = {freeze(first): 0}
        states = [first]
        rows: list[list[int]] = []
        while len(rows) < len(states):
            current = states[len(rows)]
            row = []
            for a in range(k):
                nxt = sem.step(net, current, a, False)
                key = freeze(nxt)
                j = index.get(key)
                if j is None:
                    if len(states) >= limit:
                        return None
                    j = len(states)
                    index[key] = j
                    states.append(nxt)
                row.append(j)
            rows.append(row)
        readouts = [int(sem.readout(net, s, False)) for s in states]
        automaton = Automaton(delta=np.array(rows, dtype=np.int64).T, symbols=net.symbols,
                              initial=0, outputs=readouts, name=f"tabulated {net.arch}")
        return Tabulated(automaton, states, index, np.array(automaton.labels, dtype=np.int64))

    return net.cached(f"tabulated:{limit}", compute)  # type: ignore[no-any-return]
