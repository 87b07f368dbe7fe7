"""``fsmnet fuzz SPEC NET``: search random words for a confirmed counterexample."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from fsmnet.cli.common import LOG, int_at_least, print_counterexample, print_json

EPILOG = """\
exit codes: 0 no counterexample found (this is NOT a proof; use 'fsmnet verify'),
            1 a confirmed counterexample was found, 2 bad input.

Hypothesis generates words, runs the network with the float reference
evaluator and compares every prefix with the automaton. A disagreement is
re-run with the exact evaluator and counts only if confirmed; the word is then
shrunk by Hypothesis and reported.

examples:
  fsmnet compile parity --arch bilinear-full -o net.safetensors
  fsmnet fuzz parity net.safetensors --examples 500 --max-length 100 --seed 1
"""


_positive = int_at_least(1)
_non_negative = int_at_least(0)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("fuzz", help="search random words for a counterexample (no proof)",
                       description=__doc__, epilog=EPILOG,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("spec", metavar="SPEC", help="spec file or built-in family")
    p.add_argument("net", metavar="NET", help="network file (.safetensors)")
    p.add_argument("--examples", type=_positive, default=200, metavar="N",
                   help="words to generate (default 200)")
    p.add_argument("--max-length", type=_non_negative, default=50, metavar="L",
                   help="longest word (default 50)")
    p.add_argument("--seed", type=_non_negative, default=None, metavar="S",
                   help="seed of the search (default: fresh, and printed)")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.set_defaults(handler=handle)


def _hypothesis_home() -> Path:
    """Hypothesis keeps files in ./.hypothesis by default; a command must not litter the
    user's directory, so they go to the user's cache directory instead."""
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache) / "fsmnet" / "hypothesis"


def handle(args: argparse.Namespace) -> int:
    from hypothesis.configuration import set_hypothesis_home_dir

    from fsmnet.nets import load_network
    from fsmnet.testing.fuzz import fuzz

    set_hypothesis_home_dir(_hypothesis_home())
    net = load_network(args.net)
    LOG.info("fuzzing %s against %s: %d words up to length %d, seed %s", args.net, args.spec,
             args.examples, args.max_length, "fresh" if args.seed is None else args.seed)
    result = fuzz(args.spec, net, examples=args.examples, max_length=args.max_length,
                  seed=args.seed)
    if args.json:
        print_json({"verdict": result.verdict, "examples": result.examples,
                    "max_length": result.max_length, "seed": result.seed,
                    "counterexample": result.counterexample,
                    "words_run": result.words_run, "float_only": result.float_only})
    else:
        print(f"{result.message} (seed {result.seed}, words up to length "
              f"{result.max_length}, {result.words_run} words run)")
        if result.counterexample is not None:
            print_counterexample(result.counterexample)
        if result.float_only:
            print(f"note: {result.float_only} float-only disagreement(s) were not "
                  "confirmed by the exact evaluator")
    return 1 if result.counterexample is not None else 0
