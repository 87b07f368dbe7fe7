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

        k = len(net.symbols)
        codes = one_hot_codes(net, exact=False) if hasattr(net, "stored") else None
        if codes is not None:
            # ±one-hot states as integer codes (fsmnet.nets.one_hot): no H-vector is
            # formed, and the float states are made on request.
            found = _breadth_first(codes.initial, codes.step, lambda c: c, k, limit)
            if found is None:
                return None
            order, where, rows = found
            return _table(net, rows, [codes.label(c) for c in order],
                          _CodeStates(codes, order), _CodeIndex(codes, where))
        sem = net.semantics
        found = _breadth_first(sem.initial_state(net, False),
                               lambda h, a: sem.step(net, h, a, False), freeze, k, limit)
        if found is None:
            return None
        states, index, rows = found
        return _table(net, rows, [int(sem.readout(net, s, False)) for s in states],
                      states, index)

    return net.cached(f"tabulated:{limit}", compute)  # type: ignore[no-any-return]


def _breadth_first(first: Any, step: Any, key: Any, k: int, limit: int
                   ) -> tuple[list[Any], dict[Hashable, int], list[list[int]]] | None:
    """States in discovery order, key -> index, and each state's row of successors;
    None past ``limit`` states."""
    index: dict[Hashable, int] = {key(first): 0}
    states = [first]
    rows: list[list[int]] = []
    while len(rows) < len(states):
        current = states[len(rows)]
        row = []
        for a in range(k):
            nxt = step(current, a)
            name = key(nxt)
            j = index.get(name)
            if j is None:
                if len(states) >= limit:
                    return None
                j = index[name] = len(states)
                states.append(nxt)
            row.append(j)
        rows.append(row)
    return states, index, rows


def _table(net: Any, rows: list[list[int]], readouts: list[int], states: Sequence[Any],
           index: Mapping[Hashable, int]) -> Tabulated:
    automaton = Automaton(delta=np.array(rows, dtype=np.int64).T, symbols=net.symbols,
                          initial=0, outputs=readouts, name=f"tabulated {net.arch}")
    return Tabulated(automaton, states, index, np.array(automaton.labels, dtype=np.int64))


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

    def __init__(self, codes: Any, where: Mapping[Hashable, int]) -> None:
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
