"""Network models the checker can run: h0, the step of each symbol, and the readout."""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

from .block import block_model
from .core import CertificateError, _argmax, _mat, _matvec, _normalize, _vec


class _Model:
    """A network model the checker can run: initial state, step, readout (label index)."""

    def __init__(self, h0: Any, step: Any, label: Any, state: Any) -> None:
        self.h0, self.step, self.label, self.state = h0, step, label, state


def _linear_model(model: dict[str, Any], k: int, n_labels: int) -> _Model:
    """h' = normalize(A_a h); label = first argmax of readout @ h."""
    mats = [_mat(m) for m in model["matrices"]]
    if len(mats) != k:
        raise CertificateError("one matrix per symbol is required")
    readout = _mat(model["readout"])
    if len(readout) != n_labels:
        raise CertificateError("one readout row per label is required")
    return _Model(_normalize(_vec(model["h0"])),
                  lambda h, a: _normalize(_matvec(mats[a], h)),
                  lambda h: _argmax(_matvec(readout, h)), _vec)


# ------------------------------------------------------------------ MinMax
# Values are exact rationals; max and min only select among them.

def _maxmin(row: list[Fraction], x: list[Fraction]) -> Fraction:
    """max_j min(row[j], x[j]) (a max-min "dot product")."""
    if len(row) != len(x) or not x:
        raise CertificateError("max-min sizes differ")
    return max(min(r, v) for r, v in zip(row, x))


def _affine(big_r: list[list[Fraction]], s: list[Fraction], x: list[Fraction]) -> list[Fraction]:
    """x'_i = max(max_j min(R[i][j], x[j]), s[i])."""
    if len(big_r) != len(s):
        raise CertificateError("R and s sizes differ")
    return [max(_maxmin(row, x), si) for row, si in zip(big_r, s)]


def _dense_model(model: dict[str, Any], k: int, n_labels: int) -> _Model:
    """minmax-dense: x' = (R_a ⊗ x) ⊕ s_a; label = first argmax of readout ⊗ x."""
    big_r = [_mat(m) for m in model["R"]]
    s = [_vec(v) for v in model["s"]]
    readout = _mat(model["readout"])
    if len(big_r) != k or len(s) != k or len(readout) != n_labels:
        raise CertificateError("minmax-dense: need R and s per symbol, a readout row per label")
    return _Model(_vec(model["x0"]), lambda x, a: _affine(big_r[a], s[a], x),
                  lambda x: _argmax([_maxmin(row, x) for row in readout]), _vec)


def _cascade_model(model: dict[str, Any], k: int, n_labels: int) -> _Model:
    """minmax-cascade: units by level; every unit reads the units of smaller
    levels at t-1 (before anyone updates) to pick its step.

    A scalar unit of size m holds x and steps by max(min(r, x), s); its value
    is clip(floor(x), 1, m) - 1.  A matrix unit holds a vector and steps by
    (R ⊗ x) ⊕ s; its value is the first argmax.  The code of units 0..u-1 is
    mixed-radix, unit 0 most significant.  The label is readout[code of all].
    With ``links`` (prefix-indexed tables) the code of units 0..j is
    links[j][code of units 0..j-1][value of unit j], the empty prefix 0.
    """
    units = model["units"]
    levels = [u["level"] for u in units]
    sizes = [u["size"] for u in units]
    if not units or not all(isinstance(v, int) for v in levels + sizes) or levels != sorted(
            levels) or min(levels) < 0 or min(sizes) < 1:
        raise CertificateError("cascade units need sorted levels >= 0 and sizes >= 1")
    above = [sum(1 for other in levels if other < lv) for lv in levels]
    links = model.get("links")
    rows = _link_rows(links, sizes, len(model["readout"]))
    tables: list[tuple[str, Any, Any]] = []
    for u, unit in enumerate(units):
        r: Any
        s: Any
        domain = rows[above[u]]
        if unit["kind"] == "scalar":
            r, s = [_vec(v) for v in unit["r"]], [_vec(v) for v in unit["s"]]
            ok = all(len(v) == domain for v in r + s)
        elif unit["kind"] == "matrix":
            r, s = [[_mat(m) for m in v] for v in unit["R"]], [[_vec(m) for m in v]
                                                             for v in unit["s"]]
            ok = all(len(v) == domain for v in r + s)
        else:
            raise CertificateError(f"unknown unit kind {unit['kind']!r}")
        if len(r) != k or len(s) != k or not ok:
            raise CertificateError(f"unit {u}: need a table per symbol over {domain} codes")
        tables.append((unit["kind"], r, s))
    readout = model["readout"]
    n_codes = rows[-1]
    if len(readout) != n_codes or not all(
            isinstance(c, int) and 0 <= c < n_labels for c in readout):
        raise CertificateError("the readout needs one label index per code")

    def values(state: list[list[Fraction]]) -> list[int]:
        if len(state) != len(units):
            raise CertificateError("a cascade state needs one entry per unit")
        out = []
        for (kind, _, _), m, x in zip(tables, sizes, state):
            if kind == "scalar":
                if len(x) != 1:
                    raise CertificateError("a scalar unit holds one value")
                out.append(min(max(math.floor(x[0]), 1), m) - 1)
            else:
                if len(x) != m:
                    raise CertificateError("a matrix unit holds one value per point")
                out.append(_argmax(x))
        return out

    def code(vals: list[int]) -> int:
        c = 0
        for j, (v, m) in enumerate(zip(vals, sizes)):
            c = c * m + v if links is None else links[j][c][v]
        return c

    def step(state: list[list[Fraction]], a: int) -> list[list[Fraction]]:
        vals = values(state)  # all read at t-1, before any update
        new = []
        for u, ((kind, r, s), x) in enumerate(zip(tables, state)):
            d = code(vals[:above[u]])
            if kind == "scalar":
                new.append([max(min(r[a][d], x[0]), s[a][d])])
            else:
                new.append(_affine(r[a][d], s[a][d], x))
        return new

    return _Model([_vec(x) for x in (u["x0"] for u in units)], step,
                  lambda state: readout[code(values(state))],
                  lambda state: [_vec(x) for x in state])


def _link_rows(links: Any, sizes: list[int], n_readout: int) -> list[int]:
    """Rows of the code tables per prefix length; checks the links are total."""
    if links is None:
        rows = [1]
        for m in sizes:
            rows.append(rows[-1] * m)
        return rows
    if not isinstance(links, list) or len(links) != len(sizes):
        raise CertificateError("a prefix-indexed cascade needs one link table per unit")
    rows = [len(x) if isinstance(x, list) else -1 for x in links] + [n_readout]
    if rows[0] != 1:
        raise CertificateError("link 0 must have one row (the empty prefix)")
    for j, (table, m) in enumerate(zip(links, sizes)):
        if not all(isinstance(row, list) and len(row) == m and all(
                isinstance(c, int) and 0 <= c < rows[j + 1] for c in row) for row in table):
            raise CertificateError(f"link {j}: need {m} prefix indices below {rows[j + 1]} "
                                   f"per row")
    return rows


MODELS = {"linear": _linear_model, "minmax-dense": _dense_model,
          "minmax-cascade": _cascade_model}
MODELS["bilinear-block"] = block_model
