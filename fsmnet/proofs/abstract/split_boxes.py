"""Split boxes: an exact finite part explored exactly, a contracting part bounded by boxes.

A linear network h ↦ A_x h whose coordinates split into a *main* set M that
never reads the rest X (A_x[M, X] = 0 for every symbol) is block triangular:

    m' = P_x m,        x' = F_x m + D_x x        (P = A[M, M], F = A[X, M], D = A[X, X]).

This is what a compiled network looks like once extra dimensions are added
that the main block feeds and that contract (tests/test_certify_categories.py,
categories (a)–(c)): the main block's exact states are finitely many (it *is*
the compiled network, possibly with every letter rescaled), while the extra
coordinates take infinitely many values, so the network's own exact product
never closes, and when the readout sees them the reduction
(:mod:`.minimal_linear`) cannot drop them either.

The proof here explores the main block exactly (pairs of a normalized main
state and an automaton state, breadth first), picks a functional φ on M that
is positive on every main state found (a dyadic rational, zero on X), and
scales each main state to φ·m = 1.  A node (m_j, q) then owns the slice box

    S_(j,q) = {h : h_M = m_j, lo ≤ h_X ≤ hi},   so φ·h = 1 on the whole box,

and on symbol x its image, divided by s = φ·P_x m_j > 0 (exact), is
(m_j', (F_x m_j + D_x h_X) / s): the main part is exactly the next node's, and
the X part is an affine image of a box, bounded tightly by interval
arithmetic.  The X boxes are the least fixed point of those images (Kleene
iteration in floats from h0's node, widening after a while), inflated a little
so that every image lies inside with room, and rounded outwards to dyadic
rationals.

The result is an ordinary ``box-invariant`` certificate of domain
``slice-box`` (:mod:`fsmnet.proofs.checker.invariants`): because φ is constant
on each box, every dual multiplier may be 0 and the checker's bound is the
exact minimum of each linear form over the box.  Nothing new is trusted: the
checker re-derives every inclusion and margin in Fractions.

The split itself is read off the matrices: the "reads" graph (i reads j when
some A_x[i, j] ≠ 0), its strongly connected components, each with its growth
(the largest spectral radius of its diagonal block over the symbols); M is the
set of coordinates that the fastest components read, directly or not, and X
the rest.  A network with one component (a trained dense network) has no
split, and the method steps aside at once.  Exact claims only: the
``float32-step`` rounding model charges every coordinate a rounding error,
which an exactly permuted main block never absorbs.
"""

from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from fsmnet.automata import Automaton

GRID = Fraction(1, 2**40)  # X-box ends are rounded outwards to this grid
MAX_NODES = 2000  # (main state, automaton state) pairs explored exactly
MAX_ROUNDS = 600  # Kleene rounds on the X boxes
BLOW_UP = 1e6  # an X box wider than this ends the try
THETAS = (1.0 - 1e-9, 0.9, 0.6)  # growth thresholds that choose the main components
SECONDS = 5.0  # the whole try (a noisy main block's exact states never close)


@dataclass(frozen=True)
class Split:
    """Coordinates ``main`` never read ``extra``."""

    main: tuple[int, ...]
    extra: tuple[int, ...]


def _components(reads: np.ndarray) -> list[list[int]]:
    """Strongly connected components of the graph i → j (``reads[i, j]``), iteratively
    (Tarjan)."""
    n = len(reads)
    succ = [np.flatnonzero(reads[i]).tolist() for i in range(n)]
    index: dict[int, int] = {}
    low: dict[int, int] = {}
    on_stack: set[int] = set()
    stack: list[int] = []
    out: list[list[int]] = []
    counter = 0
    for root in range(n):
        if root in index:
            continue
        work = [(root, 0)]
        while work:
            v, i = work.pop()
            if i == 0:
                index[v] = low[v] = counter
                counter += 1
                stack.append(v)
                on_stack.add(v)
            recurse = False
            for k in range(i, len(succ[v])):
                w = succ[v][k]
                if w not in index:
                    work.append((v, k + 1))
                    work.append((w, 0))
                    recurse = True
                    break
                if w in on_stack:
                    low[v] = min(low[v], index[w])
            if recurse:
                continue
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                out.append(sorted(comp))
            if work:
                u = work[-1][0]
                low[u] = min(low[u], low[v])
    return out


