"""Method ``count-dominance``: diagonal networks with real multipliers, by letter counts.

The model (``network.model``, type ``diagonal-channels``, as for
``count-abstraction``) must have rational multipliers λ_{a,c} and rational
a_{l,c} = Re(w_{l,c} h0_c); the score of label l after a word with letter
counts n is s_l(n) = Σ_c a_{l,c} Π_a λ_{a,c}^{n_a}, the label the first argmax.

The claim is re-derived from scratch:

1. the automaton's letter maps commute, so its output depends only on counts;
2. per letter a, ``letters[a]`` = (S, P): f_a^S = f_a^(S+P); S ≥ 1 if some
   λ_{a,c} = 0; P even if some λ_{a,c} < 0;
3. ``types`` lists every count type (per letter an exact count n < S, or a
   tail residue r < P: counts S + r + P·m, m ≥ 0) in itertools.product order,
   each with its right label (the first network label equal to the automaton's
   output at the type's base counts b, which is its output on the whole type);
4. per rival l: κ_c = (a_{R,c} − a_{l,c}) Π_a λ_{a,c}^{b_a} and, on the tail
   letters, ρ_{a,c} = λ_{a,c}^P > 0; channels with equal ρ-vectors are merged
   (named by their least channel; zero sums dropped), so
   s_R − s_l = Σ_g κ_g ρ_g^m.  Every negative group is assigned to a positive
   group that dominates it (ρ_{a,p} ≥ ρ_{a,c} for every tail a), so
   s_R − s_l = Σ_p ρ_p^m g_p(m) (plus positive unassigned groups) with
   g_p(m) = κ_p − Σ_{c→p} |κ_c| Π_a (ρ_{a,c}/ρ_{a,p})^{m_a} non-decreasing in
   every m_a.  Where every g_p > 0 the right label wins strictly.  With no
   groups at all s_R = s_l, which is allowed only for a rival after R;
5. ``bounds[p][i]`` = N with g_p(N·e_a) > 0 (a = the i-th tail letter): by
   monotonicity the bad set {g_p ≤ 0}, a down-set, has m_a < N, so the union D
   of the bad sets of a type is a finite down-set.  It is walked from the
   origin (every point of a down-set is reached through points of it) and at
   every point the scores are computed from λ^n and the first argmax must be R.
"""

from __future__ import annotations

import itertools
from collections import deque
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from .core import CertificateError, _automaton_table, _frac, _same_label
from .cyclotomic import Element, Field

MAX_PERIOD = 4096  # S + P per letter
MAX_TYPES = 100_000
MAX_BOUND = 50_000  # per host and axis (x^N is computed exactly)
MAX_POINTS = 1_000_000  # count vectors evaluated per certificate
MAX_BITS = 1 << 24  # of one exact power (a 4300-digit multiplier to a huge bound)


@dataclass(frozen=True)
class Rival:
    label: int
    assignment: tuple[tuple[int, int], ...]  # (negative group, positive host)
    bounds: tuple[tuple[int, tuple[int, ...]], ...]  # (host, N per tail letter)


@dataclass(frozen=True)
class CountType:
    choice: tuple[tuple[str, int], ...]
    label: int
    rivals: tuple[Rival, ...]


@dataclass(frozen=True)
class Dominance:
    delta: tuple[tuple[int, ...], ...]  # delta[a][q]
    outputs: tuple[Any, ...]
    q0: int
    labels: tuple[Any, ...]
    lam: tuple[tuple[Fraction, ...], ...]  # lam[a][c]
    coeff: tuple[tuple[Fraction, ...], ...]  # coeff[l][c] = Re(w h0)
    letters: tuple[tuple[int, int], ...]  # (S, P)
    types: tuple[CountType, ...]


Group = tuple[Fraction, tuple[Fraction, ...]]  # (κ, ρ on the tail letters)


# ------------------------------------------------------------------- parsing
def _nat(x: Any, what: str) -> int:
    if not (isinstance(x, int) and not isinstance(x, bool) and x >= 0):
        raise CertificateError(f"{what} must be a non-negative integer, got {x!r}")
    return x


def _elem(fld: Field, x: Any, what: str) -> Element:
    """A model number {power k: "p/q"}, meaning Σ q_k ζ^k."""
    if not isinstance(x, dict):
        raise CertificateError(f"{what}: a number must be {{power: rational}}, got {x!r}")
    try:
        return fld.element({int(k): _frac(q) for k, q in x.items()})
    except ValueError:
        raise CertificateError(f"{what}: bad power in {x!r}") from None


