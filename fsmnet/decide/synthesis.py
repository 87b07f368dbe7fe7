"""Bounded synthesis in Z3 (nonlinear real arithmetic): tiny machine-checked results.

Two kinds of question about counting modulo m over a one-letter alphabet,
where the output after n letters must be n mod m:

- :func:`real_diagonal_counter` asks for an H-channel real-diagonal network
  (h_n = D^n h0, label = argmax R h_n) correct for n = 0..length.  UNSAT is a
  proof that none exists (for H = 1, m = 3: the scores r_c·d^n·h0 can only
  follow the sign of d^n·h0, so at most two labels ever win).
- :func:`rotation_counter` asks for a 2×2 real matrix M with M^m = I and a
  readout correct for n = 0..m−1; M^m = I makes it correct for every n.

Each query runs with a timeout; a timeout is reported as "unknown".
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any


@dataclass(frozen=True)
class SynthesisResult:
    status: str  # "found" | "impossible" | "unknown"
    question: str
    model: dict[str, str] | None = None


def _argmax_constraints(z3: Any, scores: list[Any], winner: int) -> list[Any]:
    # Strict: the right label must beat every other (ties would be index-dependent).
    return [scores[winner] > s for c, s in enumerate(scores) if c != winner]


def real_diagonal_counter(m: int, channels: int = 1, length: int | None = None,
                          timeout_ms: int = 20_000) -> SynthesisResult:
    """Is there a ``channels``-channel real-diagonal net counting mod m up to ``length``?"""
    import z3

    length = 2 * m if length is None else length
    d = [z3.Real(f"d{i}") for i in range(channels)]
    h0 = [z3.Real(f"h0_{i}") for i in range(channels)]
    r = [[z3.Real(f"r{c}_{i}") for i in range(channels)] for c in range(m)]
    solver = z3.Then("simplify", "nlsat").solver()
    solver.set("timeout", timeout_ms)
    h = list(h0)
    for n in range(length + 1):
        scores = [z3.Sum([r[c][i] * h[i] for i in range(channels)]) for c in range(m)]
        solver.add(*_argmax_constraints(z3, scores, n % m))
        h = [d[i] * h[i] for i in range(channels)]
    question = (f"a {channels}-channel real-diagonal net counting mod {m} "
                f"correctly up to length {length}")
    verdict = solver.check()
    if verdict == z3.unsat:
        return SynthesisResult("impossible", question)
    if verdict == z3.sat:
        model = solver.model()
        return SynthesisResult("found", question,
                               {str(v): str(model[v]) for v in model.decls()})
    return SynthesisResult("unknown", question)


def rotation_counter(m: int, timeout_ms: int = 20_000) -> SynthesisResult:
    """A 2×2 real M with M^m = I, h0 and a readout (m × 2) counting mod m for every n."""
    import z3

    a, b, c, e = z3.Reals("a b c e")
    matrix = [[a, b], [c, e]]
    h0 = [z3.RealVal(1), z3.RealVal(0)]
    r = [[z3.Real(f"r{k}_{i}") for i in range(2)] for k in range(m)]
    solver = z3.Then("simplify", "nlsat").solver()
    solver.set("timeout", timeout_ms)
    power = [[z3.RealVal(1), z3.RealVal(0)], [z3.RealVal(0), z3.RealVal(1)]]
    h = list(h0)
    for n in range(m):
        scores = [r[k][0] * h[0] + r[k][1] * h[1] for k in range(m)]
        solver.add(*_argmax_constraints(z3, scores, n))
        h = [matrix[0][0] * h[0] + matrix[0][1] * h[1], matrix[1][0] * h[0] + matrix[1][1] * h[1]]
        power = [[power[i][0] * matrix[0][j] + power[i][1] * matrix[1][j] for j in range(2)]
                 for i in range(2)]
    solver.add(power[0][0] == 1, power[0][1] == 0, power[1][0] == 0, power[1][1] == 1)
    question = f"a 2x2 real matrix M with M^{m} = I and a readout counting mod {m}"
    verdict = solver.check()
    if verdict == z3.sat:
        model = solver.model()
        return SynthesisResult("found", question, {str(v): _show(model[v]) for v in model.decls()})
    if verdict == z3.unsat:
        return SynthesisResult("impossible", question)
    return SynthesisResult("unknown", question)


def _show(value: Any) -> str:
    import z3

    if z3.is_algebraic_value(value):
        return f"root of {value.poly()} ≈ {value.approx(12)}"
    if z3.is_rational_value(value):
        return str(Fraction(value.numerator_as_long(), value.denominator_as_long()))
    return str(value)
