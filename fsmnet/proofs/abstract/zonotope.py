"""Zonotope invariants for linear recurrences h ↦ A_x h, cut by the slice φ·h = 1.

A set per automaton state is the cone over a *slice zonotope*

    Z_i = c_i + G diag(s_i) [-1, 1]^m,   φ·c_i = 1,  φ·G = 0,

with one generator template G = [B_φ | X] for all states: B_φ has the columns
e_j − φ_j e_p (j ≠ p, φ_p = 1), whose coordinates are read off exactly, and X
holds extra generators in ker φ — here K directions in every rotation plane
of the symbols' matrices (the real and imaginary parts of a complex
eigenvector), so that a polygon that a rotation maps into itself is a set of
the domain, where any box in any basis grows by up to √2 per step.

An affine map carries a zonotope exactly: A Z_i = A c_i + A G diag(s_i) [-1,1]^m.
The normalization is linear-fractional, but the inclusion of the cone is a
linear condition (docs/certify.md, "Zonotopes"): with the target's centre c_t,
every image generator is written in the template, P_t A g_j = G E[:, j]
(P_t = I − c_t φ), E's rows on X given by the certificate (one matrix F_a per
symbol, found by a min-ℓ1 LP here) and its rows on B_φ computed exactly by
the checker as the remaining coordinates.  Then, with λ = φ·A c_i,
b_j = s_ij φ·A g_j and u the coordinates of A c_i − λ c_t,

    λ − Σ|b_j| > 0   and   ±u_k − s_tk λ + Σ_j |±E_kj s_ij − s_tk b_j| ≤ 0  (every k)

give A Z_i ⊆ (φ·A z) Z_t pointwise: the maximum of a linear form over the
cube is an ℓ1 norm, exact in Fractions, no LP in the checker
(:mod:`fsmnet.proofs.checker.zonotope`).  With ``--float32`` the rounding error of
each step enters as one more image generator per coordinate (the checker's
``float32-step`` model, as for slice boxes).
"""

from __future__ import annotations

from collections.abc import Iterator
from fractions import Fraction
from typing import Any

import numpy as np

from fsmnet.automata import Automaton
from fsmnet.proofs.abstract.rounding import U32, gamma

GRID = 2.0 ** -40
DIRECTIONS = 8  # generators per rotation plane (a 16-gon: ℓ1 cost 1/cos(π/16) ≈ 1.02)
# At most this many extra generators: each costs one LP per symbol in `representation`
# (docs/performance.md, "certify at H = 64"); past it, the planes of the largest
# eigenvalues (relative to their matrix's spectral radius) are kept.
MAX_EXTRA = 96


def _dyadic(x: float, up: bool | None = None) -> Fraction:
    k = np.ceil(x / GRID) if up else np.floor(x / GRID) if up is False else np.round(x / GRID)
    return Fraction(int(k)) * Fraction(GRID)


def template(mats: np.ndarray, phi: list[Fraction], pivot: int, center: np.ndarray
             ) -> list[list[Fraction]]:
    """Extra generators X (exact, in ker φ): DIRECTIONS per complex eigenpair of each
    symbol's matrix, projected into ker φ along ``center`` (a regular polygon in the
    plane's real Jordan coordinates, where the symbol acts as a rotation and scaling);
    directions within about 2.5° of one already present are left out, and past
    :data:`MAX_EXTRA` those of the weakest planes."""
    n = len(phi)
    phif = np.array([float(x) for x in phi])
    seen = [np.eye(n)[j] - phif[j] * np.eye(n)[pivot] for j in range(n) if j != pivot]
    out: list[tuple[float, list[Fraction]]] = []  # (relative modulus of the plane, x)

    def parallel(g: np.ndarray) -> bool:
        return any(abs(g @ h) >= (1 - 1e-3) * np.linalg.norm(g) * np.linalg.norm(h)
                   for h in seen)

    for a in mats:
        vals, vecs = np.linalg.eig(a)
        top = max(float(np.abs(vals).max()), 1e-300)
        for k, lam in enumerate(vals):
            if lam.imag <= 1e-9 * top or abs(lam) < 0.05 * top:
                continue  # one of each conjugate pair, and not a negligible mode
            re, im = vecs[:, k].real, vecs[:, k].imag
            re, im = re - (phif @ re) * center, im - (phif @ im) * center
            size = max(np.abs(re).max(), np.abs(im).max())
            if size < 1e-12:
                continue
            re, im = re / size, im / size
            for d in range(DIRECTIONS):
                t = np.pi * d / DIRECTIONS
                g = np.cos(t) * re + np.sin(t) * im
                if np.abs(g).max() < 1e-9 or parallel(g):
                    continue
                x = [_dyadic(float(v)) for v in g]
                x[pivot] -= sum((f * v for f, v in zip(phi, x)), Fraction(0))  # φ·x = 0
                seen.append(np.array([float(v) for v in x]))
                out.append((abs(lam) / top, x))
    if len(out) > MAX_EXTRA:
        cut = sorted((-m for m, _ in out))[MAX_EXTRA - 1]
        kept = [i for i, (m, _) in enumerate(out) if -m <= cut][:MAX_EXTRA]
        out = [out[i] for i in kept]
    return [x for _, x in out]


