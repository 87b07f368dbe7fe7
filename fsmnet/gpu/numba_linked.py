"""Numba kernel for prefix-indexed MinMax cascades: links (format 2), components and
joins (format 3).

The semantics are :mod:`fsmnet.nets.minmax_cascade`'s: every controller reads the
coordinates at t−1; each component chains its own links, π_0 = 0 and
π_{i+1} = link[π_i, c]; a unit's row is its component's π after the units of
its component at smaller levels; the label is ``readout`` at the joined final
prefixes.  Max and min only select values, so the floats are exactly those of
the reference evaluator (tests/test_minmax_product.py compares them).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numba import njit

from fsmnet.gpu.numba_minmax import _affine_step, _coords, pack_cascade


@dataclass(frozen=True)
class LinkPack:
    """The links and joins of a cascade flattened for the kernel."""

    comp: np.ndarray  # (U,) component of each unit
    above: np.ndarray  # (U,) prefix length of the component read by unit u
    chain: np.ndarray  # (C, L) units of each component in order (-1 padding)
    chain_len: np.ndarray  # (C,)
    link: np.ndarray  # all links, flattened
    link_off: np.ndarray  # (U,) offset of unit u's link
    join: np.ndarray  # all joins, flattened
    join_off: np.ndarray  # (C,) offset of join c (entry 0 unused)
    join_width: np.ndarray  # (C,) columns of join c (entry 0 unused)


def pack_links(net: Any) -> LinkPack:
    """Flatten the links and joins of a prefix-indexed cascade (cached on the network)."""
    return net.cached("numba_link_pack", lambda: _pack_links(net))  # type: ignore[no-any-return]


def _pack_links(net: Any) -> LinkPack:
    lay = net.semantics.layout(net)
    assert lay.links is not None
    n_comp = lay.n_components
    width = max(len(m) for m in lay.members)
    chain = np.full((n_comp, width), -1, dtype=np.int64)
    for c, members in enumerate(lay.members):
        chain[c, :len(members)] = members
    link_off = np.cumsum([0] + [x.size for x in lay.links[:-1]]).astype(np.int64)
    join_off = np.zeros(n_comp, dtype=np.int64)
    join_width = np.zeros(n_comp, dtype=np.int64)
    pos = 0
    for c, x in enumerate(lay.joins, start=1):
        join_off[c], join_width[c] = pos, x.shape[1]
        pos += x.size
    flat = (np.ascontiguousarray(np.concatenate([x.ravel() for x in lay.joins]))
            if lay.joins else np.zeros(1, dtype=np.int64))
    return LinkPack(
        comp=np.array(lay.components, dtype=np.int64),
        above=np.array(lay.above, dtype=np.int64), chain=chain,
        chain_len=np.array([len(m) for m in lay.members], dtype=np.int64),
        link=np.ascontiguousarray(np.concatenate([x.ravel() for x in lay.links])),
        link_off=link_off, join=flat.astype(np.int64), join_off=join_off,
        join_width=join_width)


@njit(cache=True, nogil=True)
def _chains(sizes, chain, chain_len, link, link_off, coords, pis):  # pragma: no cover
    """pis[c, i] = component c's prefix index after its first i units."""
    for c in range(chain.shape[0]):
        p = 0
        pis[c, 0] = 0
        for i in range(chain_len[c]):
            u = chain[c, i]
            p = link[link_off[u] + p * sizes[u] + coords[u]]
            pis[c, i + 1] = p
    return pis


@njit(cache=True, nogil=True)
def _label(chain_len, join, join_off, join_width, readout, pis):  # pragma: no cover
    code = pis[0, chain_len[0]]
    for c in range(1, chain_len.shape[0]):
        code = join[join_off[c] + code * join_width[c] + pis[c, chain_len[c]]]
    return readout[code]


@njit(cache=True, nogil=True)
def linked_sequential(kinds, sizes, dom, soff, off_rs, rtab, stab, off_m, off_ms, mR, ms,
                      readout, comp, above, chain, chain_len, link, link_off, join,
                      join_off, join_width, symbols, state, outputs):  # pragma: no cover
    """Steps the whole cascade per symbol; ``state`` (flat) is updated in place."""
    n_units = kinds.shape[0]
    coords = np.empty(n_units, dtype=np.int64)
    pis = np.zeros((chain.shape[0], chain.shape[1] + 1), dtype=np.int64)
    tmp = np.empty(max(1, sizes.max()))
    write = outputs.shape[0] > 0
    _coords(kinds, sizes, soff, state, coords)
    for t in range(symbols.shape[0]):
        x = symbols[t]
        _chains(sizes, chain, chain_len, link, link_off, coords, pis)  # all read t-1
        for u in range(n_units):
            cell = x * dom[u] + pis[comp[u], above[u]]
            if kinds[u] == 0:
                i = off_rs[u] + cell
                v = min(rtab[i], state[soff[u]])
                state[soff[u]] = max(v, stab[i])
            else:
                k = sizes[u]
                _affine_step(mR, ms, off_m[u] + cell * k * k, off_ms[u] + cell * k, k,
                             state[soff[u]:soff[u] + k], tmp)
                for i in range(k):
                    state[soff[u] + i] = tmp[i]
        _coords(kinds, sizes, soff, state, coords)
        if write:
            _chains(sizes, chain, chain_len, link, link_off, coords, pis)
            outputs[t] = _label(chain_len, join, join_off, join_width, readout, pis)
    return state


def run_linked(net: Any, arr: np.ndarray, state: np.ndarray, res: np.ndarray) -> np.ndarray:
    """Run :func:`linked_sequential` on a flat state (see :func:`pack_cascade`)."""
    pack = pack_cascade(net)
    lp = pack_links(net)
    return linked_sequential(  # type: ignore[no-any-return]
        pack.kinds, pack.sizes, pack.dom, pack.soff, pack.off_rs, pack.rtab, pack.stab,
        pack.off_m, pack.off_ms, pack.mR, pack.ms, pack.readout, lp.comp, lp.above, lp.chain,
        lp.chain_len, lp.link, lp.link_off, lp.join, lp.join_off, lp.join_width,
        np.ascontiguousarray(arr, dtype=np.int64), state, res)