def _rational(fld: Field, x: Any, what: str) -> Fraction:
    """A model number that must be rational."""
    return _real_rational(fld, _elem(fld, x, what), what)


def _real_rational(fld: Field, value: Element, what: str) -> Fraction:
    q = fld.as_rational(value)
    if q is None:
        raise CertificateError(f"{what} is not rational (count-dominance needs real "
                               "rational multipliers and coefficients)")
    return q


def _parse_model(model: Any, n_labels: int, k: int) -> tuple[Any, Any]:
    """(λ[a][c], a[l][c] = Re(w_{l,c} h0_c)) of a diagonal-channels model."""
    if model.get("type") != "diagonal-channels":
        raise CertificateError("count-dominance needs a diagonal-channels model")
    fld = Field(model["field_order"])
    h0 = [_elem(fld, x, f"h0[{c}]") for c, x in enumerate(model["h0"])]
    lam = tuple(tuple(_rational(fld, x, f"multiplier [{a}][{c}]") for c, x in enumerate(row))
                for a, row in enumerate(model["multipliers"]))
    coeff = []
    for row in model["readout"]:
        if len(row) != len(h0):
            raise CertificateError("channel model sizes do not match")
        w = [_elem(fld, x, "a readout entry") for x in row]
        coeff.append(tuple(_real_rational(fld, fld.real_part(fld.mul(x, h)), "Re(w·h0)")
                           for x, h in zip(w, h0)))
    if len(lam) != k or len(coeff) != n_labels or any(len(row) != len(h0) for row in lam):
        raise CertificateError("channel model sizes do not match")
    return lam, tuple(coeff)


def _key(x: Any) -> int:
    """A channel named by a JSON key: a canonical non-negative decimal."""
    if not (isinstance(x, str) and x.isdigit() and x.isascii() and str(int(x)) == x):
        raise CertificateError(f"a channel key must be a decimal integer, got {x!r}")
    return int(x)


def _parse_rival(x: Any) -> Rival:
    assignment = tuple(sorted((_key(c), _nat(p, "a host"))
                              for c, p in x["assignment"].items()))
    bounds = tuple(sorted((_key(p), tuple(_nat(n, "a bound") for n in row))
                          for p, row in x["bounds"].items()))
    return Rival(_nat(x["label"], "a rival label"), assignment, bounds)


def _parse_type(x: Any) -> CountType:
    choice = []
    for item in x["choice"]:
        if not (isinstance(item, list) and len(item) == 2 and item[0] in ("exact", "tail")):
            raise CertificateError(f"bad count type entry {item!r}")
        choice.append((item[0], _nat(item[1], "a count")))
    return CountType(tuple(choice), _nat(x["label"], "a type's label"),
                     tuple(_parse_rival(r) for r in x["rivals"]))


def parse(cert: dict[str, Any]) -> Dominance:
    """The certificate as a typed value (sizes and kinds checked; no claim yet)."""
    delta, outputs, q0, _ = _automaton_table(cert["automaton"])
    labels = tuple(cert["network"]["labels"])
    lam, coeff = _parse_model(cert["network"]["model"], len(labels), len(delta))
    letters = tuple((_nat(x["start"], "start"), _nat(x["period"], "period"))
                    for x in cert["letters"])
    if len(letters) != len(delta):
        raise CertificateError("one letter entry per symbol is required")
    if len(cert["types"]) > MAX_TYPES:
        raise CertificateError(f"more than {MAX_TYPES} count types")
    return Dominance(tuple(map(tuple, delta)), tuple(outputs), q0, labels, lam, coeff,
                     letters, tuple(_parse_type(t) for t in cert["types"]))


# ------------------------------------------------------------------ checking
def _power_map(f: tuple[int, ...], n: int) -> tuple[int, ...]:
    out = tuple(range(len(f)))
    for _ in range(n):
        out = tuple(f[q] for q in out)
    return out


def _check_letters(d: Dominance) -> None:
    """1. commuting letters; 2. each letter's (S, P)."""
    n = len(d.outputs)
    for a, b in itertools.combinations(range(len(d.delta)), 2):
        if any(d.delta[a][d.delta[b][q]] != d.delta[b][d.delta[a][q]] for q in range(n)):
            raise CertificateError("the automaton's letters do not commute")
    for a, (start, period) in enumerate(d.letters):
        if period < 1 or start + period > MAX_PERIOD:
            raise CertificateError(f"letter {a}: period must be ≥ 1 and S + P ≤ {MAX_PERIOD}")
        if _power_map(d.delta[a], start) != _power_map(d.delta[a], start + period):
            raise CertificateError(f"letter {a}: f^S != f^(S+P) in the automaton")
        if any(x == 0 for x in d.lam[a]) and start < 1:
            raise CertificateError(f"letter {a}: a zero multiplier needs S ≥ 1")
        if any(x < 0 for x in d.lam[a]) and period % 2:
            raise CertificateError(f"letter {a}: a negative multiplier needs an even P")


