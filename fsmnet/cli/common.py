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
from collections.abc import Callable, Iterator, Sequence
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


def choice(what: str, options: Sequence[str]) -> Callable[[str], str]:
    """An argparse ``type=`` for one of ``options``: an unknown name is a one-line usage
    error that suggests the close ones, e.g. ``unknown architecture 'bilinear-ful' (did
    you mean 'bilinear-full'?)``, and lists them all."""
    known = tuple(options)

    def parse(text: str) -> str:
        if text in known:
            return text
        from fsmnet.archs import suggest

        raise argparse.ArgumentTypeError(f"unknown {what} {text!r}{suggest(text, known)}; "
                                         f"known: {', '.join(known)}")

    parse.__name__ = what
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


# Limits are sizes of tables, not of the universe: a larger value is a typo, and an
# exact integer such as int(Decimal('1e999999999')) would take minutes and gigabytes.
_LIMIT_EXPONENT = 30


def size_limit(text: str) -> int:
    """An argparse ``type=`` for a size limit: a positive integer, exactly, written as
    digits (``1000000000000``, ``1_000_000``) or in scientific notation (``1e12``,
    ``2.5e9``); anything else (``0``, ``1.5``, ``nan``, ``1e-3``) is a one-line usage
    error naming the value.  Parsed as a decimal, not a float, so that ``1e23`` is
    ``10**23`` and not the float next to it."""
    from decimal import Decimal, InvalidOperation

    try:
        value = Decimal(text.strip())
    except InvalidOperation:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not value.is_finite() or value < 1 or value != value.to_integral_value():
        raise argparse.ArgumentTypeError(f"must be a positive integer (e.g. 1000000 or "
                                         f"1e6): {text!r}")
    if value > Decimal(10) ** _LIMIT_EXPONENT:
        raise argparse.ArgumentTypeError(f"too large: {text!r} (at most 1e{_LIMIT_EXPONENT})")
    return int(value)


size_limit.__name__ = "size limit"  # argparse names the type in "invalid <name> value"


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


# ------------------------------------------------------------------ outputs
def report_stream(outputs: dict[str, str | None], json_mode: bool = False) -> TextIO:
    """Where a command's human report goes, given the files it writes (flag -> path).

    Standard output, unless one of the files *is* standard output (``-``,
    ``/dev/stdout``): then that file is all that goes there (so that e.g.
    ``fsmnet info X --dot - | dot -Tsvg`` works) and the report goes to stderr.
    Two writers of standard output, or one and ``--json``, are refused (exit 2).
    """
    from fsmnet.errors import SpecError
    from fsmnet.io import is_stdout

    taken = [flag for flag, path in outputs.items() if path is not None and is_stdout(path)]
    if len(taken) > 1:
        raise SpecError(f"{' and '.join(f'{flag} -' for flag in taken)} would "
                        f"{'both' if len(taken) == 2 else 'all'} write to standard output; "
                        "give a file name to all but one",
                        source="<command line>", field=taken[1], value="-")
    if taken and json_mode:
        raise SpecError(f"{taken[0]} - writes to standard output; --json cannot share it",
                        source="<command line>", field="--json", value=True)
    return sys.stderr if taken else sys.stdout


def certificate_to_stdout(certificate: str | None, json_mode: bool) -> bool:
    """Check a ``--certificate`` destination before the proof runs (a bad path is one line
    now, not after minutes of work); return whether it is standard output, which then
    belongs to the certificate (so ``--json`` cannot share it)."""
    from fsmnet.errors import SpecError
    from fsmnet.io import check_output, is_stdout

    if certificate is None:
        return False
    check_output(certificate)
    if is_stdout(certificate) and json_mode:
        raise SpecError("--certificate - writes the certificate to standard output; --json "
                        "cannot share it", source="<command line>", field="--json", value=True)
    return is_stdout(certificate)


def check_picture(path: str) -> None:
    """Before any work: ``--dot FILE`` can be written, and Graphviz is there for ``.svg``."""
    import shutil

    from fsmnet.errors import BackendUnavailable
    from fsmnet.io import check_output

    check_output(path)
    if path.lower().endswith(".svg") and shutil.which("dot") is None:
        from fsmnet.automata.render import _MISSING

        raise BackendUnavailable(f"--dot {path}: {_MISSING}")


def require_matplotlib(flag: str = "--plot") -> None:
    """Before any work: the optional dependency that draws pictures is installed."""
    from fsmnet.errors import BackendUnavailable

    try:
        import matplotlib  # noqa: F401  (imported again where the picture is drawn)
    except ImportError:
        raise BackendUnavailable(f"{flag} needs matplotlib, which is not installed: "
                                 "pip install matplotlib (or, in a checkout of fsmnet, "
                                 "pip install -e '.[plot]')") from None