def _generators(phi: np.ndarray, pivot: int, extra: np.ndarray) -> np.ndarray:
    n = len(phi)
    basis = [np.eye(n)[j] - phi[j] * np.eye(n)[pivot] for j in range(n) if j != pivot]
    cols = basis + list(extra)
    return np.array(cols).T  # n × m


def _coords(v: np.ndarray, pivot: int) -> np.ndarray:
    return np.delete(v, pivot, axis=0)


def representation(g: np.ndarray, mats: np.ndarray, center: np.ndarray, phi: np.ndarray,
                   n_extra: int) -> list[np.ndarray]:
    """F_a (n_extra × m) per symbol: the X-part of a min-ℓ1 representation of
    (I − c φ) A g_j in the template, for a reference centre c."""
    from scipy.optimize import linprog

    n, m = g.shape
    out = []
    for a in mats:
        targets = a @ g
        targets = targets - np.outer(center, phi @ targets)
        f = np.zeros((n_extra, m))
        if n_extra:
            for j in range(m):
                res = linprog(np.ones(2 * m), A_eq=np.c_[g, -g], b_eq=targets[:, j],
                              bounds=[(0, None)] * (2 * m), method="highs")
                if res.status == 0:
                    e = res.x[:m] - res.x[m:]
                    f[:, j] = e[m - n_extra:]
        out.append(f)
    return out


def _full_e(a: np.ndarray, g: np.ndarray, f: np.ndarray, extra: np.ndarray, ct: np.ndarray,
            phi: np.ndarray, pivot: int) -> np.ndarray:
    """E (m × m) as the checker builds it, in floats."""
    ag = a @ g
    rest = ag - np.outer(ct, phi @ ag) - (extra.T @ f if len(extra) else 0)
    return np.vstack([_coords(rest, pivot), f])


def _mass_functional(mats: np.ndarray, points: list[np.ndarray]) -> Any:
    """The dominant left eigenvector of the mean matrix, as a chart, when it is real and
    positive on every sampled state: a functional that the symbols nearly preserve
    (φ A_x ≈ μ φ), so the slice loses little to the normalization."""
    from fsmnet.proofs.abstract.linear import Chart

    vals, vecs = np.linalg.eig(np.mean(mats, axis=0).T)
    k = int(np.argmax(np.abs(vals)))
    if abs(vals[k].imag) > 1e-12 or np.abs(vecs[:, k].imag).max() > 1e-12:
        return None
    phi = vecs[:, k].real
    pts = np.array([x / max(np.abs(x).max(), 1e-300) for x in points])
    if np.min(pts @ phi) < 0:
        phi = -phi
    if np.min(pts @ phi) <= 1e-9 * np.abs(phi).sum():
        return None
    pivot = int(np.argmax(phi))
    if not np.all(np.isfinite(phi)) or phi[pivot] <= 0:
        return None
    phi = phi / phi[pivot]
    if not np.all(np.isfinite(phi)):  # a pivot entry near 0 (seen on a mutant: infinity)
        return None
    exact = [Fraction(round(float(x) * 2**20), 2**20) for x in phi]
    exact[pivot] = Fraction(1)
    return Chart(exact, pivot)


