"""Method ``belief-decay``: witnesses of the two negative results for linear RNNs.

Kind ``joint-range`` (theorem J of docs/theory.md).  Class: linear RNNs on the
joint representation h ∈ R^Q, h_{wa} = α_a M_a h_w + B_a, h_ε = c·e_{q0},
with M_a = T_a D_a, any α_a > 0, c > 0 and any additive term B_a, that track
the belief (h_w is a positive multiple of b_w whenever P(w) > 0).  The
witness gives a prefix p, a period u, a rate r, an order ``blocks`` of u's
symbols and, for each symbol a of u, two words y, y' of positive probability
whose posteriors after a are not parallel.  The checker verifies:

1. v = M_p e_{q0} is non-zero and M_u v = r·v exactly, with 0 < r < 1, so
   P(p u^k) = P(p)·r^k;
2. ``blocks`` is a rearrangement of u, and along w2_k = p b_1^k ... b_m^k the
   mass stays P(p): each block either fixes the current vector (M_b z = z) or
   reveals nothing (D_b = I, so T_b keeps the ℓ1 mass); once a block reveals
   nothing, all later ones do;
3. the posteriors b_{y a}, b_{y' a} are non-parallel (a non-zero 2×2 minor).

By 3, B_a lies in span(b_{ya}) ∩ span(b_{y'a}) = {0} (h_{ya} = α_a s_y M_a b_y
+ B_a must be parallel to b_{ya}).  So along both words h_w = c·α_w·P(w)·b_w,
with the same α_w (same symbol counts): ‖h_{p u^k}‖₁ / ‖h_{w2_k}‖₁ = r^k.  The
largest entries then differ by a factor <= Q·r^k.  In a binary format whose
values <= 2^(s-1) round to zero and whose finite values are < 2^(E+1), the
two exact states cannot both be non-zero and finite once Q·r^k <= 2^(s-E-2):
the checker recomputes that least k for every format listed.

Kind ``marginal-adversarial`` (theorem M).  Class: the n×n marginal
representation of the cup family (P[i][v] = Pr(position i holds v)) updated
linearly with an additive term: swaps by their exact marginal map, a hidden
swap of (i, j) with probability p as P ← (1-p)P + p·S_ij P, and a reveal
``show i=v`` masking row i and column v and injecting e_iv through B.  The
checker builds these affine maps, splits the state after p as Z + Y (Y the
entries outside every revealed row and column of u), and verifies
F_u(Z) = Z, L_u(Y) = r·Y (L the linear part), 0 < r < 1; and that the exact
belief after p·u equals the one after p, with every marginal entry on Y's
support at least c > 0.  So the network's entries there are r^k·Y while the
true marginals stay >= c: the recurrence decays to zero where the belief does
not.  Per format the checker recomputes the least k at which max|Y|·r^k is
subnormal (< 2^e_min: precision lost) and at which it rounds to zero
(<= 2^(s-1)).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from types import MappingProxyType
from typing import Any

from .belief import Pfsa, belief_matrix, read_pfsa
from .core import CertificateError, _frac

# format -> (exponent s of the smallest subnormal, of the smallest normal, largest exponent E)
FORMATS = {"float32": (-149, -126, 127), "bfloat16": (-133, -126, 127),
           "float16": (-24, -14, 15), "float64": (-1074, -1022, 1023)}


def _mv(m: list[list[Fraction]], v: list[Fraction]) -> list[Fraction]:
    return [sum((x * y for x, y in zip(row, v) if y), Fraction(0)) for row in m]


def _least_k(scale: Fraction, r: Fraction, bound: Fraction, cap: int = 10**6) -> int:
    k = 0
    while scale > bound:
        scale *= r
        k += 1
        if k > cap:
            raise CertificateError("no underflow within 10^6 periods")
    return k


def _word(index: Mapping[str, int], word: Any) -> tuple[int, ...]:
    if not isinstance(word, list) or any(s not in index for s in word):
        raise CertificateError(f"not a word over the symbols: {word!r}")
    return tuple(index[s] for s in word)


def _formats(periods: dict[str, Any]) -> tuple[tuple[str, tuple[int, int, int], Any], ...]:
    """(format, its exponents in FORMATS, the claimed periods) per listed format."""
    return tuple((fmt, FORMATS[fmt], claimed) for fmt, claimed in periods.items())


@dataclass(frozen=True)
class JointWitness:
    """A joint-range witness, parsed: words as symbol indices."""

    pfsa: Pfsa
    prefix: tuple[int, ...]
    period: tuple[int, ...]
    rate: Fraction
    blocks: tuple[int, ...]
    additive: Mapping[int, tuple[tuple[int, ...], tuple[int, ...]]]  # symbol -> y, y'
    formats: tuple[tuple[str, tuple[int, int, int], Any], ...]
    raw_periods: dict[str, Any]  # as listed, for the summary


def _parse_joint(cert: dict[str, Any]) -> JointWitness:
    pfsa = read_pfsa(cert["pfsa"])
    index = pfsa.index
    prefix, period = _word(index, cert["prefix"]), _word(index, cert["period"])
    rate = _frac(cert["rate"])
    if not period:
        raise CertificateError("the prefix has probability 0, or the period is empty")
    blocks = _word(index, cert["blocks"])
    additive = {}
    for a in set(period):
        words = [_word(index, w) for w in cert["additive"][pfsa.symbols[a]]]
        if len(words) != 2:
            raise CertificateError(f"additive: two words for {pfsa.symbols[a]!r}, "
                                   f"not {len(words)}")
        additive[a] = (words[0], words[1])
    return JointWitness(pfsa, prefix, period, rate, blocks, MappingProxyType(additive),
                        _formats(cert["periods"]), cert["periods"])


def _matrices(pfsa: Pfsa) -> list[list[list[Fraction]]]:
    """M_a = T_a D_a per symbol."""
    return [belief_matrix(pfsa.kernel, pfsa.reveals, a) for a in range(len(pfsa.kernel))]


def _run(mats: list[list[list[Fraction]]], v: list[Fraction], word: Sequence[int]
         ) -> list[Fraction]:
    """M_w v along a word w of symbol indices."""
    for a in word:
        v = _mv(mats[a], v)
    return v


def _check_joint_rate(w: JointWitness, mats: list[list[list[Fraction]]]) -> list[Fraction]:
    """1. v = M_p e_q0 ≠ 0 and M_u v = r·v with 0 < r < 1; v."""
    n = len(w.pfsa.states)
    v = _run(mats, [Fraction(int(q == w.pfsa.initial)) for q in range(n)], w.prefix)
    if not any(v):
        raise CertificateError("the prefix has probability 0, or the period is empty")
    if _run(mats, v, w.period) != [w.rate * x for x in v] or not 0 < w.rate < 1:
        raise CertificateError("M_u v is not r v with 0 < r < 1")
    return v


def _check_blocks(w: JointWitness, mats: list[list[list[Fraction]]], v: list[Fraction]
                  ) -> None:
    """2. the blocks rearrange u; each fixes the vector or reveals nothing, the
    reveal-nothing ones last."""
    n, pfsa = len(w.pfsa.states), w.pfsa
    if sorted(w.blocks) != sorted(w.period):
        raise CertificateError("the blocks are not a rearrangement of the period")
    z, free = v, False
    for b in w.blocks:
        nothing = pfsa.reveals[b] == set(range(n))
        if free and not nothing:
            raise CertificateError("a revealing block after a reveal-nothing block")
        if nothing:
            free = True
        elif _mv(mats[b], z) != z:
            raise CertificateError(f"block {pfsa.symbols[b]!r} neither fixes the vector "
                                   "nor reveals nothing")


def _check_additive(w: JointWitness, mats: list[list[list[Fraction]]]) -> None:
    """3. per symbol a of the period, the posteriors b_{ya}, b_{y'a} are not parallel."""
    n, pfsa = len(w.pfsa.states), w.pfsa
    e0 = [Fraction(int(q == pfsa.initial)) for q in range(n)]
    for a, (y1, y2) in w.additive.items():
        g1, g2 = _run(mats, _run(mats, e0, y1), [a]), _run(mats, _run(mats, e0, y2), [a])
        if not any(g1) or not any(g2):
            raise CertificateError(f"an additive-term word for {pfsa.symbols[a]!r} has "
                                   "probability 0")
        if all(g1[i] * g2[j] == g1[j] * g2[i] for i in range(n) for j in range(n)):
            raise CertificateError(f"the posteriors after {pfsa.symbols[a]!r} are parallel: "
                                   "B may be non-zero")


def _check_joint(cert: dict[str, Any]) -> str:
    w = _parse_joint(cert)
    mats = _matrices(w.pfsa)
    v = _check_joint_rate(w, mats)
    _check_blocks(w, mats, v)
    _check_additive(w, mats)
    for fmt, (s, _, top), claimed in w.formats:
        k = _least_k(Fraction(len(w.pfsa.states)), w.rate, Fraction(2) ** (s - top - 2))
        if claimed != k:
            raise CertificateError(f"{fmt}: the range fails at k = {k}, not {claimed}")
    return (f"valid decay witness: P(p u^k) / P(p blocks^k) = ({w.rate})^k; additive term "
            f"forced to 0; range exhausted at k = {w.raw_periods}")


def _marginal_maps(n: int, symbols: list[str], prob: Fraction, word: list[str]
                   ) -> tuple[Any, Any]:
    """(F, L): the affine map and its linear part of the marginal net along ``word``."""

    def step(m: list[list[Fraction]], sym: str, affine: bool) -> list[list[Fraction]]:
        m = [row[:] for row in m]
        if sym.startswith(("swap", "pswap")):
            i, j = int(sym[-2]), int(sym[-1])
            chance = Fraction(1) if sym.startswith("swap") else prob
            ri, rj = m[i], m[j]
            m[i] = [(1 - chance) * x + chance * y for x, y in zip(ri, rj)]
            m[j] = [(1 - chance) * y + chance * x for x, y in zip(ri, rj)]
            return m
        if not sym.startswith("show"):
            raise CertificateError(f"not a cup symbol: {sym!r}")
        i, v = int(sym[4:sym.index("=")]), ord(sym[-1]) - ord("a")
        for k in range(n):
            m[i][k] = Fraction(0)
            m[k][v] = Fraction(0)
        if affine:
            m[i][v] = Fraction(1)
        return m

    def run(m: list[list[Fraction]], affine: bool) -> list[list[Fraction]]:
        for sym in word:
            m = step(m, sym, affine)
        return m

    return (lambda m: run(m, True)), (lambda m: run(m, False))


def _check_cup_family(pfsa: Pfsa, prob: Fraction) -> None:
    """The PFSA is the cup family with hidden-swap probability ``prob``: every symbol's
    kernel and reveal are what its name says (so the marginal maps fit it)."""
    states = pfsa.states
    n = len(states[0])
    if any(sorted(s) != [chr(97 + i) for i in range(n)] for s in states) or \
            len(set(states)) != len(states):
        raise CertificateError("the states are not arrangements of the cup objects")
    for a, sym in enumerate(pfsa.symbols):
        rows, shown = _cup_symbol(states, sym, prob)
        if [list(row) for row in pfsa.kernel[a]] != rows or pfsa.reveals[a] != shown:
            raise CertificateError(f"symbol {sym!r} is not the cup family's (p = {prob})")


def _cup_symbol(states: tuple[str, ...], sym: str, prob: Fraction
                ) -> tuple[list[list[Fraction]], set[int]]:
    """(kernel, reveal set) of one symbol of the cup family, from its name."""
    n, index = len(states[0]), {s: q for q, s in enumerate(states)}
    rows = [[Fraction(0)] * len(states) for _ in states]
    shown = set(range(len(states)))
    if sym.startswith(("swap", "pswap")) and len(sym) in (6, 7) and sym[-2:].isdigit():
        i, j = int(sym[-2]), int(sym[-1])
        if not i < j < n:
            raise CertificateError(f"not a cup symbol: {sym!r}")
        chance = Fraction(1) if sym.startswith("swap") else prob
        for q, s in enumerate(states):
            t = list(s)
            t[i], t[j] = t[j], t[i]
            rows[q][index["".join(t)]] += chance
            rows[q][q] += 1 - chance
    elif sym.startswith("show") and "=" in sym:
        i, v = int(sym[4:sym.index("=")]), sym[sym.index("=") + 1:]
        for q in range(len(states)):
            rows[q][q] = Fraction(1)
        shown = {q for q, s in enumerate(states) if i < n and s[i] == v}
    else:
        raise CertificateError(f"not a cup symbol: {sym!r}")
    return rows, shown


@dataclass(frozen=True)
class MarginalWitness:
    """A marginal-adversarial witness, parsed: the cup family with swap probability p."""

    pfsa: Pfsa
    prob: Fraction
    prefix: tuple[str, ...]  # symbol names (the marginal maps read them)
    period: tuple[str, ...]
    rate: Fraction
    true_marginal_min: Fraction
    formats: tuple[tuple[str, tuple[int, int, int], Any], ...]
    raw_periods: dict[str, Any]  # as listed, for the summary


def _parse_marginal(cert: dict[str, Any]) -> MarginalWitness:
    pfsa = read_pfsa(cert["pfsa"])
    prob = _frac(cert["p"])
    _check_cup_family(pfsa, prob)
    n = len(pfsa.states[0])
    if pfsa.states[pfsa.initial] != "".join(chr(97 + i) for i in range(n)):
        raise CertificateError("the initial arrangement is not abc...")
    for word in (cert["prefix"], cert["period"]):
        _word(pfsa.index, word)
    return MarginalWitness(pfsa, prob, tuple(cert["prefix"]), tuple(cert["period"]),
                           _frac(cert["rate"]), _frac(cert["true_marginal_min"]),
                           _formats(cert["periods"]), cert["periods"])


def _split(w: MarginalWitness) -> tuple[list[list[Fraction]], list[list[Fraction]],
                                         list[tuple[int, int]]]:
    """(Y, Z, Y's support): the state after the prefix split into the entries outside
    every revealed row and column of the period (Y) and the rest (Z)."""
    n = len(w.pfsa.states[0])
    ident = [[Fraction(int(i == j)) for j in range(n)] for i in range(n)]
    start, _ = _marginal_maps(n, list(w.pfsa.symbols), w.prob, list(w.prefix))
    m0 = start(ident)
    shown = {(int(s[4:s.index("=")]), ord(s[-1]) - 97) for s in w.period
             if s.startswith("show")}
    rows, cols = {i for i, _ in shown}, {v for _, v in shown}
    support = [(i, v) for i in range(n) for v in range(n) if i not in rows and v not in cols]
    y = [[m0[i][v] if (i, v) in support else Fraction(0) for v in range(n)] for i in range(n)]
    z = [[m0[i][v] - y[i][v] for v in range(n)] for i in range(n)]
    return y, z, support


def _check_decay_split(w: MarginalWitness, y: list[list[Fraction]],
                       z: list[list[Fraction]]) -> None:
    """F_u(Z) = Z and L_u(Y) = r·Y, 0 < r < 1, Y ≠ 0."""
    n, r = len(w.pfsa.states[0]), w.rate
    f_u, l_u = _marginal_maps(n, list(w.pfsa.symbols), w.prob, list(w.period))
    if not 0 < r < 1 or not any(any(row) for row in y):
        raise CertificateError("need 0 < r < 1 and a non-zero unrevealed part")
    if f_u(z) != z or l_u(y) != [[r * x for x in row] for row in y]:
        raise CertificateError("F_u(Z) = Z and L_u(Y) = r Y do not both hold")


def _check_true_marginals(w: MarginalWitness, y: list[list[Fraction]],
                          support: list[tuple[int, int]]) -> Fraction:
    """The exact belief is periodic along u and every true marginal on Y's support is at
    least c = true_marginal_min > 0; c."""
    pfsa, mats = w.pfsa, _matrices(w.pfsa)
    states, index, n = pfsa.states, pfsa.index, len(pfsa.states[0])

    def belief(word: Sequence[str]) -> list[Fraction]:
        v = [Fraction(int(q == pfsa.initial)) for q in range(len(states))]
        for s in word:
            v = _mv(mats[index[s]], v)
        total = sum(v)
        if not total:
            raise CertificateError("a word of the witness has probability 0")
        return [x / total for x in v]

    b1 = belief(w.prefix)
    if belief(w.prefix + w.period) != b1:
        raise CertificateError("the exact belief is not periodic along u")
    marg = [[sum((b1[q] for q, s in enumerate(states) if s[i] == chr(97 + v)), Fraction(0))
             for v in range(n)] for i in range(n)]
    low = min(marg[i][v] for i, v in support if y[i][v])
    if not low > 0 or w.true_marginal_min != low:
        raise CertificateError("the true marginals on the decaying entries are not >= c > 0")
    return low


def _check_marginal(cert: dict[str, Any]) -> str:
    w = _parse_marginal(cert)
    y, z, support = _split(w)
    _check_decay_split(w, y, z)
    low = _check_true_marginals(w, y, support)
    top = max(abs(x) for row in y for x in row)
    for fmt, (s, low_exp, _), claimed in w.formats:
        zero = _least_k(top, w.rate, Fraction(2) ** (s - 1))
        # subnormal: the largest entry below 2^low_exp (values are <= 2^low_exp - tiny)
        sub = _least_k(top, w.rate, Fraction(2) ** low_exp - Fraction(2) ** (s - 8))
        if claimed != {"subnormal": sub, "zero": zero}:
            raise CertificateError(f"{fmt}: the entries turn subnormal at k = {sub} and "
                                   f"round to zero at k = {zero}, not {claimed}")
    return (f"valid decay witness: unrevealed marginal entries decay as ({w.rate})^k while "
            f"the true marginals stay >= {low}; zero at k = {w.raw_periods}")


def check_decay(cert: dict[str, Any]) -> str:
    """Re-check a ``belief-decay`` witness; a one-line summary or CertificateError."""
    kind = cert["kind"]
    if kind == "joint-range":
        return _check_joint(cert)
    if kind == "marginal-adversarial":
        return _check_marginal(cert)
    raise CertificateError(f"unknown belief-decay kind {kind!r}")
