"""The ``chart-box`` domain of ``box-invariant`` (:mod:`.invariants` states the
conditions): cones over boxes in the chart y = B h, with signs and strides."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from .boxes import Box, Boxes, _h0_box, _lin_min, _matmul, _unit, read_boxes
from .core import CertificateError, is_index, read_automaton
from .fields import (
    Matrix,
    Vector,
    matrix,
    single_label,
)
from .linear_model import (
    LinearModel,
    read_executed,
    readout_loss32,
    require_fit,
)
from .stride import Prefix, power, read_stride, word_error32, words


@dataclass(frozen=True)
class ChartCertificate:
    """A chart-box certificate, parsed: K_q = {λ B⁻¹ y : λ > 0, y in box q}, y_p = 1."""

    boxes: Boxes
    model: LinearModel  # the model the claim is about (float32 matrices for float32-step)
    float32: bool
    basis: Matrix
    basis_inverse: Matrix
    pivot: int
    signs: tuple[int, ...]  # per box: +1 for K, −1 for −K
    prefixes: tuple[Prefix, ...]  # with a stride k: the words 0 < |w| < k
    base: LinearModel  # the one-symbol model (``model`` is its power with a stride)
    words: tuple[tuple[int, ...], ...]  # per symbol of ``model``: its letters in ``base``


def _read_signs(cert: dict[str, Any]) -> tuple[int, ...]:
    signs = tuple(box.get("sign", 1) for box in cert["boxes"])
    for i, sg in enumerate(signs):
        if type(sg) is not int or sg not in (1, -1):
            raise CertificateError(f"box {i}: sign must be 1 or -1 (got {sg!r})")
    return signs


def _parse_chart(cert: dict[str, Any]) -> ChartCertificate:
    automaton = read_automaton(cert["automaton"])
    model, float32 = read_executed(cert)  # float32 matrices checked there
    require_fit(model, automaton.n_symbols, len(cert["network"]["labels"]))
    base, stride = model, read_stride(cert, automaton.n_symbols)
    letters = tuple(words(automaton.n_symbols, stride))
    automaton, model, prefixes = power(automaton, model, stride)
    dim = model.dim
    b, binv, p = matrix(cert["basis"]), matrix(cert["basis_inverse"]), cert["pivot"]
    if not is_index(p, dim) or len(b) != dim or len(binv) != dim:
        raise CertificateError("basis, inverse and pivot do not fit the model")
    require_fit(model, automaton.n_symbols, len(cert["network"]["labels"]))
    boxes = read_boxes(cert, automaton, dim)
    if any(box.lo[p] != 1 or box.hi[p] != 1 for box in boxes.boxes):
        raise CertificateError("every box must fix the pivot coordinate to 1")
    return ChartCertificate(boxes, model, float32, b, binv, p, _read_signs(cert), prefixes,
                            base, letters)


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
    initial = chart.boxes.refinement.initial
    first, sign = chart.boxes.boxes[initial], chart.signs[initial]
    for coefs, strict in _chart_conditions(first.lo, first.hi, chart.pivot, chart.model.dim):
        v = _lin_min([sign * x for x in _to_h(chart, coefs)], h_lo, h_hi)
        if v < 0 or (strict and v == 0):
            raise CertificateError("h0 is not in the box of the initial state")


def _check_chart_inclusions(chart: ChartCertificate) -> int:
    """A_a K_q ⊆ K_t for every box q and symbol a (t its successor): M_a = B A_a B⁻¹ maps
    the box into the cone over box t; the number of inclusions checked."""
    dim, p, boxes = chart.model.dim, chart.pivot, chart.boxes
    ms = [_matmul(chart.basis, _matmul(a, chart.basis_inverse)) for a in chart.model.matrices]
    cache: dict[tuple[int, ...], Any] = {}
    errs = [word_error32(chart.base, w, cache)[0] if chart.float32 else None
            for w in chart.words]
    n_incl = 0
    for i, box in enumerate(boxes.boxes):
        nq = _chart_reach(chart, box)
        for a, (ma, err) in enumerate(zip(ms, errs)):
            t = boxes.refinement.successors[i][a]
            target, flip = boxes.boxes[t], chart.signs[i] * chart.signs[t]
            for coefs, strict in _chart_conditions(target.lo, target.hi, p, dim):
                nz = [(k, flip * c) for k, c in enumerate(coefs) if c]  # e_k and e_p
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
    """Every rival c of the right label r: min_box ((R_r − R_c) B⁻¹)·y > 0; with a
    stride, also min_box ((R_r' − R_c) A_w B⁻¹)·y > 0 for every prefix w, r' the
    label of the state w reaches."""
    boxes, labels = chart.boxes, chart.boxes.labels
    cache: dict[tuple[int, ...], Any] = {}
    throughs = [_matmul(w.matrix, chart.basis_inverse) for w in chart.prefixes]
    for i, box in enumerate(boxes.boxes):
        _check_box_margin(chart, i, None, chart.basis_inverse, boxes.rights[i], cache)
        for w, through in zip(chart.prefixes, throughs):
            reached = w.reach[box.state]
            _check_box_margin(chart, i, w, through, single_label(
                labels, boxes.automaton.outputs, reached), cache)


def _check_box_margin(chart: ChartCertificate, i: int, prefix: Prefix | None,
                      through: Matrix | list[list[Fraction]], r: int,
                      cache: dict[tuple[int, ...], Any]) -> None:
    """Label r wins with a margin on A_w (s K) of box i (w the prefix, empty for None;
    ``through`` = A_w B⁻¹); for float32-step, after the float32 run of w
    (:func:`.stride.word_error32`)."""
    dim, readout = chart.model.dim, chart.model.readout
    box, sign = chart.boxes.boxes[i], chart.signs[i]
    nq = _chart_reach(chart, box)
    err, grow = word_error32(chart.base, () if prefix is None else prefix.word, cache)
    for c in range(len(readout)):
        if c == r:
            continue
        d = [sign * (x - y) for x, y in zip(readout[r], readout[c])]
        v = _lin_min([sum((d[k] * through[k][j] for k in range(dim) if d[k]), Fraction(0))
                      for j in range(dim)], box.lo, box.hi)
        if chart.float32:
            v -= nq * sum((abs(x) * e for x, e in zip(d, err)), Fraction(0))
            v -= readout_loss32(readout[r], readout[c], nq * grow, dim)
        if v <= 0:
            where = "" if prefix is None else " after a prefix of the stride"
            raise CertificateError(f"state {box.state}{where}: label "
                                   f"{chart.boxes.labels[c]!r} is not beaten with a margin")


def check_chart(cert: dict[str, Any]) -> str:
    chart = _parse_chart(cert)
    dim = chart.model.dim
    if _matmul(chart.basis, chart.basis_inverse) != [_unit(i, dim) for i in range(dim)]:
        raise CertificateError("basis_inverse is not the inverse of basis")
    _check_chart_initial(chart)
    n_incl = _check_chart_inclusions(chart)
    _check_chart_margins(chart)
    return (f"valid: {cert['domain']} invariant ({cert['rounding']}) over "
            f"{len(chart.boxes.boxes)} states, dimension {dim}, {n_incl} inclusions")
