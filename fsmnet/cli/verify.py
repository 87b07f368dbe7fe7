"""``fsmnet verify SPEC NET``: prove or refute a network against an automaton."""

from __future__ import annotations

import argparse

from fsmnet.cli.common import print_counterexample, print_json, show_progress

EPILOG = """\
exit codes: 0 proved, 1 refuted (a confirmed counterexample is printed),
            3 unknown, 2 bad input.

The proof explores the product of the network and the automaton in exact
arithmetic (rationals for bilinear/linear networks, max/min selections for
MinMax); when it closes, the claim holds for every word of every length, and
--certificate writes a JSON certificate that 'fsmnet check' re-verifies
independently.

examples:
  fsmnet compile modadd:5 --arch bilinear-full -o net.safetensors
  fsmnet verify modadd:5 net.safetensors --certificate cert.json
  fsmnet check cert.json --network net.safetensors
"""


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("verify", help="prove a network equal to an automaton, or refute it",
                       description=__doc__, epilog=EPILOG,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("spec", metavar="SPEC", help="spec file or built-in family")
    p.add_argument("net", metavar="NET", help="network file (.safetensors)")
    p.add_argument("--certificate", metavar="CERT.json", help="write a proof certificate")
    p.add_argument("--max-states", type=int, default=20_000,
                   help="budget of exact network states to explore (default 20000)")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    from fsmnet.cli.pfsa_commands import is_pfsa, pfsa_verify

    if is_pfsa(args.spec):  # PFSA-SR specs: fsmnet/cli/pfsa_commands.py
        return pfsa_verify(args)

    from fsmnet.nets import load_network
    from fsmnet.proofs.verifier import verify

    net = load_network(args.net)
    bar = None
    if show_progress(args.json):
        from tqdm import tqdm

        bar = tqdm(desc="product pairs", unit="pair", leave=False)

        def progress(n: int) -> None:
            bar.n = n
            bar.refresh()
    result = verify(args.spec, net, max_states=args.max_states, certificate=args.certificate,
                    network_path=args.net, progress=progress if bar is not None else None)
    if bar is not None:
        bar.close()
    if args.json:
        print_json({"verdict": result.verdict, "method": result.method,
                    "counterexample": result.counterexample})
    else:
        print(f"{result.verdict} ({result.method}; {result.details.get('pairs')} pairs, "
              f"{result.details.get('network_states')} network states)")
        if result.counterexample is not None:
            print_counterexample(result.counterexample)
        if "note" in result.details:
            print(f"note: {result.details['note']}")
        if "certificate_error" in result.details:
            print(f"note: {result.details['certificate_error']}")
        if "certificate" in result.details:
            print(f"certificate written to {result.details['certificate']}")
    return {"proved": 0, "refuted": 1}.get(result.verdict, 3)
