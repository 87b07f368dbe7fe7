"""Hypothesis strategies for MinMax cascades with arbitrary tables (not only compiled ones)."""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from fsmnet.nets.network import Network

VALUES = [-1.0, 0.0, 0.5, 1.0, 1.5, 2.0, 2.25, 3.0, 3.5, 4.0]  # finite: files forbid inf


@st.composite
def cascades(draw, *, matrix_units: bool = True, max_units: int = 3, max_labels: int = 2):
    """Random ``minmax-cascade`` networks mixing scalar and matrix units, or with
    ``matrix_units=False`` random ``minmax-scalar`` networks."""
    n_symbols = draw(st.integers(1, 3))
    n_units = draw(st.integers(1, max_units))
    levels = sorted(draw(st.lists(st.integers(0, max_units - 1), min_size=n_units,
                                  max_size=n_units)))
    sizes = draw(st.lists(st.integers(1, 3), min_size=n_units, max_size=n_units))
    kinds = (draw(st.lists(st.integers(0, 1), min_size=n_units, max_size=n_units))
             if matrix_units else [0] * n_units)
    params = {"unit_level": np.array(levels), "unit_size": np.array(sizes),
              "unit_kind": np.array(kinds, dtype=np.int64)}

    def values(*shape):
        count = int(np.prod(shape))
        return np.array(draw(st.lists(st.sampled_from(VALUES), min_size=count,
                                      max_size=count))).reshape(shape)

    for u in range(n_units):
        above = sum(1 for lv in levels if lv < levels[u])
        dom, k = int(np.prod(sizes[:above], dtype=np.int64)), sizes[u]
        if kinds[u] == 0:
            params[f"unit{u}_r"], params[f"unit{u}_s"] = values(n_symbols, dom), values(
                n_symbols, dom)
            params[f"unit{u}_x0"] = values(1)
        else:
            params[f"unit{u}_R"] = values(n_symbols, dom, k, k)
            params[f"unit{u}_s"], params[f"unit{u}_x0"] = values(n_symbols, dom, k), values(k)
    n_labels = draw(st.integers(1, max_labels))
    codes = int(np.prod(sizes))
    params["readout"] = np.array(draw(st.lists(st.integers(0, n_labels - 1), min_size=codes,
                                               max_size=codes)), dtype=np.int64)
    return Network(arch="minmax-cascade" if matrix_units else "minmax-scalar", params=params,
                   symbols=[chr(97 + i) for i in range(n_symbols)], labels=list(range(n_labels)))


def mixed_cascades() -> st.SearchStrategy[Network]:
    return cascades()


def scalar_cascades() -> st.SearchStrategy[Network]:
    return cascades(matrix_units=False, max_units=4, max_labels=3)
