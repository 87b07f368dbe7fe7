"""The shared box-search driver (fsmnet.proofs.abstract.box_search) on hand-made image maps.

Independent routes: the expected boxes are worked out by hand for one-dimensional
affine contractions (the fixed point of x ↦ x/2 + 1 is 2, so every closed box
must contain it and the images must lie inside), and the schedule's knobs are
checked by their effect on the rounds and the box widths.
"""

from __future__ import annotations

import numpy as np
import pytest

from fsmnet.automata import Automaton
from fsmnet.proofs.abstract.box_search import BoxSchedule, clusters, search

ONE_STATE = Automaton(delta=[[0]], symbols=["a"], initial=0, outputs=[True], name="one")
ONE_BOX = BoxSchedule(radius=1e3)  # every image near enough to join the state's box


def affine(scale: float, shift: float):
    """The image of [lo, hi] under x ↦ scale·x + shift (scale > 0), with den = 1."""

    def image(lo: np.ndarray, hi: np.ndarray, a: int) -> tuple[np.ndarray, np.ndarray, float]:
        return scale * lo + shift, scale * hi + shift, 1.0

    return image


def test_a_contraction_closes_around_its_fixed_point() -> None:
    found = search(affine(0.5, 1.0), ONE_STATE, {0: np.array([[0.0]])}, pad=1e-3,
                   schedule=ONE_BOX)
    assert found.boxes is not None and found.owner == [0] and found.succ == [[0]]
    (lo, hi), = found.boxes
    assert lo[0] < 0 and hi[0] > 2  # the sample and the fixed point 2
    # the image lies strictly inside: room for the dyadic rounding
    assert 0.5 * lo[0] + 1 > lo[0] and 0.5 * hi[0] + 1 < hi[0]


def test_an_expansion_blows_up_and_a_negative_denominator_is_reported() -> None:
    found = search(affine(2.0, 1.0), ONE_STATE, {0: np.array([[0.0]])}, pad=1e-3,
                   schedule=BoxSchedule(blow_up=10.0, radius=1e3))
    assert found.boxes is None and "blew up (width > 10)" in found.reason

    def leaves(lo: np.ndarray, hi: np.ndarray, a: int) -> tuple[np.ndarray, np.ndarray, float]:
        return lo, hi, -1.0

    found = search(leaves, ONE_STATE, {0: np.array([[0.0]])}, pad=1e-3,
                   schedule=BoxSchedule())
    assert found.boxes is None and "leaves the half-space" in found.reason


def test_widening_starts_after_the_schedule_says() -> None:
    # A slow contraction (scale 0.99) creeps towards its fixed point 100; widening
    # jumps there in few rounds, plain iteration needs many more.
    early = search(affine(0.99, 1.0), ONE_STATE, {0: np.array([[0.0]])}, pad=1e-3,
                   schedule=BoxSchedule(widen_after=2, max_rounds=2000, blow_up=1e6, radius=1e3))
    late = search(affine(0.99, 1.0), ONE_STATE, {0: np.array([[0.0]])}, pad=1e-3,
                  schedule=BoxSchedule(widen_after=50, max_rounds=2000, blow_up=1e6, radius=1e3))
    assert early.boxes is not None and late.boxes is not None
    assert early.rounds < late.rounds


def test_the_pinned_coordinate_gets_no_padding() -> None:
    def image(lo: np.ndarray, hi: np.ndarray, a: int) -> tuple[np.ndarray, np.ndarray, float]:
        ilo, ihi = lo.copy(), hi.copy()
        ilo[1], ihi[1] = 0.5 * lo[1], 0.5 * hi[1]
        ilo[0] = ihi[0] = 1.0
        return ilo, ihi, 1.0

    pts = {0: np.array([[1.0, 0.2], [1.0, 0.4]])}
    found = search(image, ONE_STATE, pts, pad=0.05, schedule=BoxSchedule(pinned=0))
    assert found.boxes is not None
    (lo, hi), = found.boxes
    assert lo[0] == hi[0] == 1.0 and lo[1] < 0 < 0.4 < hi[1]


def test_far_samples_make_separate_boxes_of_one_state() -> None:
    two = Automaton(delta=[[0, 1]], symbols=["a"], initial=0, outputs=[True, False],
                    name="stay")
    pts = {1: np.array([[5.0]]), 0: np.array([[0.0], [3.0]])}
    found = search(affine(1.0, 0.0), two, pts, pad=1e-3, schedule=BoxSchedule(radius=1.0))
    assert found.boxes is not None
    assert found.owner[0] == 0  # the initial state's first box is box 0
    assert sorted(found.owner) == [0, 0, 1]
    assert [len(c) for c in clusters(np.array([[0.0], [0.5], [3.0]]), 1.0)] == [2, 1]


@pytest.mark.parametrize("cushion", [0.0, 1.0])
def test_every_image_lies_in_its_successor(cushion: float) -> None:
    # two states swapped by the letter, each image a contraction towards 1 and −1
    swap = Automaton(delta=[[1, 0]], symbols=["a"], initial=0, outputs=[True, False],
                     name="swap")

    def image(lo: np.ndarray, hi: np.ndarray, a: int) -> tuple[np.ndarray, np.ndarray, float]:
        return -0.5 * hi, -0.5 * lo, 1.0

    found = search(image, swap, {0: np.array([[1.0]]), 1: np.array([[-0.5]])}, pad=0.01,
                   schedule=BoxSchedule(cushion=cushion, radius=1e3))
    assert found.boxes is not None
    for i, (lo, hi) in enumerate(found.boxes):
        tlo, thi = found.boxes[found.succ[i][0]]
        ilo, ihi, _ = image(lo, hi, 0)
        assert tlo[0] <= ilo[0] and ihi[0] <= thi[0]
