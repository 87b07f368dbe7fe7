"""The box search shared by the box domains of linear recurrences (:mod:`.linear`,
:mod:`.slice_boxes`): Kleene iteration with widening over boxes, several per
automaton state.

A domain supplies two things: the points it starts from (the sampled states in
its own coordinates, per automaton state) and its image map, a box and a symbol
to the tight bounding box of the image plus the minimum of the normalizing
functional over the box (which must stay positive).  Everything else is the
same for every domain: clustering the samples into boxes, assigning each
(box, symbol) a successor box of the target state, growing a successor box to
hold the image (with a cushion past it and, after a few rounds, widening), and
one extra round of slack once the boxes close so that the images lie strictly
inside.  How a box grows is the domain's choice (:class:`BoxSchedule`), since a
trained network's slow contraction and a conjugated construction's exact
permutation of boxes want opposite settings.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from fsmnet.automata import Automaton

#: (lo, hi, symbol) -> (image lo, image hi, minimum of the normalizing functional on
#: the box); the bounds already include the domain's rounding error, if any.  In a
#: signed search the third value may be negative: then the functional is negative on
#: the whole image (its minimum in absolute value), and the image's box has the
#: opposite sign.
ImageMap = Callable[[np.ndarray, np.ndarray, int], tuple[np.ndarray, np.ndarray, float]]


@dataclass(frozen=True)
class BoxSchedule:
    """How a search grows its boxes, and when it gives up.

    Attributes
    ----------
    cushion
        A box that must grow is pushed this many times 10⁻⁷ of the image's width
        (plus 10⁻¹⁰ absolute) past the image, so that dyadic rounding and the exact
        check keep a margin; 0 grows to the image's hull only.
    widen_after
        Rounds of plain iteration before widening (each growth then jumps twice
        as far again past the growth seen).
    pinned
        A coordinate that every box holds fixed (a chart's pivot, equal to 1): it
        gets no padding, cushion or slack.
    max_rounds, blow_up, radius, max_boxes
        Give up after ``max_rounds`` rounds, on a box wider than ``blow_up``, or on
        more than ``max_boxes`` boxes; an image farther than ``radius`` (sup norm)
        from every box of its state starts a new box.
    """

    cushion: float = 1.0
    widen_after: int = 8
    pinned: int | None = None
    max_rounds: int = 200
    blow_up: float = 1e3
    radius: float = 0.25
    max_boxes: int = 400


@dataclass
class BoxSearch:
    """Outcome of :func:`search`: boxes (each owned by an automaton state, with a
    successor box per symbol; box 0 belongs to the initial state), or why none closed.

    Several boxes may share an automaton state (one per cluster of reached
    states): a finite simulation of the network by a refinement of the
    automaton, which is all the induction needs.
    """

    boxes: list[tuple[np.ndarray, np.ndarray]] | None
    reason: str
    rounds: int = 0
    owner: list[int] = field(default_factory=list)
    succ: list[list[int]] = field(default_factory=list)
    signs: list[int] = field(default_factory=list)


def clusters(ts: np.ndarray, radius: float) -> list[np.ndarray]:
    """Leader clustering of points in the sup norm (order as sampled; the groups in
    the order they open, :mod:`.leader_clusters`)."""
    from fsmnet.proofs.abstract.leader_clusters import leader_groups

    group = leader_groups(np.ascontiguousarray(ts, dtype=float), float(radius))
    return [ts[group == g] for g in range(int(group.max()) + 1)] if len(ts) else []


def _unpinned(v: np.ndarray, pinned: int | None) -> np.ndarray:
    if pinned is not None:
        v[pinned] = 0
    return v


def _groups(points: dict[int, np.ndarray], signs: dict[int, np.ndarray] | None,
            initial: int) -> list[tuple[int, int, np.ndarray]]:
    """(state, sign, points) per automaton state and sign, the initial state's first
    point's group first (box 0 must hold the start)."""
    out = []
    for q in [initial] + [q for q in points if q != initial]:
        if q not in points or not len(points[q]):
            continue
        sg = np.ones(len(points[q]), dtype=int) if signs is None else signs[q]
        for s in dict.fromkeys(int(x) for x in sg):  # first seen first
            out.append((q, s, points[q][sg == s]))
    return out


def search(image: ImageMap, automaton: Automaton, points: dict[int, np.ndarray], *,
           pad: float, schedule: BoxSchedule,
           signs: dict[int, np.ndarray] | None = None,
           initial_extent: tuple[np.ndarray, np.ndarray] | None = None) -> BoxSearch:
    """Kleene iteration S_j ← hull(S_j ∪ F_x(S_i)) on boxes, with widening.

    ``points`` are the sampled states per automaton state in the domain's
    coordinates (a state without samples starts with no box).  ``pad`` inflates
    each cluster's box (relative to its spread, plus an absolute floor) so that
    a contraction towards its inside can close.  ``signs`` (±1 per point) makes
    the search signed: each box is a cone over the box times its sign, so a state
    set and its negative (a parity network's even and odd states) are two boxes of
    one chart, and an image whose functional is negative goes to a box of the
    opposite sign.  ``initial_extent`` is a box that box 0 must hold (the float32
    roundings of h0, which the checker places in it).
    """
    s = schedule
    boxes: list[tuple[np.ndarray, np.ndarray]] = []
    owner: list[int] = []
    sign: list[int] = []
    assert automaton.initial is not None
    for q, sg, pts in _groups(points, signs, automaton.initial):
        for grp in clusters(pts, s.radius):
            lo, hi = grp.min(0), grp.max(0)
            spread = _unpinned(np.maximum(hi - lo, 0) * pad + pad * 1e-3, s.pinned)
            boxes.append((lo - spread, hi + spread))
            owner.append(q)
            sign.append(sg)
    if initial_extent is not None and boxes:
        boxes[0] = (np.minimum(boxes[0][0], initial_extent[0]),
                    np.maximum(boxes[0][1], initial_extent[1]))
    succ: dict[tuple[int, int], int] = {}
    slack_done = False
    for rounds in range(1, s.max_rounds + 1):
        grew = False
        for i in range(len(boxes)):
            lo, hi = boxes[i]
            for a in range(automaton.n_symbols):
                t = int(automaton.delta[a, owner[i]])
                ilo, ihi, den = image(lo, hi, a)
                if den == 0 or (den < 0 and signs is None):
                    return BoxSearch(None, f"the image of a box of state {owner[i]} under "
                                     f"symbol {a} leaves the half-space φ > 0", rounds)
                ts = sign[i] * (1 if den > 0 else -1)
                j = succ.get((i, a))
                if j is None:  # the nearest box of the target state, or a new one
                    mid = (ilo + ihi) / 2
                    near = [(np.max(np.maximum(boxes[c][0] - mid, mid - boxes[c][1])), c)
                            for c in range(len(boxes)) if owner[c] == t and sign[c] == ts]
                    dist, j = min(near) if near else (np.inf, -1)
                    if dist > s.radius:
                        if len(boxes) >= s.max_boxes:
                            return BoxSearch(None, f"more than {s.max_boxes} boxes", rounds)
                        boxes.append((ilo, ihi))
                        owner.append(t)
                        sign.append(ts)
                        j = len(boxes) - 1
                    succ[(i, a)] = j
                    grew = True
                elif sign[j] != ts:
                    return BoxSearch(None, f"the image of a box of state {owner[i]} under "
                                     f"symbol {a} changes the sign of φ", rounds)
                tlo, thi = boxes[j]
                tol = 1e-13 * (1 + np.abs(thi - tlo))
                if np.any(ilo < tlo - tol) or np.any(ihi > thi + tol):
                    pad_out = _unpinned(s.cushion * (1e-7 * (ihi - ilo) + 1e-10 * (
                        1 + np.abs(ilo) + np.abs(ihi))), s.pinned)
                    grow_lo = np.minimum(ilo - pad_out, tlo)
                    grow_hi = np.maximum(ihi + pad_out, thi)
                    if rounds > s.widen_after:  # widening: jump past the growth seen so far
                        grow_lo = grow_lo - 2 * (tlo - grow_lo)
                        grow_hi = grow_hi + 2 * (grow_hi - thi)
                    boxes[j] = (grow_lo, grow_hi)
                    grew = True
                    if np.max(grow_hi - grow_lo) > s.blow_up:
                        return BoxSearch(None, f"a box of state {t} blew up (width > "
                                         f"{s.blow_up:g})", rounds)
        if not grew:
            if slack_done:
                table = [[succ[(i, a)] for a in range(automaton.n_symbols)]
                         for i in range(len(boxes))]
                return BoxSearch(boxes, f"closed after {rounds} rounds, {len(boxes)} boxes",
                                 rounds, owner, table, sign)
            # Closed up to float tolerance: inflate a little and iterate again, so the
            # images lie strictly inside (room for the dyadic rounding and exact check).
            slack_done = True
            for i, (lo, hi) in enumerate(boxes):
                room = _unpinned(1e-6 * (hi - lo) + 1e-10 * (1 + np.abs(lo) + np.abs(hi)),
                                 s.pinned)
                boxes[i] = (lo - room, hi + room)
    return BoxSearch(None, f"no fixed point within {s.max_rounds} rounds", s.max_rounds)
