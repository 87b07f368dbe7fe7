"""State snapping of bilinear-block networks: every block made to close exactly on the
quotient of the automaton that it tracks.

Block i of a trained bilinear-block network is a full bilinear recurrence of its own
(fsmnet.nets.bilinear_block), and its multilinear readout reads the product of the
blocks' states.  After the words that reach automaton state q, block i's unit states
point nearly one way, c⁽ⁱ⁾_q; but one block may track only a quotient of the
automaton, so several states can share a direction.  Per block, states whose mean
directions lie within :data:`MERGE` of each other form one class.  When the classes are
a congruence (each letter maps a class into one class), at most b_i of them, and no
visited state lies farther than :data:`~fsmnet.train.snap_states.SPREAD` from its
class's direction, the block's matrices are changed as bilinear-full's
(:func:`fsmnet.train.snap_states.snapped_matrices`, least squares on the span of the
class directions) to map every class direction exactly onto a positive multiple of its
successor's.  The block's exact states are then its class directions, the network's
exact states the tuples of them, and the exact product closes.

The snapped matrices are rationals: they go into an ``exact-W`` header with one ``W.i``
per block, which exact evaluation reads; the file's ``W.i`` hold their correctly
rounded doubles.  The readout is kept.  Whether the labels survive is decided after,
on the training sample (fsmnet.train.snap).

Cost: one float run of the sample per block, and per grid and block an exact
(k × k) inverse and |Σ| products (b × b)(b × k) in Fractions.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from fsmnet.automata import Automaton
from fsmnet.errors import FsmnetError
from fsmnet.nets import Network
from fsmnet.train.snap_states import (
    GRIDS,
    SPREAD,
    Matrices,
    dyadic_targets,
    snapped_matrices,
    unit_visits,
)

MERGE = 0.25
"""Automaton states whose mean directions in a block are within this distance (about
14°) are one class of that block."""


def block_visits(net: Network, automaton: Automaton, words: Sequence[Sequence[int]]
                 ) -> list[dict[int, np.ndarray]]:
    """Per block, per automaton state reached by a prefix of ``words``, the float64 unit
    states (rows) that block visits there; [] on an overflow or a zero state."""
    sem: Any = net.semantics
    out = [unit_visits(block, np.asarray(start, dtype=np.float64), automaton, words)
           for block, start in zip(sem.matrices(net, False), sem.initial_state(net, False))]
    return [] if any(not v for v in out) else out


def _unit(v: np.ndarray) -> np.ndarray:
    return v / np.linalg.norm(v)


def classes(visited: dict[int, np.ndarray], automaton: Automaton
            ) -> tuple[dict[int, int], np.ndarray, float] | None:
    """(class of each reached state, unit class directions, largest distance of a visited
    state from its class's direction), or None when the classes are not a congruence
    or some letter leaves the reached states."""
    order = sorted(visited)
    means = {q: _unit(visited[q].mean(axis=0)) for q in order}
    of: dict[int, int] = {}
    heads: list[np.ndarray] = []
    for q in order:  # greedy: the first class whose first member is near
        near = [k for k, head in enumerate(heads) if np.linalg.norm(means[q] - head) <= MERGE]
        of[q] = near[0] if near else len(heads)
        if not near:
            heads.append(means[q])
    for a in range(automaton.n_symbols):
        image: dict[int, int] = {}
        for q in order:
            nxt = int(automaton.delta[a][q])
            if nxt not in of or image.setdefault(of[q], of[nxt]) != of[nxt]:
                return None
    centers = np.array([_unit(np.concatenate([visited[q] for q in order if of[q] == k])
                              .mean(axis=0)) for k in range(len(heads))])
    spread = max(float(np.max(np.linalg.norm(visited[q] - centers[of[q]], axis=1)))
                 for q in order)
    return of, centers, spread


def block_snaps(net: Network, automaton: Automaton, words: Sequence[Sequence[int]]
                ) -> Iterator[tuple[dict[str, Any], Network]]:
    """(header record, snapped network with its exact-W header) per grid, coarsest
    first; nothing for another architecture, or when some block's classes are not a
    congruence, more than its size, or spread beyond SPREAD."""
    if net.arch != "bilinear-block" or not words:
        return
    sem: Any = net.semantics
    visits = block_visits(net, automaton, words)
    if not visits:
        return
    found = [classes(v, automaton) for v in visits]
    mats = sem.matrices(net, False)
    sizes = [m.shape[1] for m in mats]
    if any(f is None or len(f[1]) > b or f[2] > SPREAD for f, b in zip(found, sizes)):
        return
    plans = [f for f in found if f is not None]
    q0 = int(automaton.initial or 0)
    for bits in GRIDS:
        snapped = _snap_blocks(net, automaton, plans, mats, bits, q0)
        if snapped is None:
            continue
        yield {"kind": "states", "bits": bits, "states": [len(c) for _, c, _ in plans],
               "spread": round(max(s for _, _, s in plans), 4)}, snapped


def _snap_blocks(net: Network, automaton: Automaton,
                 plans: list[tuple[dict[int, int], np.ndarray, float]],
                 mats: list[np.ndarray], bits: int, q0: int) -> Network | None:
    tensors: dict[str, np.ndarray] = {}
    header: dict[str, Any] = {"kind": "exact-W"}
    for i, ((of, centers, _), floats) in enumerate(zip(plans, mats)):
        rep = {k: q for q, k in sorted(of.items(), reverse=True)}  # a member of each class
        successor = [[of[int(automaton.delta[a][rep[k]])] for k in range(len(centers))]
                     for a in range(automaton.n_symbols)]
        found = dyadic_targets(floats, centers, successor, bits)
        if found is None:
            return None
        col, targets = found
        solved: Matrices | None = snapped_matrices(floats, col, targets)
        if solved is None:
            return None
        header[f"W.{i}"] = [[[str(x) for x in row] for row in m] for m in solved]
        tensors[f"W.{i}"] = np.array([[[float(x) for x in row] for row in m]
                                      for m in solved]).transpose(1, 2, 0)
        tensors[f"h0.{i}"] = np.array([float(x) for x in col[of[q0]]])
    try:
        return Network(arch=net.arch, params={**net.params, **tensors}, symbols=net.symbols,
                       labels=net.labels, options=net.options, exact=header, name=net.name)
    except (FsmnetError, OverflowError):
        return None
