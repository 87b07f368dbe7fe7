"""Graphviz DOT for a compiled network: its units, blocks and data flow.

What the picture shows depends on the architecture's semantics (its registry
record's ``semantics``; docs/formats.md):

- a MinMax cascade (``minmax-cascade``, ``minmax-scalar``): one box per level,
  one node per MinMax unit (scalar ``x' = max(min(r, x), s)`` or matrix
  ``x' = (R ⊗ x) ⊕ s`` with its size); every unit reads the letter and the
  units of the levels above at t-1, and the readout reads all units.
- block-diagonal bilinear (``bilinear-block``): one node per block ``W.i`` (its
  size), each updated by the letter alone, joined by the product readout.
- every other architecture: its recurrent blocks found from the *support*
  of the transition (indices that no letter ever mixes fall apart into
  independent blocks, so a one-hot ``bilinear-full`` compiled from a product
  of automata shows its factors; a diagonal channel of several scalars, a
  2×2 rotation of ``bilinear-r2``, stays one), with the tensors and their shapes.

A self-loop marks the recurrence (state at t-1 to state at t).

>>> import fsmnet
>>> text = network_to_dot(fsmnet.compile("latch:4", "minmax-scalar"))
>>> text.count("scalar unit")
2
"""

from __future__ import annotations

from typing import Any

import numpy as np

from fsmnet.nets.bilinear_block import BlockBilinear
from fsmnet.nets.minmax_cascade import MinMaxCascade
from fsmnet.nets.network import Network

__all__ = ["network_to_dot", "network_to_svg", "n_nodes", "support_blocks"]

_TRANSITIONS = ("W", "R", "Q", "keys")


def network_to_dot(net: Network, *, title: str = "") -> str:
    """DOT text of the network's structure (not of every weight)."""
    caption = title or (f"{net.arch} network {net.name!r}: hidden {net.hidden_size}, "
                        f"{net.n_params} parameters")
    lines = ["digraph network {", "  rankdir=TB; compound=true; newrank=true;",
             f"  label={_q(caption)}; labelloc=t; fontname=Helvetica;",
             "  node [shape=box, style=rounded, fontname=Helvetica, fontsize=11];",
             "  edge [fontname=Helvetica, fontsize=10];",
             f"  input [shape=invhouse, label={_q(_alphabet('letter x_t', net.symbols))}];",
             f"  readout [shape=house, label={_q(_alphabet('readout: label', net.labels))}];"]
    if isinstance(net.semantics, MinMaxCascade):
        lines += _cascade(net)
    elif isinstance(net.semantics, BlockBilinear):
        lines += _blocks(net)
    else:
        lines += _generic(net)
    lines.append("}")
    return "\n".join(lines) + "\n"


def network_to_svg(net: Network, **options: Any) -> str:
    """SVG of :func:`network_to_dot` (needs Graphviz ``dot``; raises
    :class:`~fsmnet.errors.BackendUnavailable` saying so when it is missing)."""
    from fsmnet.automata.render import dot_to_svg

    return dot_to_svg(network_to_dot(net, **options))


def n_nodes(net: Network) -> int:
    """Nodes in the picture (for the notebook size limit)."""
    if isinstance(net.semantics, MinMaxCascade):
        return 2 + len(net.params["unit_level"])
    if isinstance(net.semantics, BlockBilinear):
        return 2 + sum(1 for k in net.params if k.startswith("W."))
    return 2 + len(support_blocks(net))


def support_blocks(net: Network) -> list[list[int]]:
    """Hidden indices split into blocks that no letter's transition mixes
    (linear architectures; a block-diagonal network's own blocks).

    Two indices are joined when some letter's transition matrix has a
    non-zero entry between them (connected components of the support,
    found by union-find).  Architectures without a square transition tensor
    (``bilinear-cp``, diagonal ones) are split by their readout and initial
    state only, so they come back as one block per index unless mixed.
    """
    h = net.hidden_size
    if isinstance(net.semantics, BlockBilinear):  # given: W.0, W.1, ... side by side
        sizes = [int(net.params[f"W.{i}"].shape[0])
                 for i in sorted(int(k[2:]) for k in net.params if k.startswith("W."))]
        cuts = np.cumsum([0, *sizes]).tolist()
        return [list(range(cuts[i], cuts[i + 1])) for i in range(len(sizes))]
    parent = list(range(h))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for a, b in _support_pairs(net, h):
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)
    groups: dict[int, list[int]] = {}
    for i in range(h):
        groups.setdefault(find(i), []).append(i)
    return sorted(groups.values())


