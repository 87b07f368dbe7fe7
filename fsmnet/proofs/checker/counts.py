"""Method ``count-abstraction``: diagonal / R2 networks whose states never close.

The model (``network.model``, type ``diagonal-channels``) is a set of
channels over Q(ζ_M) (``field_order`` M): ``multipliers[a][c]`` λ_{a,c},
``h0[c]``, ``readout[l][c]`` w_{l,c}; each number is {power k: "p/q"}
meaning Σ q_k ζ^k.  The score of label l after a word with letter counts n_a
is s_l = Re Σ_c w_{l,c} h0_c Π_a λ_{a,c}^{n_a}; the label is the first argmax.

The claim is re-derived from scratch:

1. the letter maps of the automaton commute, so its output depends only on
   the counts;
2. per letter a (``letters[a]``): start N ≥ 0 and period P ≥ 1 with
   f_a^N = f_a^(N+P); a rational base β ∈ (0, 1]; per channel either
   λ_{a,c} = 0 with N ≥ 1 (exponent null), or λ_{a,c}^P = β^e (e ≥ 0);
3. the count types are all choices, per letter, of an exact count n < N or a
   tail residue r < P (count N + r + P·m, m ≥ 0), in itertools.product
   order; ``types`` lists them in that order.  On a tail λ^count =
   λ^(N+r)·x^e with x = β^m ∈ (0, 1], so every score is a polynomial in the
   tail variables, computed here;
4. for each type, the right label is the first network label equal to the
   automaton's output for the type's base counts; for every other label c
   the difference p = s_right − s_c must have all Bernstein coefficients
   ≥ 0 at the listed multi-degree (so p ≥ 0 on [0, 1]^T), and p(1, ..., 1) > 0
   when c comes before the right label (Π x_i^d_i > 0 on (0, 1]^T, so p > 0).
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction
from typing import Any

from .core import CertificateError, _automaton_table, _frac, _same_label
from .cyclotomic import Element, Field


def _element(fld: Field, x: Any) -> Element:
    if not isinstance(x, dict):
        raise CertificateError(f"a number must be {{power: rational}}, got {x!r}")
    powers = {}
    for k, q in x.items():
        try:
            powers[int(k)] = _frac(q)
        except ValueError:
            raise CertificateError(f"bad power {k!r}") from None
    return fld.element(powers)


def _compose_power(f: list[int], n: int) -> tuple[int, ...]:
    out = tuple(range(len(f)))
    for _ in range(n):
        out = tuple(f[q] for q in out)
    return out


def _bernstein_ok(fld: Field, poly: dict[tuple[int, ...], Element], degrees: Any,
                  n_vars: int) -> bool:
    """All Bernstein coefficients of poly at multi-degree ``degrees`` are ≥ 0."""
    if not (isinstance(degrees, list) and len(degrees) == n_vars and all(
            isinstance(d, int) and not isinstance(d, bool) and d >= 0 for d in degrees)):
        raise CertificateError(f"bad Bernstein degrees {degrees!r}")
    if any(a > d for mono in poly for a, d in zip(mono, degrees)):
        raise CertificateError("a Bernstein degree is below the polynomial's degree")
    if math.prod(d + 1 for d in degrees) > 1 << 16:
        raise CertificateError("Bernstein degrees too large")
    for beta in itertools.product(*(range(d + 1) for d in degrees)):
        total = fld.rational(Fraction(0))
        for alpha, c in poly.items():
            if all(a <= b for a, b in zip(alpha, beta)):
                w = Fraction(1)
                for a, b, d in zip(alpha, beta, degrees):
                    w *= Fraction(math.comb(b, a), math.comb(d, a))
                total = fld.add(total, fld.scale(c, w))
        if fld.sign(total) < 0:
            return False
    return True


def check_counts(cert: dict[str, Any]) -> str:
    """Check a count-abstraction certificate; a one-line summary, or CertificateError."""
    delta, outputs, q0, _ = _automaton_table(cert["automaton"])
    labels = cert["network"]["labels"]
    model = cert["network"]["model"]
    if model.get("type") != "diagonal-channels":
        raise CertificateError("count-abstraction needs a diagonal-channels model")
    k = len(delta)
    for a, b in itertools.combinations(range(k), 2):  # 1. commuting letters
        if [delta[a][delta[b][q]] for q in range(len(outputs))] != [
                delta[b][delta[a][q]] for q in range(len(outputs))]:
            raise CertificateError("the automaton's letters do not commute")
    fld = Field(model["field_order"])
    lam = [[_element(fld, x) for x in row] for row in model["multipliers"]]
    h0 = [_element(fld, x) for x in model["h0"]]
    weights = [[_element(fld, x) for x in row] for row in model["readout"]]
    n_ch = len(h0)
    if len(lam) != k or any(len(row) != n_ch for row in lam + weights) or len(
            weights) != len(labels):
        raise CertificateError("channel model sizes do not match")
    letters = cert["letters"]
    if len(letters) != k:
        raise CertificateError("one letter entry per symbol is required")
    zero = fld.rational(Fraction(0))
    for a, info in enumerate(letters):  # 2. starts, periods, bases
        start, period, exps = info["start"], info["period"], info["exponents"]
        base = _frac(info["base"])
        if not (isinstance(start, int) and isinstance(period, int) and start >= 0
                and period >= 1 and 0 < base <= 1 and len(exps) == n_ch):
            raise CertificateError(f"letter {a}: bad start, period, base or exponents")
        if _compose_power(delta[a], start) != _compose_power(delta[a], start + period):
            raise CertificateError(f"letter {a}: f^N != f^(N+P) in the automaton")
        for c in range(n_ch):
            if lam[a][c] == zero:
                if exps[c] is not None or start < 1:
                    raise CertificateError(f"letter {a}, channel {c}: a zero multiplier "
                                           "needs start >= 1 and a null exponent")
            elif not (isinstance(exps[c], int) and exps[c] >= 0 and fld.power(
                    lam[a][c], period) == fld.rational(base ** exps[c])):
                raise CertificateError(f"letter {a}, channel {c}: λ^P != base^e")
    options = [[("exact", n) for n in range(L["start"])] + [("tail", r)
                                                          for r in range(L["period"])]
               for L in letters]
    types = cert["types"]
    expected_types = list(itertools.product(*options))
    if len(types) != len(expected_types):
        raise CertificateError("the count types are not all listed")
    n_args = 0
    for choice, entry in zip(expected_types, types):  # 3.–4.
        if [list(x) for x in choice] != entry["choice"]:
            raise CertificateError(f"count type {entry['choice']!r} out of order")
        counts = [n if kind == "exact" else letters[a]["start"] + n
                  for a, (kind, n) in enumerate(choice)]
        tails = [a for a, (kind, _) in enumerate(choice) if kind == "tail"]
        q = q0
        for a in range(k):
            for _ in range(counts[a]):
                q = delta[a][q]
        right = next((c for c, lab in enumerate(labels) if _same_label(lab, outputs[q])), None)
        if right is None:
            raise CertificateError(f"count type {entry['choice']}: no network label "
                                   f"{outputs[q]!r}")
        scores = []
        for row in weights:
            poly: dict[tuple[int, ...], Element] = {}
            for c in range(n_ch):
                if any(lam[a][c] == zero and counts[a] > 0 for a in range(k)):
                    continue  # λ^count = 0 (tails have count ≥ N ≥ 1)
                value = fld.mul(row[c], h0[c])
                for a in range(k):
                    value = fld.mul(value, fld.power(lam[a][c], counts[a]))
                mono = tuple(letters[a]["exponents"][c] for a in tails)
                poly[mono] = fld.add(poly.get(mono, zero), fld.real_part(value))
            scores.append(poly)
        rivals = {r["label"]: r["degrees"] for r in entry["rivals"]}
        for c in range(len(labels)):
            if c == right:
                continue
            if c not in rivals:
                raise CertificateError(f"count type {entry['choice']}: label {c} not excluded")
            diff = dict(scores[right])
            for mono, v in scores[c].items():
                diff[mono] = fld.sub(diff.get(mono, zero), v)
            diff = {mono: v for mono, v in diff.items() if any(v)}  # drop zero terms
            top = zero
            for v in diff.values():
                top = fld.add(top, v)
            if c < right and fld.sign(top) <= 0:
                raise CertificateError(f"count type {entry['choice']}: label {c} is not "
                                       "beaten at x = (1, ..., 1)")
            if not _bernstein_ok(fld, diff, rivals[c], len(tails)):
                raise CertificateError(f"count type {entry['choice']}: a Bernstein "
                                       f"coefficient against label {c} is negative")
            n_args += 1
    return (f"valid: count abstraction over Q(ζ_{fld.order}), {len(types)} count types, "
            f"{n_args} Bernstein arguments")
