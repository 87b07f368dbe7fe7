"""Method ``box-invariant``: a set per automaton state, closed under every symbol,
read out correctly with a strict margin; every inclusion re-checked in Fractions.

Domains (``cert["domain"]``):

* ``chart-box`` (linear models).  The certificate gives a basis B, its
  inverse, a pivot p and per state q a box [lo_q, hi_q] with lo_p = hi_p = 1.
  K_q = {λ B⁻¹ y : λ > 0, lo_q ≤ y ≤ hi_q} is a cone (positive scaling changes
  neither the normalization nor the argmax).  Checked here, with
  M_a = B A_a B⁻¹ computed here:
    1. B B⁻¹ = I;
    2. h0 ∈ K_q0 (for ``float32-step``: the whole box of float32 roundings of h0);
    3. for every boxed q and symbol a, with t = δ(a, q) boxed too:
       min_box M_p·y > 0, min_box (M_i − lo_t,i M_p)·y ≥ 0 and
       min_box (hi_t,i M_p − M_i)·y ≥ 0 for i ≠ p — then A_a K_q ⊆ K_t;
    4. every rival c of the right label r: min_box ((R_r − R_c) B⁻¹)·y > 0.
  The minimum of a linear form over a box is exact interval arithmetic.
* ``minmax-box`` (minmax-dense models).  x ↦ (R_a ⊗ x) ⊕ s_a is monotone, so
  the image of the box [lo, hi] lies in [f(lo), f(hi)]; checked: x0 in the
  box of q0, [f(lo_q), f(hi_q)] ⊆ box of δ(a, q), and the readout's lowest
  right score beats the highest rival score (strictly for a rival listed
  before the right label, as argmax takes the first maximum).

Rounding model ``float32-select`` (minmax-box only): every number of the
model (R, s, readout, x0) is checked here to be exactly a float32 value.  A
max-min step and readout only select and compare among those numbers, so a
float32 run computes exactly what the exact run computes and the exact claim
covers it (any evaluation order: max and min need no rounding).

Rounding model ``float32-step`` (chart-box only): the claim also covers
h_t = fl(fl(A h_{t-1}) / max_i |fl(A h_{t-1})_i|) with the float32 matrices
``model32`` (checked here to be the float32 roundings of the exact model),
every dot product in any order (with or without FMA, gradual underflow
included), and labels = first argmax of fl(R h).  Each step then lies within
e of s·A h with |e| ≤ c1 |A| 1 + c2 (|h| ≤ 1 after normalization), which is
added to every condition of 3 and 4, scaled by N_q = max over K_q's chart of
‖B⁻¹ y‖∞ (so that y_p ≥ 1 / N_q when ‖h‖∞ = 1).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from .core import Automaton, CertificateError, _frac, is_index, read_automaton
from .fields import (
    BOX_WORDS,
    Matrix,
    Refinement,
    Vector,
    matrix,
    read_refinement,
    single_label,
    vector,
)
from .linear_model import (
    H0_ABS,
    TINY,
    U32,
    LinearModel,
    _gamma,
    _is_float32,
    check_float32_magnitudes,
    h0_radius32,
    read_executed,
    readout_loss32,
    require_fit,
    step_error32,
)

# Moved to .linear_model; still importable from here, where they were first written.
__all__ = ["H0_ABS", "TINY", "U32", "_gamma", "check_float32_magnitudes", "check_invariants",
           "readout_loss32"]


# ------------------------------------------------------------------ boxes, any domain

@dataclass(frozen=True)
class Box:
    """[lo, hi] in the domain's coordinates, a set of automaton state ``state``."""

    state: int
    lo: Vector
    hi: Vector


@dataclass(frozen=True)
class Boxes:
    """The boxes of a certificate, their successors, and each box's right label."""

    automaton: Automaton
    labels: tuple[Any, ...]
    boxes: tuple[Box, ...]
    refinement: Refinement
    rights: tuple[int, ...]  # per box: the network label of its state's output


