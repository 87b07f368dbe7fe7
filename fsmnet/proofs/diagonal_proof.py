"""Proofs for real- and positive-diagonal networks, whose exact states never close.

A diagonal network's matrices commute, so h_w = Π_a D_a^{n_a} h0 depends only
on the symbol counts n_a.  For a commutative automaton the output also depends
only on the counts, through thresholds and periods.  Split every count into
finitely many *count types*: an exact value n < N_a, or a tail
n = N_a + r + P_a·m (m ≥ 0) with N_a ≥ the letter's threshold and P_a a
multiple of its period (and even when some entry is negative).  On a tail,
every entry d of letter a satisfies |d| = b_a^k for a common rational base
b_a ≤ 1 (checked exactly), so d^n = d^(N_a+r) · x_a^k with x_a = b_a^(P_a m)
in (0, 1].  Each readout score is then a polynomial in the x_a, and
"the right label wins for every m" follows from "it wins for every real x in
(0, 1]^tails", a Z3 query in nonlinear real arithmetic with exact rational
coefficients: UNSAT for every (count type, rival label) is a proof for all
lengths.  SAT or a timeout is "unknown" (a real x need not be a power of b).
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction
from typing import Any

import numpy as np

from fsmnet.automata import Automaton
from fsmnet.nets import Network
from fsmnet.nets.alignment import label_map


def _index_period(f: tuple[int, ...]) -> tuple[int, int]:
    """(index, period) of a transformation: least i, p with f^i = f^(i+p)."""
    seen: dict[tuple[int, ...], int] = {}
    cur, i = f, 1
    while cur not in seen:
        seen[cur] = i
        cur = tuple(f[c] for c in cur)
        i += 1
    return seen[cur], i - seen[cur]


def _common_base(values: list[Fraction]) -> tuple[Fraction, list[int]] | None:
    """b ≤ 1 and integer k_i ≥ 0 with values[i] = b^k_i exactly, or None."""
    others = [v for v in values if v != 1]
    if not others:
        return Fraction(1), [0] * len(values)
    for b in sorted(set(others), key=lambda v: -v):  # the weakest contraction first
        if not 0 < b < 1:
            return None
        exps = []
        for v in values:
            k = 0 if v == 1 else round(math.log(v) / math.log(b))
            if k < 0 or b**k != v:
                break
            exps.append(k)
        else:
            return b, exps
    return None


def prove_diagonal(net: Network, automaton: Automaton, *,
                   timeout_ms: int = 10_000) -> tuple[str, str]:
    """("proved" | "unknown", explanation) for a real/positive-diagonal network.

    ``automaton`` must be minimal and aligned with the network's alphabet.
    """
    from fsmnet import archs

    if "count-abstraction" not in archs.get(net.arch).proofs:
        return "unknown", f"count abstraction does not apply to {net.arch}"
    k = automaton.n_symbols
    maps = [tuple(int(x) for x in automaton.delta[a]) for a in range(k)]
    for a, b in itertools.combinations(range(k), 2):
        if tuple(maps[a][q] for q in maps[b]) != tuple(maps[b][q] for q in maps[a]):
            return "unknown", "the automaton is not commutative (the product search decides)"
    # The same exact weights as every other exact evaluation of this network.
    sem = net.semantics
    mats = sem.matrices(net, True)  # type: ignore[attr-defined]
    h0 = sem.initial_state(net, True)
    readout = sem.readout_matrix(net, True)  # type: ignore[attr-defined]
    hidden = len(h0)
    off = [mats[a][i, j] for a in range(k) for i in range(hidden) for j in range(hidden)
           if i != j]
    if any(x != 0 for x in off):  # r2 with true rotations: angles need cyclotomic numbers
        return "unknown", "the exact matrices are not diagonal (rotation blocks)"
    diag = np.array([[mats[a][j, j] for j in range(hidden)] for a in range(k)], dtype=object)
    if not all(isinstance(x, Fraction) for x in [*diag.ravel(), *h0, *readout.ravel()]):
        return "unknown", "exact weights are not all rational"
    to_auto = label_map(net, automaton)
    letters = []
    for a in range(k):
        t, p = _index_period(maps[a])
        entries = [diag[a, j] for j in range(hidden)]
        base = _common_base([abs(d) for d in entries if d != 0])
        if base is None:
            return "unknown", f"letter {automaton.symbols[a]!r}: entries are not powers of " \
                              "one base in (0, 1]"
        _, exps = base
        exps_iter = iter(exps)
        powers = [next(exps_iter) if d != 0 else None for d in entries]
        start = max(t, 1 if any(d == 0 for d in entries) else 0)
        period = p * (2 if any(d < 0 for d in entries) and p % 2 else 1)
        letters.append((start, period, entries, powers))

    import z3

    options = [[("exact", n) for n in range(start)] + [("tail", r) for r in range(period)]
               for start, period, _, _ in letters]
    queries = 0
    for choice in itertools.product(*options):
        counts = [n if kind == "exact" else letters[a][0] + n
                  for a, (kind, n) in enumerate(choice)]
        word = [a for a in range(k) for _ in range(counts[a])]
        expected = int(automaton.output_ids[automaton.run(word)])
        xs = {a: z3.Real(f"x{a}") for a, (kind, _) in enumerate(choice) if kind == "tail"}
        scores = []
        for c in range(len(net.labels)):
            poly: dict[tuple[int, ...], Fraction] = {}  # monomial exponents -> coefficient
            for j in range(hidden):
                coeff = readout[c, j] * h0[j]
                for a in range(k):
                    coeff *= letters[a][2][j] ** counts[a]
                if coeff == 0:
                    continue
                mono = tuple((letters[a][3][j] or 0) * letters[a][1] if a in xs else 0
                             for a in range(k))
                poly[mono] = poly.get(mono, Fraction(0)) + coeff
            scores.append(poly)
        winners = [c for c in range(len(net.labels)) if to_auto[c] == expected]
        if not winners:
            return "unknown", "the automaton's label is missing from the network"
        right = winners[0]
        for c in range(len(net.labels)):
            if c == right:
                continue
            # np.argmax picks the first maximum: a rival before `right` must lose strictly.
            if not xs:
                diff0 = sum(scores[right].values(), Fraction(0)) - sum(scores[c].values(),
                                                                       Fraction(0))
                if not (diff0 > 0 if c < right else diff0 >= 0):
                    return "unknown", f"counts {counts}: the readout picks another label"
                continue
            solver = z3.SolverFor("QF_NRA")
            solver.set("timeout", timeout_ms)
            for x in xs.values():
                solver.add(x > 0, x <= 1)
            diff = _z3_poly(z3, xs, scores[right]) - _z3_poly(z3, xs, scores[c])
            solver.add(diff <= 0 if c < right else diff < 0)
            queries += 1
            if solver.check() != z3.unsat:
                return "unknown", f"count type {choice}: Z3 could not exclude label {c}"
    return "proved", (f"count abstraction: {int(np.prod([len(o) for o in options]))} count "
                      f"types, {queries} Z3 UNSAT queries over (0, 1]")


def _z3_poly(z3: Any, xs: dict[int, Any], poly: dict[tuple[int, ...], Fraction]) -> Any:
    """A polynomial {exponents: exact coefficient} as a Z3 real term."""
    total = z3.RealVal(0)
    for mono, coeff in poly.items():
        term = z3.RealVal(f"{coeff.numerator}/{coeff.denominator}")
        for a, e in enumerate(mono):
            if e:
                term = term * xs[a] ** e
        total = total + term
    return total
