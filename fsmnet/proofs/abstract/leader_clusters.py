"""Leader clustering in the sup norm, compiled by Numba.

Each point, in the order given, joins the group of the first leader within
``radius`` (sup norm), or becomes the leader of a new group (Hartigan,
"Clustering Algorithms", 1975, the leader algorithm).  One pass, O(n · groups · d).
The box search clusters the sampled states of every automaton state before
each search (hundreds of thousands of points in a certify run, a few groups),
where a Python loop per point would dominate.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def leader_groups(points: np.ndarray, radius: float) -> np.ndarray:
    """The group index of every row of ``points`` (groups numbered as they open)."""
    n, d = points.shape
    group = np.empty(n, dtype=np.int64)
    leaders = np.empty(n, dtype=np.int64)  # row index of each group's leader
    count = 0
    for i in range(n):
        group[i] = -1
        for g in range(count):
            far = False
            for k in range(d):
                if abs(points[i, k] - points[leaders[g], k]) > radius:
                    far = True
                    break
            if not far:
                group[i] = g
                break
        if group[i] < 0:
            leaders[count] = i
            group[i] = count
            count += 1
    return group