def _right_label(d: Dominance, base: list[int]) -> int:
    q = d.q0
    for a, n in enumerate(base):
        for _ in range(n):
            q = d.delta[a][q]
    right = next((c for c, lab in enumerate(d.labels) if _same_label(lab, d.outputs[q])), None)
    if right is None:
        raise CertificateError(f"base counts {base}: no network label {d.outputs[q]!r}")
    return right


class _Type:
    """One count type: base counts b, tail letters, κ terms and ρ-vectors (3.–4.)."""

    def __init__(self, d: Dominance, t: CountType) -> None:
        self.d = d
        self.base = [n if kind == "exact" else d.letters[a][0] + n
                     for a, (kind, n) in enumerate(t.choice)]
        self.tails = [a for a, (kind, _) in enumerate(t.choice) if kind == "tail"]
        self.right = _right_label(d, self.base)
        if t.label != self.right:
            raise CertificateError(f"count type {list(t.choice)}: the right label is "
                                   f"{self.right}, not {t.label}")
        self.cache: dict[tuple[Fraction, int], Fraction] = {}
        n_ch = len(d.coeff[0]) if d.coeff else 0
        self.terms = [[row[c] * self.prod(d.lam[a][c] for a in range(len(d.delta)))
                       for c in range(n_ch)] for row in d.coeff]
        self.rho = [tuple(self.power(d.lam[a][c], d.letters[a][1]) for a in self.tails)
                    for c in range(n_ch)]

    def power(self, x: Fraction, n: int) -> Fraction:
        if (x, n) not in self.cache:
            if n * (x.numerator.bit_length() + x.denominator.bit_length()) > MAX_BITS:
                raise CertificateError(f"a power x^{n} of more than {MAX_BITS} bits")
            self.cache[(x, n)] = x**n
        return self.cache[(x, n)]

    def prod(self, xs: Any) -> Fraction:  # Π_a x_a^(b_a), x in letter order
        out = Fraction(1)
        for x, n in zip(xs, self.base):
            out *= self.power(x, n)
        return out

    def u(self, rho: tuple[Fraction, ...], m: tuple[int, ...]) -> Fraction:
        out = Fraction(1)
        for x, n in zip(rho, m):
            out *= self.power(x, n)
        return out


def _groups(t: _Type, rival: int) -> dict[int, Group]:
    """Channels merged by equal ρ-vectors: least channel -> (Σ κ, ρ); zero sums dropped."""
    by_rho: dict[tuple[Fraction, ...], list[Any]] = {}
    for c, rho in enumerate(t.rho):
        kappa = t.terms[t.right][c] - t.terms[rival][c]
        if kappa:
            entry = by_rho.setdefault(rho, [c, Fraction(0)])
            entry[1] += kappa
    out = {rep: (kappa, rho) for rho, (rep, kappa) in by_rho.items() if kappa}
    if any(x <= 0 for _, rho in out.values() for x in rho):
        raise CertificateError("internal: a nonzero term with ρ ≤ 0")  # S ≥ 1, P even
    return out


def _hosts(t: _Type, r: Rival) -> dict[int, tuple[Group, list[Group]]]:
    """4. The assignment: every negative group to a dominating positive host; returns
    host -> (its group, the negative groups assigned to it)."""
    groups = _groups(t, r.label)
    negative = {c for c, (kappa, _) in groups.items() if kappa < 0}
    assignment = dict(r.assignment)
    if len(assignment) != len(r.assignment) or set(assignment) != negative:
        raise CertificateError(f"rival {r.label}: the assignment must list every negative "
                               f"group once ({sorted(negative)})")
    if not groups and r.label < t.right:
        raise CertificateError(f"rival {r.label} ties the right label {t.right} everywhere "
                               "and comes first")
    for c, p in assignment.items():
        if p not in groups or groups[p][0] <= 0:
            raise CertificateError(f"rival {r.label}: group {c}'s host {p} is not positive")
        if not all(x >= y for x, y in zip(groups[p][1], groups[c][1])):
            raise CertificateError(f"rival {r.label}: host {p} does not dominate group {c}")
    return {p: (groups[p], [groups[c] for c, q in assignment.items() if q == p])
            for p in set(assignment.values())}


