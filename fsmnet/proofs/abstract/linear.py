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
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

from fsmnet.automata import Automaton

GRID = 2.0 ** -40  # box ends are rounded outwards to this dyadic grid


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


def choose_chart(points: list[np.ndarray]) -> Chart | None:
    """A dyadic functional φ positive on every sampled state (mean first, else an LP)."""
    pts = np.array([p / max(np.abs(p).max(), 1e-300) for p in points])
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


def _ratio_bounds(m: np.ndarray, p: int, lo: np.ndarray, hi: np.ndarray
                  ) -> tuple[np.ndarray, np.ndarray, float]:
    """Tight bounds of (M_i·y)/(M_p·y) over the box (Dinkelbach, all rows at once), and
    the minimum of M_p·y (the denominator must stay positive)."""
    d = m[p]
    den_min = float(np.where(d >= 0, d * lo, d * hi).sum())
    out = []
    for sign in (1.0, -1.0):
        c = sign * m
        y = np.tile((lo + hi) / 2, (len(m), 1))
        lam = (c * y).sum(1) / (y @ d)
        for _ in range(30):
            coef = c - lam[:, None] * d[None, :]
            y = np.where(coef >= 0, lo[None, :], hi[None, :])
            new = (c * y).sum(1) / (y @ d)
            if np.all(new >= lam - 1e-15 * (1 + np.abs(lam))):
                break
            lam = np.minimum(lam, new)
        out.append(sign * lam)
    return out[0], out[1], den_min


@dataclass
class ChartSearch:
    """Outcome of :func:`search_boxes`: boxes (each owned by an automaton state, with a
    successor box per symbol), or why none closed.

    Several boxes may share an automaton state (one per cluster of reached
    states): a finite simulation of the network by a refinement of the
    automaton, which is all the induction needs.
    """

    boxes: list[tuple[np.ndarray, np.ndarray]] | None
    reason: str
    rounds: int = 0
    owner: list[int] = field(default_factory=list)
    succ: list[list[int]] = field(default_factory=list)
    initial: int = 0


def _clusters(ts: np.ndarray, radius: float) -> list[np.ndarray]:
    """Leader clustering of chart points in the sup norm (order as sampled)."""
    groups: list[list[int]] = []
    leaders: list[np.ndarray] = []
    for i, t in enumerate(ts):
        for g, lead in enumerate(leaders):
            if np.max(np.abs(t - lead)) <= radius:
                groups[g].append(i)
                break
        else:
            leaders.append(t)
            groups.append([i])
    return [ts[g] for g in groups]


def search_boxes(chart: Chart, mats: np.ndarray, automaton: Automaton,
                 clouds: dict[int, list[np.ndarray]], *, pad: float,
                 rounding: Any = None, max_rounds: int = 200, blow_up: float = 1e3,
                 radius: float = 0.25, max_boxes: int = 400, widen_after: int = 8,
                 cushion: float = 1.0, charted: list[np.ndarray] | None = None
                 ) -> ChartSearch:
    """Kleene iteration S_j ← hull(S_j ∪ F_x(S_i)) on chart boxes, with widening.

    ``pad`` inflates the sampled boxes (relative to their spread, plus an
    absolute floor) so that a contraction towards their inside can close;
    ``rounding`` (:class:`fsmnet.proofs.abstract.rounding.Float32Model`) adds
    its error to every image.  Boxes wider than ``blow_up`` are a blow-up.
    A box that must grow gets a ``cushion`` (times 10⁻⁷ of its width) past the
    image, and widening starts after ``widen_after`` rounds: both help a slow
    contraction (a trained network) close.  Where letters permute the boxes exactly
    (the recorded basis of a conjugated construction), any growth past the image
    chases itself round the cycle forever, so there the cushion is 0 and widening
    late: plain iteration reaches the geometric limit of the contractions within
    the tolerance.  ``charted`` gives the maps B A B⁻¹ when the caller computed them
    exactly: through an ill-conditioned B the float product carries noise that the
    cycle also chases (10⁻¹³ a lap, past the tolerance).
    """
    b, binv = chart.floats()
    p = chart.pivot
    ms = [b @ a @ binv for a in mats] if charted is None else charted
    boxes: list[tuple[np.ndarray, np.ndarray]] = []
    owner: list[int] = []
    assert automaton.initial is not None
    order = [automaton.initial] + [q for q in clouds if q != automaton.initial]
    for q in order:
        ys = np.array([b @ h for h in clouds.get(q, [])])
        if len(ys) and np.any(ys[:, p] <= 0):
            return ChartSearch(None, f"φ is not positive on the states of {q}")
        for ts in _clusters(ys / ys[:, p:p + 1], radius) if len(ys) else []:
            lo, hi = ts.min(0), ts.max(0)
            spread = np.maximum(hi - lo, 0) * pad + pad * 1e-3
            spread[p] = 0
            boxes.append((lo - spread, hi + spread))
            owner.append(q)
    succ: dict[tuple[int, int], int] = {}
    slack_done = False
    for rounds in range(1, max_rounds + 1):
        grew = False
        for i in range(len(boxes)):
            lo, hi = boxes[i]
            for a in range(automaton.n_symbols):
                t = int(automaton.delta[a, owner[i]])
                ilo, ihi, den = _ratio_bounds(ms[a], p, lo, hi)
                if den <= 0:
                    return ChartSearch(None, f"the image of a box of state {owner[i]} under "
                                       f"symbol {a} leaves the half-space φ > 0", rounds)
                if rounding is not None:
                    err = rounding.chart_error(ms[a], mats[a], b, binv, p, lo, hi, den)
                    ilo, ihi = ilo - err, ihi + err
                ilo[p] = ihi[p] = 1.0
                j = succ.get((i, a))
                if j is None:  # the nearest box of the target state, or a new one
                    mid = (ilo + ihi) / 2
                    near = [(np.max(np.maximum(boxes[c][0] - mid, mid - boxes[c][1])), c)
                            for c in range(len(boxes)) if owner[c] == t]
                    dist, j = min(near) if near else (np.inf, -1)
                    if dist > radius:
                        if len(boxes) >= max_boxes:
                            return ChartSearch(None, f"more than {max_boxes} boxes", rounds)
                        boxes.append((ilo, ihi))
                        owner.append(t)
                        j = len(boxes) - 1
                    succ[(i, a)] = j
                    grew = True
                tlo, thi = boxes[j]
                tol = 1e-13 * (1 + np.abs(thi - tlo))
                if np.any(ilo < tlo - tol) or np.any(ihi > thi + tol):
                    pad_out = cushion * (1e-7 * (ihi - ilo)
                                         + 1e-10 * (1 + np.abs(ilo) + np.abs(ihi)))
                    pad_out[p] = 0
                    grow_lo = np.minimum(ilo - pad_out, tlo)
                    grow_hi = np.maximum(ihi + pad_out, thi)
                    if rounds > widen_after:  # widening: jump past the growth seen so far
                        grow_lo = grow_lo - 2 * (tlo - grow_lo)
                        grow_hi = grow_hi + 2 * (grow_hi - thi)
                    boxes[j] = (grow_lo, grow_hi)
                    grew = True
                    if np.max(grow_hi - grow_lo) > blow_up:
                        return ChartSearch(None, f"a box of state {t} blew up (width > "
                                           f"{blow_up:g})", rounds)
        if not grew:
            if slack_done:
                table = [[succ[(i, a)] for a in range(automaton.n_symbols)]
                         for i in range(len(boxes))]
                return ChartSearch(boxes, f"closed after {rounds} rounds, {len(boxes)} boxes",
                                   rounds, owner, table, 0)
            # Closed up to float tolerance: inflate a little and iterate again, so the
            # images lie strictly inside (room for the dyadic rounding and exact check).
            slack_done = True
            for i, (lo, hi) in enumerate(boxes):
                room = 1e-6 * (hi - lo) + 1e-10 * (1 + np.abs(lo) + np.abs(hi))
                room[p] = 0
                boxes[i] = (lo - room, hi + room)
    return ChartSearch(None, f"no fixed point within {max_rounds} rounds", max_rounds)


