"""Chart boxes for linear recurrences h ↦ A_x h: a cone over a box per automaton state.

A linear network's label does not change under positive scaling of h
(normalization and argmax both ignore it).  So the set of a state q is a cone

    K_q = { λ B⁻¹ y : λ > 0, y_p = 1, lo_q ≤ y ≤ hi_q },

a box in the affine chart {y_p = 1} of the basis y = B h.  Row p of B is a
linear functional φ that is positive on every reached state (it normalizes the
cone, as :mod:`fsmnet.proofs.cones` does with generators); the other rows are
unit vectors, so B⁻¹ is exact and sparse too.  With M = B A_x B⁻¹ and
z = M y, the inclusion A_x K_q ⊆ K_t is the finitely many linear conditions

    min over the box of  M_p·y > 0,   (M_i − lo_t,i M_p)·y ≥ 0,   (hi_t,i M_p − M_i)·y ≥ 0,

and a linear form's minimum over a box is a sum of per-coordinate minima:
exact interval arithmetic.  The search here runs in floats (Dinkelbach steps
give the tight image box of the linear-fractional chart map); the boxes are
then rounded outwards to dyadic rationals and re-checked exactly by
:mod:`fsmnet.proofs.checker.invariants`.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

import numpy as np

from fsmnet.automata import Automaton
from fsmnet.proofs.abstract import box_search
from fsmnet.proofs.abstract.box_search import BoxSchedule, BoxSearch

GRID = 2.0 ** -40  # box ends are rounded outwards to this dyadic grid
# How chart boxes grow (see search_boxes): a cushion and early widening for a slow
# contraction; none and late widening where the letters permute the boxes exactly.
CONTRACTING = BoxSchedule(cushion=1.0, widen_after=8)
PERMUTING = BoxSchedule(cushion=0.0, widen_after=60)


@dataclass(frozen=True)
class Chart:
    """The basis: y = B h with row ``pivot`` equal to φ (φ_pivot = 1), others unit rows."""

    phi: list[Fraction]
    pivot: int

    def basis(self) -> list[list[Fraction]]:
        n = len(self.phi)
        rows = [[Fraction(int(i == j)) for j in range(n)] for i in range(n)]
        rows[self.pivot] = list(self.phi)
        return rows

    def inverse(self) -> list[list[Fraction]]:
        # h_p = y_p − Σ_{j≠p} φ_j y_j, h_j = y_j: exact because φ_p = 1.
        n, p = len(self.phi), self.pivot
        rows = [[Fraction(int(i == j)) for j in range(n)] for i in range(n)]
        rows[p] = [Fraction(1) if j == p else -self.phi[j] for j in range(n)]
        return rows

    def floats(self) -> tuple[np.ndarray, np.ndarray]:
        return (np.array(self.basis(), dtype=np.float64),
                np.array(self.inverse(), dtype=np.float64))


def choose_chart(points: list[np.ndarray], *, signed: bool = False) -> Chart | None:
    """A dyadic functional φ positive on every sampled state (mean first, else an LP).

    ``signed``: nonzero instead, each state counted with the sign of its component
    along the samples' principal direction, so that a set and its negative (the even
    and odd states of a parity network, near ±u) share one chart."""
    pts = np.array([p / max(np.abs(p).max(), 1e-300) for p in points])
    if signed:
        pts = pts * _signs_along(pts, _principal(pts))[:, None]
    phi = pts.mean(axis=0)
    if np.min(pts @ phi) <= 1e-9 * np.abs(phi).sum():
        from scipy.optimize import linprog

        n = pts.shape[1]
        # maximize t subject to φ·h ≥ t for every sample and −1 ≤ φ ≤ 1
        res = linprog(np.r_[np.zeros(n), -1.0], A_ub=np.c_[-pts, np.ones(len(pts))],
                      b_ub=np.zeros(len(pts)), bounds=[(-1, 1)] * n + [(None, 1)],
                      method="highs")
        if res.status != 0 or -res.fun <= 1e-9:
            return None
        phi = res.x[:n]
    pivot = int(np.argmax(phi))  # the largest *positive* entry: dividing keeps φ's sign
    if phi[pivot] <= 0:
        return None
    phi = phi / phi[pivot]
    exact = [Fraction(round(float(x) * 2**20), 2**20) for x in phi]
    exact[pivot] = Fraction(1)
    return Chart(exact, pivot)


def _principal(pts: np.ndarray) -> np.ndarray:
    """The samples' principal direction (top right singular vector)."""
    return np.linalg.svd(pts, full_matrices=False)[2][0]


def _signs_along(pts: np.ndarray, v: np.ndarray) -> np.ndarray:
    """±1 per row: the sign of its component along v (0 counts as +1)."""
    return np.where(pts @ v < 0, -1, 1)