def read_boxes(cert: dict[str, Any], automaton: Automaton, dim: int) -> Boxes:
    """(state, lo, hi) per box, the successor box per symbol, and the initial box; the
    successors must follow the automaton (a refinement of it: several boxes may
    share a state), and every boxed state must have one network label."""
    boxes = []
    for box in cert["boxes"]:
        q, lo, hi = box["state"], vector(box["lo"]), vector(box["hi"])
        if not is_index(q, automaton.n_states) or len(lo) != dim or len(hi) != dim:
            raise CertificateError(f"box of state {q!r}: bad state or size")
        if any(a > b for a, b in zip(lo, hi)):
            raise CertificateError(f"box of state {q}: lo > hi")
        boxes.append(Box(q, lo, hi))
    states = [b.state for b in boxes]
    refinement = read_refinement(states, cert["initial_box"], cert["successors"], automaton,
                                 BOX_WORDS)
    labels = tuple(cert["network"]["labels"])
    rights = tuple(single_label(labels, automaton.outputs, q) for q in states)
    return Boxes(automaton, labels, tuple(boxes), refinement, rights)


def _lin_min(c: Sequence[Fraction], lo: Sequence[Fraction], hi: Sequence[Fraction]
             ) -> Fraction:
    """min over the box of c·y (each coordinate independently)."""
    return sum((ci * (lo[j] if ci >= 0 else hi[j]) for j, ci in enumerate(c) if ci),
               Fraction(0))


def _matmul(a: Sequence[Sequence[Fraction]], b: Sequence[Sequence[Fraction]]
            ) -> list[list[Fraction]]:
    n = len(b[0])
    out = []
    for row in a:
        acc = [Fraction(0)] * n
        for k, x in enumerate(row):
            if x:
                acc = [s + x * v for s, v in zip(acc, b[k])] if any(b[k]) else acc
        out.append(acc)
    return out


def _unit(k: int, dim: int) -> list[Fraction]:
    return [Fraction(int(j == k)) for j in range(dim)]


def _h0_box(h0: Vector, float32: bool) -> tuple[list[Fraction], list[Fraction]]:
    """The box of h0's float32 roundings (up to a common scale), or h0 itself."""
    rad = h0_radius32(h0) if float32 else [Fraction(0)] * len(h0)
    return [x - r for x, r in zip(h0, rad)], [x + r for x, r in zip(h0, rad)]


# ------------------------------------------------------------------ chart-box

@dataclass(frozen=True)
class ChartCertificate:
    """A chart-box certificate, parsed: K_q = {λ B⁻¹ y : λ > 0, y in box q}, y_p = 1."""

    boxes: Boxes
    model: LinearModel  # the model the claim is about (float32 matrices for float32-step)
    float32: bool
    basis: Matrix
    basis_inverse: Matrix
    pivot: int


def _parse_chart(cert: dict[str, Any]) -> ChartCertificate:
    automaton = read_automaton(cert["automaton"])
    model, float32 = read_executed(cert)  # float32 matrices checked there
    dim = model.dim
    b, binv, p = matrix(cert["basis"]), matrix(cert["basis_inverse"]), cert["pivot"]
    if not is_index(p, dim) or len(b) != dim or len(binv) != dim:
        raise CertificateError("basis, inverse and pivot do not fit the model")
    require_fit(model, automaton.n_symbols, len(cert["network"]["labels"]))
    boxes = read_boxes(cert, automaton, dim)
    if any(box.lo[p] != 1 or box.hi[p] != 1 for box in boxes.boxes):
        raise CertificateError("every box must fix the pivot coordinate to 1")
    return ChartCertificate(boxes, model, float32, b, binv, p)


def _chart_conditions(lo: Vector, hi: Vector, p: int, dim: int
                      ) -> list[tuple[list[Fraction], bool]]:
    """y-functionals (and whether strictly) positive exactly on the cone over box [lo, hi]:
    y_p > 0, y_i − lo_i y_p ≥ 0 and hi_i y_p − y_i ≥ 0 for i ≠ p."""
    out = [(_unit(p, dim), True)]
    for i in range(dim):
        if i != p:
            out.append(([Fraction(int(j == i)) - (lo[i] if j == p else 0)
                         for j in range(dim)], False))
            out.append(([(hi[i] if j == p else 0) - Fraction(int(j == i))
                         for j in range(dim)], False))
    return out


