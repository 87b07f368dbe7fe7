"""Count abstraction with a certificate: diagonal and R2 networks, checked without Z3.

A diagonal network (real, positive, or 2×2 rotation-scaling blocks) is a set
of independent *channels*: channel c holds one number v_c (complex for R2,
v_c = h[2c] + i·h[2c+1]) and letter a multiplies it by λ_{a,c}.  The score of
label l after a word with letter counts n_a is

    s_l(n) = Re Σ_c w_{l,c} · h0_c · Π_a λ_{a,c}^{n_a},

with w_{l,c} = R[l, 2c] − i·R[l, 2c+1] for R2 (R the readout) and
w_{l,c} = R[l, c] otherwise.  Every number lies in one cyclotomic field
Q(ζ_M) (M = 1 for rational weights, 4 | M for R2), so rotations by 2π/p are
exact (:mod:`fsmnet.nets.cyclotomic`).

For each letter a we pick a start N_a and a period P_a with f_a^N_a =
f_a^(N_a+P_a) (the automaton's letter map), and for every channel either
λ_{a,c} = 0 (then N_a ≥ 1) or λ_{a,c}^P_a = β_a^e_{a,c} for one rational
β_a ∈ (0, 1] and an integer e ≥ 0.  A count is then exact (n < N_a) or a tail
n = N_a + r + P_a·m, and on a tail λ^n = λ^(N_a+r) · x_a^e with
x_a = β_a^m ∈ (0, 1].  Each *count type* fixes the automaton's output (its
letter maps commute) and makes every score a polynomial in x ∈ (0, 1]^tails
with real cyclotomic coefficients.  The right label wins for all counts of the
type if, for every rival c, the difference p = s_right − s_c has all Bernstein
coefficients ≥ 0 at some multi-degree d (p ≥ 0 on [0, 1]^tails) and, when the
rival comes first in argmax order, p(1, ..., 1) > 0 too (the top Bernstein
basis polynomial Π x_i^d_i is positive on (0, 1]^tails, so p > 0 there).

The certificate (method ``count-abstraction``) carries the channels, the
letters' (N, P, β, e) and the degree of every Bernstein argument; the checker
(:mod:`fsmnet.proofs.checker.counts`) recomputes every polynomial and every
Bernstein coefficient itself, in Fractions and its own cyclotomic arithmetic.
When no Bernstein degree up to a bound works, Z3 (QF_NRA, rational
coefficients only) may still prove the claim; the result then names that
claim in ``rests_on_z3`` and no certificate is written (docs/verification.md).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

from fsmnet.automata import Automaton
from fsmnet.nets import Network
from fsmnet.nets.alignment import label_map
from fsmnet.nets.cyclotomic import Cyclotomic, cyclotomic_field

# Bernstein degree elevation stops when a difference needs more coefficients.
MAX_BERNSTEIN_COEFFS = 4096
# The most count types the abstraction enumerates, Π_a (N_a + P_a): each builds a score
# polynomial per label, so a group language of many letters (modular addition m = 10:
# 12,500,000 types) would run for hours; past the limit the method says "unknown".
MAX_COUNT_TYPES = 1 << 16


@dataclass
class CountProof:
    """Outcome of :func:`prove_counts`; ``certificate`` is the JSON payload when every
    claim has a Bernstein argument."""

    status: str  # "proved" | "unknown"
    explanation: str
    payload: dict[str, Any] | None = None
    rests_on_z3: list[str] = field(default_factory=list)


def index_period(f: tuple[int, ...]) -> tuple[int, int]:
    """(index, period) of a transformation: least i ≥ 1, p with f^i = f^(i+p)."""
    seen: dict[tuple[int, ...], int] = {}
    cur, i = f, 1
    while cur not in seen:
        seen[cur] = i
        cur = tuple(f[c] for c in cur)
        i += 1
    return seen[cur], i - seen[cur]


def common_base(values: list[Fraction]) -> tuple[Fraction, list[int]] | None:
    """β ∈ (0, 1] and integers k_i ≥ 0 with values[i] = β^k_i exactly, or None."""
    others = [v for v in values if v != 1]
    if not others:
        return Fraction(1), [0] * len(values)
    for b in sorted(set(others), key=lambda v: -v):  # the weakest contraction first
        if not 0 < b < 1:
            return None
        exps = []
        for v in values:
            k = exact_exponent(v, b)
            if k is None:
                break
            exps.append(k)
        else:
            return b, exps
    return None


def exact_exponent(v: Fraction, b: Fraction) -> int | None:
    """The integer k ≥ 0 with b^k = v exactly (0 < b < 1), or None.

    In lowest terms b = p/q and b^k = p^k/q^k (coprime powers stay coprime), so
    k is fixed by the denominators.  It is estimated from logarithms of the
    integers, which Python takes for integers of any size; a float logarithm of
    the Fractions themselves would leave float range (a multiplier of 1e-200
    squared) and could also ask for a power too large to compute.
    """
    if v == 1:
        return 0
    if not 0 < v < 1:
        return None
    q = b.denominator  # ≥ 2, as 0 < b < 1
    guess = round(math.log(v.denominator) / math.log(q))
    for k in (guess, guess - 1, guess + 1):  # the estimate may round either way
        if k >= 1 and q**k == v.denominator and b.numerator**k == v.numerator:
            return k
    return None


# ------------------------------------------------------------------ channels
def _order(x: Any) -> int:
    return x.field.order if isinstance(x, Cyclotomic) else 1


def channels(net: Network) -> tuple[int, list[list[Cyclotomic]], list[Cyclotomic],
                                    list[list[Cyclotomic]]] | None:
    """(M, λ[a][c], h0[c], w[l][c]) in Q(ζ_M), or None when the net is not diagonal."""
    sem: Any = net.semantics
    block = getattr(sem, "block", None)
    if block not in (1, 2) or not hasattr(sem, "exact_factors"):
        return None
    factors = sem.exact_factors(net)
    h0 = list(sem.initial_state(net, True))
    readout = sem.readout_matrix(net, True)
    mats = sem.matrices(net, True)
    everything = [*np.ravel(factors), *h0, *np.ravel(readout)]
    m = math.lcm(4 if block == 2 else 1, *(_order(x) for x in everything))
    fld = cyclotomic_field(m)

    def lift(x: Any) -> Cyclotomic:
        if isinstance(x, Cyclotomic):
            step = m // x.field.order
            return fld.element({k * step: c for k, c in enumerate(x.coeffs) if c})
        return fld.element({0: Fraction(x)})

    i_unit = fld.element({m // 4: 1}) if block == 2 else None
    k_sym, n_ch = factors.shape[0], factors.shape[1]
    hidden = len(h0)
    # The channel form must *be* the exact matrices: A is block diagonal with
    # blocks [[re, −im], [im, re]] (or [re]).
    for a in range(k_sym):
        for i in range(hidden):
            for j in range(hidden):
                c_i, c_j = i // block, j // block
                if c_i != c_j:
                    want: Any = 0
                else:
                    re, im = factors[a, c_i]
                    want = re if i == j else (-im if i < j else im)
                if lift(mats[a][i, j]) != lift(want):
                    return None
    lam = [[lift(factors[a, c][0]) + (lift(factors[a, c][1]) * i_unit if block == 2 else 0)
            for c in range(n_ch)] for a in range(k_sym)]
    if block == 2:
        start = [lift(h0[2 * c]) + lift(h0[2 * c + 1]) * i_unit for c in range(n_ch)]
        weights = [[lift(row[2 * c]) - lift(row[2 * c + 1]) * i_unit for c in range(n_ch)]
                   for row in readout]
    else:
        start = [lift(x) for x in h0]
        weights = [[lift(x) for x in row] for row in readout]
    return m, lam, start, weights


# ---------------------------------------------------------------- Bernstein
def bernstein(poly: dict[tuple[int, ...], Any], degrees: tuple[int, ...]) -> list[Any]:
    """Bernstein coefficients of Σ c_α x^α on [0, 1]^T at multi-degree ``degrees``:
    b_β = Σ_{α ≤ β} Π_i C(β_i, α_i)/C(d_i, α_i) · c_α (β in lexicographic order)."""
    out = []
    for beta in itertools.product(*(range(d + 1) for d in degrees)):
        total: Any = 0
        for alpha, c in poly.items():
            if all(a <= b for a, b in zip(alpha, beta)):
                w = Fraction(1)
                for a, b, d in zip(alpha, beta, degrees):
                    w *= Fraction(math.comb(b, a), math.comb(d, a))
                total = total + c * w
        out.append(total)
    return out


def _sign(x: Any) -> int:
    if isinstance(x, Cyclotomic):
        return x.sign()
    return (x > 0) - (x < 0)


def bernstein_degrees(poly: dict[tuple[int, ...], Any], strict: bool,
                      n_vars: int) -> tuple[int, ...] | None:
    """The first multi-degree (elevating from the polynomial's own) whose Bernstein
    coefficients prove p ≥ 0 on [0, 1]^T (and p(1, ..., 1) > 0 when ``strict``)."""
    if strict and _sign(sum(poly.values(), Fraction(0))) <= 0:
        return None  # p(1, ..., 1) is the top coefficient at every degree
    degrees = tuple(max((alpha[i] for alpha in poly), default=0) for i in range(n_vars))
    while math.prod(d + 1 for d in degrees) <= MAX_BERNSTEIN_COEFFS:
        if all(_sign(b) >= 0 for b in bernstein(poly, degrees)):
            return degrees
        degrees = tuple(max(1, 2 * d) for d in degrees)
    return None


# ------------------------------------------------------------------- prover
def _letter(f: tuple[int, ...], lams: list[Cyclotomic], m: int) -> dict[str, Any] | None:
    """Start, period, base and exponents of one letter, or None (no common base)."""
    t, p = index_period(f)
    zero = any(x.is_zero() for x in lams)
    start = max(t, 1 if zero else 0)
    for mult in range(1, 2 * m + 1):
        period = p * mult
        values = []
        for x in lams:
            if x.is_zero():
                continue
            r = power(x, period).rational()
            if r is None or r <= 0:
                break
            values.append(r)
        else:
            base = common_base(values)
            if base is None:
                return None
            exps = iter(base[1])
            return {"start": start, "period": period, "base": base[0],
                    "exponents": [None if x.is_zero() else next(exps) for x in lams]}
    return None


def power(x: Cyclotomic, n: int) -> Cyclotomic:
    """x^n (n ≥ 0) by repeated squaring."""
    out: Any = x.field.element({0: 1})
    base = x
    while n:
        if n & 1:
            out = out * base
        base, n = base * base, n >> 1
    return out  # type: ignore[no-any-return]


def elem_json(x: Cyclotomic) -> dict[str, str]:
    """{power: "p/q"} of the nonzero coordinates (the checker reduces modulo Φ_M)."""
    return {str(k): str(c) for k, c in enumerate(x.coeffs) if c}


def channel_model(form: tuple[int, list[list[Cyclotomic]], list[Cyclotomic],
                              list[list[Cyclotomic]]]) -> dict[str, Any]:
    """The ``diagonal-channels`` model of a certificate, from :func:`channels`."""
    m, lam, h0, weights = form
    return {"type": "diagonal-channels", "field_order": m,
            "multipliers": [[elem_json(x) for x in row] for row in lam],
            "h0": [elem_json(x) for x in h0],
            "readout": [[elem_json(x) for x in row] for row in weights]}


def prove_counts(net: Network, automaton: Automaton, *, z3_timeout_ms: int = 10_000,
                 use_z3: bool = True) -> CountProof:
    """Count abstraction for a diagonal/R2 network and a minimal, aligned automaton."""
    from fsmnet.algebra.commutative import letters_commute

    if not letters_commute(automaton):
        return CountProof("unknown", "the automaton is not commutative")
    k = automaton.n_symbols
    maps = [tuple(int(x) for x in automaton.delta[a]) for a in range(k)]
    form = channels(net)
    if form is None:
        return CountProof("unknown", "the exact matrices are not block diagonal channels")
    m, lam, h0, weights = form
    n_ch = len(h0)
    letters = []
    for a in range(k):
        info = _letter(maps[a], lam[a], m)
        if info is None:
            return CountProof("unknown", f"letter {automaton.symbols[a]!r}: no period makes "
                              "every multiplier a power of one rational base in (0, 1]")
        letters.append(info)
    n_types = math.prod(L["start"] + L["period"] for L in letters)
    if n_types > MAX_COUNT_TYPES:
        return CountProof("unknown", f"{n_types} count types (the product of every letter's "
                          f"start + period) exceed the limit of {MAX_COUNT_TYPES}")
    to_auto = label_map(net, automaton)
    options = [[("exact", n) for n in range(L["start"])] + [("tail", r)
                                                          for r in range(L["period"])]
               for L in letters]
    types, rests = [], []
    n_bern = 0
    for choice in itertools.product(*options):
        counts = [n if kind == "exact" else letters[a]["start"] + n
                  for a, (kind, n) in enumerate(choice)]
        tails = [a for a, (kind, _) in enumerate(choice) if kind == "tail"]
        word = [a for a in range(k) for _ in range(counts[a])]
        expected = int(automaton.output_ids[automaton.run(word)])
        winners = [c for c in range(len(net.labels)) if to_auto[c] == expected]
        if not winners:
            return CountProof("unknown", "the automaton's label is missing from the network")
        right = winners[0]
        scores = []
        for row in weights:
            poly: dict[tuple[int, ...], Any] = {}
            for c in range(n_ch):
                if any(lam[a][c].is_zero() and counts[a] > 0 for a in range(k)):
                    continue
                value = row[c] * h0[c]
                for a in range(k):
                    value = value * power(lam[a][c], counts[a])
                coeff = value.real_part()
                if coeff.is_zero():
                    continue
                mono = tuple(letters[a]["exponents"][c] for a in tails)
                poly[mono] = poly.get(mono, 0) + coeff
            scores.append(poly)
        rivals = []
        for c in range(len(net.labels)):
            if c == right:
                continue
            diff = dict(scores[right])
            for mono, coeff in scores[c].items():
                diff[mono] = diff.get(mono, 0) - coeff
            diff = {mono: v for mono, v in diff.items() if not (v == 0)}
            strict = c < right  # argmax picks the first maximum
            degrees = bernstein_degrees(diff, strict, len(tails))
            if degrees is not None:
                n_bern += 1
                rivals.append({"label": c, "degrees": list(degrees)})
                continue
            claim = f"counts {choice}: label {right} beats label {c} on (0, 1]^{len(tails)}"
            if use_z3 and _z3_positive(diff, strict, len(tails), z3_timeout_ms):
                rests.append(claim)
                rivals.append({"label": c, "degrees": None})
                continue
            return CountProof("unknown", f"{claim}: no Bernstein certificate"
                              + (" and Z3 could not prove it" if use_z3 else ""))
        types.append({"choice": [list(x) for x in choice], "label": right, "rivals": rivals})
    payload = {
        "model": channel_model(form),
        "letters": [{"start": L["start"], "period": L["period"], "base": str(L["base"]),
                     "exponents": L["exponents"]} for L in letters],
        "types": types,
    }
    why = (f"count abstraction: {len(types)} count types, {n_bern} Bernstein certificates"
           + (f", {len(rests)} claims proved by Z3 only" if rests else ""))
    return CountProof("proved", why, None if rests else payload, rests)


def _z3_positive(poly: dict[tuple[int, ...], Any], strict: bool, n_vars: int,
                 timeout_ms: int) -> bool:
    """Z3 QF_NRA: p > 0 (or ≥ 0) on (0, 1]^T; rational coefficients only."""
    coeffs = {}
    for mono, c in poly.items():
        r = c.rational() if isinstance(c, Cyclotomic) else Fraction(c)
        if r is None:
            return False  # irrational coefficients: not encoded for Z3
        coeffs[mono] = r
    import z3

    xs = [z3.Real(f"x{i}") for i in range(n_vars)]
    solver = z3.SolverFor("QF_NRA")
    solver.set("timeout", timeout_ms)
    for x in xs:
        solver.add(x > 0, x <= 1)
    total = z3.RealVal(0)
    for mono, r in coeffs.items():
        term = z3.RealVal(f"{r.numerator}/{r.denominator}")
        for x, e in zip(xs, mono):
            if e:
                term = term * x**e
        total = total + term
    solver.add(total <= 0 if strict else total < 0)
    return bool(solver.check() == z3.unsat)


def prove_and_certify(net: Network, automaton: Automaton, details: dict[str, Any], *,
                      certificate: str | None = None,
                      network_path: str | None = None) -> bool:
    """Run :func:`prove_counts`, record the outcome in ``details`` (the verifier's), and
    write the certificate when asked; True when proved.

    ``details["rests_on_z3"]`` lists the claims only Z3 proved (then no
    certificate is written and ``details["certificate_error"]`` says why).
    """
    from fsmnet.proofs.certificate import count_certificate, write_certificate

    proof = prove_counts(net, automaton)
    details["count_abstraction"] = proof.explanation
    if proof.rests_on_z3:
        details["rests_on_z3"] = proof.rests_on_z3
    if proof.status != "proved":
        return False
    if certificate is not None:
        if proof.payload is None:
            details["certificate_error"] = (
                f"no certificate for {net.arch}: {len(proof.rests_on_z3)} claim(s) rest on "
                "Z3 (no Bernstein certificate found; see docs/verification.md)")
        else:
            write_certificate(count_certificate(net, automaton, proof.payload,
                                                network_path=network_path), certificate)
            details.pop("certificate_error", None)
            details["certificate"] = certificate
    return True
