"""``fsmnet run SPEC``: run an automaton, or a network checked against it, on a long random word."""

from __future__ import annotations

import argparse
import time

from fsmnet.cli.common import print_json, show_progress

EPILOG = """\
The random word is generated in pieces (--piece symbols at a time), so
lengths of 10^9 and more never sit in memory at once. With --net or --arch,
the network runs on the same pieces and every output is compared with the
automaton's; accuracy is the fraction of positions where they agree.

examples:
  fsmnet run modadd:5 --length 100000000                 # the automaton alone
  fsmnet run parity --arch bilinear-full --length 10000000
  fsmnet run modadd:5 --net net.safetensors --length 1e9 --backend numba --json
"""


def _length(text: str) -> int:
    try:
        value = float(text) if ("e" in text.lower() or "." in text) else int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a length: {text!r}") from None
    if value < 1 or value != int(value):
        raise argparse.ArgumentTypeError(f"length must be a positive integer: {text!r}")
    return int(value)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("run", help="run an automaton or network on a long random word",
                       description=__doc__, epilog=EPILOG,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("spec", metavar="SPEC")
    src = p.add_mutually_exclusive_group()
    src.add_argument("--net", metavar="NET", help="network file to check against SPEC")
    src.add_argument("--arch", metavar="ID", help="compile SPEC for this architecture first")
    p.add_argument("--length", type=_length, required=True, help="number of symbols (1e9 ok)")
    p.add_argument("--backend", default="auto",
                   choices=("auto", "cupy", "numba", "numpy", "dask"))
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--piece", type=_length, default=1 << 24,
                   help="symbols generated and evaluated at a time (default 2^24)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    from fsmnet.cli.pfsa_commands import is_pfsa, pfsa_run

    if is_pfsa(args.spec):  # PFSA-SR specs: fsmnet/cli/pfsa_commands.py
        return pfsa_run(args)

    begin = time.perf_counter()
    from fsmnet.gpu.checked import run_checked

    result = run_checked(args.spec, length=args.length, net_path=args.net, arch=args.arch,
                         backend=args.backend, seed=args.seed, piece=args.piece,
                         progress=show_progress(args.json))
    if args.json:
        print_json({"length": result.length, "backend": result.backend,
                    "accuracy": result.accuracy, "seconds": result.seconds,
                    "symbols_per_second": result.symbols_per_second})
    else:
        acc = "—" if result.accuracy is None else f"{result.accuracy:.6f}"
        print(f"length {result.length:,}  backend {result.backend} ({result.path})  "
              f"accuracy {acc}  {result.seconds:.3f} s  "
              f"{result.symbols_per_second:,.0f} symbols/s  "
              f"(wall {time.perf_counter() - begin:.1f} s)")
    return 0 if result.accuracy in (None, 1.0) else 1