def _check_bounds(t: _Type, r: Rival, hosts: dict[int, tuple[Group, list[Group]]]) -> None:
    """5. g_p(N·e_a) > 0 for every host p and tail axis a (N = the stated bound)."""
    stated = dict(r.bounds)
    if len(stated) != len(r.bounds) or set(stated) != set(hosts):
        raise CertificateError(f"rival {r.label}: one bound list per host is required")
    for p, ((kp, rp), mine) in hosts.items():
        row = stated[p]
        if len(row) != len(t.tails) or any(n > MAX_BOUND for n in row):
            raise CertificateError(f"rival {r.label}, host {p}: bad bounds {list(row)}")
        for i, n in enumerate(row):
            if kp * t.power(rp[i], n) <= sum((-k * t.power(rc[i], n) for k, rc in mine),
                                             Fraction(0)):
                raise CertificateError(f"rival {r.label}, host {p}: g_p is not positive at "
                                       f"{n} on axis {t.tails[i]}")


def _bad(t: _Type, hosts: list[tuple[Group, list[Group]]], m: tuple[int, ...]) -> bool:
    """m lies in some bad set: κ_p ρ_p^m ≤ Σ_{c→p} |κ_c| ρ_c^m."""
    for (kp, rp), mine in hosts:
        if kp * t.u(rp, m) <= sum((-k * t.u(rc, m) for k, rc in mine), Fraction(0)):
            return True
    return False


def _label_at(t: _Type, m: tuple[int, ...]) -> int:
    """The first argmax of the scores at the counts b + P·m, from λ^n."""
    d = t.d
    counts = list(t.base)
    for i, a in enumerate(t.tails):
        counts[a] += d.letters[a][1] * m[i]
    best, best_score = 0, None
    for label, row in enumerate(d.coeff):
        score = Fraction(0)
        for c, coeff in enumerate(row):
            if coeff:
                term = coeff
                for a, n in enumerate(counts):
                    term *= t.power(d.lam[a][c], n)
                score += term
        if best_score is None or score > best_score:
            best, best_score = label, score
    return best


def _walk(t: _Type, hosts: list[tuple[Group, list[Group]]], budget: int) -> int:
    """5. Every count vector of the bad down-set D, reached from the origin, is
    labelled right; returns how many were evaluated."""
    origin = (0,) * len(t.tails)
    if not _bad(t, hosts, origin):
        return 0  # D is a down-set: empty
    seen, todo, count = {origin}, deque([origin]), 0
    while todo:
        m = todo.popleft()
        count += 1
        if count > budget:
            raise CertificateError(f"more than {MAX_POINTS} count vectors to evaluate")
        if _label_at(t, m) != t.right:
            raise CertificateError(f"counts at tail offsets {list(m)}: the network's label "
                                   f"is not the right one ({t.right})")
        for i in range(len(m)):
            nxt = m[:i] + (m[i] + 1,) + m[i + 1:]
            if nxt not in seen:
                seen.add(nxt)
                if _bad(t, hosts, nxt):
                    todo.append(nxt)
    return count


def _check_type(d: Dominance, ct: CountType, budget: int) -> int:
    """3.–5. for one count type; returns the count vectors evaluated."""
    t = _Type(d, ct)
    labels = [r.label for r in ct.rivals]
    if sorted(labels) != [c for c in range(len(d.labels)) if c != t.right]:
        raise CertificateError(f"count type {list(ct.choice)}: every other label must be "
                               "a rival, once")
    hosts: list[tuple[Group, list[Group]]] = []
    for r in ct.rivals:
        mine = _hosts(t, r)
        _check_bounds(t, r, mine)
        hosts.extend(mine.values())
    return _walk(t, hosts, budget)


def check_count_dominance(cert: dict[str, Any]) -> str:
    """Check a count-dominance certificate; a one-line summary, or CertificateError."""
    d = parse(cert)
    _check_letters(d)
    options = [[("exact", n) for n in range(s)] + [("tail", r) for r in range(p)]
               for s, p in d.letters]
    size = 1
    for row in options:
        size *= len(row)
    if size != len(d.types) or [t.choice for t in d.types] != list(itertools.product(*options)):
        raise CertificateError("the count types are not all listed, in itertools.product "
                               "order")
    points = 0
    for ct in d.types:
        points += _check_type(d, ct, MAX_POINTS - points)
    rivals = sum(len(t.rivals) for t in d.types)
    return (f"valid: count dominance, {len(d.types)} count types, {rivals} dominance "
            f"arguments, {points} count vectors evaluated exactly")
