"""The docstring examples of every fsmnet module run, as part of the one test command."""

from __future__ import annotations

import doctest
import importlib
import pathlib

import pytest

import fsmnet

ROOT = pathlib.Path(fsmnet.__file__).parent


def _modules() -> list[str]:
    names = []
    for path in sorted(ROOT.rglob("*.py")):
        if path.name == "__main__.py":
            continue  # running it is what __main__ does
        rel = path.relative_to(ROOT.parent).with_suffix("")
        parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
        if "Examples" in path.read_text(encoding="utf-8") or ">>>" in path.read_text(
                encoding="utf-8"):
            names.append(".".join(parts))
    return names


MODULES = _modules()


def test_there_are_docstring_examples() -> None:
    assert len(MODULES) >= 8


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str, tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)  # examples that write files write them here
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples failed"
