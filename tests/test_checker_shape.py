"""The trusted checker stays readable in one sitting (issue 31): every method parses its
certificate into frozen dataclasses, then checks the mathematics in short steps.

Why a test: the checker is the trusted base, and a long function mixing parsing with
the mathematics is where a missed case hides.  The rules are read off the source with
``ast``, so they hold for every module of the package, a new one included.
"""

from __future__ import annotations

import ast
import pathlib

import fsmnet.proofs.checker as checker

MAX_LINES = 40  # end_lineno - lineno + 1 of each function, nested ones included


def _modules() -> list[tuple[str, ast.Module]]:
    root = pathlib.Path(checker.__file__).parent
    return [(path.name, ast.parse(path.read_text(encoding="utf-8")))
            for path in sorted(root.glob("*.py"))]


def test_no_checker_function_is_over_40_lines() -> None:
    long = [f"{name}:{node.lineno} {node.name} ({node.end_lineno - node.lineno + 1} lines)"
            for name, tree in _modules() for node in ast.walk(tree)
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
            and node.end_lineno is not None
            and node.end_lineno - node.lineno + 1 > MAX_LINES]
    assert long == [], f"split these into parse and check steps: {long}"


def _is_dataclass_decorator(node: ast.expr) -> bool:
    target = node.func if isinstance(node, ast.Call) else node
    return (isinstance(target, ast.Name) and target.id == "dataclass") or (
        isinstance(target, ast.Attribute) and target.attr == "dataclass")


def _frozen(node: ast.expr) -> bool:
    return isinstance(node, ast.Call) and any(
        k.arg == "frozen" and isinstance(k.value, ast.Constant) and k.value.value is True
        for k in node.keywords)


def test_every_checker_dataclass_is_frozen() -> None:
    # A parsed certificate is a validated value: nothing may change it between the
    # parse that checked it and the mathematics that relies on it.
    thawed = [f"{name}:{node.lineno} {node.name}"
              for name, tree in _modules() for node in ast.walk(tree)
              if isinstance(node, ast.ClassDef)
              for deco in node.decorator_list
              if _is_dataclass_decorator(deco) and not _frozen(deco)]
    assert thawed == []


def test_the_rules_see_a_long_function_and_a_thawed_dataclass() -> None:
    # The walkers above find what they look for (a check that finds nothing proves
    # nothing): a made-up module with one of each.
    body = "\n".join(["def f() -> None:"] + ["    pass"] * MAX_LINES)
    tree = ast.parse(body + "\n\n@dataclass\nclass C:\n    x: int\n")
    func = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef))
    assert func.end_lineno is not None and func.end_lineno - func.lineno + 1 > MAX_LINES
    cls = next(n for n in ast.walk(tree) if isinstance(n, ast.ClassDef))
    assert _is_dataclass_decorator(cls.decorator_list[0])
    assert not _frozen(cls.decorator_list[0])
