"""Boxes, any domain: (state, lo, hi) per box, their successors (a refinement of the
automaton), and the exact interval arithmetic every box domain shares."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from math import lcm
from typing import Any

from .core import Automaton, CertificateError, is_index
from .fields import (
    BOX_WORDS,
    Refinement,
    Vector,
    read_refinement,
    single_label,
    vector,
)
from .linear_model import (
    h0_radius32,
)


@dataclass(frozen=True)
class Box:
    """[lo, hi] in the domain's coordinates, a set of automaton state ``state``."""

    state: int
    lo: Vector
    hi: Vector


@dataclass(frozen=True)
class Boxes:
    """The boxes of a certificate, their successors, and each box's right label."""

    automaton: Automaton
    labels: tuple[Any, ...]
    boxes: tuple[Box, ...]
    refinement: Refinement
    rights: tuple[int, ...]  # per box: the network label of its state's output


def read_boxes(cert: dict[str, Any], automaton: Automaton, dim: int) -> Boxes:
    """(state, lo, hi) per box, the successor box per symbol, and the initial box; the
    successors must follow the automaton (a refinement of it: several boxes may
    share a state), and every boxed state must have one network label."""
    boxes = []
    for box in cert["boxes"]:
        q, lo, hi = box["state"], vector(box["lo"]), vector(box["hi"])
        if not is_index(q, automaton.n_states) or len(lo) != dim or len(hi) != dim:
            raise CertificateError(f"box of state {q!r}: bad state or size")
        if any(a > b for a, b in zip(lo, hi)):
            raise CertificateError(f"box of state {q}: lo > hi")
        boxes.append(Box(q, lo, hi))
    states = [b.state for b in boxes]
    refinement = read_refinement(states, cert["initial_box"], cert["successors"], automaton,
                                 BOX_WORDS)
    labels = tuple(cert["network"]["labels"])
    rights = tuple(single_label(labels, automaton.outputs, q) for q in states)
    return Boxes(automaton, labels, tuple(boxes), refinement, rights)


def _lin_min(c: Sequence[Fraction], lo: Sequence[Fraction], hi: Sequence[Fraction]
             ) -> Fraction:
    """min over the box of c·y (each coordinate independently)."""
    return sum((ci * (lo[j] if ci >= 0 else hi[j]) for j, ci in enumerate(c) if ci),
               Fraction(0))


def _integers(m: Sequence[Sequence[Fraction]]) -> tuple[list[list[int]], int]:
    """(N, d) with m = N / d entrywise, d the least common denominator."""
    d = 1
    for row in m:
        for x in row:
            d = lcm(d, x.denominator)
    return [[x.numerator * (d // x.denominator) for x in row] for row in m], d


def _matmul(a: Sequence[Sequence[Fraction]], b: Sequence[Sequence[Fraction]]
            ) -> list[list[Fraction]]:
    """a·b exactly, computed in integers over the two common denominators (one
    Fraction, one gcd, per entry of the result instead of one per product)."""
    na, da = _integers(a)
    nb, db = _integers(b)
    cols = list(zip(*nb))
    return [[Fraction(sum(x * y for x, y in zip(row, col) if x), da * db) for col in cols]
            for row in na]


def _unit(k: int, dim: int) -> list[Fraction]:
    return [Fraction(int(j == k)) for j in range(dim)]


def _h0_box(h0: Vector, float32: bool) -> tuple[list[Fraction], list[Fraction]]:
    """The box of h0's float32 roundings (up to a common scale), or h0 itself."""
    rad = h0_radius32(h0) if float32 else [Fraction(0)] * len(h0)
    return [x - r for x, r in zip(h0, rad)], [x + r for x, r in zip(h0, rad)]