def _to_h(chart: ChartCertificate, y_coefs: list[Fraction]) -> list[Fraction]:
    """A functional of y as a functional of h = B⁻¹ y (that is, y_coefs · B)."""
    nz = [(i, c) for i, c in enumerate(y_coefs) if c]
    return [sum((c * chart.basis[i][j] for i, c in nz), Fraction(0))
            for j in range(chart.model.dim)]


def _chart_reach(chart: ChartCertificate, box: Box) -> Fraction:
    """N_q: max over the chart box of ‖B⁻¹ y‖∞ (zero unless float32: not needed)."""
    if not chart.float32:
        return Fraction(0)
    return max(max(-_lin_min(row, box.lo, box.hi), _lin_min([-x for x in row], box.lo,
                                                              box.hi) * -1)
               for row in chart.basis_inverse)


def _check_chart_initial(chart: ChartCertificate) -> None:
    """h0 (for float32-step: the whole box of its float32 roundings) lies in K_q0."""
    h_lo, h_hi = _h0_box(chart.model.h0, chart.float32)
    first = chart.boxes.boxes[chart.boxes.refinement.initial]
    for coefs, strict in _chart_conditions(first.lo, first.hi, chart.pivot, chart.model.dim):
        v = _lin_min(_to_h(chart, coefs), h_lo, h_hi)
        if v < 0 or (strict and v == 0):
            raise CertificateError("h0 is not in the box of the initial state")


def _check_chart_inclusions(chart: ChartCertificate) -> int:
    """A_a K_q ⊆ K_t for every box q and symbol a (t its successor): M_a = B A_a B⁻¹ maps
    the box into the cone over box t; the number of inclusions checked."""
    dim, p, boxes = chart.model.dim, chart.pivot, chart.boxes
    ms = [_matmul(chart.basis, _matmul(a, chart.basis_inverse)) for a in chart.model.matrices]
    n_incl = 0
    for i, box in enumerate(boxes.boxes):
        nq = _chart_reach(chart, box)
        for a, (ma, am) in enumerate(zip(ms, chart.model.matrices)):
            t = boxes.refinement.successors[i][a]
            target = boxes.boxes[t]
            err = step_error32(am, dim) if chart.float32 else None
            for coefs, strict in _chart_conditions(target.lo, target.hi, p, dim):
                nz = [(k, c) for k, c in enumerate(coefs) if c]  # e_k and e_p: two terms
                row = [sum((c * ma[k][j] for k, c in nz), Fraction(0)) for j in range(dim)]
                v = _lin_min(row, box.lo, box.hi)
                if err is not None:
                    w = [abs(x) for x in _to_h(chart, coefs)]
                    v -= nq * sum((x * e for x, e in zip(w, err)), Fraction(0))
                if v < 0 or (strict and v == 0):
                    raise CertificateError(f"box {i} (state {box.state}), symbol {a}: the "
                                           f"image leaves box {t}")
            n_incl += 1
    return n_incl


def _check_chart_margins(chart: ChartCertificate) -> None:
    """Every rival c of the right label r: min_box ((R_r − R_c) B⁻¹)·y > 0."""
    dim, readout, binv = chart.model.dim, chart.model.readout, chart.basis_inverse
    for box, r in zip(chart.boxes.boxes, chart.boxes.rights):
        nq = _chart_reach(chart, box)
        for c in range(len(readout)):
            if c == r:
                continue
            d = [x - y for x, y in zip(readout[r], readout[c])]
            v = _lin_min([sum((d[i] * binv[i][j] for i in range(dim) if d[i]), Fraction(0))
                          for j in range(dim)], box.lo, box.hi)
            if chart.float32:
                v -= readout_loss32(readout[r], readout[c], nq, dim)
            if v <= 0:
                raise CertificateError(f"state {box.state}: label "
                                       f"{chart.boxes.labels[c]!r} is not beaten with a margin")


def _check_chart(cert: dict[str, Any]) -> str:
    chart = _parse_chart(cert)
    dim = chart.model.dim
    if _matmul(chart.basis, chart.basis_inverse) != [_unit(i, dim) for i in range(dim)]:
        raise CertificateError("basis_inverse is not the inverse of basis")
    _check_chart_initial(chart)
    n_incl = _check_chart_inclusions(chart)
    _check_chart_margins(chart)
    return (f"valid: {cert['domain']} invariant ({cert['rounding']}) over "
            f"{len(chart.boxes.boxes)} states, dimension {dim}, {n_incl} inclusions")


