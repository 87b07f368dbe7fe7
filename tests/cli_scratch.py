"""Helpers of the command-line tests: running the CLI in process, and a snapshot of a
directory (``listing``), so a test can show that a refused command wrote nothing.
The ``scratch`` fixture they work in is in conftest.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from fsmnet.cli import main


def listing(root: Path) -> dict[str, bytes | None]:
    return {str(p.relative_to(root)): (p.read_bytes() if p.is_file() else None)
            for p in sorted(root.rglob("*"))}


def run_cli(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse usage errors exit from inside main
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err
