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

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from .core import CertificateError, is_index, read_automaton
from .fields import (
    Matrix,
    Refinement,
    RefinementWords,
    Vector,
    matrix,
    read_refinement,
    single_label,
    vector,
)
from .linear_model import (
    LinearModel,
    h0_radius32,
    read_executed,
    readout_loss32,
    require_fit,
    step_error32,
)

ZONOTOPE_WORDS = RefinementWords(
    "initial_zonotope is not a zonotope of the initial state",
    "one successor zonotope per zonotope and symbol is required",
    "one successor zonotope per zonotope and symbol is required",
    "zonotope {i}, symbol {a}: the successor belongs to another automaton state")


def _dot(a: Sequence[Fraction], b: Sequence[Fraction]) -> Fraction:
    return sum((x * y for x, y in zip(a, b) if x and y), Fraction(0))


@dataclass(frozen=True)
class Template:
    """The generators G shared by every zonotope: e_j − φ_j e_p for j ≠ p (in order),
    then the extra generators X (each with φ·x = 0)."""

    phi: Vector
    pivot: int
    extra: Matrix
    generators: tuple[Vector, ...]

    @property
    def dim(self) -> int:
        return len(self.phi)

    def read(self, v: Sequence[Fraction]) -> list[Fraction]:
        """The coordinates of v ∈ ker φ on the first H − 1 generators."""
        return [v[j] for j in range(self.dim) if j != self.pivot]

    def offset(self, v: Sequence[Fraction], ct: Vector) -> list[Fraction]:
        """The coordinates of v − (φ·v) c_t, zero on the extra generators."""
        mass = _dot(self.phi, v)
        return self.read([x - mass * y for x, y in zip(v, ct)]) + [Fraction(0)] * len(
            self.extra)

    def unit(self, r: int) -> list[Fraction]:
        return [Fraction(int(i == r)) for i in range(self.dim)]


def _template(phi: Vector, p: int, extra: Matrix) -> Template:
    n = len(phi)
    gens = tuple(tuple(Fraction(int(i == j)) - (phi[j] if i == p else 0) for i in range(n))
                 for j in range(n) if j != p) + extra
    return Template(phi, p, extra, gens)


@dataclass(frozen=True)
class Zonotope:
    """Z = center + G diag(scale) [-1, 1]^m, a set of automaton state ``state``."""

    state: int
    center: Vector
    scale: Vector


@dataclass(frozen=True)
class ZonotopeCertificate:
    """A zonotope-invariant certificate, parsed."""

    labels: tuple[Any, ...]
    model: LinearModel  # the model the claim is about (float32 matrices for float32-step)
    float32: bool
    template: Template
    coefficients: tuple[Matrix, ...]  # F_a per symbol, |X| × m
    zonotopes: tuple[Zonotope, ...]
    refinement: Refinement
    rights: tuple[int, ...]  # per zonotope: the network label of its state's output


def _parse_template(cert: dict[str, Any], model: LinearModel, n_labels: int,
                    n_symbols: int) -> Template:
    n = model.dim
    phi, p = vector(cert["phi"]), cert["pivot"]
    if len(phi) != n or not is_index(p, n) or phi[p] != 1:
        raise CertificateError("phi and pivot do not fit the model (phi[pivot] must be 1)")
    require_fit(model, n_symbols, n_labels, readout=True)
    extra = matrix(cert["extra"])
    if any(len(x) != n or _dot(phi, x) != 0 for x in extra):
        raise CertificateError("every extra generator needs phi·x = 0")
    return _template(phi, p, extra)


def _parse_zonotope_list(entries: Any, tpl: Template, n_states: int) -> tuple[Zonotope, ...]:
    out = []
    m = len(tpl.generators)
    for z in entries:
        q, c, s = z["state"], vector(z["center"]), vector(z["scale"])
        if not is_index(q, n_states) or len(c) != tpl.dim or len(s) != m:
            raise CertificateError(f"zonotope of state {q!r}: bad state or size")
        if _dot(tpl.phi, c) != 1 or any(x < 0 for x in s):
            raise CertificateError(f"zonotope of state {q}: phi·center must be 1, scales >= 0")
        out.append(Zonotope(q, c, s))
    return tuple(out)


def _parse(cert: dict[str, Any]) -> ZonotopeCertificate:
    automaton = read_automaton(cert["automaton"])
    labels = tuple(cert["network"]["labels"])
    if cert.get("domain") != "zonotope":
        raise CertificateError("this method is for the zonotope domain")
    model, float32 = read_executed(cert)
    tpl = _parse_template(cert, model, len(labels), automaton.n_symbols)
    fs = tuple(matrix(f) for f in cert["coefficients"])
    m = len(tpl.generators)
    if len(fs) != len(model.matrices) or any(
            len(f) != len(tpl.extra) or any(len(r) != m for r in f) for f in fs):
        raise CertificateError("one coefficient matrix (|extra| × m) per symbol is required")
    zs = _parse_zonotope_list(cert["zonotopes"], tpl, automaton.n_states)
    refinement = read_refinement([z.state for z in zs], cert["initial_zonotope"],
                                 cert["successors"], automaton, ZONOTOPE_WORDS)
    rights = tuple(single_label(labels, automaton.outputs, z.state) for z in zs)
    return ZonotopeCertificate(labels, model, float32, tpl, fs, zs, refinement, rights)


