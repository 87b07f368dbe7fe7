"""``fsmnet hierarchy``: the architecture × task table, each cell proved or refuted."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from fsmnet.cli.common import (
    choice,
    int_at_least,
    print_json,
    report_stream,
    require_matplotlib,
    show_progress,
)

if TYPE_CHECKING:  # the table's module loads only when the command runs
    from fsmnet.decide.hierarchy import Hierarchy

EPILOG = """\
Cells: ✓ the construction compiled and was proved equal to the automaton
(H = hidden size, L = cascade levels), then run on --length random symbols
and checked at every position; ✗ impossible, by a theorem with a witness that
'fsmnet check' re-verifies (see 'fsmnet expressivity TASK'); ? unknown.

examples:
  fsmnet hierarchy --task parity --task modcount:3 --arch bilinear-real-diag --length 1000
  fsmnet hierarchy --task flipflop --task parity --arch minmax-scalar --json

the whole table, every task and architecture (a minute or more on 2 cores):
  fsmnet hierarchy --length 0          # verdicts only, no runs
  fsmnet hierarchy --markdown          # the README table, each ✓ cell run on 10^6 symbols
  fsmnet hierarchy --json --plot docs/hierarchy.png
"""


def register(sub: argparse._SubParsersAction) -> None:
    from fsmnet import archs as registry

    p = sub.add_parser("hierarchy", help="the architecture × task table (proved / refuted)",
                       description=__doc__, epilog=EPILOG,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--length", type=int_at_least(0), default=1_000_000,
                   help="random-word length for the runs of the ✓ cells (0: skip)")
    p.add_argument("--task", action="append", metavar="SPEC",
                   help="tasks to use instead of the built-in suite (repeatable)")
    p.add_argument("--arch", action="append", metavar="ID", choices=list(registry.ids()),
                   type=choice("architecture", registry.ids()),
                   help="architectures (repeatable; default: every registered one)")
    p.add_argument("--markdown", action="store_true", help="print a Markdown table")
    p.add_argument("--plot", metavar="PNG", help="also draw the table as a heat map")
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    from fsmnet import archs as registry
    from fsmnet.decide.hierarchy import TASKS, build_hierarchy, to_markdown
    from fsmnet.io import check_output

    if args.plot:
        check_output(args.plot)  # a bad path is reported before the table is built,
        _format(args.plot)       # and so are a suffix matplotlib cannot write
        require_matplotlib()     # and a missing matplotlib
    # With --plot - the picture is standard output; the table goes to stderr.
    out = report_stream({"--plot": args.plot}, args.json)
    tasks = [_task(t) for t in args.task] if args.task else list(TASKS)
    archs = args.arch or list(registry.ids())
    bar = None
    if show_progress(args.json):
        from tqdm import tqdm

        bar = tqdm(total=len(tasks) * len(archs), leave=False, unit="cell")

    def progress(label: str) -> None:
        if bar is not None:
            bar.set_description(label)
            bar.update(1)

    table = build_hierarchy(tasks, archs, length=args.length, progress=progress)
    if bar is not None:
        bar.close()
    if args.plot:
        _draw(table, args.plot)
    if args.json:
        print_json(table)
    else:
        print(to_markdown(table), file=out)
    return 0


def _task(spec: str) -> tuple[str, object]:
    """(label, spec) of a --task; standard input is read once, here, and kept as a dict
    (the table loads each task several times)."""
    if spec != "-":
        return spec, spec
    from fsmnet.automata import load

    automaton = load(spec)
    return automaton.name or "<stdin>", automaton.to_dict()


def _format(path: str) -> str:
    """The picture's suffix: ``.png`` (also for ``-`` and a name without one), ``.svg``
    or ``.pdf``; FsmnetError for any other."""
    import os

    from fsmnet.errors import FsmnetError

    suffix = "" if path == "-" else os.path.splitext(path)[1].lower()
    if suffix not in ("", ".png", ".svg", ".pdf"):
        raise FsmnetError(f"--plot {path}: the picture is written as PNG, SVG or PDF by its "
                          f"suffix, not {suffix}")
    return suffix or ".png"


def _draw(table: Hierarchy, path: str) -> None:
    """Draw the heat map into a file named for its format (matplotlib picks the format
    by the suffix, and a temporary name has none), then write it to ``path`` by
    fsmnet.io's rules (atomic, ``-`` for standard output)."""
    import os
    import tempfile

    from fsmnet.decide.hierarchy_plot import plot_hierarchy
    from fsmnet.io import write_bytes

    with tempfile.TemporaryDirectory(prefix="fsmnet-") as folder:
        tmp = os.path.join(folder, "hierarchy" + _format(path))
        plot_hierarchy(table, tmp)
        with open(tmp, "rb") as handle:
            data = handle.read()
    write_bytes(path, data)
