"""bilinear-r2, bilinear-real-diag, bilinear-positive-diag: commutative languages.

The construction (docs/constructions.md; the proof is in docs/constructions.md,
"Commutative constructions").  For a commutative language the output depends
on the letter counts only through the count classes of
:func:`fsmnet.algebra.commutative.count_table` (threshold t_a, period p_a).
Per letter a, with X = μ^(n_a) and Z = ζ_(p_a)^(n_a):

* step_k = Π_(j<k) (1 − μ^(−j) X): exactly 0 when n_a < k, in (0, 1] otherwise;
* class "n_a = k" (k < t): w = step_k − step_(k+1) (= step_k·μ^(n_a−k) above k);
* class "n_a ≥ t, n_a ≡ t + r (mod p)": w = step_t · (1/p) Σ_j ζ_p^(−j(t+r)) Z^j.

These weights are ≥ 0 and sum to exactly 1 over the classes, and the true
class gets ≥ Π_(i=1..t)(1 − μ^i).  The score of label l is
Σ_(count types τ with output l) Π_a w_(a, τ_a): a polynomial in the X_a, Z_a,
whose monomials Π_a X_a^(i_a) Z_a^(j_a) are the channels (transition
μ^(i_a) ζ^(j_a) on letter a, initial value 1) and whose coefficients are the
readout.  Conjugate monomials share one channel (the score is real).

The count types number Π_a (t_a + p_a).  For a group language (every t_a = 0) the
channels are built from the group's characters instead
(:mod:`fsmnet.constructions.group_characters`): the same channels and readout in
the same exact header, from |G|² work instead of Π_a p_a types.  ``_STRATEGIES``
is that choice.
"""

from __future__ import annotations

import math
from collections import defaultdict
from fractions import Fraction
from typing import Any

import numpy as np

from fsmnet.algebra import commutative as count_algebra
from fsmnet.algebra.commutative import (
    CountTable,
    CountTableTooLarge,
    LetterCount,
    commutation_witness,
    count_table,
    count_types,
    format_word,
    letter_counts,
)
from fsmnet.automata import Automaton
from fsmnet.constructions.group_characters import character_polynomials
from fsmnet.errors import NotExpressible, SpecError
from fsmnet.nets import Network
from fsmnet.nets.cyclotomic import cyclotomic_field
from fsmnet.nets.diagonal import POSITIVE_DIAG, R2, REAL_DIAG

# One term of a per-letter weight: μ-exponent i, channel ζ_N-exponent kt,
# rational coefficient q and coefficient ζ_N-exponent kc: q·ζ_N^kc · X^i Z^(kt).
Term = tuple[int, int, Fraction, int]
Mono = tuple[tuple[int, int], ...]
Polys = dict[Mono, dict[tuple[int, int], Fraction]]

_SEMANTICS = {"bilinear-r2": R2, "bilinear-real-diag": REAL_DIAG,
              "bilinear-positive-diag": POSITIVE_DIAG}


def compile_r2(automaton: Automaton, *, mu: Fraction | str | int | None = None) -> Network:
    """Complex-diagonal network (2×2 rotation-scaling blocks) for a commutative language.

    Parameters
    ----------
    automaton
        A minimal automaton (the dispatcher minimizes).
    mu
        The contraction μ (a rational in (0, 1), e.g. ``"1/8"``).  It must satisfy
        Π_a Π_(i=1..t_a) (1 − μ^i) > 1/2, which μ < 1/(2|Σ|+1) guarantees.  Default:
        the largest 2^(−s) making that product ≥ 2/3 (a margin of 1/3).

    Raises
    ------
    NotExpressible
        For a non-commutative language, with two reorderings as a witness.
    """
    return _compile(automaton, "bilinear-r2", mu)


def compile_real_diag(automaton: Automaton, *,
                      mu: Fraction | str | int | None = None) -> Network:
    """Real-diagonal network; needs every letter period ≤ 2 (see :func:`compile_r2`)."""
    return _compile(automaton, "bilinear-real-diag", mu)


def compile_positive_diag(automaton: Automaton, *,
                          mu: Fraction | str | int | None = None) -> Network:
    """Diagonal network with entries in (0, 1]; needs every letter period 1."""
    return _compile(automaton, "bilinear-positive-diag", mu)