# ------------------------------------------------------------------ slice-box

@dataclass(frozen=True)
class SliceMultipliers:
    """The certificate's μ of one box: per symbol one per condition, one per label (None
    for the box's right label, which the proof does not read)."""

    steps: tuple[Vector, ...]
    readout: tuple[Fraction | None, ...]


@dataclass(frozen=True)
class SliceCertificate:
    """A slice-box certificate, parsed: S_q = {h : φ·h = 1, lo_q ≤ h ≤ hi_q}."""

    boxes: Boxes
    model: LinearModel  # the model the claim is about (float32 matrices for float32-step)
    float32: bool
    phi: Vector
    multipliers: tuple[SliceMultipliers, ...]  # per box


def _parse_slice_multipliers(records: Any, rights: tuple[int, ...], model: LinearModel
                             ) -> tuple[SliceMultipliers, ...]:
    if len(records) != len(rights):
        raise CertificateError("one multiplier record per box is required")
    n_forms = 1 + 2 * model.dim  # φA > 0, then the lower and upper bound of each coordinate
    out = []
    for i, record in enumerate(records):
        steps = tuple(vector(row) for row in record["steps"])
        if len(steps) != len(model.matrices):
            raise CertificateError(f"box {i}: one multiplier row per symbol is required")
        for a, row in enumerate(steps):
            if len(row) != n_forms:
                raise CertificateError(f"box {i}, symbol {a}: one multiplier per condition")
        listed = record["readout"]
        if len(listed) != len(model.readout):
            raise CertificateError(f"box {i}: one readout multiplier per label")
        # The right label's own μ is no argument of the proof: left unread, as it always was.
        readout = tuple(None if c == rights[i] else _frac(mu) for c, mu in enumerate(listed))
        out.append(SliceMultipliers(steps, readout))
    return tuple(out)


def _parse_slice(cert: dict[str, Any]) -> SliceCertificate:
    automaton = read_automaton(cert["automaton"])
    model, float32 = read_executed(cert)
    phi = vector(cert["phi"])
    if len(phi) != model.dim or not model.fits(automaton.n_symbols,
                                               len(cert["network"]["labels"])):
        raise CertificateError("model, φ and automaton sizes differ")
    boxes = read_boxes(cert, automaton, model.dim)
    multipliers = _parse_slice_multipliers(cert["multipliers"], boxes.rights, model)
    return SliceCertificate(boxes, model, float32, phi, multipliers)


def _slice_bound(sl: SliceCertificate, c: Sequence[Fraction], mu: Fraction, box: Box
                 ) -> Fraction:
    """A lower bound of c·h on the slice of ``box``: on S, c·h = μ + (c − μφ)·h."""
    return mu + _lin_min([x - mu * f for x, f in zip(c, sl.phi)], box.lo, box.hi)


def _check_slice_initial(sl: SliceCertificate) -> None:
    """h0 (for float32-step: every rounding of it, a box up to a common scale) in K_q0."""
    dim, phi = sl.model.dim, sl.phi
    h_lo, h_hi = _h0_box(sl.model.h0, sl.float32)
    first = sl.boxes.boxes[sl.boxes.refinement.initial]
    if _lin_min(phi, h_lo, h_hi) <= 0:
        raise CertificateError("φ is not positive at h0")
    for k in range(dim):
        lower = [Fraction(int(j == k)) - first.lo[k] * phi[j] for j in range(dim)]
        upper = [first.hi[k] * phi[j] - Fraction(int(j == k)) for j in range(dim)]
        if _lin_min(lower, h_lo, h_hi) < 0 or _lin_min(upper, h_lo, h_hi) < 0:
            raise CertificateError("h0 is not in the box of the initial state")


