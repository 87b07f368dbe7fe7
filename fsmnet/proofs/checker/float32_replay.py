"""An independent float32 run of a linear model, standard library only: the confirmation
of a float32 counterexample.

It executes the float32 reference step of docs/formats.md from the exact model a
certificate states (``{"type": "linear", "matrices", "h0", "readout"}``, numbers
as rational strings), with float32 emulated by float64 operations and rounding
through ``struct``: one +, −, × or ÷ of two float32 values is exact in float64
before that rounding (53 ≥ 2·24 + 2 bits), so each emulated operation is the
float32 operation (docs/verification.md gives the argument).

* A32 = fl32(fl64(A)), R32 likewise; h_0 = fl32(fl64(h0 / max|h0|)).
* g_i = Σ_j A32[i,j] h_j, left to right, every product and sum rounded;
  h' = fl32(g_i / max|g|) (the zero vector stays zero).
* label = the first index of the largest fl32 score; a non-finite state or
  score is an overflow (label −1) for that position and every later one.

This module shares no code with :mod:`fsmnet.nets.float32`, the numpy/Numba
reference it confirms.
"""

from __future__ import annotations

import math
import struct
from fractions import Fraction
from typing import Any

from .linear_model import read_linear

OVERFLOW = -1


def f32(x: float) -> float:
    """Round a double to the nearest float32; ±inf beyond float32's range."""
    try:
        return float(struct.unpack("f", struct.pack("f", x))[0])
    except OverflowError:
        return math.copysign(math.inf, x)


def _dot(row: list[float], h: list[float]) -> float:
    s = 0.0
    for a, x in zip(row, h):
        s = f32(s + f32(a * x))
    return s


def _label(readout: list[list[float]], h: list[float]) -> int:
    scores = [_dot(r, h) for r in readout]
    if not all(math.isfinite(s) for s in scores):
        return OVERFLOW
    best = 0
    for c in range(1, len(scores)):
        if scores[c] > scores[best]:
            best = c
    return best


def _to32(x: Fraction) -> float:
    try:
        return f32(float(x))
    except OverflowError:  # beyond float64: certainly beyond float32
        return math.copysign(math.inf, x)


def model32(model: dict[str, Any]) -> tuple[list, list, list[float]]:
    """(A32 per symbol, R32, h_0) of an exact linear model, by the rounding above."""
    exact = read_linear(model)
    mats = [[[_to32(x) for x in row] for row in m] for m in exact.matrices]
    readout = [[_to32(x) for x in row] for row in exact.readout]
    top = max((abs(x) for x in exact.h0), default=Fraction(0))
    return mats, readout, [_to32(x / top) if top else 0.0 for x in exact.h0]


def step(matrix: list[list[float]], h: list[float]) -> list[float] | None:
    """The next float32 state, or None if it is not finite (an overflow)."""
    g = [_dot(row, h) for row in matrix]
    if not all(math.isfinite(x) for x in g):
        return None
    m = max((abs(x) for x in g), default=0.0)
    return g if m == 0 else [f32(x / m) for x in g]


def label(readout: list[list[float]], h: list[float]) -> int:
    """The first index of the largest float32 score; OVERFLOW if a score is not finite."""
    return _label(readout, h)


def replay(model: dict[str, Any], word: list[int]) -> tuple[list[int], list[float]]:
    """(the float32 label after every prefix of ``word``, the last finite state)."""
    mats, readout, h = model32(model)
    over = not all(math.isfinite(x) for x in h)
    out = [OVERFLOW if over else _label(readout, h)]
    for a in word:
        nxt = None if over else step(mats[a], h)
        over = nxt is None
        h = h if nxt is None else nxt
        out.append(OVERFLOW if over else _label(readout, h))
    return out, h


def replay_labels(model: dict[str, Any], word: list[int]) -> list[int]:
    """The float32 label after every prefix of ``word`` (symbol indices)."""
    return replay(model, word)[0]
