"""Exact linear algebra over the rationals: one Gauss-Jordan elimination in Fractions.

Shared by the fixed-point inverse matrices, the cone-invariant multipliers and
the rational rank of the CP bounds, which all need exact answers (a proof may
not rest on a float tolerance).
"""

from __future__ import annotations

from collections.abc import Iterable
from fractions import Fraction
from typing import Any


def row_reduce(rows: Iterable[Iterable[Any]], n_cols: int) -> tuple[list[list[Fraction]],
                                                                   list[int]]:
    """Reduced row echelon form of ``rows`` (as Fractions), pivoting only in the first
    ``n_cols`` columns (the rest ride along, e.g. a right-hand side); returns the
    reduced rows and the pivot columns, in order."""
    m = [[Fraction(x) for x in row] for row in rows]
    pivots: list[int] = []
    r = 0
    for c in range(n_cols):
        p = next((i for i in range(r, len(m)) if m[i][c] != 0), None)
        if p is None:
            continue
        m[r], m[p] = m[p], m[r]
        inv = 1 / m[r][c]
        m[r] = [x * inv for x in m[r]]
        for i in range(len(m)):
            if i != r and m[i][c] != 0:
                f = m[i][c]
                m[i] = [a - f * b for a, b in zip(m[i], m[r])]
        pivots.append(c)
        r += 1
    return m, pivots
