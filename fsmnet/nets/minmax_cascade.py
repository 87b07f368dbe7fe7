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
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from fsmnet.errors import NetworkFileError
from fsmnet.nets.minmax import affine_step, scalar_step, scan_affine, scan_scalar
from fsmnet.nets.semantics import require_tensor

if TYPE_CHECKING:
    from fsmnet.nets.network import Network

SCALAR_KIND = 0
MATRIX_KIND = 1
MAX_TABLE = 1 << 26
"""Largest controller or readout table (entries) a cascade file may declare."""


def mixed_radix_strides(sizes: Sequence[int]) -> np.ndarray:
    """Strides of the mixed-radix code, unit 0 most significant."""
    strides = np.ones(len(sizes), dtype=np.int64)
    for i in range(len(sizes) - 2, -1, -1):
        strides[i] = strides[i + 1] * int(sizes[i + 1])
    return strides


def scalar_coordinate(x: Any, k: int) -> Any:
    """The discrete value 0..k-1 that a scalar unit state stands for."""
    return np.clip(np.floor(x), 1, k).astype(np.int64) - 1


def link_names(params: Mapping[str, np.ndarray]) -> list[str]:
    """The prefix-link tensors ``link0, link1, ...`` a cascade carries (none: mixed radix)."""
    names: list[str] = []
    while f"link{len(names)}" in params:
        names.append(f"link{len(names)}")
    return names


