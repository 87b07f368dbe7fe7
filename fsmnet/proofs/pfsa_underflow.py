"""What breaks in floating point: when the unnormalized belief underflows.

Without renormalization the belief recurrence h_t = M_{x_t} h_{t-1} keeps
‖h_t‖₁ = P(x_1..x_t), which decays exponentially along a word with partial
reveals.  For a periodic word p·u^k whose exact states satisfy the
*eigen-relation* M_u v = r·v (v = M_p e_{q0}, 0 < r < 1, checked exactly), the
state after p·u^k·u[:j] is r^k·v_j with v_j = M_{u[:j]} v, so the length at
which it underflows follows from the exponent range and the rate alone:

* a value rounds to zero in a binary format with smallest subnormal 2^s
  (round to nearest, ties to even, gradual underflow) iff |x| <= 2^(s-1);
* it is subnormal (precision lost) iff 0 < |x| < 2^e_min.

:func:`predict` computes, in exact rationals, the first step at which every
entry rounds to zero and the first at which the largest entry is subnormal.
When every intermediate value is exactly representable (dyadic values with
few bits, e.g. p = 1/2) the float run computes the exact values rounded, so
the float32 and bfloat16 runs (:func:`run_float`) must stop at exactly the
predicted step; with other rates rounding may move it, and the report says so.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from fsmnet.automata.pfsa import PFSA, Vector

__all__ = ["FORMATS", "FloatFormat", "Prediction", "eigen_relation", "predict", "run_float"]


@dataclass(frozen=True)
class FloatFormat:
    """A binary floating-point format: smallest subnormal 2^subnormal_exp,
    smallest normal 2^normal_exp, largest finite below 2^(max_exp + 1)."""

    name: str
    subnormal_exp: int
    normal_exp: int
    max_exp: int
    mantissa_bits: int


FORMATS = {
    "float32": FloatFormat("float32", -149, -126, 127, 24),
    "bfloat16": FloatFormat("bfloat16", -133, -126, 127, 8),
    "float16": FloatFormat("float16", -24, -14, 15, 11),
    "float64": FloatFormat("float64", -1074, -1022, 1023, 53),
}


@dataclass(frozen=True)
class Prediction:
    """Exact underflow steps of the linear recurrence along p·u^k (steps count symbols)."""

    format: str
    rate: Fraction
    period: int
    prefix: int
    zero_step: int
    subnormal_step: int
    zero_periods: int
    representable: bool


def _apply(m: PFSA, v: Vector, word: list[int]) -> Vector:
    for a in word:
        v = m.unnormalized_step(v, a)
    return v


def eigen_relation(m: PFSA, prefix: list[int], period: list[int]) -> tuple[Vector, Fraction]:
    """(v, r) with v = M_p e_{q0} and M_u v = r·v exactly; ValueError otherwise."""
    v = _apply(m, m.initial_belief(), prefix)
    w = _apply(m, v, period)
    pivot = next((i for i, x in enumerate(v) if x), None)
    if pivot is None:
        raise ValueError("the prefix has probability 0")
    r = w[pivot] / v[pivot]
    if any(y != r * x for x, y in zip(v, w)):
        raise ValueError("M_u v is not a multiple of v: no constant decay rate per period")
    return v, r


def _first_k(scale: Fraction, r: Fraction, bound: Fraction) -> int:
    """The least k >= 0 with scale·r^k <= bound (0 < r < 1, scale > 0)."""
    if scale <= bound:
        return 0
    # A float estimate, corrected by exact comparisons (never trusted on its own).
    import math

    def log2(x: Fraction) -> float:  # exact-enough for huge exponents (ints, not floats)
        return math.log2(x.numerator) - math.log2(x.denominator)

    guess = max(0, int((log2(scale) - log2(bound)) / -log2(r)) - 2)
    k, value = guess, scale * r ** guess
    while value > bound:
        k, value = k + 1, value * r
    while k > 0 and value / r <= bound:
        k, value = k - 1, value / r
    return k


def predict(m: PFSA, prefix: list[int], period: list[int], fmt: str = "float32") -> Prediction:
    """Exact first steps at which h_t is all-zero / subnormal in format ``fmt``."""
    f = FORMATS[fmt]
    v, r = eigen_relation(m, prefix, period)
    if not 0 < r < 1:
        raise ValueError(f"the rate {r} is not in (0, 1): no decay along this word")
    zero_at = Fraction(2) ** (f.subnormal_exp - 1)
    normal = Fraction(2) ** f.normal_exp
    zero_step = subnormal_step = None
    zero_periods = 0
    vj = v
    for j in range(len(period)):
        big = max(abs(x) for x in vj)
        if big:
            kz = _first_k(big, r, zero_at)
            tz = len(prefix) + kz * len(period) + j
            if zero_step is None or tz < zero_step:
                zero_step, zero_periods = tz, kz
            # subnormal: largest entry < 2^e_min, i.e. <= the largest value below it
            ks = _first_k(big, r, normal - Fraction(1, 2 ** (1 - f.subnormal_exp + 8)))
            ts = len(prefix) + ks * len(period) + j
            subnormal_step = ts if subnormal_step is None else min(subnormal_step, ts)
        vj = m.unnormalized_step(vj, period[j])
    assert zero_step is not None and subnormal_step is not None
    exact = r.numerator == 1 and _representable(m, v, period, f)
    return Prediction(fmt, r, len(period), len(prefix), zero_step, subnormal_step,
                      zero_periods, exact)


def _representable(m: PFSA, v: Vector, period: list[int], f: FloatFormat) -> bool:
    """Every entry of every v_j and of every matrix has at most mantissa_bits bits and a
    power-of-two denominator: then r^k·v_j rounds only at underflow (r a power of 2)."""

    def ok(x: Fraction) -> bool:
        d = x.denominator
        return d & (d - 1) == 0 and abs(x.numerator).bit_length() <= f.mantissa_bits

    vj = v
    for a in period:
        if not all(ok(x) for x in vj):
            return False
        vj = m.unnormalized_step(vj, a)
    return all(ok(x) for a in set(period) for row in m.step_matrix(a) for x in row)


def run_float(m: PFSA, prefix: list[int], period: list[int], fmt: str = "float32",
              *, max_steps: int = 100_000) -> dict[str, Any]:
    """Run h_t = M_{x_t} h_{t-1} without renormalization in ``fmt`` (numpy float32 /
    float64, torch bfloat16 / float16) and report the first all-zero and the first
    subnormal step (``None`` if not reached within ``max_steps``)."""
    import numpy as np

    mats = [np.array([[float(x) for x in row] for row in m.step_matrix(a)])
            for a in range(m.n_symbols)]
    h64 = np.array([float(x) for x in m.initial_belief()])
    f = FORMATS[fmt]
    normal = 2.0 ** f.normal_exp
    h: Any
    if fmt in ("float32", "float64"):
        dt = np.float32 if fmt == "float32" else np.float64
        ms = [x.astype(dt) for x in mats]
        h = h64.astype(dt)

        def step(h: Any, a: int) -> Any:
            return ms[a].dot(h).astype(dt)

        def top(h: Any) -> float:
            return float(np.max(np.abs(h)))
    else:
        import torch

        tdt = torch.bfloat16 if fmt == "bfloat16" else torch.float16
        tms = [torch.tensor(x, dtype=tdt) for x in mats]
        h = torch.tensor(h64, dtype=tdt)

        def step(h: Any, a: int) -> Any:
            return torch.mv(tms[a], h)

        def top(h: Any) -> float:
            return float(h.abs().max().float())
    word = list(prefix)
    zero = sub = None
    t = 0
    while t < max_steps and zero is None:
        if t >= len(word):
            word.extend(period)
        h = step(h, word[t])
        t += 1
        big = top(h)
        if sub is None and big < normal:
            sub = t
        if big == 0.0:
            zero = t
    return {"format": fmt, "zero_step": zero, "subnormal_step": sub}


def run_periodic(m: PFSA, period: list[int], every: int, steps: int,
                 fmt: str = "float32") -> int | None:
    """The hybrid in numpy ``fmt``: the linear recurrence along ``period`` repeated,
    renormalized by its largest entry every ``every`` steps.  Returns the first
    all-zero step, or None if the state survives ``steps`` steps.

    Renormalizing every K steps is safe exactly when no K consecutive steps can
    underflow from a normalized state: K below :func:`predict`'s ``zero_step``
    for a word starting at a normalized state.
    """
    import numpy as np

    dt = {"float32": np.float32, "float64": np.float64}[fmt]
    mats = [np.array([[float(x) for x in row] for row in m.step_matrix(a)], dtype=dt)
            for a in range(m.n_symbols)]
    h = np.array([float(x) for x in m.initial_belief()], dtype=dt)
    for t in range(1, steps + 1):
        h = mats[period[(t - 1) % len(period)]].dot(h).astype(dt)
        top = float(np.max(np.abs(h)))
        if top == 0.0:
            return t
        if t % every == 0:
            h = (h / dt(top)).astype(dt)
    return None
