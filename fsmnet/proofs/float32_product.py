"""Bit-exact float32 exploration: the float32 run of a network is a finite machine.

The float32 reference step (:mod:`fsmnet.nets.float32`) is a deterministic map
on float32 vectors, and there are finitely many of them; rounding often pins a
slowly drifting state at an exact fixed point.  So the product of the
automaton with the float32 states reachable from h_0 (keyed by their bits) is
explored breadth first, up to a budget of pairs:

* a pair whose float32 label differs from the automaton's output (an overflow
  included) gives a shortest float32 counterexample;
* a closed product is a proof that the float32 reference execution equals the
  automaton on every word; its certificate (method ``float32-product``) is the
  finite table: states as float32 bit patterns, pairs, transitions.  The
  standard-library checker replays every transition with its own float32
  emulation (:mod:`fsmnet.proofs.checker.float32_states`).

The claim covers the reference step's order of operations only (left-to-right
dot products, no fused multiply-add): ``fsmnet run --float32`` and the torch
modules' labels on a CPU, not exact arithmetic and not other summation orders.
Linear recurrences only.  Cost: one step of H² float32 operations per (state,
symbol) pair explored, plus a dictionary lookup.
"""

from __future__ import annotations

import struct
from collections import deque
from dataclasses import dataclass

import numpy as np

from fsmnet.automata import Automaton
from fsmnet.nets import Network
from fsmnet.nets.alignment import label_map
from fsmnet.proofs.checker.schema import COVERS

FLOAT32_COVERS = COVERS["float32-reference"]


@dataclass(frozen=True)
class Float32Exploration:
    """``status``: "closed" (a proof), "mismatch" (``word`` is a counterexample) or
    "budget" (neither within ``max_pairs``)."""

    status: str
    states: list[np.ndarray]
    pairs: list[tuple[int, int]]
    transitions: list[list[int]]
    word: list[int] | None = None


def bits(h: np.ndarray) -> list[str]:
    """A float32 vector as 8-hex-digit bit patterns (big-endian), as certificates write it."""
    return [struct.pack(">f", float(x)).hex() for x in h]


def explore_float32(net: Network, automaton: Automaton, *, max_pairs: int = 100_000
                    ) -> Float32Exploration:
    """Breadth-first search of (float32 state, automaton state) pairs; shortest word first."""
    from fsmnet.nets.float32 import OVERFLOW, _start, program
    from fsmnet.nets.float32_kernels import label_of, step_state

    prog = program(net)
    if prog.kind != "linear":
        return Float32Exploration("budget", [], [], [])
    mats, readout = prog.matrices[0], prog.readout
    to_auto = [*label_map(net, automaton), -1]
    outputs, delta = automaton.output_ids, automaton.delta
    h0, over = _start(prog.h0[0], False)
    states: list[np.ndarray] = [h0]
    index = {h0.tobytes(): 0}
    assert automaton.initial is not None
    pairs = [(0, int(automaton.initial))]
    seen = {pairs[0]: 0}
    parent: list[tuple[int, int]] = [(-1, -1)]
    if over or to_auto[label_of(readout, h0)] != outputs[automaton.initial]:
        return Float32Exploration("mismatch", states, pairs, [], [])
    transitions: list[list[int]] = []
    queue = deque([0])
    out = np.empty_like(h0)
    while queue:
        p = queue.popleft()
        s, q = pairs[p]
        row = []
        for a in range(automaton.n_symbols):
            finite = step_state(mats, a, states[s], out)
            key = out.tobytes()
            t = index.get(key) if finite else None
            if t is None and finite:
                t = index[key] = len(states)
                states.append(out.copy())
            pair = (t if t is not None else -1, int(delta[a, q]))
            target = seen.get(pair)
            if target is None:
                label = label_of(readout, states[pair[0]]) if finite else OVERFLOW
                if not finite or to_auto[label] != outputs[pair[1]]:
                    return Float32Exploration("mismatch", states, pairs, transitions,
                                              _word(parent, p) + [a])
                if len(pairs) >= max_pairs:
                    return Float32Exploration("budget", states, pairs, transitions)
                target = seen[pair] = len(pairs)
                pairs.append(pair)
                parent.append((p, a))
                queue.append(target)
            row.append(target)
        transitions.append(row)
    return Float32Exploration("closed", states, pairs, transitions)


def _word(parent: list[tuple[int, int]], p: int) -> list[int]:
    word = []
    while parent[p][0] >= 0:
        p, a = parent[p]
        word.append(a)
    return word[::-1]


def float32_certificate(net: Network, automaton: Automaton, found: Float32Exploration, *,
                        network_path: str | None = None) -> dict:
    """The ``float32-product`` certificate of a closed exploration."""
    from fsmnet.proofs.certificate import _common, float32_model

    if found.status != "closed":
        raise ValueError("only a closed exploration is a proof")
    return {**_common(net, automaton, "float32-product", float32_model(net), network_path),
            "rounding": "float32-reference",
            "covers": FLOAT32_COVERS,
            "states": [bits(h) for h in found.states],
            "pairs": [list(p) for p in found.pairs],
            "transitions": found.transitions}