def search_boxes(chart: Chart, mats: np.ndarray, automaton: Automaton,
                 clouds: dict[int, list[np.ndarray]], *, pad: float,
                 rounding: Any = None, schedule: BoxSchedule = CONTRACTING,
                 charted: list[np.ndarray] | None = None, signed: bool = False,
                 errors: np.ndarray | None = None) -> BoxSearch:
    """The box search (:mod:`.box_search`) in the affine chart of ``chart``.

    ``rounding`` (:class:`fsmnet.proofs.abstract.rounding.Float32Model`) adds its
    error to every image.  The chart's pivot is pinned (it is 1 on every box).
    The default schedule (:data:`CONTRACTING`) helps a slow contraction (a
    trained network) close.  Where letters permute the boxes exactly (the
    recorded basis of a conjugated construction), any growth past the image
    chases itself round the cycle forever, so there the caller passes
    :data:`PERMUTING`: plain iteration reaches the geometric limit of the
    contractions within the tolerance.  ``charted`` gives the maps B A B⁻¹ when
    the caller computed them exactly: through an ill-conditioned B the float
    product carries noise that the cycle also chases (10⁻¹³ a lap, past the
    tolerance).  ``signed``: boxes carry a sign (:func:`box_search.search`); a
    state with φ < 0 lies in the negative cone over its chart point.  ``errors``:
    per symbol, the float32 stray of a stride's word (replacing one step's).  With a
    ``rounding`` that knows h0, box 0 is grown to hold the chart image of every
    float32 rounding of h0, as the checker requires.
    """
    from fsmnet.proofs.abstract.ratio_bounds import ratio_bounds

    b, binv = chart.floats()
    p = chart.pivot
    ms = [np.ascontiguousarray(m, dtype=float)
          for m in ([b @ a @ binv for a in mats] if charted is None else charted)]
    negated = [-m for m in ms]
    widenings = [] if rounding is None else [
        rounding.chart_widening(mats[a], b, binv, p, None if errors is None else errors[a])
        for a in range(len(mats))]
    ys = {q: np.array([b @ h for h in hs]) for q, hs in clouds.items() if len(hs)}
    for q in sorted(ys, key=lambda q: q != automaton.initial):  # initial first
        if np.any(ys[q][:, p] <= 0) and not (signed and np.all(ys[q][:, p] != 0)):
            return BoxSearch(None, f"φ is not positive on the states of {q}")

    def image(lo: np.ndarray, hi: np.ndarray, a: int) -> tuple[np.ndarray, np.ndarray, float]:
        flip = 1.0
        ilo, ihi, den = ratio_bounds(ms[a], p, lo, hi)
        if den <= 0 and signed:  # the same ratios; φ negative on the whole image?
            flip = -1.0
            ilo, ihi, den = ratio_bounds(negated[a], p, lo, hi)
            if den <= 0:
                return ilo, ihi, 0.0
        if rounding is not None and den > 0:
            err = widenings[a](lo, hi, den)
            ilo, ihi = ilo - err, ihi + err
        ilo[p] = ihi[p] = 1.0
        return ilo, ihi, flip * den

    points = {q: y / y[:, p:p + 1] for q, y in ys.items()}
    signs = {q: np.where(y[:, p] < 0, -1, 1) for q, y in ys.items()} if signed else None
    extent = None if rounding is None or rounding.h0 is None else _h0_extent(b, p,
                                                                               rounding.h0)
    return box_search.search(image, automaton, points, pad=pad,
                             schedule=replace(schedule, pinned=p), signs=signs,
                             initial_extent=extent)


