"""``fsmnet expressivity SPEC``: which architecture classes can track the automaton."""

from __future__ import annotations

import argparse

from fsmnet.cli.common import choice, print_json

EPILOG = """\
Verdicts, all computed on the minimal automaton:
  possible    the construction compiled and was proved equal to the automaton
  impossible  a theorem rules the class out; the witness (two words, or p,u,s)
              is saved with --witness-dir and re-verified by 'fsmnet check'
  unknown     neither

exit codes: 1 when any requested class is impossible; else 3 when any is
unknown; else 0 (every requested class is possible). 2 bad input.

examples:
  fsmnet expressivity parity
  fsmnet expressivity modadd:3 --arch bilinear-real-diag --arch bilinear-r2
  fsmnet expressivity symmetric:3 --json --witness-dir witnesses/
"""


def register(sub: argparse._SubParsersAction) -> None:
    from fsmnet import archs as registry

    p = sub.add_parser("expressivity", help="decide which architectures can track an automaton",
                       description=__doc__, epilog=EPILOG,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("spec", metavar="SPEC")
    p.add_argument("--arch", action="append", metavar="ID", choices=list(registry.ids()),
                   type=choice("architecture", registry.ids()),
                   help="architecture class (repeatable; default: all of "
                        f"{', '.join(registry.ids())})")
    p.add_argument("--witness-dir", metavar="DIR",
                   help="write each impossibility witness as DIR/<arch>.json")
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler=handle)


def exit_code(verdicts: list[str]) -> int:
    """1 if any class is impossible, else 3 if any is unknown, else 0 (see the epilog)."""
    if "impossible" in verdicts:
        return 1
    return 3 if "unknown" in verdicts else 0


def handle(args: argparse.Namespace) -> int:
    from fsmnet.cli.pfsa_commands import is_pfsa, pfsa_expressivity

    if is_pfsa(args.spec):  # PFSA-SR specs: fsmnet/cli/pfsa_commands.py
        return pfsa_expressivity(args)

    import json
    import os

    from fsmnet.decide.expressivity import expressivity
    from fsmnet.io import check_output_dir, make_dir, write_text

    if args.witness_dir:
        check_output_dir(args.witness_dir)  # before the work, not after
    results = expressivity(args.spec, args.arch)
    if args.witness_dir:
        make_dir(args.witness_dir)
        for r in results:
            if r.witness is not None:
                write_text(os.path.join(args.witness_dir, f"{r.arch}.json"),
                           json.dumps(r.witness, indent=1))
    code = exit_code([r.verdict for r in results])
    if args.json:
        print_json({"results": [{"arch": r.arch, "verdict": r.verdict, "reason": r.reason,
                                 "witness": r.witness} for r in results]})
        return code
    width = max(len(r.arch) for r in results)
    for r in results:
        print(f"{r.arch:<{width}}  {r.verdict:<10}  {r.reason}")
        if r.witness is not None:
            words = ", ".join(f"{k}={' '.join(v) or 'ε'}" for k, v in r.witness["words"].items())
            powers = r.witness["kind"] != "equal-counts"
            stride = f" (stride {r.witness['stride']})" if powers else ""
            print(f"{'':<{width}}  witness: {words}{stride}")
    return code
