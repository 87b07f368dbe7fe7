"""Helpers shared by the sub-commands: argument types, JSON printing, progress bars."""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from collections.abc import Callable
from typing import Any, TextIO


def int_at_least(minimum: int) -> Callable[[str], int]:
    """An argparse ``type=``: an integer ``>= minimum`` (else a one-line usage error)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be >= {minimum} (value: {value})")
        return value

    parse.__name__ = f"integer >= {minimum}"
    return parse


def count(text: str) -> int:
    """An argparse ``type=``: a positive integer, ``1e9`` notation accepted."""
    try:
        value = float(text) if ("e" in text.lower() or "." in text) else int(text)
    except (ValueError, OverflowError):
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not value >= 1 or value != int(value):  # `not >=` also catches nan
        raise argparse.ArgumentTypeError(f"must be a positive integer: {text!r}")
    return int(value)


def human_bytes(n: float) -> str:
    """``1536`` -> ``'1.5 KiB'``."""
    for unit in ("bytes", "KiB", "MiB", "GiB", "TiB"):
        if n < 1024 or unit == "TiB":
            return f"{n:.0f} {unit}" if unit == "bytes" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} TiB"  # pragma: no cover - the loop always returns


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
    """Progress bars only on a terminal, never with ``--json`` nor ``--quiet``."""
    import logging

    quiet = logging.getLogger("fsmnet").getEffectiveLevel() > logging.WARNING
    return (not json_mode) and (not quiet) and sys.stderr.isatty()


def print_counterexample(c: Any, file: TextIO | None = None) -> None:
    """The two lines every command prints for a confirmed counterexample."""
    print(f"counterexample: {' '.join(c.word) or '(empty word)'}", file=file)
    print(f"  automaton says {c.expected!r}, network says {c.got!r}", file=file)
