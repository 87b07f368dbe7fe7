"""Helpers shared by the sub-commands: argument types, JSON printing, progress bars,
and logging (``-v``/``-q``; diagnostics go through :mod:`logging`, results to stdout)."""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import logging
import sys
import warnings
from collections.abc import Callable, Iterator
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
    quiet = logging.getLogger("fsmnet").getEffectiveLevel() > logging.WARNING
    return (not json_mode) and (not quiet) and sys.stderr.isatty()


def print_counterexample(c: Any, file: TextIO | None = None) -> None:
    """The two lines every command prints for a confirmed counterexample."""
    print(f"counterexample: {' '.join(c.word) or '(empty word)'}", file=file)
    print(f"  automaton says {c.expected!r}, network says {c.got!r}", file=file)


# ------------------------------------------------------------------ logging
LOG = logging.getLogger("fsmnet")


class _Format(logging.Formatter):
    """``fsmnet: warning: ...`` (``fsmnet: ...`` for info and debug notes): one line each."""

    def format(self, record: logging.LogRecord) -> str:
        text = record.getMessage().replace("\n", " ")
        if getattr(record, "bare", False):  # a documented line of its own, e.g. compile's
            return text                     # "not expressible: <reason>"
        if record.levelno >= logging.WARNING:
            return f"fsmnet: {record.levelname.lower()}: {text}"
        return f"fsmnet: {text}"


def add_verbosity_flags(parser: argparse.ArgumentParser, *, top: bool = False) -> None:
    """``-v/--verbose`` (repeatable) and ``-q/--quiet`` on a parser.

    On sub-command parsers the defaults are suppressed, so that ``fsmnet -v info X``
    and ``fsmnet info X -v`` both count.
    """
    default = 0 if top else argparse.SUPPRESS
    group = parser.add_argument_group("output")
    group.add_argument("-v", "--verbose", action="count", default=default,
                       help="say more on stderr (-v: progress notes, -vv: debug)")
    group.add_argument("-q", "--quiet", action="count", default=default,
                       help="only errors on stderr: no warnings, no progress bars")


def _log_warning(message: Warning | str, category: type[Warning], filename: str,
                 lineno: int, file: Any = None, line: str | None = None) -> None:
    """``warnings.showwarning`` for the command line: one readable line, no source line.

    fsmnet's own warnings (e.g. :class:`~fsmnet.automata.spec.SpecWarning`) are
    warnings; other libraries' are notes for ``-v``.
    """
    if category.__module__.startswith("fsmnet"):
        LOG.warning("%s", message)
    else:
        LOG.info("%s: %s", category.__name__, message)


@contextlib.contextmanager
def logging_for(args: argparse.Namespace) -> Iterator[None]:
    """Route fsmnet's logging and warnings to stderr at the level ``-v``/``-q`` ask for."""
    level = getattr(args, "verbose", 0) - getattr(args, "quiet", 0)
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(_Format())
    old_level, old_propagate = LOG.level, LOG.propagate
    LOG.addHandler(handler)
    LOG.setLevel(logging.ERROR if level < 0 else logging.WARNING if level == 0
                 else logging.INFO if level == 1 else logging.DEBUG)
    LOG.propagate = False  # one line per message, not one per configured root handler
    try:
        with warnings.catch_warnings():
            warnings.showwarning = _log_warning
            # fsmnet's own warnings (a partial spec completed, ...) are part of the answer:
            # shown once per place even where the interpreter's filters would hide them.
            warnings.filterwarnings("default", module=r"fsmnet(\.|$)")
            yield
    finally:
        LOG.removeHandler(handler)
        LOG.setLevel(old_level)
        LOG.propagate = old_propagate


def progress_note(message: str, json_mode: bool = False) -> None:
    """A line for long work: shown where progress bars are, else an info note (``-v``)."""
    if show_progress(json_mode):
        print(f"fsmnet: {message}", file=sys.stderr)
    else:
        LOG.info("%s", message)
