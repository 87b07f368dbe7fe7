"""``fsmnet certify NET [SPEC]``: prove a trained or perturbed network for all lengths."""

from __future__ import annotations

import argparse

from fsmnet.cli.common import print_counterexample, print_json

EPILOG = """\
exit codes: 0 proved, 1 refuted (a confirmed counterexample is printed),
            3 unknown (with the proved length L), 2 bad input.

For a network with infinitely many reachable states (trained, or with noisy
weights) the proof is an invariant: a set of hidden states per automaton
state, closed under every symbol and read out correctly, every inclusion
checked in exact rationals (docs/certify.md).  --float32 also covers the
network run in float32 step by step, in any summation order.  Without SPEC
the automaton is learned from the network with L* (needs aalpy).

examples:
  fsmnet certify net.safetensors parity --certificate cert.json
  fsmnet check cert.json --network net.safetensors
"""


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("certify", help="prove a trained/perturbed network for all lengths",
                       description=__doc__, epilog=EPILOG,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("net", metavar="NET", help="network file (.safetensors)")
    p.add_argument("spec", metavar="SPEC", nargs="?", default=None,
                   help="spec file or built-in family (default: learn it with L*)")
    p.add_argument("--float32", action="store_true",
                   help="the proof also covers float32 step-by-step execution")
    p.add_argument("--certificate", metavar="C.json", help="write a proof certificate")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    from fsmnet.nets import load_network
    from fsmnet.proofs.abstract.certify import certify

    net = load_network(args.net)
    result = certify(args.spec, net, float32=args.float32, certificate=args.certificate,
                     network_path=args.net)
    if args.json:
        print_json(result.to_json())
    else:
        extra = "" if result.proved_length is None else f", proved up to length " \
            f"{result.proved_length}"
        print(f"{result.verdict} ({result.method}; domain {result.domain}{extra}; "
              f"{result.seconds:.2f} s)")
        if result.counterexample is not None:
            print_counterexample(result.counterexample)
        for key in ("learned", "invariant", "bounded", "note", "certificate_error"):
            if key in result.details:
                print(f"{key}: {result.details[key]}")
        for i, line in enumerate(result.details.get("rounds", []), start=1):
            print(f"L* round {i}: {line}")  # what each hypothesis was, what refuted it
        if "certificate" in result.details:
            print(f"certificate written to {result.details['certificate']}")
    return {"proved": 0, "refuted": 1}.get(result.verdict, 3)
