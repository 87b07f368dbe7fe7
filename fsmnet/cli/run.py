"""``fsmnet run SPEC``: run an automaton, or a network checked against it, on a long random word."""

from __future__ import annotations

import argparse
import time

from fsmnet.cli.common import count, int_at_least, print_json, show_progress

EPILOG = """\
The random word is generated in pieces (--piece symbols at a time), so
lengths of 10^9 and more never sit in memory at once. With --net or --arch,
the network runs on the same pieces and every output is compared with the
automaton's; accuracy is the fraction of positions where they agree.

examples:
  fsmnet run modadd:5 --length 100000000                 # the automaton alone
  fsmnet run parity --arch bilinear-full --length 10000000
  fsmnet run modadd:5 --net net.safetensors --length 1e9 --backend numba --json
  fsmnet run parity --net trained.safetensors --length 1e6 --float32

--float32 runs the network by its float32 reference step (docs/formats.md): the
float32 semantics that 'fsmnet certify --float32' proves, in one fixed order of
operations; a position where the float32 run overflows (inf or NaN) counts as
wrong. Without it the network runs in float64 on the scan engine.
"""


DEFAULT_MAX_LENGTH = 10**11


def register(sub: argparse._SubParsersAction) -> None:
    from fsmnet.cli.pfsa_commands import by_spec_kind  # PFSA-SR specs go there

    p = sub.add_parser("run", help="run an automaton or network on a long random word",
                       description=__doc__, epilog=EPILOG,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("spec", metavar="SPEC")
    src = p.add_mutually_exclusive_group()
    src.add_argument("--net", metavar="NET", help="network file to check against SPEC")
    src.add_argument("--arch", metavar="ID", help="compile SPEC for this architecture first")
    p.add_argument("--length", type=count, required=True, help="number of symbols (1e9 ok)")
    p.add_argument("--max-length", type=count, default=DEFAULT_MAX_LENGTH, metavar="N",
                   help="refuse a --length above N (default 1e11: minutes on a GPU, "
                        "longer on a CPU)")
    p.add_argument("--backend", default="auto",
                   choices=("auto", "cupy", "numba", "numpy", "dask"))
    p.add_argument("--seed", type=int_at_least(0), default=0,
                   help="seed of the random word (default 0; reported by --json)")
    p.add_argument("--piece", type=count, default=1 << 24,
                   help="symbols of the random word drawn at a time (default 2^24; the "
                        "word depends on it); on the CPU each piece runs in slices of "
                        "about 0.2 s, so Ctrl-C stops the run within that")
    p.add_argument("--float32", action="store_true",
                   help="run the network by its float32 reference step (the semantics "
                        "certify --float32 proves) instead of the float64 scan engine")
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler=by_spec_kind("run", handle))


def handle(args: argparse.Namespace) -> int:
    begin = time.perf_counter()
    if args.length > args.max_length:
        from fsmnet.errors import FsmnetError

        raise FsmnetError(f"--length {args.length:.3g} is above --max-length "
                          f"{args.max_length:.3g}: even at 10^9 symbols/s (a fast GPU) it "
                          f"would take {_duration(args.length / 1e9)}; raise --max-length "
                          "to run it anyway")
    if args.float32 and args.net is None and args.arch is None:
        from fsmnet.errors import FsmnetError

        raise FsmnetError("--float32 runs a network: give --net NET or --arch ID")
    from fsmnet.cli.common import LOG
    from fsmnet.gpu.checked import run_checked

    LOG.info("running %s symbols of %s (seed %d, backend %s, pieces of %s)", f"{args.length:,}",
             args.spec, args.seed, args.backend, f"{args.piece:,}")

    result = run_checked(args.spec, length=args.length, net_path=args.net, arch=args.arch,
                         backend=args.backend, seed=args.seed, piece=args.piece,
                         progress=show_progress(args.json), float32=args.float32)
    if args.json:
        print_json({"length": result.length, "seed": args.seed, "backend": result.backend,
                    "accuracy": result.accuracy, "seconds": result.seconds,
                    "symbols_per_second": result.symbols_per_second})
    else:
        acc = "—" if result.accuracy is None else f"{result.accuracy:.6f}"
        print(f"length {result.length:,}  backend {result.backend} ({result.path})  "
              f"accuracy {acc}  {result.seconds:.3f} s  "
              f"{result.symbols_per_second:,.0f} symbols/s  "
              f"(wall {time.perf_counter() - begin:.1f} s)")
    return 0 if result.accuracy in (None, 1.0) else 1


def _duration(seconds: float) -> str:
    """``90`` -> ``'1.5 minutes'``; years for the absurd."""
    for unit, size in (("years", 365.25 * 86400), ("days", 86400), ("hours", 3600),
                       ("minutes", 60)):
        if seconds >= size:
            return f"{seconds / size:.3g} {unit}"
    return f"{seconds:.3g} seconds"
