"""Hypothesis strategies for MinMax cascades with arbitrary tables (not only compiled ones)."""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from fsmnet.nets.network import Network

VALUES = [-1.0, 0.0, 0.5, 1.0, 1.5, 2.0, 2.25, 3.0, 3.5, 4.0]  # finite: files forbid inf


@st.composite
def mixed_cascades(draw):
    """Random minmax-cascade networks mixing scalar and matrix units, arbitrary tables."""
    n_symbols = draw(st.integers(1, 3))
    n_units = draw(st.integers(1, 3))
    levels = sorted(draw(st.lists(st.integers(0, 2), min_size=n_units, max_size=n_units)))
    sizes = draw(st.lists(st.integers(1, 3), min_size=n_units, max_size=n_units))
    kinds = draw(st.lists(st.integers(0, 1), min_size=n_units, max_size=n_units))
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
    codes = int(np.prod(sizes))
    params["readout"] = np.array(draw(st.lists(st.integers(0, 1), min_size=codes,
                                               max_size=codes)), dtype=np.int64)
    return Network(arch="minmax-cascade", params=params,
                   symbols=[chr(97 + i) for i in range(n_symbols)], labels=[0, 1])