# ---------------------------------------------------------------- per arch
def _cascade(net: Network) -> list[str]:
    p = net.params
    levels, sizes, kinds = (np.asarray(p[k]).tolist() for k in
                            ("unit_level", "unit_size", "unit_kind"))
    # A product cascade (format 3) runs its components side by side: a unit reads
    # only the units above it in its own component.
    component = (np.asarray(p["unit_component"]).tolist() if "unit_component" in p
                 else [0] * len(levels))
    split = len(set(component)) > 1
    out: list[str] = []
    by_box: dict[tuple[int, int], list[int]] = {}
    for u, lv in enumerate(levels):
        by_box.setdefault((int(component[u]), int(lv)), []).append(u)
    for (comp, lv), units in sorted(by_box.items()):
        name = f"c{comp}_level{lv}" if split else f"level{lv}"
        label = f"component {comp}, level {lv}" if split else f"level {lv}"
        out.append(f"  subgraph cluster_{name} {{")
        out.append(f"    label={_q(label)}; style=rounded; color=gray40;")
        for u in units:
            if int(kinds[u]) == 0:
                text = [f"unit {u}: scalar unit, {sizes[u]} values",
                        "x' = max(min(r, x), s)", f"r, s: {_shape(p[f'unit{u}_r'])}"]
            else:
                text = [f"unit {u}: matrix unit, {sizes[u]}x{sizes[u]}",
                        "x' = (R (max,min) x) max s", f"R: {_shape(p[f'unit{u}_R'])}"]
            out.append(f"    u{u} [label={_left(text)}];")
            out.append(f'    u{u} -> u{u} [label="t-1", color=gray50];')
        out.append("  }")
    for u in range(len(levels)):
        out.append(f"  input -> u{u} [color=gray60];")
        out.append(f"  u{u} -> readout;")
    boxes = sorted(by_box)
    for before, after in zip(boxes, boxes[1:]):
        if before[0] != after[0]:
            continue  # no edge between components
        tail = f"c{before[0]}_level{before[1]}" if split else f"level{before[1]}"
        head = f"c{after[0]}_level{after[1]}" if split else f"level{after[1]}"
        out.append(f"  u{by_box[before][0]} -> u{by_box[after][0]} [ltail=cluster_{tail}, "
                   f"lhead=cluster_{head}, penwidth=2, "
                   f"label={_q('units above at t-1')}];")
    table = f"readout table {_shape(p['readout'])}"
    out.append(f"  readout_table [shape=note, label={_q(table)}];")
    out.append("  readout_table -> readout [style=dashed, arrowhead=none];")
    return out


def _blocks(net: Network) -> list[str]:
    p = net.params
    ids = sorted(int(k[2:]) for k in p if k.startswith("W."))
    out = ["  subgraph cluster_blocks {", '    label="independent blocks"; style=rounded;']
    for i in ids:
        b = int(p[f"W.{i}"].shape[0])
        out.append(f"    b{i} [label={_left([f'block {i}: {b}x{b}', 'h = W.i[:, :, x] h'])}];")
        out.append(f'    b{i} -> b{i} [label="t-1", color=gray50];')
    out.append("  }")
    for i in ids:
        out.append(f"  input -> b{i};")
        out.append(f"  b{i} -> readout;")
    shape = _shape(p["readout"])
    out.append(f"  readout_table [shape=note, label={_q(f'product readout {shape}')}];")
    out.append("  readout_table -> readout [style=dashed, arrowhead=none];")
    return out