def prepare(net: Any, clouds: dict[int, list[np.ndarray]], rounding: Any = None
            ) -> tuple[Any, str]:
    """(the search's fixed data: φ, template, F_a; or None, why not) — computed once
    for every inflation (the F_a are one LP per generator and symbol).  With a
    ``rounding`` model the matrices are its float32 ones."""
    from fsmnet.nets.linear import LinearRecurrence
    from fsmnet.proofs.abstract.linear import choose_chart

    sem = net.semantics
    if not isinstance(sem, LinearRecurrence):
        return None, f"{net.arch} is not a linear recurrence"
    mats = rounding.mats32 if rounding else np.asarray(sem.matrices(net, False), float)
    chart = _mass_functional(mats, [h for pts in clouds.values() for h in pts])
    if chart is None:
        chart = choose_chart([h for pts in clouds.values() for h in pts])
    if chart is None:
        return None, "no linear functional is positive on every sampled state"
    phi = np.array([float(x) for x in chart.phi])
    states = [q for q in sorted(clouds) if clouds[q]]
    pts = {q: np.array(clouds[q]) / (np.array(clouds[q]) @ phi)[:, None] for q in states}
    ref = np.mean([pts[q].mean(0) for q in states], axis=0)
    extra_q = template(mats, chart.phi, chart.pivot, ref)
    if not extra_q:  # then the template is the chart basis: boxes were tried already
        return None, "no rotation plane: zonotopes add nothing to the boxes"
    extra = np.array([[float(v) for v in x] for x in extra_q])
    g = _generators(phi, chart.pivot, extra)
    fs = representation(g, mats, ref, phi, len(extra))
    fs = [np.vectorize(lambda v: float(_dyadic(v)))(f) for f in fs]
    return (chart, mats, states, pts, extra_q, extra, g, fs, rounding), ""


