"""``fsmnet compile SPEC --arch ID -o NET.safetensors``: write exact weights to a file."""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from fsmnet.errors import FsmnetError, NotExpressible, SpecError

_EPILOG = """\
architectures:
{archs}

Options are construction-specific (--option key=value, repeatable); a value is
read as JSON when it parses (3, 2.5, true, null), otherwise as a string.

exit codes: 0 written; 1 the architecture cannot express the automaton (the
line "not expressible: <reason>" says why); 2 bad input (SPEC, options, path,
a network above --max-bytes).

The file is written atomically (a temporary file, then renamed) to a new path
or a regular file; a device or pipe is written in place; -o - writes to
standard output (the summary then goes to standard error).

examples:
  fsmnet compile parity --arch bilinear-full -o parity.safetensors
  fsmnet compile modadd:6 --arch bilinear-block -o mod6.safetensors --json
  fsmnet compile modadd:3 --arch bilinear-cp -o mod3.safetensors --option search_rlimit=20000000
"""


@dataclass(frozen=True)
class CompileResult:
    """What ``fsmnet compile --json`` prints."""

    arch: str
    name: str
    output: str
    hidden_size: int
    parameters: int
    options: dict[str, Any]


def parse_options(pairs: list[str]) -> dict[str, Any]:
    """``key=value`` strings into a dict (JSON values when they parse)."""
    options: dict[str, Any] = {}
    for pair in pairs:
        key, sep, text = pair.partition("=")
        if not sep or not key:
            raise SpecError("expected key=value", source="<command line>",
                            field="--option", value=pair)
        try:
            options[key] = json.loads(text)
        except json.JSONDecodeError:
            options[key] = text
    return options


DEFAULT_MAX_BYTES = 1 << 30


def _refuse_size(estimate: int, limit: int, what: str) -> FsmnetError:
    from fsmnet.cli.common import human_bytes

    return FsmnetError(f"{what} would take {estimate} bytes ({human_bytes(estimate)}), above "
                       f"--max-bytes {limit} ({human_bytes(limit)}); raise --max-bytes to "
                       "write it anyway")


@contextlib.contextmanager
def _budget_bar(args: argparse.Namespace) -> Iterator[None]:
    """A progress bar over the step budget of a construction that reports one (the
    registry's ``construction_progress``: the fixed-point radius tuning takes a minute
    or more on mid-sized groups), on a terminal only."""
    from fsmnet import archs
    from fsmnet.cli.common import show_progress

    ref = archs.get(args.arch).construction_progress
    if ref is None or not show_progress(args.json):
        yield
        return
    from tqdm import tqdm

    reporting = archs.resolve(ref)
    bar = tqdm(desc=f"{args.arch} construction (steps of its budget)", unit="step",
               leave=False)

    def update(spent: int, total: int) -> None:
        bar.total = total
        bar.n = spent
        bar.refresh()

    try:
        with reporting(update):
            yield
    finally:
        bar.close()