def _h0_extent(b: np.ndarray, p: int, h0: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """Chart bounds of h0 ± (γ₂|h0| + 2⁻¹⁴⁰) (the checker's box of h0's float32
    roundings, :func:`fsmnet.proofs.checker.linear_model.h0_radius32`), in the sign of
    φ·h0, with a little slack; None where φ may vanish on it."""
    from fsmnet.proofs.abstract.rounding import gamma

    h0 = h0 / max(float(np.abs(h0).max()), 1e-300)
    r = gamma(2) * np.abs(h0) * 1.01 + 2.0 ** -130
    mid, rad = b @ h0, np.abs(b) @ r
    sg = 1.0 if mid[p] > 0 else -1.0
    mid = sg * mid
    if mid[p] - rad[p] <= 0:
        return None
    ends = [(mid + u * rad) / (mid[p] + v * rad[p]) for u in (-1, 1) for v in (-1, 1)]
    lo, hi = np.min(ends, axis=0), np.max(ends, axis=0)
    slack = 1e-9 * (1 + np.abs(lo) + np.abs(hi))
    lo, hi = lo - slack, hi + slack
    lo[p] = hi[p] = 1.0
    return lo, hi


def readout_ok(chart: Chart, readout: np.ndarray, boxes: list[tuple[np.ndarray, np.ndarray]],
               owner: list[int], right: dict[int, int], signs: list[int] | None = None
               ) -> int | None:
    """A state whose box is read out wrongly (float check, for the search), or None."""
    b, binv = chart.floats()
    for q, (lo, hi), sg in zip(owner, boxes, signs or [1] * len(boxes)):
        for c in range(len(readout)):
            if c == right[q]:
                continue
            d = sg * (readout[right[q]] - readout[c]) @ binv
            if np.where(d >= 0, d * lo, d * hi).sum() <= 0:
                return q
    return None


def dyadic_boxes(boxes: list[tuple[np.ndarray, np.ndarray]], pivot: int
                 ) -> list[tuple[list[Fraction], list[Fraction]]]:
    """Box ends rounded outwards to the dyadic grid, as exact rationals."""
    out = []
    for lo, hi in boxes:
        elo = [Fraction(int(np.floor(x / GRID))) * Fraction(GRID) for x in lo]
        ehi = [Fraction(int(np.ceil(x / GRID))) * Fraction(GRID) for x in hi]
        elo[pivot] = ehi[pivot] = Fraction(1)
        out.append((elo, ehi))
    return out


PADS = (1e-6, 1e-3, 0.05, 0.3)  # inflations tried, smallest first (margins shrink as they grow)


@dataclass(frozen=True)
class ChartBoxes:
    """The ``chart-box`` domain (the registry's abstract transformer for linear nets)."""

    name: str = "chart-box"

    def candidates(self, net: Any, automaton: Automaton, clouds: dict[int, list[np.ndarray]],
                   right: dict[int, int], *, float32: bool = False
                   ) -> Iterator[tuple[dict[str, Any] | None, str]]:
        """(certificate body, why) for each inflation whose boxes pass the float checks,
        else (None, why not).  The caller has every body checked exactly."""
        from fsmnet.nets.linear import LinearRecurrence
        from fsmnet.proofs.abstract.rounding import Float32Model
        from fsmnet.proofs.certificate_models import exact_qs

        sem = net.semantics
        if not isinstance(sem, LinearRecurrence):
            yield None, f"{net.arch} is not a linear recurrence"
            return
        mats_exact = sem.matrices(net, True)
        readout_exact = sem.readout_matrix(net, True)
        if not all(isinstance(x, Fraction) for x in [*np.ravel(mats_exact),
                                                     *np.ravel(readout_exact)]):
            yield None, "the exact weights are not rationals (e.g. cyclotomic rotations)"
            return
        rounding = Float32Model(mats_exact, readout_exact,
                                sem.initial_state(net, False)) if float32 else None
        mats = rounding.mats32 if rounding else np.asarray(sem.matrices(net, False), float)
        readout = rounding.readout32 if rounding else np.asarray(net.params["readout"], float)
        points = [h for pts in clouds.values() for h in pts]
        from fsmnet.proofs.abstract.recorded_basis import recorded_chart

        recorded = recorded_chart(net.options, points)  # a compiler's basis: try it first
        if recorded is not None and rounding is None:
            charted = [_charted(recorded, a) for a in mats_exact]
            for found, why in _box_bodies(self.name, recorded, mats, readout, automaton,
                                          clouds, right, rounding, float32, PERMUTING,
                                          charted=charted):
                yield found, f"{why} (recorded basis)"
        chart = choose_chart(points)
        if chart is None:
            yield None, "no linear functional is positive on every sampled state"
            signed = choose_chart(points, signed=True)
            if signed is None:
                yield None, "no linear functional is nonzero on every sampled state"
                return
            # a state set and its negative (parity in a sign): boxes with signs
            for longer in (False, True):
                for found, why in _box_bodies(self.name, signed, mats, readout, automaton,
                                              clouds, right, rounding, float32, signed=True,
                                              strides=longer):
                    yield found, f"{why} (signed chart)"
            return
        phif = np.array([float(x) for x in chart.phi])
        for _ in (1,):  # slice boxes first: no wrapping through a derived coordinate
            from fsmnet.proofs.abstract import slice_boxes

            for pad in PADS:
                sl = slice_boxes.search(phif, mats, automaton, clouds, pad=pad,
                                        rounding=rounding)
                if sl.boxes is None:
                    yield None, sl.reason
                    continue
                body: dict[str, Any] = slice_boxes.certificate_body(
                    chart.phi, mats, readout, sl, right, "float32-step" if float32 else "exact")
                body["inflation"] = pad
                if rounding is not None:
                    body["model32"] = {"matrices": exact_qs(_fractions(rounding.mats32)),
                                       "readout": exact_qs(_fractions(rounding.readout32))}
                yield body, f"{sl.reason} (slice boxes, inflation {pad})"
        yield from _box_bodies(self.name, chart, mats, readout, automaton, clouds, right,
                               rounding, float32)
        from fsmnet.proofs.abstract import zonotope  # last: a rotation grows every box

        yield from zonotope.candidates(net, automaton, clouds, right, rounding)
        # last: a stride multiplies the work by symbols^k and the certificate's size
        yield from _box_bodies(self.name, chart, mats, readout, automaton, clouds, right,
                               rounding, float32, strides=True)


def _box_bodies(name: str, chart: Any, mats: np.ndarray, readout: np.ndarray,
                automaton: Automaton, clouds: dict[int, list[np.ndarray]],
                right: dict[int, int], rounding: Any, float32: bool,
                schedule: BoxSchedule = CONTRACTING,
                charted: list[np.ndarray] | None = None, signed: bool = False,
                strides: bool = False) -> Iterator[tuple[dict[str, Any] | None, str]]:
    """(certificate body, why) per inflation of the chart-box search in ``chart``; with
    ``strides``, per longer stride (:mod:`.strided`) instead."""
    from fsmnet.proofs.abstract import strided

    longer = [k for k in strided.strides(automaton.n_symbols) if k > 1]
    for k in (longer if charted is None else []) if strides else [1]:
        pw = strided.power(automaton, mats, k)
        # a word of k letters contracts more than one letter: fewer rounds and the two
        # smallest inflations are enough (and a failing search costs symbols^k images
        # a box and round)
        sched = schedule if k == 1 else replace(schedule, max_rounds=strided.MAX_ROUNDS)
        for body, why in _stride_bodies(name, chart, pw, readout, clouds, right, rounding,
                                        float32, sched, charted, signed,
                                        PADS if k == 1 else PADS[:2]):
            yield body, why if k == 1 else f"{why} (stride {k})"
            if body is not None:
                return


def _stride_bodies(name: str, chart: Any, pw: Any, readout: np.ndarray,
                   clouds: dict[int, list[np.ndarray]], right: dict[int, int],
                   rounding: Any, float32: bool, schedule: BoxSchedule,
                   charted: list[np.ndarray] | None, signed: bool, pads: tuple[float, ...]
                   ) -> Iterator[tuple[dict[str, Any] | None, str]]:
    from fsmnet.proofs.abstract.strided import prefix_misread
    from fsmnet.proofs.certificate_models import exact_qs

    for pad in pads:
        found = search_boxes(chart, pw.mats, pw.automaton, clouds, pad=pad,
                             rounding=rounding, schedule=schedule, charted=charted,
                             signed=signed, errors=pw.errors if pw.stride > 1 else None)
        if found.boxes is None:
            yield None, found.reason
            continue
        bad = readout_ok(chart, readout, found.boxes, found.owner, right, found.signs)
        if bad is None:
            bad = prefix_misread(chart.floats()[1], readout, found.boxes, found.owner,
                                 found.signs, right, pw, float32=rounding is not None)
        if bad is not None:
            yield None, (f"the box of state {bad} is not read out with a margin "
                         f"(inflation {pad})")
            continue
        exact = dyadic_boxes(found.boxes, chart.pivot)
        body = {
            "domain": name, "rounding": "float32-step" if float32 else "exact",
            "basis": exact_qs(chart.basis()), "basis_inverse": exact_qs(chart.inverse()),
            "pivot": chart.pivot, "inflation": pad,
            "initial_box": 0, "successors": found.succ,
            "boxes": [{"state": q, "lo": exact_qs(lo), "hi": exact_qs(hi),
                       **({"sign": -1} if sg < 0 else {})}
                      for q, (lo, hi), sg in zip(found.owner, exact, found.signs)]}
        if pw.stride > 1:
            body["stride"] = pw.stride
        if rounding is not None:
            body["model32"] = {"matrices": exact_qs(_fractions(rounding.mats32)),
                               "readout": exact_qs(_fractions(rounding.readout32))}
        yield body, f"{found.reason} (inflation {pad})"


def _charted(chart: Any, a: np.ndarray) -> np.ndarray:
    """B A B⁻¹ in exact rationals, rounded to floats once."""
    b = np.array(chart.basis(), dtype=object)
    binv = np.array(chart.inverse(), dtype=object)
    return np.vectorize(float, otypes=[np.float64])(b.dot(np.asarray(a, dtype=object)).dot(binv))


def _fractions(arr: np.ndarray) -> np.ndarray:
    out: np.ndarray = np.vectorize(Fraction, otypes=[object])(arr)
    return out


CHART_BOX = ChartBoxes()
