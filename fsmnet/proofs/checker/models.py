"""Network models the checker can run: h0, the step of each symbol, and the readout."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from .block import block_model
from .core import (
    CertificateError,
    _argmax,
    _mat,
    _matvec,
    _normalize,
    _vec,
    is_index,
    is_index_table,
)
from .linear_model import read_linear
from .sparse_linear import SparseLinear
from .sparse_minmax import SparseMinMax


@dataclass(frozen=True)
class _Model:
    """A network model the checker can run: initial state, step, readout (label index),
    and the reader of a state as a certificate lists it."""

    h0: Any
    step: Callable[[Any, int], Any]
    label: Callable[[Any], int]
    state: Callable[[Any], Any]


def _linear_model(model: dict[str, Any], k: int, n_labels: int) -> _Model:
    """h' = normalize(A_a h); label = first argmax of readout @ h."""
    linear = read_linear(model)
    if len(linear.matrices) != k:
        raise CertificateError("one matrix per symbol is required")
    if len(linear.readout) != n_labels:
        raise CertificateError("one readout row per label is required")
    mats, readout = linear.matrices, linear.readout
    return _Model(_normalize(list(linear.h0)),  # a list, as the states it is compared with
                  lambda h, a: _normalize(_matvec(mats[a], h)),
                  lambda h: _argmax(_matvec(readout, h)), _vec)


# ------------------------------------------------------------------ MinMax
# Values are exact rationals; max and min only select among them.

def _maxmin(row: list[Fraction], x: list[Fraction]) -> Fraction:
    """max_j min(row[j], x[j]) (a max-min "dot product")."""
    if len(row) != len(x) or not x:
        raise CertificateError("max-min sizes differ")
    return max(min(r, v) for r, v in zip(row, x))


class _MaxMinMatrix:
    """R of a step x ↦ (R ⊗ x) ⊕ s, with each row's two largest entries kept.

    On a one-hot vector (one entry hi, all others lo < hi), which is what every
    compiled unit holds, (R ⊗ x)_i = max(min(R_ip, hi), min(max_{j≠p} R_ij, lo))
    (min distributes over max), and max_{j≠p} R_ij is the row's largest entry,
    or its second largest when the largest sits in column p.  That makes a step
    O(n) instead of O(n²) (a 942-state unit took minutes); other vectors take
    the plain formula.  Only selections either way: the result is the same
    rational.
    """

    __slots__ = ("rows", "_tops")

    def __init__(self, rows: list[list[Fraction]]) -> None:
        self.rows = rows
        self._tops: list[tuple[Fraction, int, Fraction | None]] | None = None

    def __len__(self) -> int:
        return len(self.rows)

    def tops(self) -> list[tuple[Fraction, int, Fraction | None]]:
        """Per row: (largest entry, its first column, the largest of the other columns)."""
        if self._tops is None:
            tops = []
            for row in self.rows:
                if not row:
                    raise CertificateError("max-min sizes differ")
                j = max(range(len(row)), key=row.__getitem__)
                rest = row[:j] + row[j + 1:]
                tops.append((row[j], j, max(rest) if rest else None))
            self._tops = tops
        return self._tops


def _one_hot(x: list[Fraction]) -> tuple[int, Fraction, Fraction] | None:
    """(p, hi, lo) when x[p] = hi and every other entry is lo < hi, else None."""
    if len(x) < 2:
        return None
    hi = max(x)
    p = x.index(hi)
    lo = x[1] if p == 0 else x[0]
    if lo >= hi or any(v != lo for j, v in enumerate(x) if j != p):
        return None
    return p, hi, lo


def _affine(big_r: _MaxMinMatrix, s: list[Fraction], x: list[Fraction]) -> list[Fraction]:
    """x'_i = max(max_j min(R[i][j], x[j]), s[i])."""
    if len(big_r) != len(s):
        raise CertificateError("R and s sizes differ")
    hot = _one_hot(x)
    if hot is None or any(len(row) != len(x) for row in big_r.rows):
        return [max(_maxmin(row, x), si) for row, si in zip(big_r.rows, s)]
    p, hi, lo = hot
    out = []
    for row, (top, j, second), si in zip(big_r.rows, big_r.tops(), s):
        rest = second if j == p else top
        assert rest is not None  # rows have len(x) >= 2 entries
        out.append(max(min(row[p], hi), min(rest, lo), si))
    return out


def _dense_model(model: dict[str, Any], k: int, n_labels: int) -> _Model:
    """minmax-dense: x' = (R_a ⊗ x) ⊕ s_a; label = first argmax of readout ⊗ x."""
    big_r = [_MaxMinMatrix(_mat(m)) for m in model["R"]]
    s = [_vec(v) for v in model["s"]]
    readout = _mat(model["readout"])
    if len(big_r) != k or len(s) != k or len(readout) != n_labels:
        raise CertificateError("minmax-dense: need R and s per symbol, a readout row per label")
    return _Model(_vec(model["x0"]), lambda x, a: _affine(big_r[a], s[a], x),
                  lambda x: _argmax([_maxmin(row, x) for row in readout]), _vec)


