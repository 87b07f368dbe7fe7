"""The packages of fsmnet import only downward (docs/architecture.md, "The layer rule")."""

from __future__ import annotations

import pathlib

from layer_rule import RANKS, check_tree

import fsmnet

ROOT = pathlib.Path(fsmnet.__file__).parent


def test_fsmnet_imports_only_downward() -> None:
    problems = check_tree(ROOT.parent)
    assert not problems, "\n".join(map(str, problems))


def test_every_package_has_a_rank() -> None:
    packages = {p.name for p in ROOT.iterdir() if (p / "__init__.py").exists()}
    modules = {p.stem for p in ROOT.glob("*.py")}
    assert packages | modules <= set(RANKS), sorted((packages | modules) - set(RANKS))


def _tree(tmp_path: pathlib.Path, files: dict[str, str]) -> pathlib.Path:
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return tmp_path


RANKS_TOY = {"low": 0, "mid": 1, "peer": 1, "top": 2, "__init__": 3}


def test_a_synthetic_upward_import_is_caught(tmp_path: pathlib.Path) -> None:
    # A function-local upward import, as a newcomer would hide one.
    base = _tree(tmp_path, {
        "toy/__init__.py": "",
        "toy/low/__init__.py": "def f():\n    from toy.top.mod import g\n    return g\n",
        "toy/top/__init__.py": "",
        "toy/top/mod.py": "from toy.low import f\n\ndef g():\n    return f\n",
        "toy/mid/__init__.py": "import toy.low\n",
    })
    problems = check_tree(base, "toy", RANKS_TOY)
    assert [(p.module, p.imported) for p in problems] == [("toy.low", "toy.top.mod")]
    assert "upward" in problems[0].why


def test_a_resolved_reference_counts_as_an_import(tmp_path: pathlib.Path) -> None:
    # A lower layer resolving a part of a higher one through the registry's resolve;
    # the registry package itself names parts of every layer, by design.
    base = _tree(tmp_path, {
        "toy/__init__.py": "",
        "toy/low/__init__.py": "def f(resolve):\n    return resolve('toy.top.mod:g')\n",
        "toy/mid/__init__.py": "PART = 'toy.top.mod:g'\n",
        "toy/top/__init__.py": "",
        "toy/top/mod.py": "g = 1\nSELF = 'toy.top.mod:g'\nTEXT = 'see: docs'\n",
    })
    problems = check_tree(base, "toy", RANKS_TOY, registry="mid")
    assert [(p.module, p.imported) for p in problems] == [("toy.low", "toy.top.mod")]
    assert "upward" in problems[0].why


def test_peers_and_relative_imports(tmp_path: pathlib.Path) -> None:
    base = _tree(tmp_path, {
        "toy/__init__.py": "",
        "toy/mid/__init__.py": "from ..peer import x\nfrom . import inner\n",
        "toy/mid/inner.py": "",
        "toy/peer/__init__.py": "x = 1\n",
        "toy/low/__init__.py": "from toy import mid\n",
    })
    got = sorted((p.module, p.imported, p.why.split()[0]) for p in check_tree(base, "toy",
                                                                            RANKS_TOY))
    assert got == [("toy.low", "toy.mid", "upward"), ("toy.mid", "toy.peer", "between")]


def test_a_clean_tree_passes(tmp_path: pathlib.Path) -> None:
    base = _tree(tmp_path, {
        "toy/__init__.py": "from toy.top import t\n",
        "toy/top/__init__.py": "from toy.mid import m\nfrom toy.low import l\nt = 1\n",
        "toy/mid/__init__.py": "from toy.low import l\nm = 1\n",
        "toy/low/__init__.py": "l = 1\n",
    })
    assert check_tree(base, "toy", RANKS_TOY) == []
