"""State snapping: a trained bilinear-full, bilinear-cp or fixed-point network made to
close exactly on the automaton's states.

A trained full bilinear network that fits its data visits, after the words that
reach one automaton state q, states pointing nearly one way; but "nearly" never
closes: its exact states are infinitely many, and for a group letter with generic
weights the generic-weights theorem (docs/theory.md §5) rules out every length.
This snap picks for each reached state q one direction c_q (the mean of the
visited unit states, rounded to a dyadic grid), and changes each letter's matrix as
little as possible (least squares, on the span of the c_q only) so that it maps
every c_q *exactly* onto s·c_δ(q,a), s a positive dyadic near the trained gain:

    A'_a = A_a + (T_a − A_a C) C⁺,   C = [c_q],  T_a = [s_qa c_δ(q,a)],  C⁺ = (CᵀC)⁻¹Cᵀ,

in rationals, so A'_a C = T_a exactly (C⁺C = I needs the c_q independent: at most H
states).  The exact states of the snapped network are then the c_q (states are
compared up to a positive factor, fsmnet.nets.linear.normalize), the exact product
closes on them, and the proof is exact.  A'_a is rational, not a double: it goes into
an exact header, which exact evaluation reads (:data:`WRITERS`): ``exact-W`` for
bilinear-full (fsmnet.nets.bilinear), the rational Λ and Q of a fixed-point network
(Λ kept, Q solved from A'_a); the file's tensors hold the correctly rounded doubles,
which the float32 run uses.  bilinear-cp cannot take arbitrary A'_a, but its
A_a c_q = U (V_a ∘ Zᵀc_q) is linear in U, so the same least-change formula solves for
one U' that meets all |Σ|·k targets at once (V, Z kept; needs rank R ≥ |Σ|·k), written
as an ``exact-U`` header.

Costs: one float run of the sample, and per grid an exact (k × k) inverse and the
S products (H × H)(H × k) in Fractions (cp: one (|Σ|k × |Σ|k) inverse).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from fractions import Fraction
from typing import Any

import numpy as np

from fsmnet.automata import Automaton
from fsmnet.errors import FsmnetError
from fsmnet.nets import Network
from fsmnet.nets.linear import to_fractions

GRIDS = (4, 8, 12)
"""Bits of the dyadic grid of the state directions c_q, coarsest first."""

GAIN_BITS = 6
"""Bits of the dyadic gains s (at least 2^-GAIN_BITS)."""

SPREAD = 1.0
"""The largest distance of a visited unit state from its state's mean direction (1.0 is
60°): beyond it the network does not point one way per automaton state, and it is not
snapped.  Loose on purpose: whether a snap keeps the labels is decided after, on the
training sample."""


def visited_directions(net: Network, automaton: Automaton,
                       words: Sequence[Sequence[int]]) -> dict[int, np.ndarray]:
    """Per automaton state reached by a prefix of ``words``, the float64 unit states
    (rows) the network visits there."""
    sem: Any = net.semantics
    return unit_visits(sem.matrices(net, False), np.asarray(net.params["h0"], dtype=np.float64),
                       automaton, words)


def unit_visits(mats: np.ndarray, h0: np.ndarray, automaton: Automaton,
                words: Sequence[Sequence[int]]) -> dict[int, np.ndarray]:
    """:func:`visited_directions` of the recurrence h ← mats[a] h from ``h0``; {} on an
    overflow or a zero state."""
    seen: dict[int, list[np.ndarray]] = {}
    start = h0 / np.linalg.norm(h0)
    for word in words:
        h, q = start, int(automaton.initial or 0)
        seen.setdefault(q, []).append(h)
        for a in word:
            h = mats[a] @ h
            norm = np.linalg.norm(h)
            if not np.isfinite(norm) or norm == 0:
                return {}
            h, q = h / norm, int(automaton.delta[a][q])
            seen.setdefault(q, []).append(h)
    return {q: np.array(v) for q, v in seen.items()}


def _dyadic(x: float, bits: int) -> Fraction:
    return Fraction(round(x * 2**bits), 2**bits)


def _pseudo_inverse(c: list[list[Fraction]]) -> list[list[Fraction]] | None:
    """C⁺ = (CᵀC)⁻¹Cᵀ (k × H) of the H × k matrix ``c`` (rows), exactly; None when its
    columns are dependent."""
    from fsmnet.nets.exact_linalg import row_reduce

    hidden, k = len(c), len(c[0])
    cols = [[c[i][j] for i in range(hidden)] for j in range(k)]
    gram = [[sum((x * y for x, y in zip(u, v)), Fraction(0)) for v in cols] for u in cols]
    reduced, pivots = row_reduce([gram[j] + cols[j] for j in range(k)], k)
    if len(pivots) < k:
        return None
    return [row[k:] for row in reduced[:k]]


Columns = list[list[Fraction]]


def dyadic_targets(floats: np.ndarray, centers: np.ndarray, successor: list[list[int]],
                   bits: int) -> tuple[Columns, list[Columns]] | None:
    """(the directions ``centers`` on the grid 2^-bits as columns c_j, per letter a the
    targets s_ja c_successor[a][j] in the order of the c_j), or None where a gain is
    not positive.  s_ja is the trained gain A_a c_j · c / |c|² of the float matrices
    ``floats[a]`` on a dyadic grid: a choice, so float64 is enough."""
    col = [[_dyadic(float(x), bits) for x in center] for center in centers]
    targets = []
    for a, after in enumerate(successor):
        per_state = []
        for j, nxt in enumerate(after):
            t = np.array(col[nxt], dtype=float)
            s = _dyadic(float(floats[a] @ np.array(col[j], dtype=float) @ t / (t @ t)),
                        GAIN_BITS)
            if s <= 0:
                return None
            per_state.append([s * x for x in col[nxt]])
        targets.append(per_state)
    return col, targets


def _matmul(a: list[list[Fraction]], b: list[list[Fraction]]) -> list[list[Fraction]]:
    return [[sum((x * y for x, y in zip(row, column)), Fraction(0)) for column in zip(*b)]
            for row in a]


def least_change(base: list[list[Fraction]], m: list[list[Fraction]],
                  t: list[list[Fraction]]) -> list[list[Fraction]] | None:
    """X = B + (T − B M) M⁺, the X nearest ``base`` (Frobenius) with X M = T exactly;
    None when M's columns are dependent."""
    pinv = _pseudo_inverse(m)
    if pinv is None:
        return None
    residual = [[x - y for x, y in zip(tr, br)] for tr, br in zip(t, _matmul(base, m))]
    return [[x + y for x, y in zip(br, cr)] for br, cr in zip(base, _matmul(residual, pinv))]