def readout_ok(chart: Chart, readout: np.ndarray, boxes: list[tuple[np.ndarray, np.ndarray]],
               owner: list[int], right: dict[int, int]) -> int | None:
    """A state whose box is read out wrongly (float check, for the search), or None."""
    b, binv = chart.floats()
    for q, (lo, hi) in zip(owner, boxes):
        for c in range(len(readout)):
            if c == right[q]:
                continue
            d = (readout[right[q]] - readout[c]) @ binv
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
        rounding = Float32Model(mats_exact, readout_exact) if float32 else None
        mats = rounding.mats32 if rounding else np.asarray(sem.matrices(net, False), float)
        readout = rounding.readout32 if rounding else np.asarray(net.params["readout"], float)
        points = [h for pts in clouds.values() for h in pts]
        from fsmnet.proofs.abstract.recorded_basis import recorded_chart

        recorded = recorded_chart(net.options, points)  # a compiler's basis: try it first
        if recorded is not None and rounding is None:
            charted = [_charted(recorded, a) for a in mats_exact]
            for found, why in _box_bodies(self.name, recorded, mats, readout, automaton,
                                          clouds, right, rounding, float32, widen_after=60,
                                          cushion=0.0, charted=charted):
                yield found, f"{why} (recorded basis)"
        chart = choose_chart(points)
        if chart is None:
            yield None, "no linear functional is positive on every sampled state"
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


def _box_bodies(name: str, chart: Any, mats: np.ndarray, readout: np.ndarray,
                automaton: Automaton, clouds: dict[int, list[np.ndarray]],
                right: dict[int, int], rounding: Any, float32: bool, widen_after: int = 8,
                cushion: float = 1.0, charted: list[np.ndarray] | None = None
                ) -> Iterator[tuple[dict[str, Any] | None, str]]:
    """(certificate body, why) per inflation of the chart-box search in ``chart``."""
    from fsmnet.proofs.certificate_models import exact_qs

    for pad in PADS:
        found = search_boxes(chart, mats, automaton, clouds, pad=pad, rounding=rounding,
                             widen_after=widen_after, cushion=cushion, charted=charted)
        if found.boxes is None:
            yield None, found.reason
            continue
        bad = readout_ok(chart, readout, found.boxes, found.owner, right)
        if bad is not None:
            yield None, (f"the box of state {bad} is not read out with a margin "
                         f"(inflation {pad})")
            continue
        exact = dyadic_boxes(found.boxes, chart.pivot)
        body = {
            "domain": name, "rounding": "float32-step" if float32 else "exact",
            "basis": exact_qs(chart.basis()), "basis_inverse": exact_qs(chart.inverse()),
            "pivot": chart.pivot, "inflation": pad,
            "initial_box": found.initial, "successors": found.succ,
            "boxes": [{"state": q, "lo": exact_qs(lo), "hi": exact_qs(hi)}
                      for q, (lo, hi) in zip(found.owner, exact)]}
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
