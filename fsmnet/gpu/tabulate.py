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

from collections.abc import Hashable, Mapping, Sequence
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
    states: Sequence[Any]
    index: Mapping[Hashable, int]
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
        from fsmnet.nets.one_hot import one_hot_codes

        codes = one_hot_codes(net, exact=False) if hasattr(net, "stored") else None
        if codes is not None:
            return _tabulate_codes(net, codes, limit)
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


def _tabulate_codes(net: Any, codes: Any, limit: int) -> Tabulated | None:
    """The same breadth-first table for a ±one-hot network (fsmnet.nets.one_hot), on
    integer codes: no H-vector is formed, and the float states are made on request."""
    k = len(net.symbols)
    order = [codes.initial]
    where = {codes.initial: 0}
    rows: list[list[int]] = []
    while len(rows) < len(order):
        current = order[len(rows)]
        row = []
        for a in range(k):
            nxt = codes.step(current, a)
            j = where.get(nxt)
            if j is None:
                if len(order) >= limit:
                    return None
                j = where[nxt] = len(order)
                order.append(nxt)
            row.append(j)
        rows.append(row)
    automaton = Automaton(delta=np.array(rows, dtype=np.int64).T, symbols=net.symbols,
                          initial=0, outputs=[codes.label(c) for c in order],
                          name=f"tabulated {net.arch}")
    return Tabulated(automaton, _CodeStates(codes, order), _CodeIndex(codes, where),
                     np.array(automaton.labels, dtype=np.int64))


class _CodeStates(Sequence[np.ndarray]):
    """The float state of each table state, made when asked for."""

    def __init__(self, codes: Any, order: list[int]) -> None:
        self._codes, self._order = codes, order

    def __len__(self) -> int:
        return len(self._order)

    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, slice):
            return [self._codes.vector(c) for c in self._order[i]]
        return self._codes.vector(self._order[i])


class _CodeIndex(Mapping[Hashable, int]):
    """:func:`freeze` key of a float state -> table state, through its code."""

    def __init__(self, codes: Any, where: dict[int, int]) -> None:
        self._codes, self._where = codes, where

    def __getitem__(self, key: Hashable) -> int:
        code = None
        try:
            parts: Any = key
            shape, values = parts
            if tuple(shape) == (self._codes.hidden,):
                code = self._codes.code_of(np.array(values, dtype=np.float64))
        except (TypeError, ValueError):
            pass
        if code is None or code not in self._where:
            raise KeyError(key)
        return self._where[code]

    def __iter__(self) -> Any:
        return (freeze(self._codes.vector(c)) for c in self._where)

    def __len__(self) -> int:
        return len(self._where)