@dataclass(frozen=True)
class _UnitTables:
    """One cascade unit's step tables, per symbol and per code of the units it reads:
    ``scalar``: r and s numbers (x' = max(min(r, x), s)); ``matrix``: R matrices and
    s vectors (x' = (R ⊗ x) ⊕ s)."""

    kind: str
    size: int
    r: tuple[Any, ...]
    s: tuple[Any, ...]


@dataclass(frozen=True)
class _Cascade:
    """A minmax-cascade model, parsed (see :func:`_cascade_model`)."""

    units: tuple[_UnitTables, ...]
    links: Any  # None, or per unit its table: prefix code -> value -> code
    comp: tuple[int, ...]  # the component of each unit
    joins: tuple[Any, ...]
    chains: tuple[tuple[int, ...], ...]  # the units of each component, in order
    above: tuple[int, ...]  # per unit: how many units of its component it reads
    readout: tuple[int, ...]  # label index per final code

    def values(self, state: list[list[Fraction]]) -> list[int]:
        """The value of every unit: clip(floor(x), 1, m) − 1, or the first argmax."""
        if len(state) != len(self.units):
            raise CertificateError("a cascade state needs one entry per unit")
        out = []
        for unit, x in zip(self.units, state):
            if unit.kind == "scalar":
                if len(x) != 1:
                    raise CertificateError("a scalar unit holds one value")
                out.append(min(max(math.floor(x[0]), 1), unit.size) - 1)
            else:
                if len(x) != unit.size:
                    raise CertificateError("a matrix unit holds one value per point")
                out.append(_argmax(x))
        return out

    def prefixes(self, vals: list[int]) -> list[list[int]]:
        """Per component, its code after 0, 1, ... of its units."""
        out = []
        for chain in self.chains:
            codes = [0]
            for u in chain:
                c = codes[-1]
                codes.append(c * self.units[u].size + vals[u] if self.links is None
                             else self.links[u][c][vals[u]])
            out.append(codes)
        return out

    def label(self, state: list[list[Fraction]]) -> int:
        codes = self.prefixes(self.values(state))
        code = codes[0][-1]
        for c, join in enumerate(self.joins, start=1):
            code = join[code][codes[c][-1]]
        return int(self.readout[code])

    def step(self, state: list[list[Fraction]], a: int) -> list[list[Fraction]]:
        codes = self.prefixes(self.values(state))  # all read at t-1, before any update
        new = []
        for u, (unit, x) in enumerate(zip(self.units, state)):
            d = codes[self.comp[u]][self.above[u]]
            if unit.kind == "scalar":
                new.append([max(min(unit.r[a][d], x[0]), unit.s[a][d])])
            else:
                new.append(_affine(unit.r[a][d], unit.s[a][d], x))
        return new


def _unit_tables(unit: dict[str, Any], u: int, k: int, domain: int) -> _UnitTables:
    """Unit u's tables: one per symbol, each over the ``domain`` codes it reads."""
    r: tuple[Any, ...]
    s: tuple[Any, ...]
    if unit["kind"] == "scalar":
        r, s = tuple(_vec(v) for v in unit["r"]), tuple(_vec(v) for v in unit["s"])
    elif unit["kind"] == "matrix":
        r = tuple([_MaxMinMatrix(_mat(m)) for m in v] for v in unit["R"])
        s = tuple([_vec(m) for m in v] for v in unit["s"])
    else:
        raise CertificateError(f"unknown unit kind {unit['kind']!r}")
    if len(r) != k or len(s) != k or not all(len(v) == domain for v in r + s):
        raise CertificateError(f"unit {u}: need a table per symbol over {domain} codes")
    return _UnitTables(unit["kind"], unit["size"], r, s)


def _read_cascade(model: dict[str, Any], k: int, n_labels: int) -> _Cascade:
    units = model["units"]
    levels = [u["level"] for u in units]
    sizes = [u["size"] for u in units]
    if not units or not all(isinstance(v, int) for v in levels + sizes) or levels != sorted(
            levels) or min(levels) < 0 or min(sizes) < 1:
        raise CertificateError("cascade units need sorted levels >= 0 and sizes >= 1")
    links = model.get("links")
    if links is not None and (not isinstance(links, list) or len(links) != len(units)):
        raise CertificateError("a prefix-indexed cascade needs one link table per unit")
    comp, joins = _components(model, len(units), links)
    chains = [[u for u in range(len(units)) if comp[u] == c] for c in range(len(joins) + 1)]
    above = [sum(1 for w in chains[comp[u]] if levels[w] < lv) for u, lv in enumerate(levels)]
    finals = _join_finals(joins, len(model["readout"]))
    rows = [_link_rows(None if links is None else [links[u] for u in chain],
                       [sizes[u] for u in chain], finals[c], chain)
            for c, chain in enumerate(chains)]
    tables = tuple(_unit_tables(unit, u, k, rows[comp[u]][above[u]])
                   for u, unit in enumerate(units))
    readout = model["readout"]
    if not all(is_index(c, n_labels) for c in readout):
        raise CertificateError("the readout needs one label index per code")
    return _Cascade(tables, links, tuple(comp), tuple(joins),
                    tuple(tuple(chain) for chain in chains), tuple(above), tuple(readout))


