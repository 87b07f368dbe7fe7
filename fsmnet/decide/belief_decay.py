"""The negative results for linear RNNs on PFSA-SR beliefs, as checked theorems.

Theorem J (joint representation, range).  Covered: every linear RNN on the
joint representation h ∈ R^Q with an additive input term,
h_t = α_{x_t} M_{x_t} h_{t-1} + B(x_t), h_0 = c·e_{q0} (M_a = T_a D_a, any
α_a > 0, c > 0, any B), that tracks the belief (h_w ∝ b_w, positively,
whenever P(w) > 0).  The additive term cannot help: for each symbol of the
witness, two posteriors that are not parallel force B(a) = 0.  Then along
p·u^k and a rearrangement p·b_1^k…b_m^k of the same symbols the states' ℓ1
norms differ by exactly r^k (the norm decays as P(w) does: 1/2, 1/4, 1/8, …
on the paper's sequence), whatever the α and c.  Precision: exact arithmetic
is unaffected (the proof of :mod:`fsmnet.proofs.pfsa_proof`); in IEEE binary
formats (round to nearest, gradual underflow) the two exact states cannot
both be non-zero and finite once Q·r^k <= 2^(s-E-2) (float32: s = -149,
E = 127).  Not covered: a nonlinear step (renormalization), other
representations, or nets exact only on some words.

Theorem M (marginal representation, adversarial sequence).  Covered: the n×n
marginal linear RNN of the cup family whose swaps act by their exact marginal
map and whose reveals mask the revealed row and column and inject e_iv
through the additive term.  Along the adversarial sequence the entries that
no reveal touches are only ever masked, so they decay as r^k (r = 3/4 for
pcups:3 with p = 1/2), while the true marginals there stay at >= 1/2.  In
float32 they turn subnormal (precision lost) after the computed number of
periods; afterwards round-to-nearest keeps them at the smallest subnormal
(3/4 of it rounds back up) rather than zero, with every ratio between them
gone.  Not covered: marginal nets that rescale the unrevealed entries.

:func:`joint_witness` and :func:`marginal_witness` build the certificates
(method ``belief-decay``) that ``fsmnet check`` re-verifies.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from fsmnet.automata.pfsa import PFSA, Vector
from fsmnet.automata.pfsa_families import joint_decay_period, marginal_adversarial_period
from fsmnet.proofs.checker.decay import FORMATS, _least_k

__all__ = ["DecayRow", "joint_witness", "marginal_witness", "pfsa_expressivity"]

CHECKED_FORMATS = ("float32", "bfloat16", "float16", "float64")


def _pfsa_block(m: PFSA) -> dict[str, Any]:
    return {"name": m.name, "states": list(m.states), "symbols": list(m.symbols),
            "kernel": [[[str(x) for x in row] for row in t] for t in m.kernel],
            "reveals": [list(r) for r in m.reveals], "initial": m.initial}


def _run(m: PFSA, word: Sequence[int], v: Vector | None = None) -> Vector:
    v = m.initial_belief() if v is None else v
    for a in word:
        v = m.unnormalized_step(v, a)
    return v


def _parallel(g1: Vector, g2: Vector) -> bool:
    n = len(g1)
    return all(g1[i] * g2[j] == g1[j] * g2[i] for i in range(n) for j in range(n))


def _additive_pair(m: PFSA, a: int, depth: int = 3) -> tuple[list[int], list[int]] | None:
    """Two positive-probability words whose posteriors after ``a`` are not parallel."""
    seen: list[tuple[list[int], Vector]] = []
    for length in range(depth + 1):
        for y in itertools.product(range(m.n_symbols), repeat=length):
            g = _run(m, [*y, a])
            if not any(g):
                continue
            for y0, g0 in seen:
                if not _parallel(g0, g):
                    return y0, list(y)
            if not seen:
                seen.append((list(y), g))
    return None


def _blocks(m: PFSA, v: Vector, period: Sequence[int]) -> list[int] | None:
    """An order of the period's symbols with constant mass along p·b_1^k…b_m^k."""
    fixing = [a for a in period if not m.reveals_nothing(a)]
    free = [a for a in period if m.reveals_nothing(a)]
    if all(_run(m, [a], v) == v for a in fixing):
        return fixing + free
    return None


def _eigen(m: PFSA, prefix: Sequence[int], period: Sequence[int]) -> Fraction | None:
    v = _run(m, prefix)
    w = _run(m, period, v)
    pivot = next((i for i, x in enumerate(v) if x), None)
    if pivot is None:
        return None
    r = w[pivot] / v[pivot]
    return r if 0 < r < 1 and all(y == r * x for x, y in zip(v, w)) else None


