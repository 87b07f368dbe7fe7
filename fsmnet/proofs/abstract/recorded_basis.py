"""A chart in the basis a construction recorded: y = S⁻¹ h for a network built as
h = S x.

The chart boxes of :mod:`fsmnet.proofs.abstract.linear` live in the network's own
coordinates (one row φ, the others unit rows).  A construction that conjugates a
simple system by a dense S (the fixed-point networks, whose iteration converges
only after conjugation: docs/constructions-deltaproduct-fixedpoint.md) has its
invariant boxes in the coordinates x = S⁻¹ h; in h they are parallelotopes, and
the image of a box under the dense S A S⁻¹ wraps outwards on every step, so no
box closes there.  The fixed-point compiler records S (``options["S"]``); this
chart uses it.

The record is only a hint.  A wrong or tampered S yields boxes that fail the
exact check (the certificate carries the basis and its inverse, and the checker
re-verifies B·B⁻¹ = I and every inclusion), never a wrong proof.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np


@dataclass(frozen=True)
class BasisChart:
    """The chart y = B h with an arbitrary exact basis B (rows) and a pivot coordinate
    positive on every sampled state; the same interface as ``linear.Chart``."""

    rows: list[list[Fraction]]
    inverse_rows: list[list[Fraction]]
    pivot: int

    def basis(self) -> list[list[Fraction]]:
        return self.rows

    def inverse(self) -> list[list[Fraction]]:
        return self.inverse_rows

    def floats(self) -> tuple[np.ndarray, np.ndarray]:
        return (np.array([[float(x) for x in row] for row in self.rows]),
                np.array([[float(x) for x in row] for row in self.inverse_rows]))


def recorded_chart(options: dict[str, Any], points: list[np.ndarray]) -> BasisChart | None:
    """The chart y = S⁻¹ h for a recorded integer conjugation ``options["S"]``, pivoted
    on the coordinate of y that is positive on every sample and varies least (the
    constant coordinate of a homogeneous construction); None when there is no record,
    it does not fit, is singular, or no coordinate is positive everywhere."""
    from fsmnet.nets.fixed_point import exact_inverse

    s = options.get("S")
    if not points or not isinstance(s, list) or not s or not all(
            isinstance(row, list) and len(row) == len(s) for row in s):
        return None
    if len(s) != len(points[0]) or not all(
            isinstance(x, int) and not isinstance(x, bool) for row in s for x in row):
        return None
    exact = np.array([[Fraction(x) for x in row] for row in s], dtype=object)
    try:
        inverse = exact_inverse(exact)
    except ArithmeticError:  # singular (ZeroDivisionError)
        return None
    binv = np.array([[float(x) for x in row] for row in inverse])
    ys = np.array([binv @ h for h in points])
    positive = [i for i in range(ys.shape[1]) if np.all(ys[:, i] > 0)]
    if not positive:
        return None
    pivot = min(positive, key=lambda i: float(ys[:, i].max() / ys[:, i].min()))
    return BasisChart([list(row) for row in inverse], [list(row) for row in exact], pivot)
