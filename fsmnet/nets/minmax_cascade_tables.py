"""Validation of a MinMax cascade's prefix tables: links (format 2), components and
joins (format 3).  The semantics they define: :mod:`fsmnet.nets.minmax_cascade`.

Every check names the tensor at fault.  The range checks make the semantics
total: every link entry is a valid row of the next table of its component's
chain, every join entry a valid row of the next join (or of ``readout``), so no
coordinate tuple, reached or not, indexes outside a table.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from fsmnet.errors import NetworkFileError
from fsmnet.nets.semantics import require_tensor

MAX_TABLE = 1 << 26
"""Largest controller, link, join or readout table (entries) a cascade file may declare."""


def link_names(params: Mapping[str, np.ndarray]) -> list[str]:
    """The prefix-link tensors ``link0, link1, ...`` a cascade carries (none: mixed radix)."""
    names: list[str] = []
    while f"link{len(names)}" in params:
        names.append(f"link{len(names)}")
    return names


def join_names(params: Mapping[str, np.ndarray]) -> list[str]:
    """The join tensors ``join1, join2, ...`` of a product cascade (format 3)."""
    names: list[str] = []
    while f"join{len(names) + 1}" in params:
        names.append(f"join{len(names) + 1}")
    return names


@dataclass(frozen=True)
class PrefixTables:
    """The validated tables: links (one per unit), components (or None), joins."""

    links: list[np.ndarray]
    components: np.ndarray | None
    joins: list[np.ndarray]
    n_full: int


def _range(x: np.ndarray, top: int, name: str, what: str, source: str) -> None:
    if x.size and (x.min() < 0 or x.max() >= top):
        bad = int(x.min()) if x.min() < 0 else int(x.max())
        raise NetworkFileError(f"{source}: field '{name}': {what} out of range "
                               f"0..{top - 1} (value: {bad})")


def _table(params: Mapping[str, np.ndarray], name: str, shape: tuple[int | None, ...],
           source: str) -> np.ndarray:
    x = require_tensor(params, name, shape, source, kind="int")
    if x.size > MAX_TABLE:
        raise NetworkFileError(f"{source}: field '{name}': table too large "
                               f"(value: {list(x.shape)})")
    return x


def _components(params: Mapping[str, np.ndarray], n_units: int, n_joins: int,
                source: str) -> np.ndarray | None:
    """``unit_component``, checked: values 0..C-1, each used, and C-1 joins."""
    if "unit_component" not in params:
        if n_joins:
            raise NetworkFileError(f"{source}: field 'join1': joins need the tensor "
                                   f"'unit_component' (value: present without it)")
        return None
    comp = require_tensor(params, "unit_component", (n_units,), source, kind="int")
    if comp.min() < 0:
        raise NetworkFileError(f"{source}: field 'unit_component': components must be "
                               f">= 0 (value: {int(comp.min())})")
    n_comp = int(comp.max()) + 1
    unused = sorted(set(range(n_comp)) - {int(c) for c in comp})
    if unused:
        raise NetworkFileError(f"{source}: field 'unit_component': components must be "
                               f"0..C-1, each with a unit (value: {unused[0]} has none)")
    if n_joins != n_comp - 1:
        name = f"join{n_joins + 1}" if n_joins < n_comp - 1 else f"join{n_comp}"
        raise NetworkFileError(f"{source}: field '{name}': {n_comp} components need "
                               f"joins join1..join{n_comp - 1} (value: {n_joins} joins)")
    return comp


def validate_prefix_tables(params: Mapping[str, np.ndarray], sizes: np.ndarray,
                           source: str) -> PrefixTables | None:
    """Check the links, components and joins of a cascade; None when it has no links
    (mixed-radix codes, format 1).

    Raises
    ------
    NetworkFileError
        Naming the tensor: a missing link, a bad shape, an entry out of range, a
        component without units, a missing or extra join.
    """
    names = link_names(params)
    n_units = len(sizes)
    joins = join_names(params)
    if not names:
        if "unit_component" in params:
            raise NetworkFileError(f"{source}: field 'unit_component': a product cascade "
                                   f"needs prefix links link0..link{n_units - 1} "
                                   f"(value: no 'link0')")
        if joins:
            raise NetworkFileError(f"{source}: field 'join1': joins need prefix links "
                                   f"(value: no 'link0')")
        return None
    if len(names) != n_units:
        raise NetworkFileError(f"{source}: field 'link{len(names)}': a prefix-indexed "
                               f"cascade needs one link per unit (value: missing)")
    comp = _components(params, n_units, len(joins), source)
    components = [0] * n_units if comp is None else [int(c) for c in comp]
    n_full = int(require_tensor(params, "readout", (None,), source, kind="int").shape[0])
    join_tabs = [_table(params, name, (None, None), source) for name in joins]
    # The rows of the next table after each join: the next join's rows, or the readout.
    for c, (name, x) in enumerate(zip(joins, join_tabs)):
        top = int(join_tabs[c + 1].shape[0]) if c + 1 < len(join_tabs) else n_full
        _range(x, top, name, "joint index", source)
    finals = ([int(join_tabs[0].shape[0])] + [int(x.shape[1]) for x in join_tabs]
              if join_tabs else [n_full])
    links: list[np.ndarray | None] = [None] * n_units
    for c in range(len(finals)):
        chain = [u for u in range(n_units) if components[u] == c]
        # The first unit of a chain reads the empty prefix (one row); later row counts
        # are whatever the file declares, the range checks tie them together.
        for i, u in enumerate(chain):
            links[u] = _table(params, f"link{u}", (1 if i == 0 else None, int(sizes[u])),
                              source)
        for i, u in enumerate(chain):
            nxt = chain[i + 1] if i + 1 < len(chain) else None
            top = finals[c] if nxt is None else int(links[nxt].shape[0])  # type: ignore[union-attr]
            _range(links[u], top, f"link{u}", "prefix index", source)  # type: ignore[arg-type]
    return PrefixTables(links=[x for x in links if x is not None], components=comp,
                        joins=join_tabs, n_full=n_full)
