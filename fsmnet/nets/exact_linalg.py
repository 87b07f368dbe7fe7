"""Exact linear algebra over the rationals: one Gauss-Jordan elimination in Fractions,
and one integer determinant.

Shared by the fixed-point inverse matrices and minor chains, the cone-invariant
multipliers and the rational rank of the CP bounds, which all need exact answers
(a proof may not rest on a float tolerance).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
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


def int_det(m: Sequence[Sequence[int]]) -> int:
    """Determinant of a square integer matrix by Bareiss elimination: every division
    is exact, so the entries stay integers of bounded size (no Fractions)."""
    a = [[int(x) for x in row] for row in m]
    n, sign, prev = len(a), 1, 1
    for k in range(n - 1):
        if a[k][k] == 0:
            swap = next((r for r in range(k + 1, n) if a[r][k] != 0), None)
            if swap is None:
                return 0
            a[k], a[swap], sign = a[swap], a[k], -sign
        for i in range(k + 1, n):
            for j in range(k + 1, n):
                a[i][j] = (a[i][j] * a[k][k] - a[i][k] * a[k][j]) // prev
        prev = a[k][k]
    return sign * a[n - 1][n - 1] if n else 1
