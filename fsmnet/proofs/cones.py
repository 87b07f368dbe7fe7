"""Inductive cone invariants for linear networks whose exact states never close.

A linear network h ↦ A_σ h with an argmax readout is scale-invariant, so a
region per automaton state can be a polyhedral cone K_q = cone(G_q), given by
generators.  The obligations (docs/verification.md):

1. h0 ∈ K_q0;
2. A_σ K_q ⊆ K_δ(q,σ): for every generator g of K_q, A_σ g = Σ λ_i g'_i with
   λ ≥ 0 over the generators of K_δ(q,σ), and A_σ g ≠ 0;
3. the readout is λ(q) on K_q \\ {0}: every generator beats every rival label
   strictly (or ties with a rival that comes later, argmax taking the first).

Then by induction every reachable state is a non-negative combination of its
cone's generators with coefficients not all zero (h0 is one; the image of one
is a combination of the images' multipliers, not all zero since no image is
0).  Readout scores are linear, so a rival before the right label (argmax
takes the first maximum) loses strictly and one after it at most ties, on
every such combination.

Candidate cones come first from a *potential* when the network is nonnegative
with an acyclic support (:func:`potential_cones`), then from the states the
exact product exploration reached,
pushed away from their centre by an inflation factor η (so that a contraction
towards the interior lands inside).  Multipliers λ are found by an LP (HiGHS,
in floats) and then re-derived exactly in Fractions on the LP's support; only
exact checks count.  The multipliers are the certificate.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from fsmnet.automata import Automaton
from fsmnet.nets import Network
from fsmnet.nets.alignment import label_map
from fsmnet.nets.exact_linalg import row_reduce
from fsmnet.proofs.product import ProductExploration

INFLATIONS = (Fraction(0), Fraction(1, 8), Fraction(1, 2), Fraction(2))
MAX_GENERATORS = 48


@dataclass(frozen=True)
class ConeProof:
    generators: dict[int, list[list[Fraction]]]  # automaton state -> generators
    initial: list[Fraction]  # multipliers of h0 over the generators of K_q0
    steps: dict[tuple[int, int, int], list[Fraction]]  # (q, symbol, g) -> multipliers
    inflation: Fraction


def _solve_exact(columns: list[list[Fraction]], target: list[Fraction]) -> list[Fraction] | None:
    """A solution x of Σ x_j columns[j] = target by exact Gaussian elimination, or None."""
    rows, cols = len(target), len(columns)
    m, pivots = row_reduce([[columns[j][i] for j in range(cols)] + [target[i]]
                            for i in range(rows)], cols)
    if any(m[i][cols] != 0 for i in range(len(pivots), rows)):
        return None
    x = [Fraction(0)] * cols
    for i, c in enumerate(pivots):
        x[c] = m[i][cols]
    return x


def cone_multipliers(generators: list[list[Fraction]],
                     v: list[Fraction]) -> list[Fraction] | None:
    """λ ≥ 0 with Σ λ_j g_j = v exactly, or None (LP support, then exact solve)."""
    from scipy.optimize import linprog

    g = np.array([[float(x) for x in col] for col in generators]).T
    res = linprog(np.zeros(g.shape[1]), A_eq=g, b_eq=np.array([float(x) for x in v]),
                  bounds=(0, None), method="highs")
    if res.status != 0:
        return None
    support = [j for j in range(len(generators)) if res.x[j] > 1e-12]
    sol = _solve_exact([generators[j] for j in support], v)
    if sol is None or any(x < 0 for x in sol):
        return None
    full = [Fraction(0)] * len(generators)
    for j, x in zip(support, sol):
        full[j] = x
    return full


def _beats(scores: list[Fraction], right: int) -> bool:
    """argmax (first maximum) is ``right`` for this generator and, by linearity, for
    every non-negative, non-zero combination of such generators."""
    return all(scores[right] > s if c < right else scores[right] >= s
               for c, s in enumerate(scores) if c != right)


def _extreme(points: list[list[Fraction]]) -> list[list[Fraction]]:
    """The points that are not in the cone of the others (float LPs: a heuristic
    choice of generators; soundness comes from the exact checks later)."""
    from scipy.optimize import linprog

    pts = np.array([[float(x) for x in p] for p in points])
    keep = list(range(len(points)))
    for i in range(len(points)):
        others = [j for j in keep if j != i]
        if not others:
            continue
        res = linprog(np.zeros(len(others)), A_eq=pts[others].T, b_eq=pts[i],
                      bounds=(0, None), method="highs")
        if res.status == 0:
            keep = others
    chosen = [points[i] for i in keep]
    if len(chosen) > MAX_GENERATORS:
        step = len(chosen) / MAX_GENERATORS
        chosen = [chosen[int(i * step)] for i in range(MAX_GENERATORS)]
    return chosen


def prove_by_cones(net: Network, automaton: Automaton, exploration: ProductExploration,
                   *, matrices: Any, h0: list[Fraction],
                   readout: Any) -> tuple[ConeProof | None, str]:
    """Try each inflation; return (proof, explanation) or (None, why not)."""
    k, hidden = automaton.n_symbols, len(h0)
    to_auto = label_map(net, automaton)
    samples: dict[int, list[list[Fraction]]] = {}
    for h_idx, q in exploration.pairs:
        samples.setdefault(q, []).append(list(exploration.states[h_idx]))
    right = {q: next((c for c in range(len(net.labels))
                      if to_auto[c] == automaton.output_ids[q]), None) for q in samples}
    if any(r is None for r in right.values()):
        return None, "the network lacks a label of the automaton"
    reason = "no inflation gave an inductive invariant"
    potential = potential_cones(samples, matrices, h0)
    if potential is not None:
        ok, why, proof = _check(potential, automaton, matrices, h0, readout, right, k,
                                Fraction(0))
        if ok:
            return proof, f"potential cones (nonnegative, acyclic support): {why}"
        reason = f"potential cones: {why}"
    # The extreme points do not depend on the inflation: found once (LPs, the cost).
    extreme = {q: _extreme(pts) for q, pts in samples.items()}
    centres = {q: [sum((p[i] for p in pts), Fraction(0)) / len(pts) for i in range(hidden)]
               for q, pts in extreme.items()}
    for eta in INFLATIONS:
        gens: dict[int, list[list[Fraction]]] = {}
        for q, pts in extreme.items():
            centre = centres[q]
            gens[q] = [[p[i] + eta * (p[i] - centre[i]) for i in range(hidden)] for p in pts]
        ok, why, proof = _check(gens, automaton, matrices, h0, readout, right, k, eta)
        if ok:
            return proof, f"cone invariant (inflation {eta}): {why}"
        reason = why
    return None, reason


def _check(gens: dict[int, list[list[Fraction]]], automaton: Automaton, matrices: Any,
           h0: list[Fraction], readout: Any, right: dict[int, Any], k: int,
           eta: Fraction) -> tuple[bool, str, ConeProof | None]:
    for q, gs in gens.items():
        for g in gs:
            scores = [sum((readout[c][i] * g[i] for i in range(len(g))), Fraction(0))
                      for c in range(len(readout))]
            if not _beats(scores, right[q]):
                return False, f"a generator of state {q} is read out wrongly", None
    assert automaton.initial is not None
    initial = cone_multipliers(gens[automaton.initial], h0)
    if initial is None or all(x == 0 for x in initial):
        return False, "h0 is not a non-zero combination in the initial cone", None
    steps: dict[tuple[int, int, int], list[Fraction]] = {}
    for q, gs in gens.items():
        for a in range(k):
            target = int(automaton.delta[a, q])
            if target not in gens:
                return False, f"state {target} has no cone", None
            for j, g in enumerate(gs):
                img = [sum((matrices[a][i][c] * g[c] for c in range(len(g))), Fraction(0))
                       for i in range(len(g))]
                if all(x == 0 for x in img):
                    return False, "a generator is mapped to 0", None
                lam = cone_multipliers(gens[target], img)
                if lam is None:
                    return False, f"A_{a} maps a generator of state {q} out of its cone", None
                steps[(q, a, j)] = lam
    n_gen = sum(len(g) for g in gens.values())
    return True, f"{n_gen} generators, {len(steps)} exact inclusions", ConeProof(
        gens, initial, steps, eta)


def potential_cones(samples: dict[int, list[list[Fraction]]], matrices: Any,
                    h0: list[Fraction]) -> dict[int, list[list[Fraction]]] | None:
    """Candidate cones K_q = {x ≥ 0 : c·x ≤ K·x_m(q)} for a nonnegative network whose
    support graph (j → i when some A_σ[i][j] ≠ 0, i ≠ j) has no cycle, or None.

    m(q) is the coordinate that dominates every sampled state of q.  With
    c_i = β^{ht(i)} (ht: the longest support path from i) and β ≥ 1 such that
    c·A_σ e_j ≤ c_j for every column, the potential c·x never grows; if moreover
    A_σ maps m(q) to m(q') with a coefficient ≥ 1, each K_q lands in K_q'.  That is
    what behaviourally merged fixed-point networks
    (:mod:`fsmnet.constructions.fixed_point_acyclic`) are built for.  Its
    generators are e_m and e_m + ((K − c_m)/c_j) e_j; only the exact checks of
    :func:`_check` decide.
    """
    hidden = len(h0)
    mats = [[[Fraction(x) for x in row] for row in m] for m in matrices]
    if hidden > MAX_GENERATORS or any(x < 0 for m in mats for row in m for x in row) or any(
            x < 0 for x in h0):
        return None
    main: dict[int, int] = {}
    for q, pts in samples.items():
        tops = {max(range(hidden), key=lambda i: p[i]) for p in pts}
        if len(tops) != 1:
            return None
        main[q] = tops.pop()
    succ = [{i for m in mats for i in range(hidden) if i != j and m[i][j] != 0}
            for j in range(hidden)]
    height: dict[int, int] = {}

    def ht(j: int, seen: frozenset[int]) -> int | None:
        if j in height:
            return height[j]
        best = 0
        for i in succ[j]:
            if i in seen:
                return None  # a cycle
            below = ht(i, seen | {i})
            if below is None:
                return None
            best = max(best, below + 1)
        height[j] = best
        return best

    if any(ht(j, frozenset({j})) is None for j in range(hidden)):
        return None

    def fits(beta: Fraction) -> bool:
        c = [beta ** height[i] for i in range(hidden)]
        return all(sum((m[i][j] * c[i] for i in range(hidden)), Fraction(0)) <= c[j]
                   for m in mats for j in range(hidden))

    # The potential's base: the least β = k/1024 in [1, 3] that fits, by bisection
    # (the constraints loosen as β grows when every column's mass moves up the
    # heights); a coarse β makes K = β^height too large for the readout margin.
    lo, hi = 1024, 3 * 1024
    if not fits(Fraction(hi, 1024)):
        return None
    while lo < hi:
        mid = (lo + hi) // 2
        if fits(Fraction(mid, 1024)):
            hi = mid
        else:
            lo = mid + 1
    beta = Fraction(lo, 1024)
    c = [beta ** height[i] for i in range(hidden)]
    top = max(c[m] for m in main.values())
    if not samples or min(h0) < 0:
        return None
    q0_main = [main[q] for q, pts in samples.items() if h0 in pts]
    if q0_main and h0[q0_main[0]] > 0:
        top = max(top, sum((ci * x for ci, x in zip(c, h0)), Fraction(0)) / h0[q0_main[0]])
    return {q: [[Fraction(int(i == m)) for i in range(hidden)]]
            + [[Fraction(int(i == m)) + (top - c[m]) / c[j] * int(i == j)
                for i in range(hidden)] for j in range(hidden) if j != m]
            for q, m in main.items()}