def splits(mats: np.ndarray) -> list[Split]:
    """Candidate splits of the coordinates, fastest-growing components first."""
    mats = np.asarray(mats, dtype=np.float64)
    n = mats.shape[1]
    reads = np.any(mats != 0, axis=0)
    comps = _components(reads)
    growth = []
    for comp in comps:
        blocks = mats[:, comp][:, :, comp]
        growth.append(max(float(np.max(np.abs(np.linalg.eigvals(b)))) if b.size else 0.0
                          for b in blocks))
    top = max(growth, default=0.0)
    if top <= 0:
        return []
    out: list[Split] = []
    for theta in THETAS:
        seed = {i for comp, g in zip(comps, growth) if g >= theta * top for i in comp}
        main = set(seed)
        todo = list(seed)
        while todo:  # close under "reads"
            i = todo.pop()
            for j in np.flatnonzero(reads[i]).tolist():
                if j not in main:
                    main.add(j)
                    todo.append(j)
        if 0 < len(main) < n:
            split = Split(tuple(sorted(main)), tuple(j for j in range(n) if j not in main))
            if split not in out:
                out.append(split)
    return out


def _normalized(v: tuple[Fraction, ...]) -> tuple[Fraction, ...] | None:
    big = max((abs(x) for x in v), default=Fraction(0))
    return None if big == 0 else tuple(x / big for x in v)


def _apply(a: list[list[Fraction]], v: tuple[Fraction, ...]) -> tuple[Fraction, ...]:
    return tuple(sum((x * y for x, y in zip(row, v) if x and y), Fraction(0)) for row in a)


@dataclass
class MainProduct:
    """The exact product of the main block with the automaton: nodes (main state index,
    automaton state), the successor node per symbol, main states scaled to φ·m = 1."""

    states: list[tuple[Fraction, ...]]
    nodes: list[tuple[int, int]]
    succ: list[list[int]]
    phi: list[Fraction]  # on the main coordinates


def explore_main(mats: list[list[list[Fraction]]], h0: list[Fraction], automaton: Automaton,
                 split: Split, max_nodes: int = MAX_NODES, deadline: float = float("inf")
                 ) -> tuple[MainProduct | None, str]:
    """Breadth-first exact exploration of (main state, automaton state), or why not
    (more than ``max_nodes`` nodes, or past ``deadline``, a ``time.perf_counter``)."""
    from fsmnet.proofs.abstract.linear import choose_chart

    main = split.main
    blocks = [[[a[i][j] for j in main] for i in main] for a in mats]
    start = _normalized(tuple(h0[i] for i in main))
    if start is None:
        return None, "h0 is zero on the main coordinates"
    assert automaton.initial is not None
    keys: dict[tuple[Fraction, ...], int] = {start: 0}
    states = [start]
    nodes = [(0, automaton.initial)]
    where = {nodes[0]: 0}
    succ: list[list[int]] = []
    queue = deque([0])
    while queue:
        if time.perf_counter() > deadline:
            return None, f"the main block's exact product did not close within {SECONDS} s"
        n = queue.popleft()
        j, q = nodes[n]
        row = []
        for a, block in enumerate(blocks):
            image = _normalized(_apply(block, states[j]))
            if image is None:
                return None, "a main state goes to zero (zero states are not handled here)"
            k = keys.setdefault(image, len(states))
            if k == len(states):
                states.append(image)
            node = (k, int(automaton.delta[a, q]))
            if node not in where:
                if len(nodes) >= max_nodes:
                    return None, f"the main block has more than {max_nodes} product nodes"
                where[node] = len(nodes)
                nodes.append(node)
                queue.append(where[node])
            row.append(where[node])
        succ.append(row)
    chart = choose_chart([np.array([float(x) for x in m]) for m in states])
    if chart is None:
        return None, "no functional is positive on every main state"
    phi = chart.phi
    scaled = []
    for m in states:
        s = sum((f * x for f, x in zip(phi, m) if f and x), Fraction(0))
        if s <= 0:
            return None, "no functional is positive on every main state (exactly)"
        scaled.append(tuple(x / s for x in m))
    return MainProduct(scaled, nodes, succ, phi), (
        f"{len(states)} main states, {len(nodes)} product nodes")


