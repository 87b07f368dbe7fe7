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


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("decompose", help="holonomy levels, components, groups",
                       description=__doc__, epilog=EPILOG,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("spec", metavar="SPEC", help="spec file or built-in family")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.add_argument("--no-verify", action="store_true",
                   help="skip the action and emulation checks ('verified' is then false)")
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
    from fsmnet.cli.common import print_json

    automaton = load(args.spec)
    h = decompose(automaton)
    failures: tuple[str, ...] = ()
    verified = False
    if not args.no_verify:
        action = check_action(h)
        emulation = check_emulation(h)
        verified = action.passed and emulation.passed
        failures = action.failures + emulation.failures
    result = summarize(h, verified=verified)
    if args.json:
        print_json(result)
    else:
        name = automaton.name or args.spec
        status = "verified" if verified else ("not checked" if args.no_verify else "NOT VERIFIED")
        n = len(result.levels)
        print(f"{name}: {automaton.n_states} states, {n} level{'' if n == 1 else 's'} ({status})")
        for line in format_levels(result):
            print(line)
        for why in failures:
            print(f"  check failed: {why}")
    return 0