def joint_witness(m: PFSA, *, max_period: int = 2) -> dict[str, Any] | None:
    """A ``joint-range`` certificate for theorem J, or None when none is found.

    Tries the paper's period (pswap01 show0=a) first, then every period up to
    ``max_period`` symbols from the initial state.
    """
    candidates: list[list[int]] = []
    if set(joint_decay_period()) <= set(m.symbols):
        candidates.append(m.encode(joint_decay_period()))
    for length in range(1, max_period + 1):
        candidates.extend(list(u) for u in itertools.product(range(m.n_symbols), repeat=length))
    for period in candidates:
        r = _eigen(m, [], period)
        if r is None:
            continue
        blocks = _blocks(m, m.initial_belief(), period)
        if blocks is None:
            continue
        found = {a: _additive_pair(m, a) for a in set(period)}
        pairs = {a: p for a, p in found.items() if p is not None}
        if len(pairs) != len(found):
            continue
        n = m.n_states
        periods = {f: _least_k(Fraction(n), r, Fraction(2) ** (FORMATS[f][0] - FORMATS[f][2] - 2))
                   for f in CHECKED_FORMATS}
        name = m.symbols
        return {"format": "fsmnet-certificate", "format_version": 1, "method": "belief-decay",
                "kind": "joint-range", "theorem": "J", "pfsa": _pfsa_block(m),
                "prefix": [], "period": [name[a] for a in period], "rate": str(r),
                "blocks": [name[a] for a in blocks],
                "additive": {name[a]: [[name[x] for x in y1], [name[x] for x in y2]]
                             for a, (y1, y2) in pairs.items()},
                "periods": periods}
    return None


def marginal_witness(m: PFSA, p: Fraction) -> dict[str, Any] | None:
    """A ``marginal-adversarial`` certificate for theorem M on a cup family (n >= 3)."""
    from fsmnet.proofs.checker.decay import _marginal_maps

    if not set(marginal_adversarial_period()) <= set(m.symbols) or len(m.states[0]) < 3:
        return None
    n = len(m.states[0])
    period = list(marginal_adversarial_period())
    f_u, l_u = _marginal_maps(n, list(m.symbols), p, period)
    ident = [[Fraction(int(i == j)) for j in range(n)] for i in range(n)]
    m0 = f_u(ident)
    support = [(i, v) for i in range(1, n) for v in range(1, n)]
    y = [[m0[i][v] if (i, v) in support else Fraction(0) for v in range(n)] for i in range(n)]
    ly = l_u(y)
    pivot = next(((i, v) for i, v in support if y[i][v]), None)
    if pivot is None:
        return None
    r = ly[pivot[0]][pivot[1]] / y[pivot[0]][pivot[1]]
    b = m.belief(period)
    marg = [[sum((b[q] for q, s in enumerate(m.states) if s[i] == chr(97 + v)), Fraction(0))
             for v in range(n)] for i in range(n)]
    low = min(marg[i][v] for i, v in support if y[i][v])
    top = max(abs(x) for row in y for x in row)
    periods = {f: {"subnormal": _least_k(top, r, Fraction(2) ** FORMATS[f][1]
                                         - Fraction(2) ** (FORMATS[f][0] - 8)),
                   "zero": _least_k(top, r, Fraction(2) ** (FORMATS[f][0] - 1))}
               for f in CHECKED_FORMATS}
    cert = {"format": "fsmnet-certificate", "format_version": 1, "method": "belief-decay",
            "kind": "marginal-adversarial", "theorem": "M", "pfsa": _pfsa_block(m),
            "p": str(p), "prefix": period, "period": period, "rate": str(r),
            "true_marginal_min": str(low), "periods": periods}
    # The decomposition holds only when the period moves every unrevealed entry
    # (n = 3: position 3 of pcups:4 is never swapped, so nothing decays there).
    from fsmnet.proofs.checker import CertificateError, check_certificate

    try:
        check_certificate(cert)
    except CertificateError:
        return None
    return cert


@dataclass(frozen=True)
class DecayRow:
    """One line of ``fsmnet expressivity`` for a PFSA-SR spec."""

    arch: str
    verdict: str
    reason: str
    witness: dict[str, Any] | None = None


def pfsa_expressivity(m: PFSA, p: Fraction | None = None) -> list[DecayRow]:
    """Verdicts for the belief-tracking classes of a PFSA-SR (exact, then per format).

    ``p`` is the hidden-swap probability of a cup family (read off ``pswap01``
    when not given), for theorem M.
    """
    if p is None and "pswap01" in m.symbols:
        p = 1 - m.kernel[m.symbols.index("pswap01")][m.initial][m.initial]
    rows = [DecayRow("bilinear-full (exact rationals)", "possible",
                     "the belief construction is proved for every word (fsmnet verify)")]
    joint = joint_witness(m)
    if joint is None:
        rows.append(DecayRow("joint linear + additive (float)", "unknown",
                             "no decay witness found (e.g. full reveals let B reset the state)"))
    else:
        k = joint["periods"]
        rows.append(DecayRow("joint linear + additive (float)", "impossible",
                             f"theorem J: norm decays as ({joint['rate']})^k along "
                             f"{' '.join(joint['period'])}; range exhausted at k = "
                             f"{k['float32']} (float32), {k['bfloat16']} (bfloat16)", joint))
    if p is not None:
        marg = marginal_witness(m, p)
        if marg is not None:
            k = marg["periods"]
            rows.append(DecayRow("marginal linear + additive", "impossible",
                                 f"theorem M: unrevealed marginals decay as ({marg['rate']})^k "
                                 f"(true value >= {marg['true_marginal_min']}); subnormal "
                                 f"(precision lost) at k = {k['float32']['subnormal']} "
                                 f"(float32), {k['bfloat16']['subnormal']} (bfloat16)", marg))
    return rows
