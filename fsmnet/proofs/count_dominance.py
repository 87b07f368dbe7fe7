"""Count dominance: diagonal networks with arbitrary real multipliers, by letter counts.

A diagonal network with real multipliers (``bilinear-real-diag``,
``bilinear-positive-diag``, or ``bilinear-r2`` whose rotations are all by 0 or π)
sees only the letter counts n_a: the score of label l is

    s_l(n) = Σ_c a_{l,c} Π_a λ_{a,c}^{n_a},   a_{l,c} = Re(w_{l,c} h0_c)

(the channel model of :func:`fsmnet.proofs.count_certificate.channels`; every
float is a dyadic rational, so all of it is exact), and the label is the first
argmax.  The count abstraction (``count-abstraction``) needs λ^P = β^e for one
rational β per letter, which trained weights never satisfy; this method works
with any rational multipliers.

Per letter a we take a start S_a and a period P_a with f_a^S = f_a^(S+P) (the
automaton's letter map), S_a ≥ 1 when some λ_{a,c} = 0 and P_a even when some
λ_{a,c} < 0.  A count is exact (n < S_a) or a tail n = S_a + r + P_a·m (m ≥ 0).
A *count type* (a choice per letter) fixes the automaton's output (its letter
maps commute) and, with b_a the exact count or S_a + r, writes every score
difference against a rival l as

    d(m) = s_R − s_l = Σ_c κ_c Π_{a tail} ρ_{a,c}^{m_a},
    κ_c = (a_{R,c} − a_{l,c}) Π_a λ_{a,c}^{b_a},   ρ_{a,c} = λ_{a,c}^{P_a} > 0

(a channel with a zero multiplier on a tail letter has κ_c = 0, as b_a ≥ 1).
Channels with the same ρ-vector are merged (their κ summed; the group is named
by its least channel).  The certificate assigns each negative group c to a
positive group p that dominates it, ρ_{a,p} ≥ ρ_{a,c} on every tail letter, so

    d(m) = Σ_p ρ_p^m · g_p(m),   g_p(m) = κ_p − Σ_{c→p} |κ_c| Π_a (ρ_{a,c}/ρ_{a,p})^{m_a},

and g_p is non-decreasing in every m_a.  Where every g_p > 0, d > 0: the right
label beats l strictly.  The bad set B_p = {g_p ≤ 0} is a down-set of N^T; a
bound N_{p,a} with g_p(N·e_a) > 0 confines it to m_a < N_{p,a}, so the union D
of all bad sets (over rivals and p) is finite, a down-set, and every count
vector in it is evaluated exactly (the scores from λ^n, the first argmax against
the automaton's output).  D is walked from the origin upward, so only the
staircase is evaluated, never the whole box.

The certificate (method ``count-dominance``) carries the channel model, the
letters' (S, P), and per (count type, rival) the assignment and the bounds;
:mod:`fsmnet.proofs.checker.count_dominance` re-derives everything else.  The
search here is heuristic (floats pick the assignment); only exact arithmetic
decides, and only the checker's verdict is a proof.
"""

from __future__ import annotations

import itertools
import math
from collections import deque
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from fsmnet.automata import Automaton
from fsmnet.nets import Network
from fsmnet.nets.alignment import label_map
from fsmnet.types import Verdict

METHOD = "count-dominance"
# Work bounds of the search (the checker has its own, larger, caps).
MAX_BOUND = 20_000  # per axis
MAX_POINTS = 200_000  # count vectors evaluated exactly per proof
MAX_TYPES = 4096


@dataclass(frozen=True)
class RealChannels:
    """λ[a][c], a[l][c] = Re(w_{l,c} h0_c) as Fractions, and the JSON model."""

    lam: list[list[Fraction]]
    coeff: list[list[Fraction]]
    model: dict[str, Any]


