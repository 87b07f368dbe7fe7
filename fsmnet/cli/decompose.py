"""``fsmnet decompose SPEC``: the Krohn-Rhodes holonomy decomposition of an automaton."""

from __future__ import annotations

import argparse

EPILOG = """\
The decomposition is of the semiautomaton: the transition table only (the
initial state and outputs are ignored; the automaton is not minimized).
Each line is a level, top first; each (k,G) is a component with k tiles and
holonomy group G, and (k,-) a component with only identity and resets.
'verified' means the cascade passed the action and emulation checks.

examples:
  fsmnet decompose symmetric:3
  fsmnet decompose flipflop --json
"""


# symmetric:7,gens (5,040 states) takes seconds and half a gigabyte; symmetric:8,gens
# (40,320) would need minutes and gigabytes, with no output until the end.
DEFAULT_MAX_STATES = 10_000


def register(sub: argparse._SubParsersAction) -> None:
    from fsmnet.cli.common import size_limit

    p = sub.add_parser("decompose", help="holonomy levels, components, groups",
                       description=__doc__, epilog=EPILOG,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("spec", metavar="SPEC", help="spec file or built-in family")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.add_argument("--no-verify", action="store_true",
                   help="skip the action and emulation checks ('verified' is then false)")
    p.add_argument("--dot", metavar="FILE",
                   help="write a Graphviz picture of the cascade to FILE: DOT text, or SVG "
                        "when FILE ends in .svg (needs Graphviz dot); '-' is standard output")
    p.add_argument("--max-states", type=size_limit, default=DEFAULT_MAX_STATES,
                   metavar="N",
                   help="refuse automata with more than N states, before any work: the "
                        "tiling's tables grow with the square of the states "
                        "(1e5 notation ok; default: %(default)s)")
    p.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    from fsmnet.algebra.holonomy import (
        check_action,
        check_emulation,
        decompose,
        format_levels,
        summarize,
    )
    from fsmnet.automata.resolve import load
    from fsmnet.cli.common import (
        check_picture,
        print_json,
        progress_note,
        report_stream,
        show_progress,
    )
    from fsmnet.errors import FsmnetError

    if args.dot:
        check_picture(args.dot)  # before the decomposition, which may take minutes
    # With --dot - the picture is standard output; the levels go to stderr.
    out = report_stream({"--dot": args.dot}, args.json)
    automaton = load(args.spec)
    if automaton.n_states > args.max_states:
        raise FsmnetError(
            f"{automaton.name or args.spec}: {automaton.n_states} states, above "
            f"--max-states {args.max_states} (the decomposition's tables grow with the "
            f"square of the states); raise --max-states (e.g. --max-states "
            f"{automaton.n_states}) to decompose it anyway")
    progress_note(f"decomposing {automaton.n_states} states", args.json)
    stages = ["decomposing"] + ([] if args.no_verify else ["checking the action",
                                                          "checking the emulation"])
    bar = None
    if show_progress(args.json):  # large automata take minutes: say which stage runs
        from tqdm import tqdm

        bar = tqdm(total=len(stages), leave=False, unit="stage", desc=stages[0])

    def advance() -> None:
        if bar is not None:
            bar.update(1)
            if bar.n < len(stages):
                bar.set_description(stages[bar.n])

    h = decompose(automaton)
    advance()
    failures: tuple[str, ...] = ()
    verified = False
    if not args.no_verify:
        action = check_action(h)
        advance()
        emulation = check_emulation(h)
        advance()
        verified = action.passed and emulation.passed
        failures = action.failures + emulation.failures
    if bar is not None:
        bar.close()
    result = summarize(h, verified=verified)
    if args.dot:
        from fsmnet.algebra.holonomy.dot import holonomy_to_dot
        from fsmnet.automata.render import write_picture

        write_picture(args.dot, holonomy_to_dot(h, state_names=automaton.states))
    if args.json:
        print_json(result)
    else:
        name = automaton.name or args.spec
        status = "verified" if verified else ("not checked" if args.no_verify else "NOT VERIFIED")
        n = len(result.levels)
        print(f"{name}: {automaton.n_states} states, {n} level{'' if n == 1 else 's'} ({status})",
              file=out)
        for line in format_levels(result):
            print(line, file=out)
        for why in failures:
            print(f"  check failed: {why}", file=out)
    return 0
