"""The typed top-level API: plain functions, mypy --strict clean, the README snippet runs."""

from __future__ import annotations

import builtins
import importlib
import pathlib
import re
import subprocess
import sys

import pytest

import fsmnet

README = pathlib.Path(__file__).resolve().parent.parent / "README.md"


def _readme_python() -> str:
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.DOTALL)
    assert blocks, "the README has no Python snippet"
    return blocks[0]


def test_star_import_leaves_the_builtin_compile_alone() -> None:
    namespace: dict[str, object] = {}
    exec("from fsmnet import *", namespace)  # noqa: S102 - the point of the test
    assert "compile" not in namespace and "verify" in namespace
    assert fsmnet.compile is not builtins.compile and callable(fsmnet.compile)
    importlib.import_module("fsmnet.constructions")  # must not rebind fsmnet.compile
    assert fsmnet.compile.__module__ == "fsmnet"


def test_top_level_functions_are_the_stages() -> None:
    net = fsmnet.compile("modadd:3", "bilinear-full")
    assert fsmnet.verify("modadd:3", net).verdict == "proved"
    out = fsmnet.evaluate(net, [1, 2, 2], backend="numpy").outputs
    assert [net.labels[i] for i in out] == [1, 0, 2]  # 1, 1+2, 1+2+2 mod 3, by hand
    assert [r.verdict for r in fsmnet.expressivity("modadd:3", ["bilinear-real-diag"])] == [
        "impossible"]
    assert len(fsmnet.decompose("modadd:3").levels) == 1


def test_readme_snippet_runs(tmp_path, monkeypatch, capsys) -> None:
    monkeypatch.chdir(tmp_path)
    exec(compile(_readme_python(), "README.md", "exec"), {})  # noqa: S102
    assert capsys.readouterr().out.strip().endswith("proved")


def test_mypy_strict_on_the_api_and_the_readme_snippet(tmp_path) -> None:
    pytest.importorskip("mypy")
    snippet = tmp_path / "readme_snippet.py"
    snippet.write_text(_readme_python(), encoding="utf-8")
    init = pathlib.Path(fsmnet.__file__)
    run = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--follow-imports=silent",
                          "--cache-dir", str(tmp_path / "cache"), str(init), str(snippet)],
                         capture_output=True, text=True, cwd=init.parent.parent, timeout=600)
    assert run.returncode == 0, run.stdout + run.stderr