class CascadeLayout:
    """Shapes derived from the unit tensors: sizes, kinds, domains, prefixes.

    ``links`` (prefix-indexed layout) replaces the mixed-radix codes: see the
    module docs.  ``n_codes`` is then the number of full prefixes, given by
    ``n_full`` (the readout length).
    """

    def __init__(self, levels: np.ndarray, sizes: np.ndarray, kinds: np.ndarray,
                 links: Sequence[np.ndarray] | None = None, n_full: int | None = None) -> None:
        self.levels = [int(v) for v in levels]
        self.sizes = [int(v) for v in sizes]
        self.kinds = [int(v) for v in kinds]
        # Units above unit u: every unit of a strictly smaller level, i.e. a prefix.
        self.above = [sum(1 for lv in self.levels if lv < level) for level in self.levels]
        self.links = None if not links else [np.asarray(x, dtype=np.int64) for x in links]
        # Mixed-radix strides index only the layout without links; with links (one
        # row per reached prefix) the product of ~100 level sizes would overflow int64.
        radix = self.sizes if self.links is None else [1] * len(self.sizes)
        self.strides = mixed_radix_strides(radix)
        self.prefix_strides = [mixed_radix_strides(radix[:a]) for a in self.above]
        if self.links is None:
            self.domains = [int(np.prod(self.sizes[:a], dtype=np.int64)) for a in self.above]
            self.n_codes = int(np.prod(self.sizes, dtype=np.int64))
        else:
            rows = [int(x.shape[0]) for x in self.links] + [int(n_full or 0)]
            self.domains = [rows[a] for a in self.above]
            self.n_codes = rows[-1]

    @property
    def linked(self) -> bool:
        return self.links is not None

    def prefix_indices(self, coords: Sequence[int]) -> list[int]:
        """π_0..π_U for one coordinate tuple (mixed-radix codes without links)."""
        out = [0]
        for j, c in enumerate(coords):
            if self.links is None:
                out.append(out[-1] * self.sizes[j] + int(c))
            else:
                out.append(int(self.links[j][out[-1], int(c)]))
        return out

    def prefix_traces(self, coords: Sequence[np.ndarray]) -> list[np.ndarray]:
        """π_0..π_len(coords) along time, from per-unit coordinate traces."""
        out = [np.zeros(len(coords[0]) if coords else 0, dtype=np.int64)]
        for j, c in enumerate(coords):
            if self.links is None:
                out.append(out[-1] * self.sizes[j] + c)
            else:
                out.append(self.links[j][out[-1], c])
        return out

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
        links = self._validate_links(params, sizes, source)
        if links is None and float(np.prod(sizes.astype(np.float64))) > MAX_TABLE:
            raise NetworkFileError(f"{source}: field 'unit_size': readout table too large "
                                   f"(value: {sizes.tolist()})")
        n_full = None
        if links is not None:
            n_full = int(require_tensor(params, "readout", (None,), source, kind="int").shape[0])
            bound = [int(x.shape[0]) for x in links[1:]] + [n_full]
            for j, (x, top) in enumerate(zip(links, bound)):
                if x.size and (x.min() < 0 or x.max() >= top):
                    raise NetworkFileError(f"{source}: field 'link{j}': prefix index out of "
                                           f"range 0..{top - 1} (value: {int(x.max())})")
        layout = CascadeLayout(levels, sizes, kinds, links, n_full)
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

    @staticmethod
    def _validate_links(params: Mapping[str, np.ndarray], sizes: np.ndarray,
                        source: str) -> list[np.ndarray] | None:
        names = link_names(params)
        if not names:
            return None
        if len(names) != len(sizes):
            raise NetworkFileError(f"{source}: field 'link{len(names)}': a prefix-indexed "
                                   f"cascade needs one link per unit (value: missing)")
        links = []
        for j, name in enumerate(names):
            # P_0 = 1 (the empty prefix); later row counts are whatever the file
            # declares, the range check of the entries ties them together.
            shape = (1 if j == 0 else None, int(sizes[j]))
            x = require_tensor(params, name, shape, source, kind="int")
            if x.size > MAX_TABLE:
                raise NetworkFileError(f"{source}: field '{name}': table too large "
                                       f"(value: {list(x.shape)})")
            links.append(x)
        return links

    # --------------------------------------------------------------- helpers
    def layout(self, net: Network) -> CascadeLayout:
        p = net.params
        return net.cached("cascade_layout", lambda: CascadeLayout(
            p["unit_level"], p["unit_size"], p["unit_kind"],
            [p[name] for name in link_names(p)], int(np.asarray(p["readout"]).shape[0])))

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
        prefix = lay.prefix_indices(self.coordinates(net, state))
        new = []
        for u in range(lay.n_units):
            d = prefix[lay.above[u]]
            if lay.kinds[u] == SCALAR_KIND:
                new.append(scalar_step(p[f"unit{u}_r"][symbol, d:d + 1],
                                       p[f"unit{u}_s"][symbol, d:d + 1], state[u]))
            else:
                new.append(affine_step(p[f"unit{u}_R"][symbol, d], p[f"unit{u}_s"][symbol, d],
                                       state[u]))
        return tuple(new)

    def readout(self, net: Network, state: Sequence[np.ndarray], exact: bool) -> int:
        lay = self.layout(net)
        code = lay.prefix_indices(self.coordinates(net, state))[-1]
        return int(net.params["readout"][code])


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
    for u in range(lay.n_units):
        a = lay.above[u]
        if a:  # the prefix index of the units above, at t-1
            code = lay.prefix_traces([c[:-1] for c in coords[:a]])[a]
        else:
            code = np.zeros(len(w), dtype=np.int64)
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
    return traces


def levelwise_label_trace(net: Network, word: Sequence[int] | np.ndarray) -> np.ndarray:
    """Label index after every prefix, from :func:`levelwise_unit_traces`."""
    sem = net.semantics
    assert isinstance(sem, MinMaxCascade)
    lay = sem.layout(net)
    traces = levelwise_unit_traces(net, word)
    coords = [(scalar_coordinate(trace, lay.sizes[u]) if lay.kinds[u] == SCALAR_KIND
               else np.argmax(trace, axis=1)).astype(np.int64) for u, trace in enumerate(traces)]
    code = lay.prefix_traces(coords)[-1]
    return np.asarray(net.params["readout"])[code].astype(np.int64)


CASCADE = MinMaxCascade("minmax-cascade", scalar_only=False)
SCALAR = MinMaxCascade("minmax-scalar", scalar_only=True)
