"""Householder snapping: a trained deltaproduct network's step sizes made exactly 0,
1 or 2.

A generalized Householder factor F = I − β k̂k̂ᵀ (fsmnet.nets.deltaproduct) is the
identity at β = 0, a projection at β = 1 and a reflection, of order 2, at β = 2.
Training leaves β near these values (1.93 for a reflection), and a dyadic grid fine
enough to keep the keys leaves β off them (1.9375 on 2^-4): then F² ≠ I, the exact
states never repeat and nothing is proved.  Here each β within a tolerance of 0, 1 or
2 becomes exactly that value, the others and the keys go on a dyadic grid (entries
near 0 and ±1 exactly those).  The semantics normalizes keys (β k kᵀ / kᵀk), so a
dyadic key gives a rational factor: a product of reflections with rational keys is a
rational orthogonal matrix, and the exact product can close.

Costs: one candidate per (tolerance, grid), each checked on the training sample by
fsmnet.train.snap like every candidate.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from fsmnet.errors import FsmnetError
from fsmnet.nets import Network

TOLERANCES = (0.125, 0.25)
"""How far a trained β may be from 0, 1 or 2 to become it, tightest first."""

BETA_VALUES = np.array([0.0, 1.0, 2.0])
"""Identity, projection, reflection."""


def snap_betas(betas: np.ndarray, tolerance: float, bits: int) -> np.ndarray:
    """Each β within ``tolerance`` of 0, 1 or 2 set to it; the others to the grid 2^-bits.

    >>> snap_betas(np.array([1.93, 0.07, 1.6]), 0.125, 4).tolist()
    [2.0, 0.0, 1.625]
    """
    b = np.asarray(betas, dtype=np.float64)
    nearest = BETA_VALUES[np.abs(b[..., None] - BETA_VALUES).argmin(axis=-1)]
    grid = np.round(b * 2.0**bits) / 2.0**bits
    return np.where(np.abs(b - nearest) <= tolerance, nearest, grid)


def householder_snaps(net: Network) -> Iterator[tuple[dict[str, Any], Network]]:
    """({"kind": "householder", "tolerance", "bits"}, snapped network) for every
    tolerance and grid 2^-2 … 2^-12, coarsest first; nothing for another architecture.
    A candidate the format rejects (a key snapped to zero with β ≠ 0) is skipped."""
    from fsmnet.train.snap import BITS, snap_array

    if net.arch != "deltaproduct":
        return
    keys, betas = (np.asarray(net.params[k], dtype=np.float64) for k in ("keys", "betas"))
    for tolerance in TOLERANCES:
        for bits in BITS:
            try:
                snapped = net.with_params(keys=snap_array(keys, bits, units=True),
                                          betas=snap_betas(betas, tolerance, bits))
            except (FsmnetError, ValueError, ArithmeticError):
                continue
            yield {"kind": "householder", "tolerance": tolerance, "bits": bits}, snapped
