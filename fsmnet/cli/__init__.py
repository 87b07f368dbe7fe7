"""The ``fsmnet`` command line: thin argument parsing over the library.

Each sub-command lives in its own module of this package and exposes
``register(subparsers)``; the handler it installs returns the exit code.
Exit codes: 0 success / proved, 1 refuted, 2 bad input, 3 unknown, 4 internal error,
130 interrupted (Ctrl-C).
Any :class:`~fsmnet.errors.FsmnetError` becomes one line on stderr and exit 2.
Any other exception is a bug of fsmnet's: one line on stderr and exit 4, so that a
crash never reads as a verdict (``FSMNET_TRACEBACK=1`` prints the traceback instead).
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from fsmnet.errors import FsmnetError

# Sub-command modules (fsmnet/cli/NAME.py, each with ``register(subparsers)``),
# in the order ``--help`` lists them.
COMMANDS = (
    "info",
    "compile",
    "verify",
    "certify",
    "check",
    "fuzz",
    "expressivity",
    "decompose",
    "run",
    "hierarchy",
    "train",
)

EXIT_OK, EXIT_REFUTED, EXIT_BAD_INPUT, EXIT_UNKNOWN, EXIT_INTERNAL = 0, 1, 2, 3, 4
EXIT_INTERRUPTED = 130  # 128 + SIGINT, what a shell reports for a command Ctrl-C stopped

# Set to 1 to see the whole traceback of an internal error (for a bug report).
TRACEBACK_ENV = "FSMNET_TRACEBACK"

_EPILOG = """\
SPEC is a spec file (JSON or YAML, automata-lib field names) or a built-in
family, e.g. parity, modcount:5, modadd:7, symmetric:5, random:n=20,k=3,seed=1.
See 'fsmnet info --help' for the list of families.

Exit codes: 0 success / proved, 1 refuted (or not expressible, invalid
certificate), 2 bad input (one line on stderr), 3 unknown, 4 internal error
(a bug of fsmnet's: one line on stderr; FSMNET_TRACEBACK=1 prints the
traceback, see docs/bug-report.md), 130 interrupted (Ctrl-C: no result is
printed and no output file is left behind).

Examples:
  fsmnet info parity
  fsmnet info symmetric:5 --json
"""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        # argparse's usage errors are bad input too: one line, exit code 2.
        self.exit(EXIT_BAD_INPUT, f"{self.prog}: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="fsmnet",
        description="Compile automata into exact recurrent networks, run them on long "
        "inputs, prove them equal to the automaton, and decide what each "
        "architecture can express.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    from fsmnet.version import __version__

    parser.add_argument("--version", action="version", version=f"fsmnet {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name in COMMANDS:
        importlib.import_module(f"fsmnet.cli.{name}").register(sub)
    from fsmnet.cli.common import add_verbosity_flags

    add_verbosity_flags(parser, top=True)  # -v/-q on every command, before or after it
    for command in {id(p): p for p in sub.choices.values()}.values():
        add_verbosity_flags(command)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``fsmnet`` command; returns the exit code."""
    try:
        parser = build_parser()
        args = parser.parse_args(argv)
    except Exception as exc:  # e.g. a sub-command module that fails to import
        return _internal_error(exc)
    if getattr(args, "handler", None) is None:
        parser.print_help()
        return EXIT_BAD_INPUT
    from fsmnet.cli.common import LOG, logging_for
    from fsmnet.interrupts import ctrl_c_latch, is_disguised_interrupt

    with logging_for(args):  # diagnostics through logging (-v/-q); results on stdout
        try:
            with ctrl_c_latch():  # a Ctrl-C that compiled code drops is raised later
                return int(args.handler(args))
        except FsmnetError as exc:
            LOG.error("%s", exc)
            return EXIT_BAD_INPUT
        except BrokenPipeError:
            raise  # the reader went away: run() exits quietly
        except OSError as exc:  # a path the user gave that cannot be read (or written)
            LOG.error("%s: %s", exc.filename or "<input>", exc.strerror or exc)
            return EXIT_BAD_INPUT
        except KeyboardInterrupt:
            LOG.error("interrupted")
            return EXIT_INTERRUPTED
        except Exception as exc:  # a bug of ours must not read as a verdict
            if is_disguised_interrupt(exc):
                LOG.error("interrupted")
                return EXIT_INTERRUPTED
            return _internal_error(exc)


def _internal_error(exc: Exception) -> int:
    """Report an exception that is not bad input: exit 4, never 0 ("proved") or 1
    ("refuted"); one line, or the traceback when ``FSMNET_TRACEBACK=1``."""
    import os

    if os.environ.get(TRACEBACK_ENV, "").strip() not in ("", "0"):
        import traceback

        traceback.print_exception(exc, file=sys.stderr)
    else:
        message = " ".join(str(exc).split())  # one line, whatever the message holds
        print(f"fsmnet: internal error: {type(exc).__name__}"
              + (f": {message}" if message else "")
              + f"; please report it (docs/bug-report.md; {TRACEBACK_ENV}=1 shows the "
              "traceback)", file=sys.stderr)
    return EXIT_INTERNAL


def run() -> None:
    """Console-script wrapper: exit with :func:`main`'s code."""
    try:
        code = main()
        sys.stdout.flush()
    except BrokenPipeError:
        # The reader went away (e.g. `fsmnet info X --json | head`): not an error of ours.
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        code = 0
    sys.exit(code)
