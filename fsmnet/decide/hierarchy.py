"""The architecture × task table: every cell proved, refuted (impossible) or unknown.

Each cell is an expressivity verdict (:mod:`fsmnet.decide.expressivity`): ✓ when
the construction compiled and was proved, ✗ when a theorem's witness rules the
class out, ? otherwise.  ✓ cells are also run on a long random word through the
scan engine, checked symbol by symbol against the automaton.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from fsmnet.decide.expressivity import ExpressivityResult, expressivity

# (row label, SPEC).  The suite of the source papers' benchmarks (docs/families.md).
TASKS: tuple[tuple[str, str], ...] = (
    ("parity", "parity"),
    ("mod 3", "modcount:3"),
    ("mod 5", "modcount:5"),
    ("mod-add 5", "modadd:5"),
    ("mod-arith 5", "modarith:5"),
    ("S3", "symmetric:3"),
    ("A4", "alternating:4"),
    ("A5", "alternating:5,gens"),
    ("random 8", "random:n=8,k=3,seed=0"),
    ("flip-flop", "flipflop"),
    ("latch 4", "latch:4"),
    ("star-free", "starfree"),
    ("at least 2", "atleast:2"),
)

SYMBOLS = {"possible": "✓", "impossible": "✗", "unknown": "?"}


@dataclass(frozen=True)
class Cell:
    task: str
    spec: Any  # a SPEC string, or a spec dict (a task read from standard input)
    arch: str
    verdict: str
    reason: str
    size: dict[str, Any] | None = None
    witness: dict[str, Any] | None = None
    run_accuracy: float | None = None
    run_length: int | None = None


@dataclass(frozen=True)
class Hierarchy:
    tasks: list[str]
    archs: list[str]
    cells: list[Cell] = field(default_factory=list)

    def cell(self, task: str, arch: str) -> Cell:
        return next(c for c in self.cells if c.task == task and c.arch == arch)


def _size_note(size: dict[str, Any] | None) -> str:
    if not size:
        return ""
    if "levels" in size:
        return f"L={size['levels']}"
    return f"H={size.get('hidden')}"


def build_hierarchy(tasks: Sequence[tuple[str, Any]] = TASKS,
                    archs: Sequence[str] | None = None, *, length: int = 1_000_000,
                    progress: Callable[[str], None] | None = None) -> Hierarchy:
    """Compute every cell; ``length`` = 0 skips the long runs."""
    from fsmnet import archs as registry
    from fsmnet.gpu.checked import run_checked

    chosen = list(registry.ids() if archs is None else archs)
    table = Hierarchy([t for t, _ in tasks], chosen)
    for label, spec in tasks:
        # Built and proved even where a possibility theorem settles the class: every ✓
        # cell shows its network's size and runs that network on a long word.
        for r in expressivity(spec, chosen, by_theorem=False):
            if progress is not None:
                progress(f"{label} × {r.arch}")
            accuracy = None
            if r.verdict == "possible" and length > 0:
                accuracy = run_checked(spec, length=length, arch=r.arch).accuracy
            table.cells.append(_cell(label, spec, r, accuracy, length if accuracy is not None
                                     else None))
    return table


def _cell(label: str, spec: Any, r: ExpressivityResult, accuracy: float | None,
          length: int | None) -> Cell:
    return Cell(label, spec, r.arch, r.verdict, r.reason, r.size, r.witness, accuracy, length)


def to_markdown(table: Hierarchy) -> str:
    """The table as Markdown: ✓ (size) / ✗ / ?, one row per task."""
    head = "| task | " + " | ".join(table.archs) + " |"
    rule = "|---|" + "---|" * len(table.archs)
    rows = [head, rule]
    for task in table.tasks:
        cells = []
        for arch in table.archs:
            c = table.cell(task, arch)
            mark = SYMBOLS[c.verdict]
            note = _size_note(c.size) if c.verdict == "possible" else ""
            if c.run_accuracy is not None and c.run_accuracy != 1.0:
                note += f" acc {c.run_accuracy:.3f}"
            cells.append(f"{mark} {note}".strip())
        rows.append(f"| {task} | " + " | ".join(cells) + " |")
    ran = [c for c in table.cells if c.run_accuracy is not None]
    if ran:
        perfect = sum(1 for c in ran if c.run_accuracy == 1.0)
        rows.append("")
        rows.append(f"{len(ran)} ✓ cells each ran {ran[0].run_length:,} random symbols, checked "
                    f"at every position: {perfect} of {len(ran)} with accuracy 1.0.")
    return "\n".join(rows)
