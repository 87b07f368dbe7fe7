"""``fsmnet expressivity SPEC``: which architecture classes can track the automaton."""

from __future__ import annotations

import argparse

from fsmnet.cli.common import choice, print_json

EPILOG = """\
Verdicts, all computed on the minimal automaton:
  possible    by theorem: the class expresses every automaton (the one-hot
              constructions; the reason names the theorem, and nothing was
              built or checked), or the construction compiled and was proved
              equal to the automaton
  impossible  a theorem rules the class out; the witness (two words, or p,u,s)
              is saved with --witness-dir and re-verified by 'fsmnet check'
  unknown     neither

--witness-dir DIR writes a checkable file for every verdict that is not
unknown: DIR/ARCH.json is the impossibility witness ('fsmnet check
DIR/ARCH.json'), or for a possible class the certificate of the proof of its
network DIR/ARCH.safetensors ('fsmnet check DIR/ARCH.json --network
DIR/ARCH.safetensors'); a class settled by a theorem then has the theorem's
network built and proved (slower: a dense n x n tensor per letter).

exit codes: 1 when any requested class is impossible; else 3 when any is
unknown; else 0 (every requested class is possible). 2 bad input.

examples:
  fsmnet expressivity parity
  fsmnet expressivity modadd:3 --arch bilinear-real-diag --arch bilinear-r2
  fsmnet expressivity symmetric:3 --json --witness-dir witnesses/
  fsmnet expressivity symmetric:7,gens --arch bilinear-full --arch bilinear-cp --arch bilinear-r2
  fsmnet expressivity symmetric:3 --arch bilinear-full --prove-all
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
                   help="write each impossibility witness as DIR/<arch>.json, and each "
                        "possible class's network and proof certificate as "
                        "DIR/<arch>.safetensors and DIR/<arch>.json")
    p.add_argument("--prove-all", action="store_true",
                   help="build and prove a network for every class, also where a theorem "
                        "settles it (slower; the verdicts are the same)")
    p.add_argument("--json", action="store_true")
    from fsmnet.cli.pfsa_commands import by_spec_kind

    # A PFSA-SR spec goes to its own handler (fsmnet/cli/pfsa_commands.py, HANDLERS).
    p.set_defaults(handler=by_spec_kind("expressivity", handle))


def exit_code(verdicts: list[str]) -> int:
    """1 if any class is impossible, else 3 if any is unknown, else 0 (see the epilog)."""
    if "impossible" in verdicts:
        return 1
    return 3 if "unknown" in verdicts else 0


def handle(args: argparse.Namespace) -> int:
    import json
    import os

    from fsmnet.decide.expressivity import expressivity
    from fsmnet.io import check_output_dir, make_dir, write_text

    if args.witness_dir:
        check_output_dir(args.witness_dir)  # before the work, not after
        make_dir(args.witness_dir)  # networks and certificates are written as proved
    results = expressivity(args.spec, args.arch, by_theorem=not args.prove_all,
                           witness_dir=args.witness_dir)
    if args.witness_dir:
        for r in results:
            if r.witness is not None:
                write_text(os.path.join(args.witness_dir, f"{r.arch}.json"),
                           json.dumps(r.witness, indent=1))
    code = exit_code([r.verdict for r in results])
    if args.json:
        print_json({"results": [r.to_json() for r in results]})
        return code
    width = max(len(r.arch) for r in results)
    for r in results:
        print(f"{r.arch:<{width}}  {r.verdict:<10}  {r.reason}")
        if r.witness is not None:
            words = ", ".join(f"{k}={' '.join(v) or 'ε'}" for k, v in r.witness["words"].items())
            powers = r.witness["kind"] != "equal-counts"
            stride = f" (stride {r.witness['stride']})" if powers else ""
            print(f"{'':<{width}}  witness: {words}{stride}")
        for kind, path in (r.files or {}).items():
            print(f"{'':<{width}}  {kind}: {path}")
    return code
