"""Method ``zonotope-invariant`` (linear models): a cone over a slice zonotope per
automaton state, closed under every symbol, read out right.

The certificate gives φ with φ_p = 1 (``pivot`` p), extra generators X
(``extra``, each with φ·x = 0), one matrix F_a per symbol (``coefficients``,
|X| × m) and per zonotope a centre c (φ·c = 1) and scales s ≥ 0 (length m).
The template G has m = (H − 1) + |X| columns: e_j − φ_j e_p for j ≠ p (in
order), then X.  Z = c + G diag(s) [-1, 1]^m and K = its positive multiples.

A vector v with φ·v = 0 is Σ_{j≠p} v_j (e_j − φ_j e_p), so its coordinates
on the first H − 1 generators are read off.  For zonotope i, symbol a and its
successor t, with λ = φ·A c_i, b_j = s_ij φ·A g_j, u = (A c_i − λ c_t) read
off (zero on X), and E[:, j] = (A g_j − c_t φ·A g_j − X F_a[:, j]) read off,
stacked on F_a[:, j] (so G E = (I − c_t φ) A G), checked:

1. λ − Σ_j |b_j| > 0 (φ·A z > 0 on Z_i);
2. for every k and sign σ: σ u_k − s_tk λ + Σ_j |σ E_kj s_ij − s_tk b_j| ≤ 0.

For z = c_i + G diag(s_i) ξ, ‖ξ‖∞ ≤ 1: A z − (φ·A z) c_t = G η with
η = u + E diag(s_i) ξ, and 2 is the maximum over ξ of σ η_k − s_tk φ·A z, so
|η_k| ≤ s_tk φ·A z: A z is a positive multiple of a point of Z_t.  Also:
h0 ∈ K_initial (φ·h0 > 0, the coordinates of h0/(φ·h0) − c within the
scales), and for every rival label c of the right one r,
min over Z of (W_r − W_c)·z = (W_r − W_c)·c − Σ_j |(W_r − W_c)·g_j| s_j > 0.

Rounding model ``float32-step``: the float32 model of :mod:`.invariants` (the
same step, readout and h0 model, checked there to be the float32 roundings).
A float state h = μ z (z ∈ Z_i) has ‖h‖∞ = 1, so 1/μ ≤ N_i = max over Z_i of
‖z‖∞ = max_r (|c_r| + Σ_j |g_j,r| s_j); the next state is a positive multiple
of A h + e with |e_r| ≤ err_r (the bound of :mod:`.invariants`), so of
A z + e' with |e'_r| ≤ N_i err_r: H more image generators e_r, of scales
N_i err_r, enter conditions 1 and 2 as the template's do.  The initial
condition takes the box of h0's float32 roundings as generators the same way,
and each readout margin loses N_i (γ_H Σ(|W_r| + |W_c|) + 2 H 2⁻¹⁴⁹).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from .core import CertificateError, _automaton_table, _mat, _same_label, _vec
from .invariants import H0_ABS, TINY, U32, _gamma, _linear_models, readout_loss32


def _dot(a: list[Fraction], b: list[Fraction]) -> Fraction:
    return sum((x * y for x, y in zip(a, b) if x and y), Fraction(0))


def _included(lam: Fraction, u: list[Fraction], images: list[tuple[list[Fraction], Fraction]],
              st: list[Fraction]) -> bool:
    """Every point lam·c + Σ_j ξ_j v_j (‖ξ‖∞ ≤ 1) is a positive multiple of a point of the
    target zonotope, given u (coordinates of the centre's offset lam·c − (φ·)c_t) and, per
    image generator v_j, (coordinates of (I − c_t φ) v_j, φ·v_j)."""
    if lam - sum((abs(mass) for _, mass in images), Fraction(0)) <= 0:
        return False
    for k, sk in enumerate(st):
        for sigma in (1, -1):
            v = sigma * u[k] - sk * lam + sum((abs(sigma * col[k] - sk * mass)
                                               for col, mass in images), Fraction(0))
            if v > 0:
                return False
    return True


def check_zonotopes(cert: dict[str, Any]) -> str:
    """Re-check a ``zonotope-invariant`` certificate; a one-line summary or CertificateError."""
    delta, outputs, q0, _ = _automaton_table(cert["automaton"])
    labels = cert["network"]["labels"]
    if cert.get("domain") != "zonotope":
        raise CertificateError("this method is for the zonotope domain")
    mats, w, h0, f32 = _linear_models(cert)
    n = len(h0)
    phi, p = _vec(cert["phi"]), cert["pivot"]
    if len(phi) != n or not (isinstance(p, int) and 0 <= p < n) or phi[p] != 1:
        raise CertificateError("phi and pivot do not fit the model (phi[pivot] must be 1)")
    if len(mats) != len(delta) or len(w) != len(labels) or \
            any(len(r) != n for m in mats for r in m) or any(len(r) != n for r in w):
        raise CertificateError("model and automaton sizes differ")
    extra = _mat(cert["extra"])
    if any(len(x) != n or _dot(phi, x) != 0 for x in extra):
        raise CertificateError("every extra generator needs phi·x = 0")
    others = [j for j in range(n) if j != p]
    gens = [[Fraction(int(i == j)) - (phi[j] if i == p else 0) for i in range(n)]
            for j in others] + extra
    m = len(gens)
    fs = [_mat(f) for f in cert["coefficients"]]
    if len(fs) != len(mats) or any(len(f) != len(extra) or any(len(r) != m for r in f)
                                   for f in fs):
        raise CertificateError("one coefficient matrix (|extra| × m) per symbol is required")
    zs = []
    for z in cert["zonotopes"]:
        q, c, s = z["state"], _vec(z["center"]), _vec(z["scale"])
        if not (isinstance(q, int) and 0 <= q < len(outputs)) or len(c) != n or len(s) != m:
            raise CertificateError(f"zonotope of state {q!r}: bad state or size")
        if _dot(phi, c) != 1 or any(x < 0 for x in s):
            raise CertificateError(f"zonotope of state {q}: phi·center must be 1, scales >= 0")
        zs.append((q, c, s))
    succ, i0 = cert["successors"], cert["initial_zonotope"]
    if not (isinstance(i0, int) and 0 <= i0 < len(zs) and zs[i0][0] == q0):
        raise CertificateError("initial_zonotope is not a zonotope of the initial state")
    if len(succ) != len(zs) or any(
            len(row) != len(delta) or not all(isinstance(j, int) and 0 <= j < len(zs)
                                              for j in row) for row in succ):
        raise CertificateError("one successor zonotope per zonotope and symbol is required")

    def read(v: list[Fraction]) -> list[Fraction]:  # coordinates of v ∈ ker φ on B_φ
        return [v[j] for j in others]

    def offset(v: list[Fraction], ct: list[Fraction]) -> list[Fraction]:
        # coordinates of v − (φ·v) c_t, zero on the extra generators
        mass = _dot(phi, v)
        return read([x - mass * y for x, y in zip(v, ct)]) + [Fraction(0)] * len(extra)

    def unit(r: int) -> list[Fraction]:
        return [Fraction(int(i == r)) for i in range(n)]

    # h0 (for float32-step: every point of the box of its roundings) in K_initial
    _, c0, s0 = zs[i0]
    g2 = _gamma(2) if f32 else Fraction(0)
    rad = [g2 * abs(x) + (H0_ABS if f32 else 0) for x in h0]
    box = [([x * rr for x in offset(unit(r), c0)], phi[r] * rr)
           for r, rr in enumerate(rad) if rr]
    if not _included(_dot(phi, h0), offset(h0, c0), box, s0):
        raise CertificateError("h0 is not in the zonotope of the initial state")
    ag = [[[_dot(row, g) for row in am] for g in gens] for am in mats]  # A g_j, per symbol
    c1 = _gamma(n) + U32 * (1 + _gamma(n)) if f32 else Fraction(0)
    n_incl = 0
    for i, (q, c, s) in enumerate(zs):
        reach = max(abs(c[r]) + sum((abs(g[r]) * sj for g, sj in zip(gens, s)), Fraction(0))
                    for r in range(n)) if f32 else Fraction(0)  # N_i
        for a, am in enumerate(mats):
            t = succ[i][a]
            tq, ct, st = zs[t]
            if tq != delta[a][q]:
                raise CertificateError(f"zonotope {i}, symbol {a}: the successor belongs to "
                                       "another automaton state")
            images = []
            for j, agj in enumerate(ag[a]):
                col = offset(agj, ct)
                for k, xk in enumerate(extra):  # minus X F_a[:, j], then F_a[:, j] itself
                    f = fs[a][k][j]
                    if f:
                        col = [y - f * x for y, x in zip(col, read(xk) + [Fraction(0)] *
                                                         len(extra))]
                        col[n - 1 + k] = f
                images.append(([x * s[j] for x in col], s[j] * _dot(phi, agj)))
            if f32:  # the rounding error: one more generator e_r per coordinate
                rows = [sum((abs(x) for x in row), Fraction(0)) for row in am]
                s_max = (1 + _gamma(n)) * max(rows) + n * TINY
                for r, rr in enumerate(rows):
                    e = reach * (c1 * rr + (n + s_max + 1) * TINY * 2)
                    images.append(([x * e for x in offset(unit(r), ct)], phi[r] * e))
            ac = [_dot(row, c) for row in am]
            if not _included(_dot(phi, ac), offset(ac, ct), images, st):
                raise CertificateError(f"zonotope {i} (state {q}), symbol {a}: the image "
                                       f"leaves zonotope {t}")
            n_incl += 1
    for q, c, s in zs:
        right = [k for k, lab in enumerate(labels) if _same_label(lab, outputs[q])]
        if len(right) != 1:
            raise CertificateError(f"state {q}: the network has no single label {outputs[q]!r}")
        r = right[0]
        for k in range(len(w)):
            if k == r:
                continue
            d = [x - y for x, y in zip(w[r], w[k])]
            low = _dot(d, c) - sum((abs(_dot(d, g)) * sj for g, sj in zip(gens, s)),
                                   Fraction(0))
            if f32:
                reach = max(abs(c[x]) + sum((abs(g[x]) * sj for g, sj in zip(gens, s)),
                                            Fraction(0)) for x in range(n))
                low -= readout_loss32(w[r], w[k], reach, n)
            if low <= 0:
                raise CertificateError(f"state {q}: label {labels[k]!r} is not beaten "
                                       "with a margin")
    return (f"valid: zonotope invariant ({cert['rounding']}) over {len(zs)} zonotopes, "
            f"dimension {n}, {m} generators, {n_incl} inclusions")
