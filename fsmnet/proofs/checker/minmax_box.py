"""The ``minmax-box`` domain of ``box-invariant`` (:mod:`.invariants` states the
conditions): monotone max-min steps, boxes mapped through their corners."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from .boxes import Boxes, read_boxes
from .core import CertificateError, read_automaton
from .fields import (
    Matrix,
    Vector,
    matrix,
    vector,
)
from .linear_model import (
    _is_float32,
)


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


def check_minmax(cert: dict[str, Any]) -> str:
    mm = _parse_minmax(cert)
    first = mm.boxes.boxes[mm.boxes.refinement.initial]
    if not all(a <= v <= c for a, v, c in zip(first.lo, mm.x0, first.hi)):
        raise CertificateError("x0 is not in the box of the initial state")
    _check_minmax_boxes(mm)
    return f"valid: minmax-box invariant ({cert['rounding']}) over {len(mm.boxes.boxes)} states"
