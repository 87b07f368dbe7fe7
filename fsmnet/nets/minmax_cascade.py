"""Semantics of ``minmax-cascade`` and ``minmax-scalar`` (docs/constructions-minmax.md).

A cascade is a list of MinMax *units* sorted by *level* (0 = top).  A unit holds
one of k discrete values:

* a **scalar** unit (kind 0) holds a float in 1..k and steps by
  ``x ↦ max(min(r, x), s)``;
* a **matrix** unit (kind 1) holds a max-min vector of length k (one-hot: 1 at
  the current value, 0 elsewhere) and steps by ``x ↦ (R ⊗ x) ⊕ s``.

Update order (pinned by tests/test_minmax_cascade.py)
-----------------------------------------------------
A unit's step ``(r, s)`` or ``(R, s)`` at time t is read from its controller
table at ``(x_t, code)``, where ``code`` is the mixed-radix code of the
coordinates of **all units at strictly smaller levels, taken at t−1, before
their update**.  This is the dependency function of a holonomy cascade; with
"same-time" reading every letter would act idempotently on the whole cascade
and nothing could even count to 2 (docs/theory.md, theorem 4).

Coordinates: a scalar unit's coordinate is ``clip(floor(x), 1, k) − 1``; a matrix
unit's is the first argmax of its vector.  The mixed-radix code of units
``0..m-1`` is ``(((c0·k1 + c1)·k2 + c2)…)``, unit 0 most significant.

Tensors (U units, D_u = product of the sizes of the units above unit u)
-----------------------------------------------------------------------
``unit_level``, ``unit_size``, ``unit_kind``: int64 (U,), levels non-decreasing.
Scalar unit u: ``unit{u}_r``, ``unit{u}_s`` float64 (|Σ|, D_u); ``unit{u}_x0`` (1,).
Matrix unit u: ``unit{u}_R`` (|Σ|, D_u, k, k), ``unit{u}_s`` (|Σ|, D_u, k),
``unit{u}_x0`` (k,).  ``readout``: int64 (Π k_u,) label index per code of all units.
``minmax-scalar`` is the same with every unit scalar.

Prefix-indexed tables (file format version 2)
---------------------------------------------
Dense mixed-radix tables grow with the *product* of the unit sizes, although a
cascade built from an automaton reaches only a few of those codes.  A cascade
may therefore carry **prefix links** ``link0 .. link{U-1}``: int64 tensors of
shape (P_j, k_j) with P_0 = 1.  The prefix index π is chained through them:
π_0 = 0 and π_{j+1} = ``link{j}[π_j, c_j]`` (c_j the coordinate of unit j).
Unit u's controller row is then π_{above(u)} (so D_u = P_{above(u)}), and
the label is ``readout[π_U]`` with ``readout`` of shape (P_U,).  Every link
entry lies in 0..P_{j+1}−1, so the semantics is total; the compiler numbers
only the prefixes it reaches and sends the others to index 0 (they are never
reached from x0, which the product proof checks).  Without links the code is
mixed-radix as above (format version 1).

Product cascades (file format version 3)
----------------------------------------
A cascade of a product-like automaton may run several cascades side by side:
``unit_component`` (int64 (U,), values 0..C−1, each used) names each unit's
*component*.  The prefix chain then runs per component: a component's units,
in file order, chain their own links (the first one's link has one row) and
unit u's controller row is its component's π after the units of its component
at a strictly smaller level; units of other components are never read.  With
F_c the final prefix count of component c, the label is read from the tuple
of final prefixes through **joins** ``join1 .. join{C−1}``: ρ_0 = π^0_final,
ρ_c = ``join{c}[ρ_{c−1}, π^c_final]`` (shape (J_{c−1}, F_c), J_0 = F_0), and
the label is ``readout[ρ_{C−1}]``.  The compiler numbers only the reached
tuples (unreached entries 0).  Format 3 always has links; with one component
it is format 2.  The compiler: :mod:`fsmnet.constructions.minmax_product`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from fsmnet.errors import NetworkFileError
from fsmnet.nets.minmax import affine_step, scalar_step, scan_affine, scan_scalar
from fsmnet.nets.minmax_cascade_tables import (  # noqa: F401  (re-exported)
    MAX_TABLE,
    join_names,
    link_names,
    validate_prefix_tables,
)
from fsmnet.nets.semantics import require_tensor

if TYPE_CHECKING:
    from fsmnet.nets.network import Network

SCALAR_KIND = 0
MATRIX_KIND = 1


def mixed_radix_strides(sizes: Sequence[int]) -> np.ndarray:
    """Strides of the mixed-radix code, unit 0 most significant."""
    strides = np.ones(len(sizes), dtype=np.int64)
    for i in range(len(sizes) - 2, -1, -1):
        strides[i] = strides[i + 1] * int(sizes[i + 1])
    return strides


def scalar_coordinate(x: Any, k: int) -> Any:
    """The discrete value 0..k-1 that a scalar unit state stands for."""
    return np.clip(np.floor(x), 1, k).astype(np.int64) - 1


class CascadeLayout:
    """Shapes derived from the unit tensors: sizes, kinds, components, domains, prefixes.

    ``links`` (prefix-indexed layout) replaces the mixed-radix codes, and
    ``components`` with ``joins`` (format 3) runs several cascades side by side:
    see the module docs.  Without components every unit is in component 0.
    ``n_codes`` is the readout length (``n_full``) when there are links.
    """

    def __init__(self, levels: np.ndarray, sizes: np.ndarray, kinds: np.ndarray,
                 links: Sequence[np.ndarray] | None = None, n_full: int | None = None,
                 components: np.ndarray | None = None,
                 joins: Sequence[np.ndarray] | None = None) -> None:
        self.levels = [int(v) for v in levels]
        self.sizes = [int(v) for v in sizes]
        self.kinds = [int(v) for v in kinds]
        n = len(self.sizes)
        self.components = [0] * n if components is None else [int(v) for v in components]
        self.n_components = max(self.components, default=0) + 1
        self.members: list[list[int]] = [[] for _ in range(self.n_components)]
        for u, c in enumerate(self.components):
            self.members[c].append(u)
        # Units above unit u: the units of its component at a strictly smaller
        # level, i.e. a prefix of the component's chain.
        self.above = [sum(1 for w in self.members[c] if self.levels[w] < self.levels[u])
                      for u, c in enumerate(self.components)]
        self.links = None if not links else [np.asarray(x, dtype=np.int64) for x in links]
        self.joins = [np.asarray(x, dtype=np.int64) for x in joins or []]
        # Mixed-radix strides index only the layout without links; with links (one
        # row per reached prefix) the product of ~100 level sizes would overflow int64.
        radix = self.sizes if self.links is None else [1] * n
        self.strides = mixed_radix_strides(radix)
        self.prefix_strides = [mixed_radix_strides(radix[:a]) for a in self.above]
        if self.links is None:
            self.domains = [int(np.prod(self.sizes[:a], dtype=np.int64)) for a in self.above]
            self.n_codes = int(np.prod(self.sizes, dtype=np.int64))
            self.finals = [self.n_codes]
        else:
            # Rows of the component's prefix table per prefix length: a link's rows,
            # then the final prefixes (the first join's rows and columns, or readout).
            self.finals = ([int(self.joins[0].shape[0])]
                           + [int(x.shape[1]) for x in self.joins] if self.joins
                           else [int(n_full or 0)])
            rows = [[int(self.links[u].shape[0]) for u in m] + [self.finals[c]]
                    for c, m in enumerate(self.members)]
            self.domains = [rows[c][self.above[u]] for u, c in enumerate(self.components)]
            self.n_codes = int(n_full or 0)

    @property
    def linked(self) -> bool:
        return self.links is not None

    @property
    def product(self) -> bool:
        """Several components side by side (format 3)."""
        return self.n_components > 1

    def _chain(self, c: int, coords: Sequence[Any], start: Any) -> list[Any]:
        """π of component c for every prefix length of its chain (scalars or traces)."""
        out = [start]
        for u in self.members[c]:
            if self.links is None:
                out.append(out[-1] * self.sizes[u] + coords[u])
            else:
                out.append(self.links[u][out[-1], coords[u]])
        return out

    def rows_and_code(self, coords: Sequence[Any], start: Any = 0) -> tuple[list[Any], Any]:
        """Every unit's controller row and the readout index, for one coordinate tuple
        (ints) or for coordinate traces (int arrays; ``start`` a zero array)."""
        chains = [self._chain(c, coords, start) for c in range(self.n_components)]
        rows = [chains[c][self.above[u]] for u, c in enumerate(self.components)]
        code = chains[0][-1]
        for c, join in enumerate(self.joins, start=1):
            code = join[code, chains[c][-1]]
        return rows, code

    def prefix_indices(self, coords: Sequence[int]) -> list[int]:
        """π_0..π_U for one coordinate tuple of a one-component cascade."""
        assert not self.product, "a product cascade has one prefix chain per component"
        return [int(v) for v in self._chain(0, [int(c) for c in coords], 0)]

    @property
    def n_units(self) -> int:
        return len(self.sizes)

    def hidden_size(self) -> int:
        return sum(1 if kind == SCALAR_KIND else k for k, kind in zip(self.sizes, self.kinds))


class MinMaxCascade:
    """Semantics of a MinMax cascade (``scalar_only`` for ``minmax-scalar``)."""

    def __init__(self, arch: str, *, scalar_only: bool) -> None:
        self.arch = arch
        self.scalar_only = scalar_only

    # ------------------------------------------------------------ validation
    def validate(self, params: Mapping[str, np.ndarray], n_symbols: int, n_labels: int,
                 source: str) -> None:
        levels = require_tensor(params, "unit_level", (None,), source, kind="int")
        n_units = int(levels.shape[0])
        sizes = require_tensor(params, "unit_size", (n_units,), source, kind="int")
        kinds = require_tensor(params, "unit_kind", (n_units,), source, kind="int")
        if n_units == 0:
            raise NetworkFileError(f"{source}: field 'unit_level': a cascade needs a unit")
        if np.any(np.diff(levels) < 0) or levels.min() < 0:
            raise NetworkFileError(f"{source}: field 'unit_level': levels must be "
                                   f"non-negative and non-decreasing (value: {levels.tolist()})")
        if sizes.min() < 1:
            raise NetworkFileError(f"{source}: field 'unit_size': sizes must be >= 1 "
                                   f"(value: {sizes.tolist()})")
        allowed = (SCALAR_KIND,) if self.scalar_only else (SCALAR_KIND, MATRIX_KIND)
        bad = [int(k) for k in kinds if int(k) not in allowed]
        if bad:
            raise NetworkFileError(f"{source}: field 'unit_kind': {self.arch} allows kinds "
                                   f"{list(allowed)} (value: {bad[0]})")
        tables = validate_prefix_tables(params, sizes, source)
        if tables is None and float(np.prod(sizes.astype(np.float64))) > MAX_TABLE:
            raise NetworkFileError(f"{source}: field 'unit_size': readout table too large "
                                   f"(value: {sizes.tolist()})")
        layout = (CascadeLayout(levels, sizes, kinds) if tables is None else
                  CascadeLayout(levels, sizes, kinds, tables.links, tables.n_full,
                                tables.components, tables.joins))
        for u in range(n_units):
            d, k = layout.domains[u], layout.sizes[u]
            if layout.kinds[u] == SCALAR_KIND:
                require_tensor(params, f"unit{u}_r", (n_symbols, d), source)
                require_tensor(params, f"unit{u}_s", (n_symbols, d), source)
                require_tensor(params, f"unit{u}_x0", (1,), source)
            else:
                require_tensor(params, f"unit{u}_R", (n_symbols, d, k, k), source)
                require_tensor(params, f"unit{u}_s", (n_symbols, d, k), source)
                require_tensor(params, f"unit{u}_x0", (k,), source)
        table = require_tensor(params, "readout", (layout.n_codes,), source, kind="int")
        if table.size and (table.min() < 0 or table.max() >= n_labels):
            raise NetworkFileError(f"{source}: field 'readout': label index out of range "
                                   f"0..{n_labels - 1} (value: {int(table.max())})")

    # --------------------------------------------------------------- helpers
    def layout(self, net: Network) -> CascadeLayout:
        p = net.params
        return net.cached("cascade_layout", lambda: CascadeLayout(
            p["unit_level"], p["unit_size"], p["unit_kind"],
            [p[name] for name in link_names(p)], int(np.asarray(p["readout"]).shape[0]),
            p.get("unit_component"), [p[name] for name in join_names(p)]))

    def coordinates(self, net: Network, state: Sequence[Any]) -> list[int]:
        """The discrete value of every unit."""
        lay = self.layout(net)
        return [int(scalar_coordinate(x[0], k)) if kind == SCALAR_KIND else int(np.argmax(x))
                for x, k, kind in zip(state, lay.sizes, lay.kinds)]

    # -------------------------------------------------------------- protocol
    def hidden_size(self, net: Network) -> int:
        return self.layout(net).hidden_size()

    def initial_state(self, net: Network, exact: bool) -> tuple[np.ndarray, ...]:
        # Max and min only select values: float64 is exact, ``exact`` changes nothing.
        p = net.params
        return tuple(np.array(p[f"unit{u}_x0"], dtype=np.float64)
                     for u in range(self.layout(net).n_units))

    def step(self, net: Network, state: Sequence[np.ndarray], symbol: int,
             exact: bool) -> tuple[np.ndarray, ...]:
        lay = self.layout(net)
        p = net.params
        # Every controller reads the coordinates at t-1, before any unit updates.
        rows, _ = lay.rows_and_code(self.coordinates(net, state))
        new = []
        for u in range(lay.n_units):
            d = int(rows[u])
            if lay.kinds[u] == SCALAR_KIND:
                new.append(scalar_step(p[f"unit{u}_r"][symbol, d:d + 1],
                                       p[f"unit{u}_s"][symbol, d:d + 1], state[u]))
            else:
                new.append(affine_step(p[f"unit{u}_R"][symbol, d], p[f"unit{u}_s"][symbol, d],
                                       state[u]))
        return tuple(new)

    def readout(self, net: Network, state: Sequence[np.ndarray], exact: bool) -> int:
        lay = self.layout(net)
        _, code = lay.rows_and_code(self.coordinates(net, state))
        return int(net.params["readout"][int(code)])


def levelwise_unit_traces(net: Network, word: Sequence[int] | np.ndarray) -> list[np.ndarray]:
    """Every unit's state after every prefix, computed level by level with scans.

    A second evaluator (the reference is the step-by-step :meth:`MinMaxCascade.step`):
    once the units above are known at every time, a unit's controller inputs
    ``(x_t, code of the units above at t−1)`` are known for all t, so its whole
    trajectory is one associative prefix scan of its steps.  This is the order
    of work a parallel scan engine uses.

    Returns
    -------
    list of arrays
        Unit u: shape (T+1,) for a scalar unit, (T+1, k) for a matrix unit.
    """
    sem = net.semantics
    if not isinstance(sem, MinMaxCascade):
        raise TypeError(f"not a MinMax cascade: {net.arch}")
    lay = sem.layout(net)
    p = net.params
    w = np.asarray(word, dtype=np.int64)
    traces: list[np.ndarray] = []
    coords: list[np.ndarray] = []
    # Per component, its prefix index along time after 0, 1, ... of its units, from
    # their coordinates at t-1: extended as each unit's trace is known (one link
    # lookup per unit, not one per unit above it).
    chains = [[np.zeros(len(w), dtype=np.int64)] for _ in lay.members]
    for u in range(lay.n_units):
        # The controller row from the units above (all earlier in the file), at t-1.
        code = chains[lay.components[u]][lay.above[u]]
        x0 = np.asarray(p[f"unit{u}_x0"], dtype=np.float64)
        if lay.kinds[u] == SCALAR_KIND:
            rr, ss = scan_scalar(p[f"unit{u}_r"][w, code], p[f"unit{u}_s"][w, code])
            trace = np.concatenate([x0, scalar_step(rr, ss, x0[0])])
            coords.append(scalar_coordinate(trace, lay.sizes[u]))
        else:
            k = lay.sizes[u]
            if len(w):
                rr, ss = scan_affine(p[f"unit{u}_R"][w, code], p[f"unit{u}_s"][w, code])
                body = affine_step(rr, ss, x0)
            else:
                body = np.zeros((0, k))
            trace = np.concatenate([x0[None, :], body])
            coords.append(np.argmax(trace, axis=1).astype(np.int64))
        traces.append(trace)
        chain, c = chains[lay.components[u]], coords[-1][:-1]
        chain.append(chain[-1] * lay.sizes[u] + c if lay.links is None
                     else lay.links[u][chain[-1], c])
    return traces


def levelwise_label_trace(net: Network, word: Sequence[int] | np.ndarray) -> np.ndarray:
    """Label index after every prefix, from :func:`levelwise_unit_traces`."""
    sem = net.semantics
    assert isinstance(sem, MinMaxCascade)
    lay = sem.layout(net)
    traces = levelwise_unit_traces(net, word)
    coords = [(scalar_coordinate(trace, lay.sizes[u]) if lay.kinds[u] == SCALAR_KIND
               else np.argmax(trace, axis=1)).astype(np.int64) for u, trace in enumerate(traces)]
    _, code = lay.rows_and_code(coords, np.zeros(len(coords[0]), dtype=np.int64))
    return np.asarray(net.params["readout"])[code].astype(np.int64)


CASCADE = MinMaxCascade("minmax-cascade", scalar_only=False)
SCALAR = MinMaxCascade("minmax-scalar", scalar_only=True)
