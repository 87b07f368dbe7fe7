"""Leader clustering (fsmnet/proofs/abstract/leader_clusters.py, used by the box
search) against its definition written out in plain Python.

Independent source: the leader algorithm as Hartigan states it ("Clustering
Algorithms", 1975): each point in turn joins the first leader within the radius,
else leads a new group; here with the sup norm, one point at a time.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from fsmnet.proofs.abstract.box_search import clusters


def _by_definition(points: np.ndarray, radius: float) -> list[list[int]]:
    groups: list[list[int]] = []
    for i, p in enumerate(points):
        for g in groups:
            if max(abs(float(x) - float(y)) for x, y in zip(p, points[g[0]])) <= radius:
                g.append(i)
                break
        else:
            groups.append([i])
    return groups


@given(points=st.integers(0, 40).flatmap(lambda n: st.integers(1, 4).flatmap(
           lambda d: arrays(np.float64, (n, d), elements=st.floats(-2, 2)))),
       radius=st.sampled_from([0.0, 0.1, 0.5, 1.0, 5.0]))
def test_groups_are_the_leader_algorithms(points, radius):
    got = clusters(points, radius)
    want = _by_definition(points, radius)
    assert len(got) == len(want)
    for block, rows in zip(got, want):
        assert np.array_equal(block, points[rows])


def test_points_on_the_radius_join_the_first_leader():
    # ties: a distance exactly equal to the radius joins (≤), to the first leader
    points = np.array([[0.0, 0.0], [1.0, 0.0], [0.5, 0.0], [-1.0, 1.0]])
    got = clusters(points, 0.5)
    assert [len(g) for g in got] == [2, 1, 1]
    assert np.array_equal(got[0], points[[0, 2]])
