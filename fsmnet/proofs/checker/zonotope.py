"""Method ``zonotope-invariant`` (linear models, exact arithmetic): a cone over a
slice zonotope per automaton state, closed under every symbol, read out right.

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
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from .core import CertificateError, _automaton_table, _mat, _same_label, _vec


def _dot(a: list[Fraction], b: list[Fraction]) -> Fraction:
    return sum((x * y for x, y in zip(a, b) if x and y), Fraction(0))


def check_zonotopes(cert: dict[str, Any]) -> str:
    """Re-check a ``zonotope-invariant`` certificate; a one-line summary or CertificateError."""
    delta, outputs, q0, _ = _automaton_table(cert["automaton"])
    model, labels = cert["network"]["model"], cert["network"]["labels"]
    if model.get("type") != "linear" or cert.get("rounding") != "exact" or \
            cert.get("domain") != "zonotope":
        raise CertificateError("zonotopes are for linear models in exact arithmetic")
    mats, w, h0 = [_mat(m) for m in model["matrices"]], _mat(model["readout"]), \
        _vec(model["h0"])
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

    # h0 in the cone of the initial zonotope
    _, c0, s0 = zs[i0]
    mass = _dot(phi, h0)
    if mass <= 0:
        raise CertificateError("phi is not positive at h0")
    coord = read([x / mass - y for x, y in zip(h0, c0)])
    if any(abs(x) > s for x, s in zip(coord, s0)):
        raise CertificateError("h0 is not in the zonotope of the initial state")
    ag = [[[_dot(row, g) for row in am] for g in gens] for am in mats]  # A g_j, per symbol
    n_incl = 0
    for i, (q, c, s) in enumerate(zs):
        for a, am in enumerate(mats):
            t = succ[i][a]
            tq, ct, st = zs[t]
            if tq != delta[a][q]:
                raise CertificateError(f"zonotope {i}, symbol {a}: the successor belongs to "
                                       "another automaton state")
            ac = [_dot(row, c) for row in am]
            lam = _dot(phi, ac)
            b = [sj * _dot(phi, agj) for sj, agj in zip(s, ag[a])]
            if lam - sum((abs(x) for x in b), Fraction(0)) <= 0:
                raise CertificateError(f"zonotope {i}, symbol {a}: the image leaves phi > 0")
            u = read([x - lam * y for x, y in zip(ac, ct)]) + [Fraction(0)] * len(extra)
            cols = []
            for j, agj in enumerate(ag[a]):
                mass_j = _dot(phi, agj)
                rest = [x - mass_j * y - sum((xk[r] * fs[a][k][j] for k, xk in enumerate(extra)),
                                              Fraction(0)) for r, (x, y) in
                        enumerate(zip(agj, ct))]
                cols.append(read(rest) + [fs[a][k][j] for k in range(len(extra))])
            for k in range(m):
                for sigma in (1, -1):
                    v = sigma * u[k] - st[k] * lam + sum(
                        (abs(sigma * cols[j][k] * s[j] - st[k] * b[j]) for j in range(m)),
                        Fraction(0))
                    if v > 0:
                        raise CertificateError(f"zonotope {i} (state {q}), symbol {a}: the "
                                               f"image leaves zonotope {t}")
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
            if low <= 0:
                raise CertificateError(f"state {q}: label {labels[k]!r} is not beaten "
                                       "with a margin")
    return (f"valid: zonotope invariant (exact) over {len(zs)} zonotopes, dimension {n}, "
            f"{m} generators, {n_incl} inclusions")
