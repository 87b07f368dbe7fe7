"""``fsmnet info SPEC``: sizes, syntactic-monoid facts and groups of an automaton."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the algebra (sympy, libsemigroups) loads only when a command runs
    from fsmnet.algebra.info import InfoResult

_EPILOG = """\
What it prints:
  states / minimal states   of the automaton and of its minimal equivalent
  monoid size               the syntactic monoid: the transition monoid of the
                            minimal automaton, identity (empty word) included;
                            of the semiautomaton itself when it has no outputs
  commutative               the output depends only on how often each symbol occurs
                            (needed by the diagonal / rotation architectures)
  aperiodic                 every group inside the monoid is trivial: the language
                            is star-free (needed by scalar MinMax cascades)
  groups                    the non-trivial maximal subgroups up to isomorphism,
                            with order, exponent (lcm of element orders), and
                            whether abelian and solvable
Names: 1, C_n cyclic, C_a x C_b abelian, V_4 Klein, S_n, A_n, D_n (order 2n),
Q_8, else G_<order>.

--json prints {"name", "states", "minimal_states", "alphabet", "monoid":
{"size", "commutative", "aperiodic", "groups": [{"name", "order", "exponent",
"abelian", "solvable"}], "solvable"}}.

examples:
  fsmnet info parity                  C_2: counting mod 2 is not star-free
  fsmnet info symmetric:5 --json      the S5 word problem: a non-solvable group
  fsmnet info flipflop                aperiodic: a cascade of resets suffices
  fsmnet info my_machine.yaml --max-size 1000000
"""


def _epilog() -> str:
    # The family list comes from another module; tolerate its absence.
    try:
        from fsmnet.automata.families import family_help
    except ImportError:
        return _EPILOG
    return _EPILOG + "\n" + family_help() + "\n"


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("info", help="sizes, monoid facts, groups",
                       description=__doc__, epilog=_epilog(),
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("spec", metavar="SPEC", help="spec file (JSON/YAML) or built-in family")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.add_argument("--max-size", type=int, default=50_000_000, metavar="N",
                   help="refuse monoids with more than N elements (default: %(default)s)")
    p.add_argument("--dot", metavar="FILE",
                   help="write a Graphviz picture of the state diagram to FILE: DOT text, or SVG "
                        "when FILE ends in .svg (needs Graphviz dot); '-' is standard output")
    p.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    from fsmnet.cli.pfsa_commands import is_pfsa, pfsa_info

    if is_pfsa(args.spec):  # PFSA-SR specs: fsmnet/cli/pfsa_commands.py
        return pfsa_info(args)

    from fsmnet.algebra.info import info
    from fsmnet.automata.resolve import load
    from fsmnet.cli.common import print_json

    automaton = load(args.spec)
    result = info(automaton, limit=args.max_size)
    if args.dot:
        from fsmnet.automata.convert import to_dot
        from fsmnet.automata.render import write_picture

        write_picture(args.dot, to_dot(automaton))
    if args.json:
        print_json(result)
    else:
        for line in format_info(result, fallback_name=args.spec):
            print(line)
    return 0


def format_info(result: InfoResult, *, fallback_name: str = "") -> list[str]:
    """The human summary of ``fsmnet info``, one string per line."""
    m = result.monoid
    alphabet = ", ".join(result.alphabet[:8]) + (", ..." if len(result.alphabet) > 8 else "")
    lines = [
        f"{result.name or fallback_name}",
        f"  states          {result.states} ({result.minimal_states} minimal)",
        f"  alphabet        {len(result.alphabet)} symbols: {alphabet}",
        f"  monoid size     {m.size}",
        f"  commutative     {_yes(m.commutative)}",
        f"  aperiodic       {_yes(m.aperiodic)}"
        + ("  (star-free)" if m.aperiodic else ""),
        f"  solvable        {_yes(m.solvable)}",
    ]
    if not m.groups:
        lines.append("  groups          none (all trivial)")
    for i, g in enumerate(m.groups):
        head = "  groups          " if i == 0 else "                  "
        kind = ", ".join(["abelian" if g.abelian else "non-abelian",
                          "solvable" if g.solvable else "not solvable"])
        lines.append(f"{head}{g.name}: order {g.order}, exponent {g.exponent}, {kind}")
    return lines


def _yes(flag: bool) -> str:
    return "yes" if flag else "no"
