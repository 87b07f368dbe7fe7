"""``fsmnet info SPEC``: sizes, syntactic-monoid facts and groups of an automaton."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the algebra (sympy, libsemigroups) loads only when a command runs
    from fsmnet.algebra.info import InfoResult
    from fsmnet.automata.automaton import Automaton

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
    from fsmnet.automata.families import family_help
    from fsmnet.automata.pfsa_families import PFSA_FAMILIES

    pfsa = "\n".join(f"  {text}  [arXiv 2602.14814; docs/pfsa.md]"
                     for text in PFSA_FAMILIES.values())
    return (_EPILOG + "\n" + family_help() + "\n\nprobabilistic (PFSA-SR) families:\n"
            + pfsa + "\n")


DEFAULT_MAX_CELLS = 200_000_000
# Above this many cells the computation takes seconds to minutes: say so on a terminal.
_SLOW_CELLS = 5_000_000


def register(sub: argparse._SubParsersAction) -> None:
    from fsmnet.cli.common import size_limit
    from fsmnet.cli.pfsa_commands import by_spec_kind

    p = sub.add_parser("info", help="sizes, monoid facts, groups",
                       description=__doc__, epilog=_epilog(),
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("spec", metavar="SPEC", help="spec file (JSON/YAML) or built-in family")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.add_argument("--max-size", type=size_limit, default=50_000_000, metavar="N",
                   help="refuse monoids with more than N elements (1e8 notation ok; "
                        "default: %(default)s)")
    p.add_argument("--max-cells", type=size_limit, default=DEFAULT_MAX_CELLS, metavar="N",
                   help="refuse when states x monoid elements (the size of the tables the "
                        "computation holds; a lower bound is checked first) exceeds N "
                        "(1e12 notation ok; default: %(default)s, about 1.6 GB)")
    p.add_argument("--dot", metavar="FILE",
                   help="write a Graphviz picture of the state diagram to FILE: DOT text, or SVG "
                        "when FILE ends in .svg (needs Graphviz dot); '-' is standard output, "
                        "and the table then goes to stderr")
    # A PFSA-SR spec goes to its own handler (fsmnet/cli/pfsa_commands.py, HANDLERS).
    p.set_defaults(handler=by_spec_kind("info", handle))


def handle(args: argparse.Namespace) -> int:
    from fsmnet.algebra.info import info
    from fsmnet.algebra.monoid import MonoidTooLarge, size_lower_bound
    from fsmnet.automata.resolve import load
    from fsmnet.cli.common import (
        LOG,
        check_picture,
        human_bytes,
        print_json,
        progress_note,
        report_stream,
    )
    from fsmnet.errors import FsmnetError

    if args.dot:
        check_picture(args.dot)  # before the monoid, which may take minutes
    # With --dot - the picture is standard output (for a pipe into dot); the table goes aside.
    out = report_stream({"--dot": args.dot}, args.json)
    automaton = load(args.spec)

    name = automaton.name or args.spec

    def refuse_above(states: int, elements: int, why: str = "") -> None:
        cells = states * elements
        if cells > args.max_cells:
            raise FsmnetError(
                f"{name}: the monoid computation needs at least {states} states x "
                f"{elements:,} monoid elements{why} = {cells:.3g} table cells (about "
                f"{human_bytes(8 * cells)}), above --max-cells {args.max_cells:.3g}; raise "
                f"--max-cells (e.g. --max-cells 1e{len(str(cells))}) to compute it anyway")
        if elements > args.max_size:
            raise FsmnetError(
                f"{name}: the transition monoid has at least {elements:,} elements{why}, "
                f"more than {args.max_size} (--max-size); raise --max-size (e.g. --max-size "
                f"1e{len(str(elements))}) to compute it anyway")

    states, elements = cost_lower_bound(automaton)
    refuse_above(states, elements)  # linear time, before minimizing a huge automaton
    machine = automaton
    if not automaton.is_semiautomaton:
        # The monoid acts on the minimal automaton: its states, not the output labels,
        # set how many elements --max-cells allows (an acceptor has only two labels).
        machine = automaton.minimal()
        states = machine.n_states
        elements = max(elements, states)
        refuse_above(states, elements)
    limit = min(args.max_size, max(1, args.max_cells // max(states, 1)))
    # A fraction of a second of orbits, so that a monoid far over the limit is refused
    # now and not after the seconds to hours it takes to enumerate up to the limit.
    bound = size_lower_bound(machine.delta, target=limit)
    if bound.elements > elements:
        elements = bound.elements
        refuse_above(states, elements,
                     f" (a lower bound: one D-class of rank {bound.rank} has "
                     f"{bound.images:,} image sets x {bound.kernels:,} kernels)")
    cells = states * elements
    note = (f"computing the monoid of {states} states (at least {elements} elements); "
            "this may take a while")
    if cells > _SLOW_CELLS:
        progress_note(note, args.json)
    else:  # the size is not known before: a -v note says where the time goes
        LOG.info("%s", note)
    try:
        result = info(automaton, limit=limit)
    except MonoidTooLarge:
        flag, value = (("--max-size", args.max_size) if limit == args.max_size
                       else ("--max-cells", args.max_cells))
        raise FsmnetError(
            f"{name}: the transition monoid has more than {limit:,} elements, the most "
            f"{flag} {value:.3g} allows on {states} or more states; raise {flag} to compute "
            "it anyway") from None
    if args.dot:
        from fsmnet.automata.convert import to_dot
        from fsmnet.automata.render import write_picture

        write_picture(args.dot, to_dot(automaton))
    if args.json:
        print_json(result)
    else:
        for line in format_info(result, fallback_name=args.spec):
            print(line, file=out)
    return 0


def cost_lower_bound(automaton: Automaton) -> tuple[int, int]:
    """Lower bounds (states, elements) of the transition monoid ``info`` computes, found
    in linear time before any of the work.

    With outputs, the monoid acts on the minimal automaton, which has a state per
    reachable output label at least; every minimal state is ``q0·w`` for a distinct
    element ``w``, so the monoid has at least as many elements as states.  Without
    outputs it acts on every state, and has at least as many elements as the states
    reachable from state 0.
    """
    if automaton.is_semiautomaton:
        return automaton.n_states, len(_reachable(automaton, 0))
    assert automaton.initial is not None
    labels = {automaton.output_ids[q] for q in _reachable(automaton, automaton.initial)}
    return len(labels), len(labels)


def _reachable(automaton: Automaton, start: int) -> list[int]:
    import numpy as np

    seen = np.zeros(automaton.n_states, dtype=bool)
    seen[start] = True
    frontier = np.array([start])
    while frontier.size:  # breadth first, one numpy gather per level
        nxt = np.unique(automaton.delta[:, frontier].ravel())
        frontier = nxt[~seen[nxt]]
        seen[frontier] = True
    return np.flatnonzero(seen).tolist()


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

