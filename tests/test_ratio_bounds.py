"""The compiled Dinkelbach bounds (fsmnet/proofs/abstract/ratio_bounds.py) against
brute force over vertices.

Independent source: a linear-fractional function with a positive denominator is
quasi-linear, so its minimum and maximum over a polytope sit at vertices
(Boyd & Vandenberghe, "Convex Optimization", §3.4.2 and §4.3.2).  The vertices
of a box are its 2^H corners; those of a slice box {φ·h = 1, lo ≤ h ≤ hi} have
every coordinate but one at a bound and that one solved from φ·h = 1.  The
tests enumerate them and compare the extreme ratios.
"""

from __future__ import annotations

import itertools

import numpy as np
from hypothesis import assume, given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from fsmnet.proofs.abstract.ratio_bounds import ratio_bounds, slice_bounds

FINITE = st.floats(-4, 4, allow_nan=False, width=64)


def _box(h: int) -> st.SearchStrategy[tuple[np.ndarray, np.ndarray]]:
    lows = arrays(np.float64, h, elements=st.floats(0.05, 2))
    widths = arrays(np.float64, h, elements=st.floats(0, 1.5))
    return st.tuples(lows, widths).map(lambda t: (t[0], t[0] + t[1]))


def _corners(lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    return np.array([np.where(bits, hi, lo)
                     for bits in itertools.product([False, True], repeat=len(lo))])


def _slice_vertices(phi: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    out = []
    for k in np.flatnonzero(phi):
        rest = [j for j in range(len(phi)) if j != k]
        for bits in itertools.product([False, True], repeat=len(rest)):
            h = np.where(bits, hi[rest], lo[rest])
            v = (1 - phi[rest] @ h) / phi[k]
            if lo[k] - 1e-12 <= v <= hi[k] + 1e-12:
                out.append(np.insert(h, k, v))
    return np.array(out)


def _close(a: np.ndarray, b: np.ndarray) -> bool:
    return bool(np.all(np.abs(a - b) <= 1e-9 * (1 + np.abs(b))))


@given(data=st.data(), h=st.integers(1, 5))
def test_box_bounds_are_the_extreme_corners(data, h):
    m = data.draw(arrays(np.float64, (h, h), elements=FINITE))
    lo, hi = data.draw(_box(h))
    p = data.draw(st.integers(0, h - 1))
    corners = _corners(lo, hi)
    den = corners @ m[p]
    assume(den.min() > 1e-3)  # the chart map is defined on the whole box
    ratios = (corners @ m.T) / den[:, None]
    lower, upper, den_min = ratio_bounds(m, p, lo, hi)
    assert _close(lower, ratios.min(0)) and _close(upper, ratios.max(0))
    assert np.isclose(den_min, den.min(), rtol=1e-12, atol=1e-12)


@given(data=st.data(), h=st.integers(1, 5))
def test_slice_bounds_are_the_extreme_vertices(data, h):
    lo, hi = data.draw(_box(h))
    weights = data.draw(arrays(np.float64, h, elements=st.sampled_from([0.0, 0.5, 1.0, 2.0])))
    assume(weights.any())
    inside = lo + data.draw(arrays(np.float64, h, elements=st.floats(0, 1))) * (hi - lo)
    phi = weights / (weights @ inside)  # the slice passes through a point of the box
    a = data.draw(arrays(np.float64, (h, h), elements=FINITE))
    # one row moved so that φ·A = g > 0: the denominator is positive on the box
    k = int(np.flatnonzero(phi)[0])
    g = data.draw(arrays(np.float64, h, elements=st.floats(0.5, 2)))
    a[k] += (g - phi @ a) / phi[k]
    vertices = _slice_vertices(phi, lo, hi)
    den = vertices @ (phi @ a)
    ratios = (vertices @ a.T) / den[:, None]
    lower, upper, den_min = slice_bounds(a, phi, lo, hi)
    assert _close(lower, ratios.min(0)) and _close(upper, ratios.max(0))
    assert np.isclose(den_min, den.min(), rtol=1e-9, atol=1e-12)