def _slice_forms(sl: SliceCertificate, am: Matrix, phi_a: list[Fraction], target: Box
                 ) -> list[tuple[list[Fraction], list[Fraction], bool]]:
    """(c, w, strict) with c = w·A: A h in the cone over ``target``'s slice iff every
    c·h ≥ 0 (> 0 if strict): φA·h > 0, then per coordinate its lower and upper bound."""
    dim, phi = sl.model.dim, sl.phi
    forms = [(phi_a, list(phi), True)]
    for k in range(dim):
        forms.append(([x - target.lo[k] * y for x, y in zip(am[k], phi_a)],
                      [Fraction(int(j == k)) - target.lo[k] * phi[j] for j in range(dim)],
                      False))
        forms.append(([target.hi[k] * y - x for x, y in zip(am[k], phi_a)],
                      [target.hi[k] * phi[j] - Fraction(int(j == k)) for j in range(dim)],
                      False))
    return forms


def _check_slice_inclusions(sl: SliceCertificate) -> int:
    """A_a K_q ⊆ K_t for every box q and symbol a (t its successor), each condition shown
    by its multiplier; the number of inclusions checked."""
    dim, phi, boxes = sl.model.dim, sl.phi, sl.boxes
    phi_a = [[sum((phi[r] * am[r][j] for r in range(dim) if phi[r]), Fraction(0))
              for j in range(dim)] for am in sl.model.matrices]  # φA, once per symbol
    n_incl = 0
    for i, (box, mults) in enumerate(zip(boxes.boxes, sl.multipliers)):
        nq = max(max(abs(x) for x in box.lo), max(abs(x) for x in box.hi))
        for a, am in enumerate(sl.model.matrices):
            t = boxes.refinement.successors[i][a]
            err = step_error32(am, dim) if sl.float32 else None
            for (c, w, strict), mu in zip(_slice_forms(sl, am, phi_a[a], boxes.boxes[t]),
                                          mults.steps[a]):
                v = _slice_bound(sl, c, mu, box)
                if err is not None:
                    v -= nq * sum((abs(x) * e for x, e in zip(w, err)), Fraction(0))
                if v < 0 or (strict and v == 0):
                    raise CertificateError(f"box {i} (state {box.state}), symbol {a}: the "
                                           f"image leaves box {t}")
            n_incl += 1
    return n_incl


def _check_slice_margins(sl: SliceCertificate) -> None:
    """Every rival of the right label r loses on every box's slice, by its multiplier."""
    dim, readout, boxes = sl.model.dim, sl.model.readout, sl.boxes
    for i, (box, r, mults) in enumerate(zip(boxes.boxes, boxes.rights, sl.multipliers)):
        nq = max(max(abs(x) for x in box.lo), max(abs(x) for x in box.hi))
        for c, mu in enumerate(mults.readout):
            if mu is None:  # c == r, the right label itself
                continue
            diff = [x - y for x, y in zip(readout[r], readout[c])]
            v = _slice_bound(sl, diff, mu, box)
            if sl.float32:
                v -= readout_loss32(readout[r], readout[c], nq, dim)
            if v <= 0:
                raise CertificateError(f"box {i} (state {box.state}): label "
                                       f"{boxes.labels[c]!r} is not beaten with a margin")


def _check_slice(cert: dict[str, Any]) -> str:
    """slice-box: S = {h : φ·h = 1, lo ≤ h ≤ hi}, K = positive multiples of S.

    "c·h ≥ 0 on S" is shown by the certificate's μ: on S,
    c·h = μ + (c − μφ)·h ≥ μ + min_box (c − μφ)·h (weak duality)."""
    sl = _parse_slice(cert)
    _check_slice_initial(sl)
    n_incl = _check_slice_inclusions(sl)
    _check_slice_margins(sl)
    return (f"valid: slice-box invariant ({cert['rounding']}) over {len(sl.boxes.boxes)} "
            f"boxes, dimension {sl.model.dim}, {n_incl} inclusions")


# ------------------------------------------------------------------ minmax-box

@dataclass(frozen=True)
class MinmaxCertificate:
    """A minmax-box certificate, parsed: x ↦ (R_a ⊗ x) ⊕ s_a, boxes [lo, hi]."""

    boxes: Boxes
    big_r: tuple[Matrix, ...]  # R_a per symbol
    s: tuple[Vector, ...]  # s_a per symbol
    readout: Matrix
    x0: Vector