# ------------------------------------------------------------------ checks
def _expressible(automaton: Automaton, arch: str) -> tuple[LetterCount, ...]:
    witness = commutation_witness(automaton)
    if witness is not None:
        raise NotExpressible(
            f"{arch} needs a commutative language: {format_word(witness.word_ab)!r} and "
            f"{format_word(witness.word_ba)!r} lead to different outputs "
            f"({witness.output_ab!r} vs {witness.output_ba!r})")
    letters = letter_counts(automaton)
    limit = {"bilinear-real-diag": 2, "bilinear-positive-diag": 1}.get(arch)
    for c in letters:
        if limit is not None and c.period > limit:
            what = ("real diagonal entries give only the roots of unity ±1" if limit == 2
                    else "positive entries cannot oscillate")
            need = "to be 1" if limit == 1 else "<= 2"
            raise NotExpressible(
                f"{arch} needs every letter period {need} ({what}): letter "
                f"{c.symbol!r} has period {c.period} (its count matters modulo {c.period})")
    return letters


def proof_product(letters: tuple[LetterCount, ...], mu: Fraction) -> Fraction:
    """Π_a Π_(i=1..t_a) (1 − μ^i): the least weight of a true count type."""
    out = Fraction(1)
    for c in letters:
        for i in range(1, c.threshold + 1):
            out *= 1 - mu**i
    return out


def _choose_mu(letters: tuple[LetterCount, ...], mu: Fraction | str | int | None) -> Fraction:
    if mu is None:
        s = 1
        while proof_product(letters, Fraction(1, 2**s)) < Fraction(2, 3):
            s += 1
        return Fraction(1, 2**s)
    try:
        value = Fraction(mu)
    except (TypeError, ValueError, ZeroDivisionError):
        raise SpecError("mu must be a rational number", source="<compile>", field="mu",
                        value=mu) from None
    if not 0 < value < 1:
        raise SpecError("mu must lie strictly between 0 and 1", source="<compile>",
                        field="mu", value=str(value))
    if proof_product(letters, value) <= Fraction(1, 2):
        raise SpecError("mu too large for the correctness proof: need "
                        "prod_a prod_(i<=t_a) (1 - mu^i) > 1/2 (mu < 1/(2|Sigma|+1) suffices)",
                        source="<compile>", field="mu", value=str(value))
    return value


# ------------------------------------------------------------ construction
def _step_poly(k: int, mu: Fraction) -> list[Fraction]:
    """Coefficients (in X) of Π_(j<k) (1 − μ^(−j) X)."""
    poly = [Fraction(1)]
    for j in range(k):
        root = mu ** (-j)
        poly = [a - root * b for a, b in zip([*poly, Fraction(0)], [Fraction(0), *poly])]
    return poly


def letter_weights(threshold: int, period: int, mu: Fraction, n: int) -> list[list[Term]]:
    """Per count class, the terms of the letter's class weight (ζ_N, p | N)."""
    out: list[list[Term]] = []
    for k in range(threshold):
        here, nxt = _step_poly(k, mu), _step_poly(k + 1, mu)
        diff = [a - b for a, b in zip([*here, Fraction(0)], nxt)]
        out.append([(i, 0, q, 0) for i, q in enumerate(diff) if q])
    step = _step_poly(threshold, mu)
    unit = n // period
    for r in range(period):
        out.append([(i, (unit * j) % n, q / period, (-unit * j * (threshold + r)) % n)
                    for i, q in enumerate(step) if q for j in range(period)])
    return out


def class_polynomials(table: CountTable, mu: Fraction,
                      n: int) -> dict[Mono, dict[tuple[int, int], Fraction]]:
    """Σ_τ e_(label(τ)) Π_a w_(a,τ_a): monomial -> {(label, kc): rational}.

    Contracted one letter at a time, last letter first, so shared suffix sums
    are computed once.
    """
    weights = [letter_weights(c.threshold, c.period, mu, n) for c in table.letters]
    current: dict[tuple[int, ...], dict[Mono, dict[tuple[int, int], Fraction]]] = {
        key: {(): {(int(table.table[key]), 0): Fraction(1)}} for key in table.types()}
    for a in range(len(table.letters) - 1, -1, -1):
        merged: dict[tuple[int, ...], dict[Mono, dict[tuple[int, int], Fraction]]] = {}
        for key, poly in current.items():
            acc = merged.setdefault(key[:a], {})
            for i, kt, q, kc in weights[a][key[a]]:
                for mono, coefs in poly.items():
                    slot = acc.setdefault(((i, kt), *mono), defaultdict(Fraction))
                    for (label, kc2), v in coefs.items():
                        slot[(label, (kc + kc2) % n)] += q * v
        current = merged
    return current[()]


