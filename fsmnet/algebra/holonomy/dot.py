"""Graphviz DOT for a holonomy cascade: one box per level, one node per component.

Each component node shows its representative set ``R``, its tiles (the
level's points, in order) and its holonomy group ``H(R)`` by name and order,
or "reset" when the group is trivial.  An arrow joins each level to the next
because level ``d``'s action reads the coordinates of levels ``1..d-1``
(:meth:`~fsmnet.algebra.holonomy.cascade.Holonomy.level_action`); the
letters enter at the top and act on every level.

>>> from fsmnet.algebra.holonomy import decompose
>>> text = holonomy_to_dot(decompose([[1, 2, 0], [1, 0, 2], [0, 0, 2]]))   # T_3
>>> "S_3 (order 6)" in text and "C_2 (order 2)" in text
True
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from fsmnet.algebra.holonomy.cascade import Component, Holonomy

__all__ = ["holonomy_to_dot", "holonomy_to_svg"]

MAX_TILES_SHOWN = 8
"""A component with more tiles lists the first ones and a count."""


def holonomy_to_dot(h: Holonomy, *, state_names: Sequence[str] | None = None,
                    title: str = "") -> str:
    """DOT text of the cascade (top level first).

    Parameters
    ----------
    state_names
        Names for the states ``0..n-1`` in the sets (default: the numbers).
    title
        A caption drawn above the picture.
    """
    from fsmnet.algebra.groups import group_name

    names = [str(i) for i in range(h.n_states)] if state_names is None else list(state_names)
    caption = title or f"holonomy cascade: {h.n_states} states, {h.n_levels} levels"
    lines = ["digraph holonomy {", "  compound=true; rankdir=TB; newrank=true;",
             f"  label={_q(caption)}; labelloc=t; fontname=Helvetica;",
             "  node [shape=box, style=rounded, fontname=Helvetica, fontsize=11];",
             "  edge [fontname=Helvetica, fontsize=10];",
             f"  letters [shape=plaintext, label={_q('letters: ' + ', '.join(h.symbols))}];"]
    anchors: list[str] = []
    for lv in h.levels:
        lines.append(f"  subgraph cluster_level{lv.level} {{")
        lines.append(f"    label={_q(f'level {lv.level}: {lv.n_points} points')}; "
                     "style=rounded; color=gray40;")
        for k, comp in enumerate(lv.components):
            node = f"l{lv.level}c{k}"
            group = "reset (trivial group)" if comp.group is None else \
                f"{group_name(comp.group)} (order {int(comp.group.order())})"
            label = _left([f"R = {_set(comp.representative, names)}",
                           f"tiles {_points(comp)}: {_tiles(comp, names)}",
                           f"group: {group}"])
            colour = "white" if comp.group is None else "lightyellow"
            lines.append(f"    {node} [label={label}, style=\"rounded,filled\", "
                         f"fillcolor={colour}];")
        if not lv.components:
            lines.append(f'    l{lv.level}empty [label="(no component)", shape=plaintext];')
        if len(lv.components) > 1:  # side by side: one level is one rank
            same = "; ".join(f"l{lv.level}c{k}" for k in range(len(lv.components)))
            lines.append(f"    {{rank=same; {same}}}")
            chain = " -> ".join(f"l{lv.level}c{k}" for k in range(len(lv.components)))
            lines.append(f"    {chain} [style=invis];")  # keep them in offset order
        lines.append("  }")
        anchors.append(f"l{lv.level}c0" if lv.components else f"l{lv.level}empty")
    if anchors:
        lines.append(f"  letters -> {anchors[0]} [lhead=cluster_level1];")
    for d in range(1, len(anchors)):
        lines.append(f"  {anchors[d - 1]} -> {anchors[d]} [ltail=cluster_level{d}, "
                     f"lhead=cluster_level{d + 1}, label={_q(_reads(d))}];")
    lines.append("}")
    return "\n".join(lines) + "\n"


def holonomy_to_svg(h: Holonomy, **options: object) -> str:
    """SVG of :func:`holonomy_to_dot` (needs Graphviz ``dot``; raises
    :class:`~fsmnet.errors.BackendUnavailable` saying so when it is missing)."""
    from fsmnet.automata.render import dot_to_svg

    return dot_to_svg(holonomy_to_dot(h, **options))  # type: ignore[arg-type]


def n_nodes(h: Holonomy) -> int:
    """Nodes in the picture (for the notebook size limit)."""
    return 1 + sum(max(1, len(lv.components)) for lv in h.levels)


# ---------------------------------------------------------------- helpers
def _set(points: Iterable[int], names: Sequence[str]) -> str:
    return "{" + ",".join(names[p] for p in sorted(points)) + "}"


def _reads(d: int) -> str:
    return "reads level 1" if d == 1 else f"reads levels 1..{d}"


def _points(comp: Component) -> str:
    first, last = comp.offset, comp.offset + comp.n_tiles - 1
    return f"{first}" if first == last else f"{first}..{last}"


def _tiles(comp: Component, names: Sequence[str]) -> str:
    shown = [_set(t, names) for t in comp.tiles[:MAX_TILES_SHOWN]]
    if comp.n_tiles > MAX_TILES_SHOWN:
        shown.append(f"... ({comp.n_tiles} tiles)")
    return " ".join(shown)


def _q(text: str) -> str:
    # Graphviz reads backslash escapes inside labels: double them, escape quotes.
    body = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{body}"'


def _left(lines: Sequence[str]) -> str:
    """A DOT label of left-aligned lines (each escaped, each ended by \\l)."""
    return '"' + "".join(_q(line)[1:-1] + "\\l" for line in lines) + '"'