Matrices = list[list[list[Fraction]]]


def snapped_matrices(floats: np.ndarray, col: Columns, targets: list[Columns]
                     ) -> Matrices | None:
    """Per letter A'_a = A_a + (T_a − A_a C) C⁺ (A_a = ``floats[a]``): A'_a c_j is the
    target exactly."""
    c = [list(row) for row in zip(*col)]  # H × k
    mats = []
    for a, m in enumerate(floats):
        solved = least_change(to_fractions(m).tolist(), c, [list(row) for row in zip(*targets[a])])
        if solved is None:
            return None
        mats.append(solved)
    return mats


def _full_weights(net: Network, mats: Matrices) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """bilinear-full: W holds the matrices' correctly rounded doubles, the exact-W
    header the matrices."""
    header = {"kind": "exact-W", "W": [[[str(x) for x in row] for row in m] for m in mats]}
    w = np.array([[[float(x) for x in row] for row in m] for m in mats]).transpose(1, 2, 0)
    return {"W": w}, header


def _fixed_point_weights(net: Network, mats: Matrices
                         ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """fixed-point: A = (I + (Λ⁻¹ − I) Q)⁻¹ with Λ kept, so Q = (Λ⁻¹ − I)⁻¹ (A⁻¹ − I)
    row by row, exactly (A must be invertible: ZeroDivisionError otherwise); the
    Lambda/Q header holds the rationals."""
    from fsmnet.nets.fixed_point import exact_inverse

    lam = to_fractions(net.params["Lambda"]).tolist()
    q = []
    for a, m in enumerate(mats):
        inv = exact_inverse(np.array(m, dtype=object))
        q.append([[(inv[i][j] - (i == j)) / (1 / lam[a][i] - 1) for j in range(len(m))]
                  for i in range(len(m))])
    header = {"Lambda": [[str(x) for x in row] for row in lam],
              "Q": [[[str(x) for x in row] for row in m] for m in q]}
    return {"Q": np.array([[[float(x) for x in row] for row in m] for m in q])}, header


def _cp_weights(net: Network, col: Columns, targets: list[Columns]
                ) -> tuple[dict[str, np.ndarray], dict[str, Any]] | None:
    """bilinear-cp: A_a = U diag(V_a) Zᵀ is linear in U, and A_a c_q = U m_aq with
    m_aq = V_a ∘ (Zᵀ c_q).  With M = [m_aq] (R × |Σ|k) and T = [s_qa c_δ(q,a)],
    U' = U + (T − U M) M⁺ maps every c_q exactly (V, Z kept); M's columns must be
    independent, so R ≥ |Σ|·k.  The exact-U header holds U' (fsmnet.nets.bilinear)."""
    p = net.params
    v, z = to_fractions(p["V"]).tolist(), to_fractions(p["Z"]).tolist()
    y = _matmul([list(row) for row in zip(*z)], [list(row) for row in zip(*col)])  # R × k
    m_cols = [[va * yr[j] for va, yr in zip(v[a], y)] for a in range(len(targets))
              for j in range(len(col))]
    t_cols = [t for per_state in targets for t in per_state]
    u = least_change(to_fractions(p["U"]).tolist(), [list(row) for row in zip(*m_cols)],
                      [list(row) for row in zip(*t_cols)])
    if u is None:
        return None
    header = {"kind": "exact-U", "U": [[str(x) for x in row] for row in u]}
    return {"U": np.array([[float(x) for x in row] for row in u])}, header


def _via_matrices(write: Callable[[Network, Matrices],
                                  tuple[dict[str, np.ndarray], dict[str, Any]]]) -> Writer:
    def writer(net: Network, col: Columns, targets: list[Columns]
               ) -> tuple[dict[str, np.ndarray], dict[str, Any]] | None:
        sem: Any = net.semantics
        mats = snapped_matrices(sem.matrices(net, False), col, targets)
        return None if mats is None else write(net, mats)
    return writer


Writer = Callable[[Network, Columns, list[Columns]],
                  tuple[dict[str, np.ndarray], dict[str, Any]] | None]

WRITERS: dict[str, Writer] = {
    "bilinear-full": _via_matrices(_full_weights),
    "fixed-point": _via_matrices(_fixed_point_weights),
    "bilinear-cp": _cp_weights,
}
"""Per architecture, how the targets (each c_q onto s_qa c_δ(q,a)) become its tensors and
exact header, or None where its parametrization cannot meet them (the header is the
exact truth of each, fsmnet.nets.exact_header.header_is_truth)."""


def state_snaps(net: Network, automaton: Automaton, words: Sequence[Sequence[int]]
                ) -> Iterator[tuple[dict[str, Any], Network]]:
    """(header record, snapped network with its exact header) per grid, coarsest first;
    nothing for an architecture without a writer (:data:`WRITERS`), for states that do
    not point one way per automaton state, or for more reached states than H."""
    writer = WRITERS.get(net.arch)
    if writer is None or not words:
        return
    visited = visited_directions(net, automaton, words)
    order = sorted(visited)
    if not visited or len(order) > net.hidden_size:
        return
    centers = np.array([visited[q].mean(axis=0) for q in order])
    centers /= np.linalg.norm(centers, axis=1, keepdims=True)
    spread = max(float(np.max(np.linalg.norm(visited[q] - centers[j], axis=1)))
                 for j, q in enumerate(order))
    closed = all(int(automaton.delta[a][q]) in visited
                 for q in order for a in range(automaton.n_symbols))
    if spread > SPREAD or not closed:
        return
    start = order.index(int(automaton.initial or 0))
    index = {q: j for j, q in enumerate(order)}
    successor = [[index[int(automaton.delta[a][q])] for q in order]
                 for a in range(automaton.n_symbols)]
    sem: Any = net.semantics
    floats = sem.matrices(net, False)
    for bits in GRIDS:
        found = dyadic_targets(floats, centers, successor, bits)
        if found is None:
            continue
        col, targets = found
        h0 = col[start]
        try:
            written = writer(net, col, targets)
            if written is None:
                continue
            tensors, header = written
            snapped = Network(arch=net.arch, params={**net.params, **tensors,
                                                     "h0": np.array([float(x) for x in h0])},
                              symbols=net.symbols, labels=net.labels, options=net.options,
                              exact=header, name=net.name)
        except (FsmnetError, ZeroDivisionError, OverflowError):  # singular A'; not a network
            continue
        yield {"kind": "states", "bits": bits, "states": len(order),
               "spread": round(spread, 4)}, snapped