def _parse_minmax(cert: dict[str, Any]) -> MinmaxCertificate:
    automaton = read_automaton(cert["automaton"])
    model = cert["network"]["model"]
    if model.get("type") != "minmax-dense" or cert["rounding"] not in ("exact",
                                                                        "float32-select"):
        raise CertificateError("minmax boxes are for minmax-dense models, rounding 'exact' "
                               "or 'float32-select'")
    big_r, s = tuple(matrix(m) for m in model["R"]), tuple(vector(v) for v in model["s"])
    readout, x0 = matrix(model["readout"]), vector(model["x0"])
    if cert["rounding"] == "float32-select":
        _require_float32([x for m in (*big_r, readout) for row in m for x in row] +
                         [x for v in (*s, x0) for x in v])
    k = automaton.n_symbols
    if len(big_r) != k or len(s) != k or len(readout) != len(cert["network"]["labels"]):
        raise CertificateError("model and automaton sizes differ")
    return MinmaxCertificate(read_boxes(cert, automaton, len(x0)), big_r, s, readout, x0)


def _require_float32(numbers: list[Fraction]) -> None:
    """float32-select: every number of the model is a float32 value, so a float32 run
    computes exactly the exact run (max and min only select)."""
    bad = next((x for x in numbers if not _is_float32(x)), None)
    if bad is not None:
        raise CertificateError(f"float32-select: the model number {bad} is not a float32 "
                               "value, so a float32 run is another network")


def _maxmin_apply(big_r: Sequence[Sequence[Fraction]], s: Sequence[Fraction],
                  x: Sequence[Fraction]) -> list[Fraction]:
    if any(len(row) != len(x) for row in big_r) or len(big_r) != len(s):
        raise CertificateError("max-min sizes differ")
    return [max(max(min(r, v) for r, v in zip(row, x)), si) for row, si in zip(big_r, s)]


def _check_minmax_boxes(mm: MinmaxCertificate) -> None:
    """Each box's image lies in its successor's box (the step is monotone, so the image
    of [lo, hi] lies in [f(lo), f(hi)]), and the right label wins on the whole box
    (strictly over a rival listed before it: argmax takes the first maximum)."""
    boxes = mm.boxes
    for i, (box, r) in enumerate(zip(boxes.boxes, boxes.rights)):
        for a in range(len(mm.big_r)):
            t = boxes.refinement.successors[i][a]
            ilo = _maxmin_apply(mm.big_r[a], mm.s[a], box.lo)
            ihi = _maxmin_apply(mm.big_r[a], mm.s[a], box.hi)
            target = boxes.boxes[t]
            if any(x < y for x, y in zip(ilo, target.lo)) or \
                    any(x > y for x, y in zip(ihi, target.hi)):
                raise CertificateError(f"state {box.state}, symbol {a}: image leaves the box "
                                       f"of {t}")
        low = max(min(w, v) for w, v in zip(mm.readout[r], box.lo))
        for c, row in enumerate(mm.readout):
            high = max(min(w, v) for w, v in zip(row, box.hi))
            if c != r and not (low > high if c < r else low >= high):
                raise CertificateError(f"state {box.state}: label {boxes.labels[c]!r} may win")


def _check_minmax(cert: dict[str, Any]) -> str:
    mm = _parse_minmax(cert)
    first = mm.boxes.boxes[mm.boxes.refinement.initial]
    if not all(a <= v <= c for a, v, c in zip(first.lo, mm.x0, first.hi)):
        raise CertificateError("x0 is not in the box of the initial state")
    _check_minmax_boxes(mm)
    return f"valid: minmax-box invariant ({cert['rounding']}) over {len(mm.boxes.boxes)} states"


def check_invariants(cert: dict[str, Any]) -> str:
    """Re-check a ``box-invariant`` certificate; a one-line summary or CertificateError."""
    domain = cert["domain"]
    if domain == "slice-box":
        return _check_slice(cert)
    if domain == "chart-box":
        return _check_chart(cert)
    if domain == "minmax-box":
        return _check_minmax(cert)
    raise CertificateError(f"unknown invariant domain {domain!r}")
