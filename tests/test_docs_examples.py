"""Every example in the docs runs: ```python blocks, >>> sessions, and fsmnet commands.

Blocks are read from docs/*.md and README.md:

- a ```python block runs with ``exec`` in a fresh namespace, in a temporary
  folder (files it writes land there); one whose first line starts with
  ``>>>`` runs as a doctest, so its printed values are checked too;
- a ```bash block runs its ``fsmnet ...`` lines in order, in one temporary
  folder, through ``fsmnet.cli.main`` in this process, each expected to exit
  0; lines that are not fsmnet commands (pip, python) and synopsis lines
  with placeholders (``SPEC``, ``NET``, ``[--flag]``) are not run.

A comment on the line before a fence changes that, and is invisible on the
site: ``<!-- docs-test: repo-root -->`` runs the block from the repository
root (it reads files from examples/); ``<!-- docs-test: skip REASON -->``
skips it, with the reason shown by pytest.  Skips are listed and counted by
a test, so a new one is a visible decision.

The site build itself (``mkdocs build --strict``) is tested at the end, and
skips, saying why, when the docs extra is not installed.
"""

from __future__ import annotations

import doctest
import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = [*sorted((ROOT / "docs").glob("*.md")), ROOT / "README.md"]
FENCE = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```[ \t]*$", re.S | re.M)
MARKER = re.compile(r"<!--\s*docs-test:\s*(\S+)\s*(.*?)\s*-->")
# A synopsis, not a command: an upper-case placeholder word or [optional] parts.
PLACEHOLDER = re.compile(r"(^|\s)[A-Z][A-Z_0-9]+(\b|$)|\[|\.\.\.|<[a-z]")
ALLOWED_SKIPS = 4  # performance.md: a real Dask cluster, CuPy on GPU workers, a cluster of
# several machines (its single-machine twin runs in tests/test_dask_cluster.py); a
# minute-long compile in constructions-minmax.md (its slow test runs the same code)


@dataclass(frozen=True)
class Block:
    page: str
    line: int
    lang: str
    code: str
    marker: str
    reason: str

    @property
    def id(self) -> str:
        return f"{self.page}:{self.line}"


def _blocks() -> list[Block]:
    found = []
    for path in PAGES:
        text = path.read_text(encoding="utf-8")
        for m in FENCE.finditer(text):
            lang = m.group(1).lower()
            if lang not in ("python", "pycon", "bash", "sh", "console"):
                continue
            before = text[:m.start()].rstrip().splitlines()
            mark = MARKER.search(before[-1]) if before else None
            found.append(Block(page=str(path.relative_to(ROOT)),
                               line=text[:m.start()].count("\n") + 1, lang=lang,
                               code=m.group(2), marker=mark.group(1) if mark else "",
                               reason=mark.group(2) if mark else ""))
    return found


BLOCKS = _blocks()
PYTHON = [b for b in BLOCKS if b.lang in ("python", "pycon")]
SHELL = [b for b in BLOCKS if b.lang in ("bash", "sh", "console")]


def fsmnet_commands(code: str) -> list[list[str]]:
    """The runnable ``fsmnet`` lines of a shell block, as argument lists."""
    commands = []
    for raw in code.replace("\\\n", " ").splitlines():
        line = raw.strip()
        if line.startswith("$ "):
            line = line[2:]
        if not line.startswith("fsmnet"):
            continue
        argv = shlex.split(line, comments=True)
        if argv[0] != "fsmnet" or any(op in argv for op in ("|", "&&", ">", ";")):
            continue
        if PLACEHOLDER.search(" ".join(argv[1:])):
            continue
        commands.append(argv[1:])
    return commands


def _where(block: Block, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if block.marker == "skip":
        pytest.skip(f"{block.id}: {block.reason or 'marked skip'}")
    monkeypatch.chdir(ROOT if block.marker == "repo-root" else tmp_path)


def test_the_docs_have_examples():
    assert len(PYTHON) >= 15 and sum(len(fsmnet_commands(b.code)) for b in SHELL) >= 8
    for page in ("docs/interop.md", "docs/testing-tools.md", "docs/pictures.md"):
        assert any(b.page == page for b in PYTHON), page


def test_skips_are_few_and_explained():
    skips = [b for b in BLOCKS if b.marker == "skip"]
    assert len(skips) <= ALLOWED_SKIPS, [b.id for b in skips]
    assert all(len(b.reason) > 10 for b in skips)
    assert {b.marker for b in BLOCKS} <= {"", "skip", "repo-root"}


@pytest.mark.parametrize("block", PYTHON, ids=lambda b: b.id)
def test_python_example(block: Block, tmp_path, monkeypatch, capsys):
    _where(block, tmp_path, monkeypatch)
    if block.code.lstrip().startswith(">>>"):
        parser = doctest.DocTestParser()
        test = parser.get_doctest(block.code, {}, block.id, block.page, block.line)
        runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS
                                       | doctest.NORMALIZE_WHITESPACE)
        runner.run(test)
        assert runner.failures == 0, capsys.readouterr().out
    else:
        exec(compile(block.code, block.id, "exec"), {"__name__": "__docs__"})


@pytest.mark.parametrize("block", [b for b in SHELL if fsmnet_commands(b.code)],
                         ids=lambda b: b.id)
def test_shell_example(block: Block, tmp_path, monkeypatch, capsys):
    from fsmnet.cli import main

    _where(block, tmp_path, monkeypatch)
    for argv in fsmnet_commands(block.code):
        try:
            code = main(argv)
        except SystemExit as exc:  # --version and --help exit through argparse
            code = exc.code
        out = capsys.readouterr()
        assert code == 0, f"fsmnet {' '.join(argv)} exited {code}: {out.err[-500:]}"


def test_command_filter():
    code = ("fsmnet info parity --json   # sizes\n"
            "fsmnet fuzz SPEC NET [--examples N]\n"
            "pip install -e . && fsmnet hierarchy\n"
            "fsmnet compile modadd:5 --arch bilinear-full \\\n    -o net.safetensors\n")
    assert fsmnet_commands(code) == [["info", "parity", "--json"],
                                     ["compile", "modadd:5", "--arch", "bilinear-full", "-o",
                                      "net.safetensors"]]


# ----------------------------------------------------------------- the site
def test_site_builds_strict(tmp_path):
    """``mkdocs build --strict`` from the repository (the README's one command)."""
    if shutil.which("mkdocs") is None and not _importable("mkdocs"):
        pytest.skip("the docs extra is not installed: pip install -e '.[docs]'")
    for module in ("mkdocstrings", "mkdocstrings_handlers.python", "material"):
        if not _importable(module):
            pytest.skip(f"{module} is missing: pip install -e '.[docs]'")
    # No --quiet: it hides the warnings that --strict turns into a failure.
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict",
                           "--site-dir", str(tmp_path / "site")], cwd=ROOT,
                          capture_output=True, text=True, timeout=300,
                          env={**os.environ, "NO_COLOR": "1", "NO_MKDOCS_2_WARNING": "1"})
    assert done.returncode == 0, done.stderr[-3000:]
    site = tmp_path / "site"
    assert (site / "index.html").exists()
    api = (site / "api" / "automata" / "index.html").read_text(encoding="utf-8")
    assert "union" in api and "from_aalpy" in api  # generated from the docstrings
    page = (site / "pictures" / "index.html").read_text(encoding="utf-8")
    for svg in sorted((ROOT / "docs" / "pictures").glob("*.svg")):
        assert f"{svg.name}" in page and (site / "pictures" / svg.name).exists()


def _importable(name: str) -> bool:
    import importlib.util

    try:
        return importlib.util.find_spec(name) is not None
    except ModuleNotFoundError:
        return False


def test_hook_drops_math_but_not_api_references():
    import importlib.util
    import logging

    spec = importlib.util.spec_from_file_location("docs_hooks", ROOT / "docs" / "api" / "hooks.py")
    hooks = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hooks)

    def record(msg: str) -> logging.LogRecord:
        return logging.LogRecord("mkdocs", logging.WARNING, __file__, 1, msg, None, None)

    keep = hooks._NotMath().filter
    assert not keep(record("theory.md: Could not find cross-reference target 'v'"))
    assert not keep(record("x.md: Could not find cross-reference target 'i, j'"))
    assert keep(record("api.md: Could not find cross-reference target 'fsmnet.nope'"))
    assert keep(record("Doc file 'a.md' contains a link 'b.md', but the target is not found"))
    html = ("a :class:<code>Automaton</code> and :meth:<code>~fsmnet.x.run</code>,"
            " x:y:<code>z</code>")
    assert hooks.on_page_content(html) == ("a <code>Automaton</code> and <code>fsmnet.x.run</code>,"
                                           " x:y:<code>z</code>")
