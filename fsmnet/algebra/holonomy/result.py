"""The ``fsmnet decompose --json`` result and its one-line-per-level text form.

Schema (docs/architecture.md, "JSON contracts")::

    {"levels": [{"level", "points",
                 "components": [{"points", "group": {"order", "name"} | null}]}],
     "verified"}

``group`` is null for a pure reset component (trivial holonomy group).
"""

from __future__ import annotations

from dataclasses import dataclass

from fsmnet.algebra.groups import group_name
from fsmnet.algebra.holonomy.cascade import Holonomy

__all__ = ["ComponentSummary", "DecomposeResult", "GroupSummary", "LevelSummary",
           "format_levels", "summarize"]


@dataclass(frozen=True)
class GroupSummary:
    """A holonomy group: its order and a short name (``"S_3"``, ``"C_2"``, ...)."""

    order: int
    name: str


@dataclass(frozen=True)
class ComponentSummary:
    """One component: its number of tiles and its group (``None`` if trivial)."""

    points: int
    group: GroupSummary | None


@dataclass(frozen=True)
class LevelSummary:
    """One level (1 = top): its number of points and its components."""

    level: int
    points: int
    components: list[ComponentSummary]


@dataclass(frozen=True)
class DecomposeResult:
    """The whole decomposition; ``verified`` is true when the action and emulation checks passed."""

    levels: list[LevelSummary]
    verified: bool


def summarize(h: Holonomy, *, verified: bool) -> DecomposeResult:
    """The JSON-ready summary of a decomposition."""
    levels = []
    for lv in h.levels:
        comps = []
        for comp in lv.components:
            group = None
            if comp.group is not None:
                # group_name is the naming step of describe_group without the
                # exponent and solvability, which cost seconds on regular
                # actions (S_5 on its 120 elements) and are not in the schema.
                group = GroupSummary(order=int(comp.group.order()), name=group_name(comp.group))
            comps.append(ComponentSummary(points=comp.n_tiles, group=group))
        levels.append(LevelSummary(level=lv.level, points=lv.n_points, components=comps))
    return DecomposeResult(levels=levels, verified=verified)


def format_levels(result: DecomposeResult) -> list[str]:
    """One line per level, e.g. ``"2: (3,S_3) (4,C_3)"``.

    Each component is ``(tiles,group)``; the group ``-`` marks a reset component.
    """
    lines = []
    for lv in result.levels:
        parts = [f"({c.points},{'-' if c.group is None else c.group.name})"
                 for c in lv.components]
        lines.append(f"{lv.level}: " + " ".join(parts))
    return lines
