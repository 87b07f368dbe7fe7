"""Root-of-unity snapping: a trained bilinear-r2 network's rotations made exact.

A dyadic grid cannot make a rotation exact: the angle 2π/3 of a mod-3 counter is
irrational, so a rounded angle drifts and the exact states never repeat (the
generic-weights theorem, docs/theory.md §5, rules every such network out for all
lengths).  This snap rounds each trained multiplier r·e^(iθ) of a ``bilinear-r2``
network to μ^j·ζ_N^k with μ = 1/2 (j = the nearest integer to −log2 r, so a modulus
near 1 becomes exactly 1) and ζ_N = e^(2πi/N), and writes the result as the exact
header of the compiled commutative networks (``commutative-monomials``,
fsmnet.nets.diagonal): exact evaluation reads the multipliers in the cyclotomic
field Q(ζ_N) and the tensors are their correctly rounded values.  A letter whose
multipliers all have modulus 1 and finite order then acts with finite order, the
exact states are finitely many, and the exact product proves the network.

The readout and ``h0`` are kept: every stored float is a dyadic rational, so a
readout pair (a, b) is the coefficient a − b·i = a·ζ^0 − b·ζ^(N/4) (N a multiple
of 4, since i = ζ_4 must be in the field).

Each channel gets its own order: the least n in :data:`ORDERS` whose roots 2πk/n
are all within a tolerance of the channel's angles (:data:`TOLERANCES`, loosest
first: the loosest gives the smallest orders); N is their least common multiple.
Two more choices make the table of candidates (:data:`CHOICES`): a channel that
some letter grows (modulus 2^j, j ≥ 1) may be pinned to modulus 1, since in float32
it would overflow; a channel that some letter shrinks may start at 0, since it only
fades and its fading states keep a product from closing.  Candidates giving the
same network are tried once.  Whether one still computes the training labels is
decided by the caller (:mod:`fsmnet.train.snap`), in the float32 reference
execution.

>>> k, move = nearest_roots(np.array([2.1, -0.01, -2.1]), 3)
>>> k.tolist(), round(move, 4)
([1, 0, 2], 0.01)
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from fractions import Fraction
from typing import Any

import numpy as np

from fsmnet.errors import FsmnetError
from fsmnet.nets import Network

ORDERS = tuple(range(1, 13))
"""The orders n tried for each channel's angles 2πk/n, least first."""

TOLERANCES = (0.2, 0.1, 0.05)
"""The largest move (radians) of an angle to its root of unity, loosest first; 0.2 is
about a third of the gap between 12th roots, so an angle moves only to a root it is
near."""

CHOICES = ((True, True), (True, False), (False, True), (False, False))
"""(growing channels pinned to modulus 1, fading channels started at 0), in order."""

MU = Fraction(1, 2)
MAX_HALVINGS = 60
"""Moduli below 2^-60 (the trained ρ → −∞ of a dead channel) become 2^-60."""


def nearest_roots(angles: np.ndarray, n: int) -> tuple[np.ndarray, float]:
    """For each angle the k in [0, n) of the nearest 2πk/n, and the largest move."""
    turns = np.asarray(angles, dtype=np.float64) * n / (2 * math.pi)
    k = np.rint(turns)
    move = float(np.max(np.abs(turns - k), initial=0.0)) * 2 * math.pi / n
    return np.mod(k, n).astype(np.int64), move


def channel_turns(angle: np.ndarray, tolerance: float) -> list[Fraction] | None:
    """Per letter and channel (letter-major, flattened) the multiplier's angle as a
    fraction k/n of a turn, n the least order in :data:`ORDERS` that moves none of the
    channel's angles by more than ``tolerance``; None when some channel has none."""
    turns = np.empty(angle.shape, dtype=object)
    for c in range(angle.shape[1]):
        for n in ORDERS:
            k, move = nearest_roots(angle[:, c], n)
            if move <= tolerance:
                turns[:, c] = [Fraction(int(x), n) for x in k]
                break
        else:
            return None
    return list(turns.ravel())


def _coefficient(a: float, b: float, quarter: int) -> dict[str, str]:
    """The header coefficient whose real part is ``a`` and minus imaginary part ``b``."""
    coef = {"0": Fraction(a), str(quarter): -Fraction(b)}
    return {e: str(q) for e, q in coef.items() if q}


def _header(net: Network, turns: list[Fraction], halvings: np.ndarray) -> dict[str, Any]:
    """The ``commutative-monomials`` header of multipliers 2^-halvings · e^(2πi·turns)."""
    zeta = math.lcm(4, *(t.denominator for t in turns))
    letters, channels = halvings.shape
    exponent = np.array([int(t * zeta) for t in turns]).reshape(letters, channels)
    readout = np.asarray(net.params["readout"], dtype=np.float64)
    return {"construction": "commutative-monomials", "mu": str(MU), "zeta_order": zeta,
            "channels": [[[int(halvings[a, c]), int(exponent[a, c])] for a in range(letters)]
                         for c in range(channels)],
            "readout": [[_coefficient(row[2 * c], row[2 * c + 1], zeta // 4)
                         for c in range(channels)] for row in readout]}


def root_of_unity_snaps(net: Network) -> Iterator[tuple[dict[str, Any], Network]]:
    """(header record, snapped network with its exact header) for every tolerance and
    choice, in table order; nothing for an architecture other than ``bilinear-r2``."""
    from fsmnet.nets.diagonal import R2Bilinear

    if net.arch != "bilinear-r2":
        return
    modulus, angle = net.params["modulus"], net.params["angle"]
    with np.errstate(divide="ignore"):
        rounded = np.clip(np.rint(-np.log2(modulus)), -MAX_HALVINGS, MAX_HALVINGS)
    growing, fading = np.any(rounded < 0, axis=0), np.any(rounded > 0, axis=0)
    seen: list[tuple[dict[str, Any], np.ndarray]] = []
    for tolerance in TOLERANCES:
        turns = channel_turns(angle, tolerance)
        if turns is None:
            continue
        for pin, silence in CHOICES:
            halvings = np.where(pin & growing, np.maximum(rounded, 0), rounded)
            header = _header(net, turns, halvings.astype(np.int64))
            h0 = np.asarray(net.params["h0"], dtype=np.float64).copy()
            if silence:
                h0[np.repeat(fading, 2)] = 0.0
            if any(header == h and np.array_equal(h0, g) for h, g in seen):
                continue
            seen.append((header, h0))
            try:
                params = R2Bilinear().rounded_tensors(header, len(net.symbols), len(net.labels))
                snapped = Network(arch=net.arch, params={**params, "h0": h0},
                                  symbols=net.symbols, labels=net.labels, options=net.options,
                                  exact=header, name=net.name)
            except (FsmnetError, ArithmeticError):  # h0 = 0; an angle at a rounding midpoint
                continue
            yield {"kind": "roots-of-unity", "order": header["zeta_order"], "mu": str(MU),
                   "tolerance": tolerance, "pinned": np.flatnonzero(pin & growing).tolist(),
                   "silenced": np.flatnonzero(fading).tolist() if silence else []}, snapped