@dataclass
class DominanceProof:
    """Outcome of :func:`prove_dominance`.  ``word`` (status "refuted"): a word whose
    counts the exact scores label wrongly (confirm it with the reference evaluator)."""

    status: str  # "proved" | "refuted" | "unknown"
    explanation: str
    payload: dict[str, Any] | None = None
    word: list[int] | None = None
    points: int = 0
    stats: dict[str, Any] = field(default_factory=dict)


# ------------------------------------------------------------------ the model
def real_channels(net: Network) -> RealChannels | str:
    """The real channel form of a diagonal network, or why there is none."""
    from fsmnet.proofs.count_certificate import channels, elem_json

    form = channels(net)
    if form is None:
        return "the exact matrices are not block diagonal channels"
    m, lam, h0, weights = form
    lam_q = [[x.rational() for x in row] for row in lam]
    bad = next(((a, c) for a, row in enumerate(lam_q) for c, x in enumerate(row)
                if x is None), None)
    if bad is not None:
        return f"letter {bad[0]}, channel {bad[1]}: the multiplier is not real"
    coeff = [[(w * h).real_part().rational() for w, h in zip(row, h0)] for row in weights]
    if any(x is None for row in coeff for x in row):
        return "a readout coefficient Re(w·h0) is irrational"
    model = {"type": "diagonal-channels", "field_order": m,
             "multipliers": [[elem_json(x) for x in row] for row in lam],
             "h0": [elem_json(x) for x in h0],
             "readout": [[elem_json(x) for x in row] for row in weights]}
    return RealChannels(lam_q, coeff, model)  # type: ignore[arg-type]


def orbit(f: tuple[int, ...]) -> tuple[int, int]:
    """(t, p): the least t ≥ 0 and p ≥ 1 with f^t = f^(t+p) (f^0 the identity)."""
    seen: dict[tuple[int, ...], int] = {}
    cur, i = tuple(range(len(f))), 0
    while cur not in seen:
        seen[cur] = i
        cur = tuple(f[q] for q in cur)
        i += 1
    return seen[cur], i - seen[cur]


def letter_plan(f: tuple[int, ...], lams: list[Fraction]) -> tuple[int, int]:
    """(S, P) for one letter: f^S = f^(S+P), S ≥ 1 with a zero multiplier, P even with
    a negative one."""
    t, p = orbit(f)
    start = max(t, 1) if any(x == 0 for x in lams) else t
    period = p if all(x >= 0 for x in lams) else math.lcm(p, 2)
    return start, period


# ---------------------------------------------------------------- one rival
Group = tuple[Fraction, tuple[Fraction, ...]]  # (κ, ρ-vector)


def groups(kappa: list[Fraction], rho: list[tuple[Fraction, ...]]) -> dict[int, Group]:
    """Channels merged by equal ρ-vectors: least channel -> (Σ κ, ρ); zero sums dropped."""
    by_rho: dict[tuple[Fraction, ...], list[Any]] = {}
    for c, (k, r) in enumerate(zip(kappa, rho)):
        if k:
            entry = by_rho.setdefault(r, [c, Fraction(0)])
            entry[1] += k
    return {rep: (k, r) for r, (rep, k) in by_rho.items() if k}


def _log(x: Fraction) -> float:
    return math.log(x.numerator) - math.log(x.denominator)


def _estimate(kp: Fraction, rp: tuple[Fraction, ...], terms: list[Group]) -> float | None:
    """A float estimate of the box volume of p with these negative terms; None if some
    axis keeps ties worth κ_p or more (the bad set would be infinite)."""
    volume = 1.0
    for a in range(len(rp)):
        tied = sum((abs(k) for k, r in terms if r[a] == rp[a]), Fraction(0))
        if tied >= kp:
            return None
        room = _log(kp - tied)
        worst = 0.0
        for k, r in terms:
            if r[a] != rp[a]:
                gap = _log(rp[a]) - _log(r[a])
                worst = max(worst, (_log(abs(k)) + math.log(len(terms)) - room) / gap)
        volume *= 1.0 + max(0.0, worst)
    return volume


