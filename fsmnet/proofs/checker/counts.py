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
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from types import MappingProxyType
from typing import Any

from .core import Automaton, CertificateError, _frac, read_automaton
from .cyclotomic import Element, Field
from .fields import label_indices


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


def _bernstein_ok(fld: Field, poly: dict[tuple[Any, ...], Element], degrees: Any,
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


@dataclass(frozen=True)
class Letter:
    """One letter's tail: f^start = f^(start + period), λ^period = base^e per channel
    (``exponents[c]`` e, or None for a zero multiplier)."""

    start: int
    period: int
    base: Fraction
    exponents: tuple[int | None, ...]


@dataclass(frozen=True)
class CountType:
    """A count type as listed: per letter ["exact", n] or ["tail", r]; the rival labels'
    Bernstein degrees."""

    choice: Any  # as the certificate lists it (checked against the letters)
    rivals: Mapping[int, Any]  # rival label -> Bernstein degrees (checked where used)


@dataclass(frozen=True)
class CountCertificate:
    """A count-abstraction certificate, parsed: the channels over Q(ζ_M), the letters'
    tails and the count types."""

    automaton: Automaton
    labels: tuple[Any, ...]
    field: Field
    multipliers: tuple[tuple[Element, ...], ...]  # λ[a][c]
    h0: tuple[Element, ...]
    weights: tuple[tuple[Element, ...], ...]  # readout[l][c]
    letters: tuple[Letter, ...]
    types: tuple[CountType, ...]


def _parse_letters(raw: Any, lam: tuple[tuple[Element, ...], ...], zero: Element
                   ) -> tuple[Letter, ...]:
    if len(raw) != len(lam):
        raise CertificateError("one letter entry per symbol is required")
    out = []
    for a, info in enumerate(raw):
        start, period, exps = info["start"], info["period"], info["exponents"]
        base = _frac(info["base"])
        if not (isinstance(start, int) and isinstance(period, int) and start >= 0
                and period >= 1 and 0 < base <= 1 and len(exps) == len(lam[a])):
            raise CertificateError(f"letter {a}: bad start, period, base or exponents")
        for c, x in enumerate(lam[a]):
            if x == zero and (exps[c] is not None or start < 1):
                raise CertificateError(f"letter {a}, channel {c}: a zero multiplier "
                                       "needs start >= 1 and a null exponent")
        out.append(Letter(start, period, base, tuple(exps)))
    return tuple(out)


def _parse_types(raw: Any) -> tuple[CountType, ...]:
    return tuple(CountType(entry["choice"], MappingProxyType(
        {r["label"]: r["degrees"] for r in entry["rivals"]})) for entry in raw)


def _choices(cc: CountCertificate) -> list[tuple[tuple[str, int], ...]]:
    """3. the count types are all choices, per letter, of an exact count n < N or a tail
    residue r < P, listed in itertools.product order: those choices."""
    options = [[("exact", n) for n in range(L.start)] + [("tail", r) for r in range(L.period)]
               for L in cc.letters]
    expected = list(itertools.product(*options))
    if len(cc.types) != len(expected):
        raise CertificateError("the count types are not all listed")
    for choice, ct in zip(expected, cc.types):
        if [list(x) for x in choice] != ct.choice:
            raise CertificateError(f"count type {ct.choice!r} out of order")
    return expected


@dataclass(frozen=True)
class Channels:
    """A ``diagonal-channels`` model, parsed: λ[a][c], h0[c] and w[l][c] in Q(ζ_M)."""

    field: Field
    multipliers: tuple[tuple[Element, ...], ...]
    h0: tuple[Element, ...]
    weights: tuple[tuple[Element, ...], ...]


def read_channels(model: Any, n_symbols: int, n_labels: int, method: str) -> Channels:
    """The channel model of a ``method`` certificate, every size checked."""
    if model.get("type") != "diagonal-channels":
        raise CertificateError(f"{method} needs a diagonal-channels model")
    fld = Field(model["field_order"])
    lam = tuple(tuple(_element(fld, x) for x in row) for row in model["multipliers"])
    h0 = tuple(_element(fld, x) for x in model["h0"])
    weights = tuple(tuple(_element(fld, x) for x in row) for row in model["readout"])
    if len(lam) != n_symbols or any(len(row) != len(h0) for row in lam + weights) \
            or len(weights) != n_labels:
        raise CertificateError("channel model sizes do not match")
    return Channels(fld, lam, h0, weights)


def parse_counts(cert: dict[str, Any]) -> CountCertificate:
    automaton = read_automaton(cert["automaton"])
    labels = tuple(cert["network"]["labels"])
    ch = read_channels(cert["network"]["model"], automaton.n_symbols, len(labels),
                       "count-abstraction")
    letters = _parse_letters(cert["letters"], ch.multipliers, ch.field.rational(Fraction(0)))
    return CountCertificate(automaton, labels, ch.field, ch.multipliers, ch.h0, ch.weights,
                            letters, _parse_types(cert["types"]))


def _check_letters(cc: CountCertificate) -> None:
    """1. the letters commute; 2. f^N = f^(N+P) and λ^P = β^e for every letter."""
    delta, n, fld = cc.automaton.delta, cc.automaton.n_states, cc.field
    for a, b in itertools.combinations(range(len(delta)), 2):
        if [delta[a][delta[b][q]] for q in range(n)] != [delta[b][delta[a][q]]
                                                         for q in range(n)]:
            raise CertificateError("the automaton's letters do not commute")
    zero = fld.rational(Fraction(0))
    for a, letter in enumerate(cc.letters):
        if _compose_power(list(delta[a]), letter.start) != _compose_power(
                list(delta[a]), letter.start + letter.period):
            raise CertificateError(f"letter {a}: f^N != f^(N+P) in the automaton")
        for c, (x, e) in enumerate(zip(cc.multipliers[a], letter.exponents)):
            if x != zero and not (isinstance(e, int) and e >= 0 and fld.power(
                    x, letter.period) == fld.rational(letter.base ** e)):
                raise CertificateError(f"letter {a}, channel {c}: λ^P != base^e")


def _scores(cc: CountCertificate, counts: list[int], tails: list[int]
            ) -> list[dict[tuple[Any, ...], Element]]:
    """Per label, its score as a polynomial in the tail variables (monomial -> coefficient)."""
    fld, k = cc.field, len(counts)
    zero = fld.rational(Fraction(0))
    scores = []
    for row in cc.weights:
        poly: dict[tuple[Any, ...], Element] = {}  # exponents: ints on every tail kept
        for c in range(len(cc.h0)):
            if any(cc.multipliers[a][c] == zero and counts[a] > 0 for a in range(k)):
                continue  # λ^count = 0 (tails have count ≥ N ≥ 1)
            value = fld.mul(row[c], cc.h0[c])
            for a in range(k):
                value = fld.mul(value, fld.power(cc.multipliers[a][c], counts[a]))
            mono = tuple(cc.letters[a].exponents[c] for a in tails)
            poly[mono] = fld.add(poly.get(mono, zero), fld.real_part(value))
        scores.append(poly)
    return scores


def _right_label(cc: CountCertificate, ct: CountType, counts: list[int]) -> int:
    """The first network label equal to the automaton's output at the type's base counts."""
    q, outputs = cc.automaton.initial, cc.automaton.outputs
    for a, n in enumerate(counts):
        for _ in range(n):
            q = cc.automaton.delta[a][q]
    right = label_indices(cc.labels, outputs[q])
    if not right:
        raise CertificateError(f"count type {ct.choice}: no network label {outputs[q]!r}")
    return right[0]


def _check_type(cc: CountCertificate, choice: tuple[tuple[str, int], ...], ct: CountType
                ) -> int:
    """4. for one count type: every rival's margin polynomial is ≥ 0 on [0, 1]^T
    (> 0 at 1 when it comes first); the number of Bernstein arguments."""
    fld, zero = cc.field, cc.field.rational(Fraction(0))
    counts = [n if kind == "exact" else cc.letters[a].start + n
              for a, (kind, n) in enumerate(choice)]
    tails = [a for a, (kind, _) in enumerate(choice) if kind == "tail"]
    right = _right_label(cc, ct, counts)
    scores = _scores(cc, counts, tails)
    n_args = 0
    for c in (c for c in range(len(cc.labels)) if c != right):
        if c not in ct.rivals:
            raise CertificateError(f"count type {ct.choice}: label {c} not excluded")
        diff = dict(scores[right])
        for mono, v in scores[c].items():
            diff[mono] = fld.sub(diff.get(mono, zero), v)
        diff = {mono: v for mono, v in diff.items() if any(v)}  # drop zero terms
        top = zero
        for v in diff.values():
            top = fld.add(top, v)
        if c < right and fld.sign(top) <= 0:
            raise CertificateError(f"count type {ct.choice}: label {c} is not "
                                   "beaten at x = (1, ..., 1)")
        if not _bernstein_ok(fld, diff, ct.rivals[c], len(tails)):
            raise CertificateError(f"count type {ct.choice}: a Bernstein "
                                   f"coefficient against label {c} is negative")
        n_args += 1
    return n_args


def check_counts(cert: dict[str, Any]) -> str:
    """Check a count-abstraction certificate; a one-line summary, or CertificateError."""
    cc = parse_counts(cert)
    _check_letters(cc)
    n_args = sum(_check_type(cc, choice, ct) for choice, ct in zip(_choices(cc), cc.types))
    return (f"valid: count abstraction over Q(ζ_{cc.field.order}), {len(cc.types)} count "
            f"types, {n_args} Bernstein arguments")
