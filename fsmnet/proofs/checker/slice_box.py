"""The ``slice-box`` domain of ``box-invariant`` (:mod:`.invariants` states the
conditions): boxes in the slice φ·h = 1, with the certificate's LP multipliers."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from .boxes import Box, Boxes, _h0_box, _lin_min, read_boxes
from .core import CertificateError, _frac, read_automaton
from .fields import (
    Matrix,
    Vector,
    vector,
)
from .linear_model import (
    LinearModel,
    read_executed,
    readout_loss32,
    step_error32,
)


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


def check_slice(cert: dict[str, Any]) -> str:
    """slice-box: S = {h : φ·h = 1, lo ≤ h ≤ hi}, K = positive multiples of S.

    "c·h ≥ 0 on S" is shown by the certificate's μ: on S,
    c·h = μ + (c − μφ)·h ≥ μ + min_box (c − μφ)·h (weak duality)."""
    sl = _parse_slice(cert)
    _check_slice_initial(sl)
    n_incl = _check_slice_inclusions(sl)
    _check_slice_margins(sl)
    return (f"valid: slice-box invariant ({cert['rounding']}) over {len(sl.boxes.boxes)} "
            f"boxes, dimension {sl.model.dim}, {n_incl} inclusions")