def assign(pos: dict[int, Group], neg: dict[int, Group]) -> dict[int, int] | None:
    """Each negative group to a dominating positive one (greedy, largest |κ| first, the
    smallest estimated box); None when some negative group has no feasible host."""
    hosts: dict[int, list[Group]] = {p: [] for p in pos}
    out: dict[int, int] = {}
    for c in sorted(neg, key=lambda c: -abs(neg[c][0])):
        kc, rc = neg[c]
        best: tuple[float, Any, int] | None = None
        for p, (kp, rp) in pos.items():
            if not all(x >= y for x, y in zip(rp, rc)):
                continue
            est = _estimate(kp, rp, [*hosts[p], neg[c]])
            if est is not None and (best is None or (est, -kp) < best[:2]):
                best = (est, -kp, p)
        if best is None:
            return None
        out[c] = best[2]
        hosts[best[2]].append(neg[c])
    return out


def exact_bound(kp: Fraction, ratios: list[tuple[Fraction, Fraction]]) -> int | None:
    """The least N ≥ 0 with κ_p > Σ |κ_c|·x_c^N (x_c = ρ_c/ρ_p ≤ 1), or None beyond
    MAX_BOUND: by doubling and bisection (the left side minus the right is monotone)."""

    def ok(n: int) -> bool:
        return kp > sum((k * x**n for k, x in ratios), Fraction(0))

    if ok(0):
        return 0
    hi = 1
    while not ok(hi):
        hi *= 2
        if hi > 2 * MAX_BOUND:
            return None
    lo = hi // 2  # not ok(lo), ok(hi)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if ok(mid) else (mid, hi)
    return hi if hi <= MAX_BOUND else None


def bounds(pos: dict[int, Group], neg: dict[int, Group],
           assignment: dict[int, int]) -> dict[int, list[int]] | None:
    """Per host p, per tail axis, the exact least N with g_p(N·e_a) > 0."""
    out: dict[int, list[int]] = {}
    for p in sorted(set(assignment.values())):
        kp, rp = pos[p]
        mine = [neg[c] for c, q in assignment.items() if q == p]
        row = []
        for a in range(len(rp)):
            n = exact_bound(kp, [(abs(k), r[a] / rp[a]) for k, r in mine])
            if n is None:
                return None
            row.append(n)
        out[p] = row
    return out


# ---------------------------------------------------------------- the prover
@dataclass
class _Type:
    """One count type: the base exponents b_a, the tail letters, the right label."""

    choice: tuple[tuple[str, int], ...]
    base: list[int]
    tails: list[int]
    right: int


def _types(automaton: Automaton, plans: list[tuple[int, int]],
           to_auto: list[int]) -> list[_Type] | str:
    options = [[("exact", n) for n in range(s)] + [("tail", r) for r in range(p)]
               for s, p in plans]
    out = []
    for choice in itertools.product(*options):
        base = [n if kind == "exact" else plans[a][0] + n for a, (kind, n) in enumerate(choice)]
        word = [a for a in range(len(base)) for _ in range(base[a])]
        expected = int(automaton.output_ids[automaton.run(word)])
        right = next((c for c, x in enumerate(to_auto) if x == expected), None)
        if right is None:
            return "the automaton's label is missing from the network"
        tails = [a for a, (kind, _) in enumerate(choice) if kind == "tail"]
        out.append(_Type(tuple(choice), base, tails, right))
    return out