def _handle(args: argparse.Namespace) -> int:
    from fsmnet import archs
    from fsmnet.automata import load
    from fsmnet.cli.common import LOG, check_picture, print_json, report_stream
    from fsmnet.constructions import compile_automaton
    from fsmnet.io import check_output

    # Refuse a bad -o before any work, so nothing is computed for nothing.
    check_output(args.output)
    if args.dot:
        check_picture(args.dot)
    # -o - (or --dot -) is standard output: the summary goes to stderr, and --json or a
    # second writer of standard output is refused.
    to_stdout = report_stream({"-o": args.output, "--dot": args.dot}, args.json) is sys.stderr
    options = parse_options(args.option or [])
    automaton = load(args.spec)
    # One-hot k×n×n tensors: the size is known from the minimal automaton before
    # anything is built (k symbols, n states; dense or their n·k non-zeros).
    if archs.get(args.arch).one_hot_tensor and not automaton.is_semiautomaton:
        from fsmnet.nets.sparse import stored_bytes

        minimal = automaton.minimal()
        n, k = minimal.n_states, minimal.n_symbols
        estimate = stored_bytes((n, n, k), n * k)
        if estimate > args.max_bytes:
            raise _refuse_size(estimate, args.max_bytes,
                               f"the {args.arch} network ({k} symbols x {n}x{n} states)")
        automaton = minimal
    LOG.info("compiling %s for %s with options %s", args.spec, args.arch, options or "{}")
    try:
        with _budget_bar(args):
            net = compile_automaton(automaton, args.arch, **options)
    except NotExpressible as exc:
        LOG.error("not expressible: %s", exc, extra={"bare": True})
        return 1
    size = net.stored_bytes
    if size > args.max_bytes:
        raise _refuse_size(size, args.max_bytes, f"the {net.arch} network")
    if args.dot:
        from fsmnet.automata.render import write_picture
        from fsmnet.nets.dot import network_to_dot

        write_picture(args.dot, network_to_dot(net))
    net.save(args.output)
    result = CompileResult(arch=net.arch, name=net.name, output=args.output,
                           hidden_size=net.hidden_size, parameters=net.n_params,
                           options=net.options)
    if args.json:
        print_json(result)
    else:
        # With -o - (or --dot -) the network (or its picture) is on stdout; the summary
        # must not corrupt it.
        out = sys.stderr if to_stdout else sys.stdout
        shown = {k: _brief(v) for k, v in net.options.items() if k != "states"}
        print(f"{args.output}: {net.arch} network for {net.name or args.spec}", file=out)
        print(f"  hidden size {net.hidden_size}, {net.n_params} parameters", file=out)
        print(f"  options {json.dumps(shown, ensure_ascii=False)}", file=out)
        if any(shown[k] != v for k, v in net.options.items() if k in shown):
            print("  (long options shortened; --json prints them whole)", file=out)
    return 0


def _brief(value: Any, limit: int = 80) -> Any:
    """A long option (a cascade's per-level lists run to kilobytes) as a short summary."""
    if len(json.dumps(value, ensure_ascii=False)) <= limit:
        return value
    if isinstance(value, (list, tuple)):
        return f"<{len(value)} items>"
    if isinstance(value, dict):
        return f"<{len(value)} entries>"
    return f"{str(value)[:limit]}..."


def register(subparsers: Any) -> None:
    """Add the ``compile`` sub-command."""
    from fsmnet import archs as registry
    from fsmnet.cli.common import choice, int_at_least
    from fsmnet.cli.pfsa_commands import by_spec_kind

    archs = "\n".join(f"  {r.id:<24}{r.summary}" for r in registry.records())
    parser = subparsers.add_parser(
        "compile", help="compile an automaton into exact network weights",
        description="Compile SPEC (minimized first) into exact weights for an architecture "
                    "and save them as a .safetensors file (docs/formats.md).",
        epilog=_EPILOG.format(archs=archs), formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("spec", metavar="SPEC", help="spec file or built-in family")
    parser.add_argument("--arch", required=True, choices=list(registry.ids()), metavar="ID",
                        type=choice("architecture", registry.ids()),
                        help="architecture id (listed below)")
    parser.add_argument("-o", "--output", required=True, metavar="NET.safetensors",
                        help="where to write the network ('-': standard output)")
    parser.add_argument("--max-bytes", type=int_at_least(1), default=DEFAULT_MAX_BYTES,
                        metavar="N", help="refuse to write a network larger than N bytes "
                                          "(default %(default)s, 1 GiB)")
    parser.add_argument("--option", action="append", metavar="KEY=VALUE",
                        help="construction option (repeatable)")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    parser.add_argument("--dot", metavar="FILE",
                        help="write a Graphviz picture of the network (units, blocks) to FILE: "
                             "DOT text, or SVG when FILE ends in .svg (needs Graphviz dot); "
                             "'-' is standard output")
    parser.set_defaults(handler=by_spec_kind("compile", _handle))
