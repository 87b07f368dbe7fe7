"""The layer rule of docs/architecture.md as a checker over a source tree.

Every ``import`` and ``from ... import`` in every module counts, function-local
ones included (they are still dependencies, only later ones).  Imports guarded
by ``if TYPE_CHECKING:`` count too: annotations are part of the interface.  So
does a ``"package.module:attribute"`` string outside the registry package: it is
what ``archs.resolve`` imports, so a layer that resolves a part above it depends
on that layer as surely as by an import (the registry itself only names parts,
for the layer at their level to resolve; fsmnet/archs/record.py).
"""

from __future__ import annotations

import ast
import pathlib
import re
from dataclasses import dataclass

# Rank of each package of fsmnet: a module may import its own package and any
# package of a strictly lower rank.  Equal ranks are peers and may not import
# each other (that is what keeps, e.g., the proofs independent of the scan engine).
RANKS: dict[str, int] = {
    "errors": 0, "types": 0, "version": 0, "plugins": 0, "interrupts": 0,
    "io": 1,  # fsmnet.io imports fsmnet.errors, so it sits just above it
    "archs": 1,
    "automata": 2,
    "algebra": 3,
    "nets": 4,
    "constructions": 5,
    "proofs": 6, "gpu": 6,
    "decide": 7, "testing": 7, "train": 7,
    "cli": 8, "__init__": 9, "__main__": 9,
}


@dataclass(frozen=True)
class Violation:
    module: str
    line: int
    imported: str
    why: str

    def __str__(self) -> str:
        return f"{self.module}:{self.line} imports {self.imported}: {self.why}"


def package_of(module: str, root: str) -> str:
    """``fsmnet.gpu.engine`` -> ``gpu``; ``fsmnet`` -> ``__init__``."""
    parts = module.split(".")
    if parts[0] != root:
        raise ValueError(module)
    return "__init__" if len(parts) == 1 else parts[1]


def module_name(path: pathlib.Path, base: pathlib.Path) -> str:
    rel = path.relative_to(base).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _is_module(base: pathlib.Path, dotted: str) -> bool:
    path = base.joinpath(*dotted.split("."))
    return path.with_suffix(".py").exists() or (path / "__init__.py").exists()


def _imports(tree: ast.AST, module: str, is_package: bool,
             base: pathlib.Path) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative: resolve against this module's package
                here = module.split(".") if is_package else module.split(".")[:-1]
                anchor = here[: len(here) - (node.level - 1)]
                target = ".".join(anchor + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            for alias in node.names:
                # ``from fsmnet import archs`` imports the package fsmnet.archs, while
                # ``from fsmnet import load`` imports a name of fsmnet itself.
                sub = f"{target}.{alias.name}"
                found.append((node.lineno, sub if _is_module(base, sub) else target))
    return found


_REFERENCE = re.compile(r"([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*):[A-Za-z_]\w*")


def _references(tree: ast.AST) -> list[tuple[int, str]]:
    """The modules named by ``"module:attribute"`` string constants."""
    return [(node.lineno, m.group(1)) for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str)
            and (m := _REFERENCE.fullmatch(node.value))]


def check_tree(base: pathlib.Path, root: str = "fsmnet",
               ranks: dict[str, int] = RANKS, registry: str = "archs") -> list[Violation]:
    """Every upward or sideways import between packages under ``base/root``, a
    ``"module:attribute"`` reference outside the ``registry`` package counting as one."""
    problems: list[Violation] = []
    for path in sorted((base / root).rglob("*.py")):
        module = module_name(path, base)
        source = package_of(module, root)
        tree = ast.parse(path.read_text(encoding="utf-8"))
        found = _imports(tree, module, path.name == "__init__.py", base)
        if source != registry:
            found += _references(tree)
        for line, target in found:
            if target.split(".")[0] != root:
                continue
            dest = package_of(target, root)
            if dest == source:
                continue
            if source not in ranks:
                problems.append(Violation(module, line, target, f"package {source!r} has no rank"))
            elif dest not in ranks:
                problems.append(Violation(module, line, target, f"package {dest!r} has no rank"))
            elif ranks[dest] > ranks[source]:
                problems.append(Violation(module, line, target,
                                          f"upward ({source} rank {ranks[source]} -> "
                                          f"{dest} rank {ranks[dest]})"))
            elif ranks[dest] == ranks[source]:
                problems.append(Violation(module, line, target,
                                          f"between peers ({source} and {dest}, "
                                          f"rank {ranks[source]})"))
    return problems
