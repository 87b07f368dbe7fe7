"""``fsmnet run SPEC``: run an automaton, or a network checked against it, on a long random word."""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass

import numpy as np

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


@dataclass(frozen=True)
class RunResult:
    """The ``run --json`` contract (DESIGN §7), plus what ran."""

    length: int
    backend: str
    accuracy: float | None
    seconds: float
    symbols_per_second: float
    path: str = ""


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


def run_checked(spec: str, *, length: int, net_path: str | None = None,
                arch: str | None = None, backend: str = "auto", seed: int = 0,
                piece: int = 1 << 24, progress: bool = False) -> RunResult:
    """Run the automaton (and a network, when given) on a random word; see ``EPILOG``."""
    import fsmnet
    from fsmnet.compile import compile_automaton
    from fsmnet.gpu import evaluate
    from fsmnet.verify.product import label_map
    from fsmnet.verify.verifier import align_alphabet

    automaton = fsmnet.load(spec)
    if automaton.is_semiautomaton:
        automaton = automaton.replace(initial=0 if automaton.initial is None else
                                      automaton.initial)
    net = None
    if net_path is not None:
        net = fsmnet.load_network(net_path)
    elif arch is not None:
        net = compile_automaton(automaton, arch)
    if net is not None:
        automaton = align_alphabet(automaton, net)
        to_auto = np.array(label_map(net, automaton), dtype=np.int64)
    dtype = np.uint8 if automaton.n_symbols <= 256 else np.int64
    # Warm up first (imports, JIT caches, device kernels, tables) on a word of the same
    # size class, so that the seconds reported measure the run and not the start-up.
    warm = np.zeros(min(length, piece, 1 << 17), dtype=dtype)
    evaluate(automaton, warm, backend=backend, outputs="last" if net is None else "all")
    if net is not None:
        evaluate(net, warm, backend=backend, outputs="all")
    rng = np.random.default_rng(seed)
    q, h = automaton.initial, None
    correct, seconds, done = 0, 0.0, 0
    used_backend, used_path = backend, ""
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=length, unit="sym", unit_scale=True, leave=False)
    while done < length:
        size = min(piece, length - done)
        word = rng.integers(0, automaton.n_symbols, size=size, dtype=dtype)
        if net is None:
            res = evaluate(automaton, word, backend=backend, outputs="last", start=q)
            q = res.state
            seconds += res.seconds
            used_backend, used_path = res.backend, res.path
        else:
            want = evaluate(automaton, word, backend=backend, outputs="all", start=q)
            q = want.state
            got = evaluate(net, word, backend=backend, outputs="all", start=h)
            h = got.state
            assert got.outputs is not None and want.outputs is not None
            correct += int(np.count_nonzero(to_auto[got.outputs] == want.outputs))
            seconds += got.seconds
            used_backend, used_path = got.backend, got.path
        done += size
        if bar is not None:
            bar.update(size)
    if bar is not None:
        bar.close()
    return RunResult(length=length, backend=used_backend,
                     accuracy=None if net is None else correct / length,
                     seconds=seconds, symbols_per_second=length / max(seconds, 1e-12),
                     path=used_path)


def handle(args: argparse.Namespace) -> int:
    begin = time.perf_counter()
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