def _generic(net: Network) -> list[str]:
    blocks = support_blocks(net)
    tensors = "; ".join(f"{k} {_shape(v)}" for k, v in sorted(net.params.items()))
    out = ["  subgraph cluster_state {",
           f"    label={_q(f'hidden state, {net.hidden_size} units')}; style=rounded;"]
    shown = blocks[:12]
    for j, block in enumerate(shown):
        out.append(f"    h{j} [label={_left([f'block {j}: {len(block)} units', _span(block)])}];")
        out.append(f'    h{j} -> h{j} [label="t-1", color=gray50];')
    if len(blocks) > len(shown):
        extra = f"+{len(blocks) - len(shown)} blocks"
        out.append(f"    more [shape=plaintext, label={_q(extra)}];")
    out.append("  }")
    for j in range(len(shown)):
        out.append(f"  input -> h{j};")
        out.append(f"  h{j} -> readout;")
    out.append(f"  tensors [shape=note, label={_q(_wrap(tensors))}];")
    out.append("  tensors -> readout [style=dashed, arrowhead=none];")
    return out


# ---------------------------------------------------------------- helpers
def _support_pairs(net: Network, h: int) -> list[tuple[int, int]]:
    p = net.params
    pairs: list[tuple[int, int]] = []
    for key in _TRANSITIONS:
        t = p.get(key)
        if t is None:
            continue
        arr = np.abs(np.asarray(t, dtype=np.float64))
        if key == "W" and arr.shape[:2] == (h, h):
            mask = arr.sum(axis=2) > 0
        elif key == "Q" and arr.shape[-2:] == (h, h):
            mask = arr.reshape(-1, h, h).sum(axis=0) > 0
        elif key == "R" and arr.shape[-2:] == (h, h):
            # (max, min) algebra: the smallest entry plays zero, anything above it mixes.
            raw = np.asarray(t, dtype=np.float64).reshape(-1, h, h)
            mask = raw.max(axis=0) > raw.min()
        elif key == "keys" and arr.shape[-1] == h:
            # A Householder factor mixes every index where its key is non-zero.
            mask = np.zeros((h, h), dtype=bool)
            for k in arr.reshape(-1, h):
                nz = np.flatnonzero(k)
                mask[np.ix_(nz, nz)] = True
        else:
            continue
        pairs.extend((int(a), int(b)) for a, b in np.argwhere(mask) if a != b)
    if all(k in p for k in ("U", "V", "Z")):  # bilinear-cp: A(e_s) = U diag(V[s]) Z^T
        full = np.einsum("hr,kr,gr->hg", np.abs(p["U"]), np.abs(p["V"]), np.abs(p["Z"]))
        pairs.extend((int(a), int(b)) for a, b in np.argwhere(full > 0) if a != b)
    # A diagonal channel of b scalars (b = 2: a 2x2 rotation) spans (bc, ..., bc + b - 1).
    b = int(getattr(net.semantics, "block", 1))
    pairs.extend((b * c, b * c + j) for c in range(h // b) for j in range(1, b))
    return pairs


def _shape(arr: Any) -> str:
    return "(" + ", ".join(str(int(d)) for d in np.shape(arr)) + ")"


def _span(block: list[int]) -> str:
    if block == list(range(block[0], block[-1] + 1)):
        return f"h[{block[0]}]" if len(block) == 1 else f"h[{block[0]}..{block[-1]}]"
    return "h[" + ",".join(map(str, block[:8])) + (",...]" if len(block) > 8 else "]")


def _alphabet(head: str, items: Any) -> str:
    names = [str(x) for x in items]
    shown = ", ".join(names[:10]) + (f", ... ({len(names)})" if len(names) > 10 else "")
    return f"{head} in {{{shown}}}"


def _wrap(text: str, width: int = 48) -> str:
    lines, cur = [], ""
    for part in text.split("; "):
        if cur and len(cur) + len(part) + 2 > width:
            lines.append(cur + ";")
            cur = part
        else:
            cur = f"{cur}; {part}" if cur else part
    lines.append(cur)
    return "\n".join(lines)


def _q(text: str) -> str:
    body = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{body}"'


def _left(lines: list[str]) -> str:
    return '"' + "".join(_q(line)[1:-1] + "\\l" for line in lines) + '"'