class _Evaluator:
    """Exact scores of one count type at tail offsets m (powers cached)."""

    def __init__(self, ch: RealChannels, plans: list[tuple[int, int]], t: _Type) -> None:
        self.t, self.ch = t, ch
        n_ch = len(ch.lam[0]) if ch.lam else 0
        self.terms = [[row[c] * math.prod((ch.lam[a][c] ** t.base[a]
                                           for a in range(len(plans))), start=Fraction(1))
                       for c in range(n_ch)] for row in ch.coeff]
        self.rho = [tuple(ch.lam[a][c] ** plans[a][1] for a in t.tails) for c in range(n_ch)]
        self._pow: dict[tuple[Fraction, int], Fraction] = {}

    def power(self, x: Fraction, n: int) -> Fraction:
        key = (x, n)
        if key not in self._pow:
            self._pow[key] = x**n
        return self._pow[key]

    def u(self, r: tuple[Fraction, ...], m: tuple[int, ...]) -> Fraction:
        return math.prod((self.power(x, k) for x, k in zip(r, m)), start=Fraction(1))

    def label(self, m: tuple[int, ...]) -> int:
        scores = [sum((t * self.u(r, m) for t, r in zip(row, self.rho) if t), Fraction(0))
                  for row in self.terms]
        return max(range(len(scores)), key=lambda i: (scores[i], -i))


def _rival(ev: _Evaluator, rival: int) -> tuple[dict[str, Any] | None, list[Any], str]:
    """(certificate entry, the host tests, why not) for one rival of a count type."""
    right = ev.t.right
    kappa = [x - y for x, y in zip(ev.terms[right], ev.terms[rival])]
    grouped = groups(kappa, ev.rho)
    pos = {c: g for c, g in grouped.items() if g[0] > 0}
    neg = {c: g for c, g in grouped.items() if g[0] < 0}
    if not grouped:
        if rival < right:  # d ≡ 0: the rival, first in argmax order, wins the tie
            return None, [], f"label {rival} ties the right label {right} everywhere"
        return {"label": rival, "assignment": {}, "bounds": {}}, [], ""
    chosen = assign(pos, neg) if pos else None
    if chosen is None:
        return None, [], f"a negative channel against label {rival} has no dominating host"
    box = bounds(pos, neg, chosen)
    if box is None:
        return None, [], f"a bad set against label {rival} is infinite or too large"
    tests = [(pos[p], [neg[c] for c, q in chosen.items() if q == p]) for p in box]
    entry = {"label": rival, "assignment": {str(c): p for c, p in sorted(chosen.items())},
             "bounds": {str(p): row for p, row in sorted(box.items())}}
    return entry, tests, ""


def _bad(ev: _Evaluator, tests: list[Any], m: tuple[int, ...]) -> bool:
    """m lies in some bad set: κ_p ρ_p^m ≤ Σ_{c→p} |κ_c| ρ_c^m."""
    for (kp, rp), mine in tests:
        if kp * ev.u(rp, m) <= sum((-k * ev.u(r, m) for k, r in mine), Fraction(0)):
            return True
    return False


def _staircase(ev: _Evaluator, tests: list[Any], budget: int) -> tuple[int, Any]:
    """(points evaluated, the first wrong m or None); walks the bad down-set upward
    from the origin.  Raises OverflowError past ``budget`` points."""
    t = len(ev.t.tails)
    origin = (0,) * t
    if not _bad(ev, tests, origin):
        return 0, None
    seen, todo, count = {origin}, deque([origin]), 0
    while todo:
        m = todo.popleft()
        count += 1
        if count > budget:
            raise OverflowError
        if ev.label(m) != ev.t.right:
            return count, m
        for a in range(t):
            nxt = m[:a] + (m[a] + 1,) + m[a + 1:]
            if nxt not in seen:
                seen.add(nxt)
                if _bad(ev, tests, nxt):
                    todo.append(nxt)
    return count, None