def _included(lam: Fraction, u: list[Fraction], images: list[tuple[list[Fraction], Fraction]],
              target_scale: Vector) -> bool:
    """Every point lam·c + Σ_j ξ_j v_j (‖ξ‖∞ ≤ 1) is a positive multiple of a point of the
    target zonotope, given u (coordinates of the centre's offset lam·c − (φ·)c_t) and, per
    image generator v_j, (coordinates of (I − c_t φ) v_j, φ·v_j)."""
    if lam - sum((abs(mass) for _, mass in images), Fraction(0)) <= 0:
        return False
    for k, sk in enumerate(target_scale):
        for sigma in (1, -1):
            v = sigma * u[k] - sk * lam + sum((abs(sigma * col[k] - sk * mass)
                                               for col, mass in images), Fraction(0))
            if v > 0:
                return False
    return True


def _reach(tpl: Template, z: Zonotope) -> Fraction:
    """N_i = max over Z_i of ‖z‖∞."""
    return max(abs(z.center[r]) + sum((abs(g[r]) * sj for g, sj in zip(tpl.generators,
                                                                        z.scale)),
                                      Fraction(0))
               for r in range(tpl.dim))


def _check_initial(zc: ZonotopeCertificate) -> None:
    """h0 (for float32-step: every point of the box of its roundings) in K_initial."""
    tpl, h0 = zc.template, zc.model.h0
    first = zc.zonotopes[zc.refinement.initial]
    rad = h0_radius32(h0) if zc.float32 else [Fraction(0)] * len(h0)
    box = [([x * rr for x in tpl.offset(tpl.unit(r), first.center)], tpl.phi[r] * rr)
           for r, rr in enumerate(rad) if rr]
    if not _included(_dot(tpl.phi, h0), tpl.offset(h0, first.center), box, first.scale):
        raise CertificateError("h0 is not in the zonotope of the initial state")


def _image_generators(tpl: Template, a_gens: list[list[Fraction]], f_a: Matrix,
                      source: Zonotope, target: Zonotope) -> list[tuple[list[Fraction],
                                                                        Fraction]]:
    """Per template generator g_j of the source: (the coordinates of
    s_j (A g_j − c_t φ·A g_j − X F_a[:, j]) stacked on s_j F_a[:, j], s_j φ·A g_j)."""
    n, images = tpl.dim, []
    for j, agj in enumerate(a_gens):
        col = tpl.offset(agj, target.center)
        for k, xk in enumerate(tpl.extra):  # minus X F_a[:, j], then F_a[:, j] itself
            f = f_a[k][j]
            if f:
                col = [y - f * x for y, x in zip(col, tpl.read(xk) + [Fraction(0)] *
                                                 len(tpl.extra))]
                col[n - 1 + k] = f
        sj = source.scale[j]
        images.append(([x * sj for x in col], sj * _dot(tpl.phi, agj)))
    return images


def _rounding_generators(tpl: Template, am: Matrix, target: Zonotope, reach: Fraction
                         ) -> list[tuple[list[Fraction], Fraction]]:
    """float32-step: the rounding error, one more generator e_r of scale N_i err_r per
    coordinate."""
    out = []
    for r, err in enumerate(step_error32(am, tpl.dim)):
        e = reach * err
        out.append(([x * e for x in tpl.offset(tpl.unit(r), target.center)], tpl.phi[r] * e))
    return out


def _check_inclusions(zc: ZonotopeCertificate) -> int:
    """A K_i ⊆ K_t for every zonotope i and symbol a (t its successor); the number of
    inclusions checked."""
    tpl = zc.template
    ag = [[[_dot(row, g) for row in am] for g in tpl.generators]
          for am in zc.model.matrices]  # A g_j, per symbol
    n_incl = 0
    for i, z in enumerate(zc.zonotopes):
        reach = _reach(tpl, z) if zc.float32 else Fraction(0)
        for a, am in enumerate(zc.model.matrices):
            t = zc.refinement.successors[i][a]
            target = zc.zonotopes[t]
            images = _image_generators(tpl, ag[a], zc.coefficients[a], z, target)
            if zc.float32:
                images += _rounding_generators(tpl, am, target, reach)
            ac = [_dot(row, z.center) for row in am]
            if not _included(_dot(tpl.phi, ac), tpl.offset(ac, target.center), images,
                             target.scale):
                raise CertificateError(f"zonotope {i} (state {z.state}), symbol {a}: the "
                                       f"image leaves zonotope {t}")
            n_incl += 1
    return n_incl


def _check_margins(zc: ZonotopeCertificate) -> None:
    """For every rival c of the right label r: min over Z of (W_r − W_c)·z > 0."""
    tpl, w, n = zc.template, zc.model.readout, zc.template.dim
    for z, r in zip(zc.zonotopes, zc.rights):
        for k in range(len(w)):
            if k == r:
                continue
            d = [x - y for x, y in zip(w[r], w[k])]
            low = _dot(d, z.center) - sum((abs(_dot(d, g)) * sj
                                           for g, sj in zip(tpl.generators, z.scale)),
                                          Fraction(0))
            if zc.float32:
                low -= readout_loss32(w[r], w[k], _reach(tpl, z), n)
            if low <= 0:
                raise CertificateError(f"state {z.state}: label {zc.labels[k]!r} is not beaten "
                                       "with a margin")


def check_zonotopes(cert: dict[str, Any]) -> str:
    """Re-check a ``zonotope-invariant`` certificate; a one-line summary or CertificateError."""
    zc = _parse(cert)
    _check_initial(zc)
    n_incl = _check_inclusions(zc)
    _check_margins(zc)
    return (f"valid: zonotope invariant ({cert['rounding']}) over {len(zc.zonotopes)} "
            f"zonotopes, dimension {zc.template.dim}, {len(zc.template.generators)} "
            f"generators, {n_incl} inclusions")
