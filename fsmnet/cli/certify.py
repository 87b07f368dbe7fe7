"""``fsmnet certify NET [SPEC]``: prove a trained or perturbed network for all lengths."""

from __future__ import annotations

import argparse
from typing import Any

from fsmnet.cli.common import certificate_to_stdout, print_counterexample, print_json

EPILOG = """\
exit codes: 0 proved, 1 refuted (a confirmed counterexample is printed),
            3 unknown (with the proved length L), 2 bad input, 4 internal error.

--json prints {"verdict", "method", "counterexample", "proved_length",
"domain", "covers", "theorem", "seconds"}: proved_length is null for "proved" (every
length), the largest L with every word of length <= L correct for "unknown",
and the counterexample's length - 1 for "refuted" (-1: the empty word itself
is wrong); domain is null where none was used (e.g. a refutation found by the
exact product); theorem, when not null, says that no linear network with
generic real weights is right for every length on this automaton (mod 3 and
longer cycles, three or more values held: docs/theory.md, Theorem G).

For a network with infinitely many reachable states (trained, or with noisy
weights) the proof is an invariant: a set of hidden states per automaton
state, closed under every symbol and read out correctly, every inclusion
checked in exact rationals (docs/certify.md).

--float32: the claim is about the network run in float32 by its reference step
(docs/formats.md; what 'fsmnet run --float32' and the torch modules execute).
A word where that run is wrong or overflows refutes it (confirmed by the
checker's independent float32 replay); an invariant proves it in any summation
order (and in exact arithmetic); otherwise the finitely many float32 states are
explored bit for bit, which proves the reference order.  "covers" says which.

argument order: NET comes first because SPEC may be left out (the automaton is
then learned from the network with L*, needs aalpy).  'fsmnet verify' and
'fsmnet fuzz' take SPEC NET, and from Python fsmnet.certify(spec, net) takes
the automaton first, like fsmnet.verify(spec, net).

examples:
  fsmnet certify net.safetensors parity --certificate cert.json
  fsmnet certify net.safetensors parity --float32 --certificate c32.json
  fsmnet check cert.json --network net.safetensors
"""


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("certify", help="prove a trained/perturbed network for all lengths",
                       description=__doc__, epilog=EPILOG,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("net", metavar="NET", help="network file (.safetensors); NET comes first "
                   "here, unlike 'verify SPEC NET' and 'fuzz SPEC NET'")
    p.add_argument("spec", metavar="SPEC", nargs="?", default=None,
                   help="spec file or built-in family, after NET (optional; default: learn "
                        "it from the network with L*)")
    p.add_argument("--float32", action="store_true",
                   help="prove (or refute) the network as run in float32 by its reference "
                        "step; the result says what it covers")
    p.add_argument("--certificate", metavar="C.json",
                   help="write a proof certificate ('-': standard output)")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    import sys

    from fsmnet.nets import load_network
    from fsmnet.proofs.abstract.certify import certify

    cert_to_stdout = certificate_to_stdout(args.certificate, args.json)
    net = load_network(args.net)
    result = certify(args.spec, net, float32=args.float32, certificate=args.certificate,
                     network_path=args.net)
    if args.json:
        print_json(result.to_json())
        return {"proved": 0, "refuted": 1}.get(result.verdict, 3)
    # With --certificate - the certificate is standard output; the report goes aside.
    out = sys.stderr if cert_to_stdout else sys.stdout
    print(verdict_line(result), file=out)
    if result.counterexample is not None:
        print_counterexample(result.counterexample, file=out)
    for key in ("learned", "invariant", "bounded", "note", "theorem", "certificate_error"):
        if key in result.details:
            print(f"{key}: {result.details[key]}", file=out)
    for i, line in enumerate(result.details.get("rounds", []), start=1):
        print(f"L* round {i}: {line}", file=out)  # each hypothesis, and what refuted it
    if "certificate" in result.details and not cert_to_stdout:
        print(f"certificate written to {result.details['certificate']}", file=out)
    return {"proved": 0, "refuted": 1}.get(result.verdict, 3)


def verdict_line(result: Any) -> str:
    """The first line of the text report: the verdict and how it was reached.

    Only what was found is shown: no domain where none was used, and for a
    refutation the length of the counterexample (the JSON's ``proved_length`` is
    that length minus one, -1 for the empty word) rather than a proved length.
    """
    head = result.verdict
    facts = [result.method]
    if result.domain is not None:
        facts.append(f"domain {result.domain}")
    cex = result.counterexample
    if result.verdict == "refuted" and cex is not None:
        n = len(cex.word)
        head = "refuted by the empty word" if n == 0 else \
            f"refuted by a word of length {n}"
    elif result.proved_length is not None:
        facts.append(f"proved up to length {result.proved_length}")
    facts.append(f"{result.seconds:.2f} s")
    return f"{head} ({'; '.join(facts)})"
