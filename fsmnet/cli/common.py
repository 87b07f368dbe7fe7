"""Helpers shared by the sub-commands: JSON printing and progress bars."""

from __future__ import annotations

import dataclasses
import json
import sys
from typing import Any


def to_jsonable(obj: Any) -> Any:
    """Turn library result dataclasses (and numpy scalars) into plain JSON values."""
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {f.name: to_jsonable(getattr(obj, f.name)) for f in dataclasses.fields(obj)}
    if isinstance(obj, dict):
        return {str(k): to_jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [to_jsonable(v) for v in obj]
    if hasattr(obj, "item") and callable(obj.item):  # numpy scalar
        return obj.item()
    return obj


def print_json(obj: Any) -> None:
    """Print a result as indented JSON on stdout."""
    json.dump(to_jsonable(obj), sys.stdout, indent=2, ensure_ascii=False)
    sys.stdout.write("\n")


def show_progress(json_mode: bool = False) -> bool:
    """Progress bars only on a terminal, and never with ``--json``."""
    return (not json_mode) and sys.stderr.isatty()


def print_counterexample(c: Any) -> None:
    """The two lines every command prints for a confirmed counterexample."""
    print(f"counterexample: {' '.join(c.word) or '(empty word)'}")
    print(f"  automaton says {c.expected!r}, network says {c.got!r}")