def _x_boxes(prod: MainProduct, mats: np.ndarray, split: Split, x0: np.ndarray,
             deadline: float = float("inf")
             ) -> tuple[list[tuple[np.ndarray, np.ndarray]] | None, str]:
    """Kleene iteration of the X boxes from h0's node (floats), then room."""
    mi, xi = list(split.main), list(split.extra)
    phi = np.array([float(x) for x in prod.phi])
    # per (node, symbol): the affine map x ↦ b + C x on the X part, after dividing by s
    maps = []
    for j, _q in prod.nodes:
        m = np.array([float(x) for x in prod.states[j]])
        row = []
        for a in range(len(mats)):
            s = float(phi @ (mats[a][np.ix_(mi, mi)] @ m))
            row.append((mats[a][np.ix_(xi, mi)] @ m / s, mats[a][np.ix_(xi, xi)] / s))
        maps.append(row)
    boxes: list[tuple[np.ndarray, np.ndarray] | None] = [None] * len(prod.nodes)
    boxes[0] = (x0.copy(), x0.copy())

    def image(n: int, a: int) -> tuple[np.ndarray, np.ndarray]:
        lo, hi = boxes[n]  # type: ignore[misc]
        b, c = maps[n][a]
        cp, cn = np.maximum(c, 0), np.minimum(c, 0)
        return b + cp @ lo + cn @ hi, b + cp @ hi + cn @ lo

    def sweep(widen: bool, rounds: int) -> tuple[bool, str]:
        grew = False
        for n in range(len(prod.nodes)):
            if boxes[n] is None:
                continue
            for a in range(len(mats)):
                t = prod.succ[n][a]
                ilo, ihi = image(n, a)
                if boxes[t] is None:
                    boxes[t] = (ilo, ihi)
                    grew = True
                    continue
                tlo, thi = boxes[t]  # type: ignore[misc]
                tol = 1e-13 * (1 + np.abs(thi - tlo))
                if np.any(ilo < tlo - tol) or np.any(ihi > thi + tol):
                    glo, ghi = np.minimum(ilo, tlo), np.maximum(ihi, thi)
                    if widen:
                        glo, ghi = glo - 2 * (tlo - glo), ghi + 2 * (ghi - thi)
                    boxes[t] = (glo, ghi)
                    grew = True
                    if np.max(ghi - glo) > BLOW_UP:
                        return False, f"an X box blew up after {rounds} rounds"
        return grew, ""

    rounds = 0
    for slack in (False, True):
        while True:
            rounds += 1
            if rounds > MAX_ROUNDS or time.perf_counter() > deadline:
                return None, f"the X boxes did not close within {rounds - 1} rounds"
            grew, why = sweep(rounds > MAX_ROUNDS // 4, rounds)
            if why:
                return None, why
            if not grew:
                break
        if not slack:  # room, then iterate again: every image then lies inside
            for n, box in enumerate(boxes):
                if box is not None:
                    lo, hi = box
                    room = 1e-7 * (hi - lo) + 1e-9 * (1 + np.abs(lo) + np.abs(hi))
                    boxes[n] = (lo - room, hi + room)
    if any(b is None for b in boxes):
        return None, "a product node has no X box"
    return [b for b in boxes if b is not None], f"X boxes closed after {rounds} rounds"


def _down(x: float) -> Fraction:
    return Fraction(int(np.floor(x / float(GRID)))) * GRID


def _up(x: float) -> Fraction:
    return Fraction(int(np.ceil(x / float(GRID)))) * GRID


def candidate(net: Any, automaton: Automaton, right: dict[int, int]
              ) -> tuple[dict[str, Any] | None, str]:
    """A slice-box certificate body (exact rounding) from a split, or why not."""
    from fsmnet.nets.linear import LinearRecurrence
    from fsmnet.proofs.certificate_models import exact_qs

    sem = net.semantics
    if not isinstance(sem, LinearRecurrence):
        return None, f"{net.arch} is not a linear recurrence"
    exact = sem.matrices(net, True)
    readout_q = sem.readout_matrix(net, True)
    if not all(isinstance(x, Fraction) for x in [*np.ravel(exact), *np.ravel(readout_q)]):
        return None, "the exact weights are not rationals"
    mats_q = [[list(row) for row in a] for a in exact]
    h0_q = list(sem.initial_state(net, True))
    mats = np.vectorize(float, otypes=[np.float64])(np.asarray(exact, dtype=object))
    readout = np.vectorize(float, otypes=[np.float64])(np.asarray(readout_q, dtype=object))
    found = splits(mats)
    if not found:
        return None, "no split: every coordinate is read by the fastest block"
    why = "no split"
    deadline = time.perf_counter() + SECONDS
    for split in found:
        prod, why = explore_main(mats_q, h0_q, automaton, split, deadline=deadline)
        if prod is None:
            continue
        mi, xi = list(split.main), list(split.extra)
        dim = len(h0_q)
        phi_full = [Fraction(0)] * dim
        for k, i in enumerate(mi):
            phi_full[i] = prod.phi[k]
        s0 = sum((phi_full[i] * h0_q[i] for i in range(dim) if phi_full[i]), Fraction(0))
        x0 = np.array([float(h0_q[i] / s0) for i in xi])
        boxes, why = _x_boxes(prod, mats, split, x0, deadline)
        if boxes is None:
            continue
        bad = _margin_fails(prod, boxes, readout, split, right)
        if bad is not None:
            why = f"the box of state {bad} is not read out with a margin (split)"
            continue
        out_boxes = []
        for (j, q), (lo, hi) in zip(prod.nodes, boxes):
            elo, ehi = [Fraction(0)] * dim, [Fraction(0)] * dim
            for k, i in enumerate(mi):
                elo[i] = ehi[i] = prod.states[j][k]
            for k, i in enumerate(xi):
                elo[i], ehi[i] = _down(float(lo[k])), _up(float(hi[k]))
            out_boxes.append({"state": q, "lo": exact_qs(elo), "hi": exact_qs(ehi)})
        zero = "0"
        mults = [{"steps": [[zero] * (1 + 2 * dim) for _ in range(len(mats))],
                  "readout": [zero] * len(readout)} for _ in prod.nodes]
        body = {"domain": "slice-box", "rounding": "exact", "phi": exact_qs(phi_full),
                "initial_box": 0, "successors": prod.succ, "boxes": out_boxes,
                "multipliers": mults}
        return body, (f"split {len(mi)} + {len(xi)} coordinates: {why}, "
                      f"{len(prod.states)} main states, {len(prod.nodes)} boxes")
    return None, why


def _margin_fails(prod: MainProduct, boxes: list[tuple[np.ndarray, np.ndarray]],
                  readout: np.ndarray, split: Split, right: dict[int, int]) -> int | None:
    """An automaton state whose box is read out wrongly (floats), or None."""
    mi, xi = list(split.main), list(split.extra)
    for (j, q), (lo, hi) in zip(prod.nodes, boxes):
        m = np.array([float(x) for x in prod.states[j]])
        r = right[q]
        for c in range(len(readout)):
            if c == r:
                continue
            d = readout[r] - readout[c]
            dx = d[xi]
            low = float(d[mi] @ m + np.where(dx >= 0, dx * lo, dx * hi).sum())
            if low <= 1e-12 * (1 + float(np.abs(d).sum())):
                return q
    return None


def prove_split(net: Any, automaton: Automaton, right: dict[int, int] | None,
                details: dict[str, Any], *, network_path: str | None = None
                ) -> dict[str, Any] | None:
    """The checked ``box-invariant`` certificate of a split, or None (``details["split"]``
    says why); only a certificate that the independent checker accepts is returned."""
    from fsmnet.proofs.certificate import _common, network_model
    from fsmnet.proofs.checker import CertificateError, check_certificate

    start = time.perf_counter()
    if right is None:
        details["split"] = "the network lacks a label of the automaton"
        return None
    body, why = candidate(net, automaton, right)
    if body is None:
        details["split"] = why
        return None
    cert = {**_common(net, automaton, "box-invariant", network_model(net), network_path),
            **body}
    try:
        summary = check_certificate(cert)
    except CertificateError as exc:
        details["split"] = f"{why}; exact check failed: {exc}"
        return None
    details["split"] = f"{why}; {summary} ({time.perf_counter() - start:.2f} s)"
    return cert