def channels_and_readout(polys: Polys, n_labels: int,
                         n: int) -> tuple[list[Mono], list[list[dict[int, Fraction]]]]:
    """Channels (one per conjugate pair of monomials) and their exact readout.

    Re(c·v) + Re(c'·v̄) = Re((c + c̄')·v), so a monomial's conjugate folds into
    it with the conjugated coefficient; a self-conjugate monomial is real and
    keeps only the real part of its coefficient.  Zero coefficients (decided
    in the canonical form of Q(ζ_N)) are dropped, and so are channels whose
    coefficients are all zero.
    """
    field = cyclotomic_field(n)
    folded: dict[Mono, dict[int, dict[int, Fraction]]] = defaultdict(
        lambda: defaultdict(lambda: defaultdict(Fraction)))
    for mono, coefs in polys.items():
        conj = tuple((i, (-kt) % n) for i, kt in mono)
        rep = min(mono, conj)
        for (label, kc), v in coefs.items():
            folded[rep][label][kc if rep == mono else (-kc) % n] += v
    channels: list[Mono] = []
    readout: list[list[dict[int, Fraction]]] = [[] for _ in range(n_labels)]
    for mono in sorted(folded):
        self_conj = mono == tuple((i, (-kt) % n) for i, kt in mono)
        row: list[dict[int, Fraction]] = []
        for label in range(n_labels):
            z = field.element(dict(folded[mono][label]))
            if self_conj:
                z = z.real_part()
            row.append({k: c for k, c in enumerate(z.coeffs) if c})
        if any(row):
            channels.append(mono)
            for label, coef in enumerate(row):
                readout[label].append(coef)
    return channels, readout


def _monomials(automaton: Automaton, letters: tuple[LetterCount, ...], mu: Fraction,
               n: int) -> Polys:
    return class_polynomials(count_table(automaton), mu, n)


def _characters(automaton: Automaton, letters: tuple[LetterCount, ...], mu: Fraction,
                n: int) -> Polys:
    return character_polynomials(automaton.minimal(), n)


def _few_types(letters: tuple[LetterCount, ...]) -> bool:
    return count_types(letters) <= count_algebra.COUNT_TYPE_LIMIT


def _group(letters: tuple[LetterCount, ...]) -> bool:
    return all(c.threshold == 0 for c in letters)


# The score polynomial's strategies, first that applies: the group's characters (a
# group language, every threshold 0: |G| channels, O(|G|^2) work; the count types
# give the same channels and readout there, after Π_a p_a types of work), then the
# count types (any commutative language, while they are few).  Each entry: (name,
# applies to the letters, polynomial of (automaton, letters, μ, ζ order), the least
# score of the true label (the others score at most 1 minus it)).
_STRATEGIES = (
    ("group-characters", _group, _characters, lambda letters, mu: Fraction(1)),
    ("commutative-monomials", _few_types, _monomials, proof_product),
)


def _compile(automaton: Automaton, arch: str, mu_option: Any) -> Network:
    letters = _expressible(automaton, arch)
    found = next((entry for entry in _STRATEGIES if entry[1](letters)), None)
    if found is None:
        raise CountTableTooLarge(
            f"{automaton.name or '<automaton>'}: {count_types(letters)} count types "
            f"exceed the limit of {count_algebra.COUNT_TYPE_LIMIT}, and some letter does "
            "not permute the states (threshold > 0), so the group's characters do not apply")
    strategy, _, build, least_score = found
    mu = _choose_mu(letters, mu_option)
    n = math.lcm(*(c.period for c in letters))
    channels, readout = channels_and_readout(build(automaton, letters, mu, n),
                                             len(automaton.labels), n)
    exact = {"construction": "commutative-monomials", "mu": str(mu), "zeta_order": n,
             "channels": [[[i, kt] for i, kt in ch] for ch in channels],
             "readout": [[{str(e): str(q) for e, q in c.items()} for c in row]
                         for row in readout]}
    # The tensors are the correctly rounded values of the exact header (one rounding
    # of the exact number, decided exactly), which is what a file must hold to load.
    params = _SEMANTICS[arch].rounded_tensors(exact, len(letters), len(automaton.labels))
    k = len(channels)
    params["h0"] = np.tile([1.0, 0.0], k) if arch == "bilinear-r2" else np.ones(k)
    options = {"construction": strategy, "mu": str(mu),
               "thresholds": [c.threshold for c in letters],
               "periods": [c.period for c in letters], "channels": k,
               "min_true_score": str(least_score(letters, mu))}
    return Network(arch=arch, params=params, symbols=automaton.symbols,
                   labels=automaton.labels, options=options, exact=exact,
                   name=automaton.name)