def _cascade_model(model: dict[str, Any], k: int, n_labels: int) -> _Model:
    """minmax-cascade: units by level; every unit reads the units of smaller
    levels at t-1 (before anyone updates) to pick its step.

    A scalar unit of size m holds x and steps by max(min(r, x), s); its value
    is clip(floor(x), 1, m) - 1.  A matrix unit holds a vector and steps by
    (R ⊗ x) ⊕ s; its value is the first argmax.  The code of units 0..u-1 is
    mixed-radix, unit 0 most significant.  The label is readout[code of all].
    With ``links`` (prefix-indexed tables) the code of units 0..j is
    links[j][code of units 0..j-1][value of unit j], the empty prefix 0.
    With ``components`` (product cascades) each component chains its own
    units' links and a unit reads only its component's units of smaller
    levels; the label is readout[ρ], ρ = final code of component 0 then
    ρ = joins[c-1][ρ][final code of component c] for c = 1, 2, ...
    """
    cascade = _read_cascade(model, k, n_labels)
    return _Model([_vec(x) for x in (u["x0"] for u in model["units"])], cascade.step,
                  cascade.label, lambda state: [_vec(x) for x in state])


def _components(model: dict[str, Any], n_units: int, links: Any
                ) -> tuple[list[int], list[Any]]:
    """The component of every unit (all 0 without ``components``) and the joins."""
    comp = model.get("components")
    joins = model.get("joins", [])
    if comp is None:
        if joins:
            raise CertificateError("joins need components")
        return [0] * n_units, []
    if links is None:
        raise CertificateError("a product cascade needs links")
    if not isinstance(comp, list) or len(comp) != n_units or not all(
            isinstance(c, int) and c >= 0 for c in comp):
        raise CertificateError("components: need one index >= 0 per unit")
    n_comp = max(comp) + 1
    if set(comp) != set(range(n_comp)) or not isinstance(joins, list) or len(
            joins) != n_comp - 1:
        raise CertificateError(f"components 0..{n_comp - 1}, each with a unit, need "
                               f"{n_comp - 1} joins")
    return comp, joins


def _join_finals(joins: list[Any], n_readout: int) -> list[int]:
    """Final codes per component (the joins' rows and columns); checks the joins are
    total: every entry a row of the next join, the last ones of the readout."""
    if not joins:
        return [n_readout]
    for c, join in enumerate(joins):
        top = len(joins[c + 1]) if c + 1 < len(joins) else n_readout
        width = len(join[0]) if isinstance(join, list) and join and isinstance(
            join[0], list) else -1
        if width < 0 or not is_index_table(join, width, top):
            raise CertificateError(f"join {c + 1}: need rows of equal length with "
                                   f"indices below {top}")
    return [len(joins[0])] + [len(join[0]) for join in joins]


def _link_rows(links: Any, sizes: list[int], n_readout: int,
               units: list[int] | None = None) -> list[int]:
    """Rows of the code tables per prefix length; checks the links are total.
    ``units`` names the links in messages (their unit indices; default 0, 1, ...)."""
    if links is None:
        rows = [1]
        for m in sizes:
            rows.append(rows[-1] * m)
        if rows[-1] != n_readout:
            raise CertificateError("the readout needs one label index per code")
        return rows
    if not isinstance(links, list) or len(links) != len(sizes):
        raise CertificateError("a prefix-indexed cascade needs one link table per unit")
    rows = [len(x) if isinstance(x, list) else -1 for x in links] + [n_readout]
    names = list(range(len(sizes))) if units is None else units
    if rows[0] != 1:
        raise CertificateError(f"link {names[0]} must have one row (the empty prefix)")
    for j, (table, m) in enumerate(zip(links, sizes)):
        if not is_index_table(table, m, rows[j + 1]):
            raise CertificateError(f"link {names[j]}: need {m} prefix indices below "
                                   f"{rows[j + 1]} per row")
    return rows


def _sparse_linear_model(model: dict[str, Any], k: int, n_labels: int) -> _Model:
    """The linear model by its non-zero entries (:mod:`.sparse_linear`)."""
    sparse = SparseLinear(model, k, n_labels)
    return _Model(sparse.h0, sparse.step, sparse.label, sparse.state)


def _sparse_minmax_model(model: dict[str, Any], k: int, n_labels: int) -> _Model:
    """The non-negative minmax-dense model by its non-zero entries (:mod:`.sparse_minmax`)."""
    sparse = SparseMinMax(model, k, n_labels)
    return _Model(sparse.x0, sparse.step, sparse.label, sparse.state)


MODELS = {"linear": _linear_model, "minmax-dense": _dense_model,
          "minmax-cascade": _cascade_model, "linear-sparse": _sparse_linear_model,
          "minmax-sparse": _sparse_minmax_model}
MODELS["bilinear-block"] = block_model