def prove_dominance(net: Network, automaton: Automaton) -> DominanceProof:
    """Count dominance for a diagonal network and a minimal automaton aligned with it."""
    from fsmnet.algebra.commutative import letters_commute

    if not letters_commute(automaton):
        return DominanceProof("unknown", "the automaton is not commutative")
    k = automaton.n_symbols
    maps = [tuple(int(x) for x in automaton.delta[a]) for a in range(k)]
    ch = real_channels(net)
    if isinstance(ch, str):
        return DominanceProof("unknown", ch)
    plans = [letter_plan(maps[a], ch.lam[a]) for a in range(k)]
    if math.prod(s + p for s, p in plans) > MAX_TYPES:
        return DominanceProof("unknown", f"more than {MAX_TYPES} count types")
    types = _types(automaton, plans, label_map(net, automaton))
    if isinstance(types, str):
        return DominanceProof("unknown", types)
    entries, points, largest = [], 0, 0
    for t in types:
        ev = _Evaluator(ch, plans, t)
        rivals, tests = [], []
        for rival in range(len(net.labels)):
            if rival == t.right:
                continue
            entry, mine, why = _rival(ev, rival)
            if entry is None:
                return DominanceProof("unknown", f"count type {list(t.choice)}: {why}")
            rivals.append(entry)
            tests.extend(mine)
            largest = max([largest, *(max(row, default=0) for row in entry["bounds"].values())])
        try:
            n, wrong = _staircase(ev, tests, MAX_POINTS - points)
        except OverflowError:
            return DominanceProof("unknown", f"more than {MAX_POINTS} count vectors to check")
        points += n
        if wrong is not None:
            counts = [t.base[a] for a in range(k)]
            for i, a in enumerate(t.tails):
                counts[a] += plans[a][1] * wrong[i]
            return DominanceProof("refuted", f"counts {counts}: the exact scores pick the "
                                  "wrong label", word=[a for a in range(k)
                                                       for _ in range(counts[a])])
        entries.append({"choice": [list(x) for x in t.choice], "label": t.right,
                        "rivals": rivals})
    payload = {"model": ch.model,
               "letters": [{"start": s, "period": p} for s, p in plans], "types": entries}
    why = (f"count dominance: {len(types)} count types, {points} count vectors checked "
           f"exactly, largest bound {largest}")
    return DominanceProof("proved", why, payload, points=points)


def dominance_certificate(net: Network, automaton: Automaton, payload: dict[str, Any], *,
                          network_path: str | None = None) -> dict[str, Any]:
    """The certificate of a count-dominance proof (checked by
    :mod:`fsmnet.proofs.checker.count_dominance`)."""
    from fsmnet.proofs.certificate import _common

    cert = _common(net, automaton, METHOD, payload["model"], network_path)
    return {**cert, "letters": payload["letters"], "types": payload["types"]}


def certify_dominance(net: Network, automaton: Automaton, details: dict[str, Any], *,
                      certificate: str | None = None, network_path: str | None = None
                      ) -> tuple[Verdict, dict[str, Any]] | None:
    """For ``fsmnet certify``: ("proved", extras) once the checker accepts the
    certificate, ("refuted", extras) for a count vector the reference evaluator
    confirms wrong, None otherwise (``details["count_dominance"]`` says why)."""
    from fsmnet.proofs.certificate import write_certificate
    from fsmnet.proofs.checker import CertificateError, check_certificate
    from fsmnet.proofs.verifier import confirm

    proof = prove_dominance(net, automaton)
    details["count_dominance"] = proof.explanation
    if proof.status == "refuted" and proof.word is not None:
        cex = confirm(net, automaton, proof.word)
        if cex is None:  # never reported unless the reference evaluator agrees
            details["count_dominance"] += " (not confirmed by the reference evaluator)"
            return None
        return "refuted", {"counterexample": cex, "proved_length": len(proof.word) - 1}
    if proof.status != "proved" or proof.payload is None:
        return None
    cert = dominance_certificate(net, automaton, proof.payload, network_path=network_path)
    try:
        details["count_dominance"] = check_certificate(cert)
    except CertificateError as exc:  # never a proof unless the checker agrees
        details["count_dominance"] = f"{proof.explanation}; the check failed: {exc}"
        return None
    if certificate is not None:
        write_certificate(cert, certificate)
        details["certificate"] = certificate
    return "proved", {"domain": "count-dominance"}