def search(net: Any, automaton: Automaton, clouds: dict[int, list[np.ndarray]],
           right: dict[int, int], *, pad: float = 0.05, max_rounds: int = 400,
           blow_up: float = 1e3, prep: Any = None) -> tuple[dict[str, Any] | None, str]:
    """A ``zonotope-invariant`` certificate body (float search, exact data), or why not."""
    from fsmnet.proofs.certificate_models import exact_qs

    if prep is None:
        prep, why = prepare(net, clouds)
        if prep is None:
            return None, why
    chart, mats, states, pts, extra_q, extra, g, fs, rounding = prep
    readout = rounding.readout32 if rounding else np.asarray(
        net.semantics.readout_matrix(net, False), float)
    p, phi_q = chart.pivot, chart.phi
    phi = np.array([float(x) for x in phi_q])
    centers = {q: pts[q].mean(0) for q in states}
    m = g.shape[1]
    # exact centres: dyadic, then the pivot coordinate fixes φ·c = 1 exactly
    cq: dict[int, list[Fraction]] = {}
    for q in states:
        c = [_dyadic(float(v)) for v in centers[q]]
        c[p] += 1 - sum((f * v for f, v in zip(phi_q, c)), Fraction(0))
        cq[q] = c
        centers[q] = np.array([float(v) for v in c])
    scale = {q: np.r_[np.abs(_coords((pts[q] - centers[q]).T, p)).max(1) * (1 + pad) + pad * 1e-3,
                      np.zeros(len(extra))] for q in states}
    es = {(a, t): _full_e(mats[a], g, fs[a], extra, centers[t], phi, p)
          for a in range(len(mats)) for t in states}
    for rounds in range(1, max_rounds + 1):
        grew = False
        for q in states:
            for a in range(len(mats)):
                t = int(automaton.delta[a, q])
                if t not in scale:
                    return None, f"state {t} has no sampled network state"
                ac = mats[a] @ centers[q]
                lam = float(phi @ ac)
                b = (phi @ mats[a] @ g) * scale[q]
                den = lam - np.abs(b).sum()
                if den <= 0:
                    return None, (f"the image of the zonotope of state {q} under symbol {a} "
                                  "leaves the half-space φ > 0")
                u = np.r_[_coords(ac - lam * centers[t], p), np.zeros(len(extra))]
                need = np.abs(u) + np.abs(es[(a, t)]) @ scale[q]
                if rounding is not None:  # the checker's error generators e_r, generously
                    err = (gamma(len(phi)) + 2 * U32) * np.abs(mats[a]).sum(1) * 1.01 + 1e-40
                    err = err * float(np.max(np.abs(centers[q]) + np.abs(g) @ scale[q]))
                    units = np.eye(len(phi)) - np.outer(centers[t], phi)
                    need = need + np.abs(np.r_[_coords(units, p),
                                               np.zeros((len(extra), len(phi)))]) @ err
                    den -= float(np.abs(phi) @ err)
                    if den <= 0:
                        return None, "the rounding error leaves the half-space φ > 0"
                need = need / den
                if np.any(need > scale[t] * (1 - 1e-9)):
                    grown = np.maximum(scale[t], need * (1 + 1e-3) + 1e-12)
                    if rounds > 40:  # widening
                        grown = scale[t] + 2 * (grown - scale[t])
                    scale[t] = grown
                    grew = True
                    if np.max(grown) > blow_up:
                        return None, f"the zonotope of state {t} blew up"
        if not grew:
            break
    else:
        return None, f"no fixed point within {max_rounds} rounds"
    for q in states:
        r = right[q]
        for k in range(len(readout)):
            d = readout[r] - readout[k]
            slack = 0.0
            if rounding is not None:
                slack = float(np.max(np.abs(centers[q]) + np.abs(g) @ scale[q])) * 1.01 * (
                    gamma(len(phi)) * float(np.abs(readout[r]).sum() + np.abs(readout[k]).sum())
                    + 1e-40)
            if k != r and d @ centers[q] - np.abs(d @ g) @ scale[q] - slack <= 0:
                return None, f"the zonotope of state {q} is not read out with a margin"
    q0 = automaton.initial
    assert q0 is not None
    order = [q0] + [q for q in states if q != q0]
    index = {q: i for i, q in enumerate(order)}
    body = {"method": "zonotope-invariant", "domain": "zonotope",
            "rounding": "exact" if rounding is None else "float32-step",
            "phi": exact_qs(phi_q), "pivot": p,
            "extra": exact_qs(np.array(extra_q, dtype=object)),
            "coefficients": [exact_qs(np.vectorize(Fraction, otypes=[object])(f)) for f in fs],
            "initial_zonotope": 0,
            "successors": [[index[int(automaton.delta[a, q])] for a in range(len(mats))]
                           for q in order],
            "zonotopes": [{"state": q, "center": exact_qs(cq[q]),
                           "scale": exact_qs([_dyadic(float(v), True) for v in scale[q]])}
                          for q in order]}
    if rounding is not None:
        body["model32"] = {"matrices": exact_qs(np.vectorize(Fraction, otypes=[object])(
            rounding.mats32)), "readout": exact_qs(np.vectorize(Fraction, otypes=[object])(
                rounding.readout32))}
    return body, f"closed after {rounds} rounds, {len(order)} zonotopes, {m} generators"


def candidates(net: Any, automaton: Automaton, clouds: dict[int, list[np.ndarray]],
               right: dict[int, int], rounding: Any = None
               ) -> Iterator[tuple[dict[str, Any] | None, str]]:
    """(body, why) per inflation, as the other domains (the caller checks exactly);
    ``rounding``: the float32 model (:class:`.rounding.Float32Model`) or None."""
    prep, why = prepare(net, clouds, rounding)
    if prep is None:
        yield None, f"{why} (zonotopes)"
        return
    for pad in (0.05, 0.3):
        body, why = search(net, automaton, clouds, right, pad=pad, prep=prep)
        yield body, f"{why} (zonotopes, inflation {pad})"
        if body is not None:
            return
