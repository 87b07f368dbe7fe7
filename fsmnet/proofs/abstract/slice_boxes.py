"""Slice boxes for linear recurrences: a cone over a box cut by the hyperplane φ·h = 1.

S_q = {h : φ·h = 1, lo_q ≤ h ≤ hi_q} in the network's own coordinates, and
K_q = {λ h : λ > 0, h ∈ S_q}.  Unlike a box in a chart basis (:mod:`.linear`),
no coordinate is derived from the others, so no wrapping effect piles up the
widths of all coordinates into one (what made chart boxes blow up on
automata with more than a handful of states).

Every obligation is "a linear form c·h is ≥ 0 (or > 0) on S_q".  Weak LP
duality gives a one-number certificate: for every μ,

    c·h = μ φ·h + (c − μ φ)·h ≥ μ + min over the box of (c − μ φ)·h   on S_q,

and the right side is exact interval arithmetic.  The search finds the best
μ (a fractional knapsack, as φ > 0 here); the checker only evaluates the
bound at the μ written in the certificate.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np

from fsmnet.automata import Automaton
from fsmnet.proofs.abstract import box_search
from fsmnet.proofs.abstract.box_search import BoxSchedule, BoxSearch

GRID = 2.0 ** -40
# a cushion past each image, so that the dyadic rounding and the exact check keep a
# margin on non-contracting coordinates; widening after 8 rounds
SCHEDULE = BoxSchedule(cushion=1.0, widen_after=8)


def search(phi: np.ndarray, mats: np.ndarray, automaton: Automaton,
           clouds: dict[int, list[np.ndarray]], *, pad: float, rounding: Any = None,
           schedule: BoxSchedule = SCHEDULE) -> BoxSearch:
    """The box search (:mod:`.box_search`) over slice boxes: the sampled states are
    scaled onto φ·h = 1, and ``rounding``
    (:class:`fsmnet.proofs.abstract.rounding.Float32Model`) adds its error to every
    image.  Every coordinate is free, so none is pinned."""
    from fsmnet.proofs.abstract.ratio_bounds import slice_bounds

    mats = np.ascontiguousarray(mats, dtype=float)
    phi = np.ascontiguousarray(phi, dtype=float)

    def image(lo: np.ndarray, hi: np.ndarray, a: int) -> tuple[np.ndarray, np.ndarray, float]:
        ilo, ihi, den = slice_bounds(mats[a], phi, lo, hi)
        if rounding is not None and den > 0:
            err = rounding.slice_error(mats[a], phi, lo, hi, den, (ilo, ihi))
            ilo, ihi = ilo - err, ihi + err
        return ilo, ihi, den

    points = {}
    for q, hs in clouds.items():
        if len(hs):
            pts = np.array(hs)
            points[q] = pts / (pts @ phi)[:, None]
    return box_search.search(image, automaton, points, pad=pad, schedule=schedule)


def _dyadic(x: float, up: bool) -> Fraction:
    k = np.ceil(x / GRID) if up else np.floor(x / GRID)
    return Fraction(int(k)) * Fraction(GRID)


def certificate_body(phi: list[Fraction], mats: np.ndarray, readout: np.ndarray,
                     found: BoxSearch, right: dict[int, int], rounding: str
                     ) -> dict[str, Any]:
    """Dyadic boxes and one dual multiplier μ per obligation (float optima, rounded)."""
    from fsmnet.proofs.abstract.ratio_bounds import knapsack_duals
    from fsmnet.proofs.certificate_models import exact_qs

    assert found.boxes is not None
    phif = np.array([float(x) for x in phi])
    boxes = [([_dyadic(x, False) for x in lo], [_dyadic(x, True) for x in hi])
             for lo, hi in found.boxes]
    mults = []
    for i, (lo, hi) in enumerate(boxes):
        flo, fhi = np.array(lo, float), np.array(hi, float)
        steps = []
        for a, j in enumerate(found.succ[i]):
            tlo, thi = np.array(boxes[j][0], float), np.array(boxes[j][1], float)
            d = phif @ mats[a]
            lower = mats[a] - tlo[:, None] * d[None, :]
            upper = thi[:, None] * d[None, :] - mats[a]
            # the checker's order: φA, then (lower, upper) for each coordinate
            forms = np.vstack([d[None, :], np.stack([lower, upper], 1).reshape(-1, len(d))])
            mu = knapsack_duals(forms, phif, flo, fhi)
            steps.append([_dyadic(float(m), False) for m in mu])
        r = right[found.owner[i]]
        forms = np.ascontiguousarray(readout[r][None, :] - readout, dtype=float)
        mu = knapsack_duals(forms, phif, flo, fhi)
        mults.append({"steps": [exact_qs(s) for s in steps],
                      "readout": exact_qs([_dyadic(float(m), False) for m in mu])})
    return {"domain": "slice-box", "rounding": rounding, "phi": exact_qs(phi),
            "initial_box": 0, "successors": found.succ,
            "boxes": [{"state": q, "lo": exact_qs(lo), "hi": exact_qs(hi)}
                      for q, (lo, hi) in zip(found.owner, boxes)],
            "multipliers": mults}
