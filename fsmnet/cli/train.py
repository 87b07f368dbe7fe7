"""``fsmnet train SPEC --arch ARCH``: train a float32 torch module on an automaton's labels."""

from __future__ import annotations

import argparse
import re
import sys
import time
from typing import Any

from fsmnet.cli.common import (
    LOG,
    choice,
    count,
    int_at_least,
    print_json,
    report_stream,
    require_matplotlib,
    show_progress,
)

EPILOG = """\
Trains on uniformly random words with lengths drawn from --lengths (default
2-10, as in the bilinear-RNN paper, arXiv 2505.21749), the loss being the
cross-entropy of the label after every prefix.  Given --seed and --threads it
is bit-for-bit reproducible on the CPU.  At the end it reports the accuracy
at --eval-length (default 500) of the torch module, and at --long-length
(default 10^6) of the saved network through the scan engine (fsmnet run).

--arch is a registry architecture or a training-only choice:
  deltanet       DeltaNet, beta in [0, 1] (eigenvalues in [0, 1]); saved as deltaproduct
  deltanet-neg   DeltaNet, beta in [0, 2] (eigenvalues in [-1, 1]); saved as deltaproduct
  lstm           LSTM baseline: no network form (no -o, no long run, no verify)
minmax-cascade / minmax-scalar train the gated cascade of arXiv 2605.06384,
which has no network form either; train minmax-dense for a savable MinMax model.

examples:
  fsmnet train parity --arch bilinear-real-diag --hidden 4 -o parity.safetensors
  fsmnet verify parity parity.safetensors
  fsmnet train modadd:3 --arch bilinear-cp --rank 8 --steps 2000 --plot acc.png --json
  fsmnet train symmetric:3 --arch deltaproduct --n-h 2 --threads 2 --seed 1
  fsmnet train flipflop --arch minmax-dense --hidden 4 --steps 300 --until-proved -o t.safetensors
  fsmnet train modcount:3 --arch minmax-dense --hidden 5 --relax 0.2 --until-proved -o m.safetensors
  fsmnet train latch:4 --arch minmax-cascade --controller mlp --window 4 --output-gate
  fsmnet train latch:4 --arch minmax-cascade --init asymmetric --lr 1e-3 --weight-decay 1e-4
  fsmnet check t.cert.json --network t.safetensors
"""

# Flags that set a constructor keyword of the module (the flag's dest is the keyword);
# which choices take each is the module's (fsmnet.train.convert.free_options).
ARCH_OPTIONS = ("rank", "blocks", "n_h", "layers", "order", "relax", "controller", "window",
                "output_gate", "init")


def lengths(text: str) -> tuple[int, int]:
    """``2-10`` (or ``7``) -> (2, 10): an argparse ``type=``."""
    m = re.fullmatch(r"\s*(\d+)\s*(?:-\s*(\d+)\s*)?", text)
    if not m:
        raise argparse.ArgumentTypeError(f"expected MIN-MAX, e.g. 2-10 (value: {text!r})")
    lo, hi = int(m.group(1)), int(m.group(2) or m.group(1))
    if lo < 1 or hi < lo:
        raise argparse.ArgumentTypeError(f"need 1 <= MIN <= MAX (value: {text!r})")
    return lo, hi


def positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"must be a positive number (value: {text!r})")
    return value


def non_negative_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 0 <= value < float("inf"):
        raise argparse.ArgumentTypeError(f"must be a number >= 0 (value: {text!r})")
    return value


def register(sub: argparse._SubParsersAction) -> None:
    from fsmnet.train.convert import train_arch_ids

    p = sub.add_parser("train", help="train a torch module of an architecture on SPEC",
                       description=__doc__, epilog=EPILOG,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("spec", metavar="SPEC",
                   help="the task: a spec file (JSON/YAML) or a built-in family, e.g. parity")
    p.add_argument("--arch", required=True, choices=train_arch_ids(), metavar="ARCH",
                   type=choice("architecture", train_arch_ids()),
                   help="one of: " + ", ".join(train_arch_ids()))
    p.add_argument("--hidden", type=int_at_least(1), default=16, help="hidden size (16)")
    p.add_argument("--rank", type=int_at_least(1), help="CP rank (bilinear-cp; default H)")
    p.add_argument("--blocks", type=int_at_least(1), help="number of blocks (bilinear-block)")
    p.add_argument("--n-h", dest="n_h", type=int_at_least(1),
                   help="Householder factors per token (deltaproduct; default 1)")
    p.add_argument("--layers", type=int_at_least(1), help="cascade layers (minmax-cascade)")
    p.add_argument("--controller", choices=("affine", "mlp"),
                   help="minmax-cascade: the gates from one linear map ('affine', the "
                        "default) or the MinMax paper's MLP with LayerNorm and a residual")
    p.add_argument("--window", type=int_at_least(1), metavar="K",
                   help="minmax-cascade with --order lag: each layer reads the layers below "
                        "at t-1..t-K (a causal convolution of width K; default 1)")
    p.add_argument("--output-gate", dest="output_gate", action="store_const", const=True,
                   help="minmax-cascade: the readout reads sigmoid(W[letter, state]) * state")
    p.add_argument("--init", choices=("default", "asymmetric"),
                   help="minmax-cascade: 'asymmetric' starts every unit keeping its state "
                        "(reset gate bias +2, set gate bias -2), as the MinMax paper's ablation")
    p.add_argument("--relax", type=non_negative_float, metavar="TAU",
                   help="minmax-dense: train through the gradient of a TAU-smooth max-min "
                        "while the values stay exact (straight-through; 0.2 fits far more "
                        "tasks than the default 0, plain subgradients)")
    p.add_argument("--order", choices=("lag", "same-time"),
                   help="minmax-cascade: the gates of layer l read the layers below at t-1 "
                        "('lag', the default: the compiled cascade's order) or at t "
                        "('same-time': every letter then acts idempotently, a weaker class; "
                        "docs/theory.md)")
    p.add_argument("--lengths", type=lengths, default=(2, 10), metavar="MIN-MAX",
                   help="training word lengths (default 2-10)")
    p.add_argument("--steps", type=int_at_least(1), default=1000,
                   help="optimizer steps (default %(default)s)")
    p.add_argument("--batch", type=int_at_least(1), default=64,
                   help="words per step (default %(default)s)")
    p.add_argument("--lr", type=positive_float, default=0.01,
                   help="Adam learning rate (default %(default)s)")
    p.add_argument("--weight-decay", type=non_negative_float, default=0.0, metavar="W",
                   help="Adam's L2 weight decay (default 0; the MinMax paper: 1e-4)")
    p.add_argument("--lr-halve-every", type=int_at_least(1), default=None, metavar="N",
                   help="halve the learning rate every N steps (default: constant; the "
                        "MinMax paper halves it every 5 epochs)")
    p.add_argument("--seed", type=int_at_least(0), default=0,
                   help="seed of the initial weights and the training words "
                        "(default %(default)s)")
    p.add_argument("--threads", type=int_at_least(1), default=1,
                   help="torch intra-op threads (part of what makes a run reproducible)")
    p.add_argument("--device", default="cpu", choices=("cpu", "cuda"),
                   help="where torch trains (default %(default)s)")
    p.add_argument("--eval-length", type=count, default=500, metavar="N",
                   help="report the torch module's accuracy on words of this length "
                        "(default %(default)s)")
    p.add_argument("--long-length", type=count, default=10**6, metavar="N",
                   help="report the saved network's accuracy on one random word of this "
                        "length, by the scan engine (default %(default)s; 1e8 ok)")
    p.add_argument("-o", "--output", metavar="NET", help="write the trained network here")
    p.add_argument("--plot", metavar="PNG", help="accuracy vs length, trained vs compiled")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    _register_until_proved(p)
    p.set_defaults(handler=handle)


def _register_until_proved(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group(
        "train until proved",
        "rounds of training and certification (float32 first, then exact); each "
        "round's counterexample, its pumped variants and its single-symbol edits join "
        "the training words.  Exit 0 proved (-o NET also writes NET's stem + .cert.json), "
        "1 refuted and 3 unknown when the budget ends.")
    g.add_argument("--until-proved", action="store_true",
                   help="train, certify and train on the counterexamples until proved")
    g.add_argument("--rounds", type=int_at_least(1), default=None, metavar="N",
                   help="at most this many rounds (default 8)")
    g.add_argument("--round-steps", type=int_at_least(1), default=None, metavar="N",
                   help="steps of every round after the first (default --steps)")
    g.add_argument("--max-steps", type=int_at_least(1), default=None, metavar="N",
                   help="at most this many training steps in all")
    g.add_argument("--max-seconds", type=positive_float, default=None, metavar="S",
                   help="no new round after this many seconds (an outer guard)")
    g.add_argument("--no-snap", dest="snap", action="store_false",
                   help="do not try the weights rounded to dyadic grids")


def _check(args: argparse.Namespace) -> dict[str, Any]:
    from fsmnet.errors import FsmnetError
    from fsmnet.train.convert import free_options, has_network_form, train_arch_ids

    options = {}
    for name in ARCH_OPTIONS:
        value = getattr(args, name)
        if value is None:
            continue
        if name not in free_options(args.arch):
            flag = "--" + name.replace("_", "-")
            allowed = [a for a in train_arch_ids() if name in free_options(a)]
            raise FsmnetError(f"{flag} applies to {', '.join(allowed)}, not to {args.arch}")
        options[name] = value
    if args.device == "cuda":
        import torch

        if not torch.cuda.is_available():
            raise FsmnetError("--device cuda: this torch build has no usable CUDA device")
    if not has_network_form(args.arch) and (args.output or args.plot):
        raise FsmnetError(f"{args.arch}: a trained {args.arch} has no network form, so -o and "
                          f"--plot are not available")
    if args.plot:
        import os

        from fsmnet.io import check_output

        suffix = os.path.splitext(args.plot)[1].lower()
        if suffix not in ("", ".png", ".svg", ".pdf"):
            raise FsmnetError(f"--plot {args.plot}: the picture is written as PNG, SVG or PDF "
                              f"by its suffix, not {suffix}")
        check_output(args.plot)  # an unwritable place fails now, not after the training
        require_matplotlib()
    if args.output:
        from fsmnet.io import check_output

        check_output(args.output)
    report_stream({"-o": args.output, "--plot": args.plot}, args.json)  # one writer of stdout
    return options


# The theorem check runs before training only on automata this small: its witness
# searches take well under a second there, and a warning must not delay training.
_WARN_MAX_STATES = 64


def _warn_if_proved_impossible(automaton: Any, arch: str) -> None:
    """A warning line when a theorem of docs/theory.md rules ``arch`` out for the task
    (training still runs: the user may want to see it fail)."""
    from fsmnet import archs
    from fsmnet.decide.expressivity import _theorem_witness

    if arch not in archs.ids():  # a training-only choice (lstm, ...): no theorems
        return
    minimal = automaton.minimal()
    if minimal.n_states > _WARN_MAX_STATES:
        return
    verdict = _theorem_witness(minimal, arch)
    if verdict is not None:
        theorem = (verdict.witness or {}).get("theorem", verdict.reason)
        LOG.warning("%s cannot express this task (%s; fsmnet expressivity shows the "
                    "witness); training anyway", arch, theorem)


def handle(args: argparse.Namespace) -> int:
    options = _check(args)
    if _check_until_proved(args):
        return _handle_until_proved(args, options)
    from fsmnet.train.convert import has_network_form
    from fsmnet.train.data import accuracy, task_automaton
    from fsmnet.train.loop import TrainConfig, train

    automaton = task_automaton(args.spec)  # a bad SPEC fails here, before any training
    _warn_if_proved_impossible(automaton, args.arch)
    config = TrainConfig(arch=args.arch, hidden=args.hidden, lengths=args.lengths,
                         steps=args.steps, batch=args.batch, lr=args.lr, seed=args.seed,
                         threads=args.threads, device=args.device, options=options,
                         weight_decay=args.weight_decay, lr_halve_every=args.lr_halve_every)
    bar = None
    if show_progress(args.json):
        from tqdm import tqdm

        bar = tqdm(total=args.steps, unit="step", leave=False)

    def progress(step: int, loss: float) -> None:
        if bar is not None:
            bar.update(1)
            bar.set_postfix(loss=f"{loss:.4f}", refresh=False)

    try:
        result = train(automaton, config, progress)
    finally:
        if bar is not None:
            bar.close()
    module = result.module
    acc_eval = accuracy(module, automaton, args.eval_length, words=64)
    net = None
    if has_network_form(args.arch):
        net = _network(args, result, acc_eval)
        from fsmnet.cli.common import progress_note
        from fsmnet.train.report import engine_accuracy

        progress_note(f"checking the trained network on {args.long_length:,} random symbols "
                      "(scan engine; Ctrl-C stops it)", args.json)
        long_acc = engine_accuracy(args.spec, net, [args.long_length])[args.long_length]
    else:
        from fsmnet.cli.common import progress_note

        progress_note(f"checking the trained module on one word of {args.long_length:,} "
                      "random symbols (torch; Ctrl-C stops it)", args.json)
        long_acc = accuracy(module, automaton, args.long_length, words=1)
    if args.plot and net is not None:
        _plot(args, net)
    if args.output and net is not None:
        net.save(args.output)  # last: an interrupted or failed run leaves no network behind
    summary = {
        "spec": args.spec, "arch": args.arch, "saved_as": None if net is None else net.arch,
        "hidden": args.hidden, "steps": args.steps, "final_loss": result.losses[-1],
        "options": options, "weight_decay": args.weight_decay,
        "lr_halve_every": args.lr_halve_every,
        "train_seconds": round(result.seconds, 3),
        "tokens_per_second": round(result.tokens / max(result.seconds, 1e-9)),
        "accuracy": {str(args.eval_length): acc_eval,
                     str(args.long_length): long_acc},
        "output": args.output, "plot": args.plot,
    }
    if args.json:
        print_json(summary)
    else:
        # With -o - or --plot - that file is standard output; the summary goes aside.
        out = report_stream({"-o": args.output, "--plot": args.plot})
        print(f"trained {args.arch} (hidden {args.hidden}) on {args.spec}: {args.steps} steps "
              f"in {result.seconds:.1f} s, final loss {result.losses[-1]:.4g}", file=out)
        print(f"accuracy at length {args.eval_length}: {acc_eval:.4f} (torch module)",
              file=out)
        how = "saved network, scan engine" if net is not None else "torch module, one word"
        print(f"accuracy at length {args.long_length}: {long_acc:.4f} ({how})", file=out)
        if args.output:
            print(f"wrote {args.output} ({net.arch if net else args.arch})", file=out)
    sys.stdout.flush()
    return 0


def _network(args: argparse.Namespace, result: Any, acc_eval: float) -> Any:
    import torch

    from fsmnet.train.convert import to_network

    a = result.automaton
    meta = {"training": {
        "arch": args.arch, "hidden": args.hidden, "lengths": list(args.lengths),
        "steps": args.steps, "batch": args.batch, "lr": args.lr, "seed": args.seed,
        "threads": args.threads, "device": args.device, "final_loss": result.losses[-1],
        "options": {k: getattr(args, k) for k in ARCH_OPTIONS if getattr(args, k) is not None},
        "weight_decay": args.weight_decay, "lr_halve_every": args.lr_halve_every,
        f"accuracy_{args.eval_length}": acc_eval, "torch": torch.__version__,
        "date": time.strftime("%Y-%m-%d"),
    }}
    return to_network(result.module, a.symbols, a.labels, name=args.spec, options=meta)


def _plot(args: argparse.Namespace, net: Any) -> None:
    from fsmnet.train.report import PLOT_LENGTHS, compiled_accuracy, engine_accuracy, plot_accuracy

    lengths_ = [n for n in PLOT_LENGTHS if n <= max(args.long_length, 10)]
    curves = {f"trained {args.arch}": engine_accuracy(args.spec, net, lengths_)}
    compiled = compiled_accuracy(args.spec, net.arch, lengths_)
    if compiled:
        curves[f"compiled {net.arch}"] = compiled
    plot_accuracy(curves, args.plot, f"{args.spec}: trained vs compiled")


# ------------------------------------------------------------ --until-proved
UNTIL_PROVED_FLAGS = {"rounds": "--rounds", "round_steps": "--round-steps",
                      "max_steps": "--max-steps", "max_seconds": "--max-seconds"}


def _check_until_proved(args: argparse.Namespace) -> bool:
    """Whether this is an --until-proved run; its flags' errors before any work."""
    from fsmnet.errors import FsmnetError
    from fsmnet.train.convert import has_network_form

    if not args.until_proved:
        used = [flag for key, flag in UNTIL_PROVED_FLAGS.items()
                if getattr(args, key) is not None] + ([] if args.snap else ["--no-snap"])
        if used:
            raise FsmnetError(f"{used[0]} applies with --until-proved only")
        return False
    if not has_network_form(args.arch):
        raise FsmnetError(f"--until-proved: a trained {args.arch} has no network form to "
                          f"certify")
    if args.plot:
        raise FsmnetError("--plot is not available with --until-proved")
    if args.output is not None:
        from fsmnet.io import check_output, is_stdout
        from fsmnet.train.until_proved import certificate_path

        if is_stdout(args.output):
            raise FsmnetError("--until-proved -o needs a file: the certificate goes next to it")
        check_output(args.output)
        check_output(certificate_path(args.output))
    return True


def _handle_until_proved(args: argparse.Namespace, options: dict[str, Any]) -> int:
    from fsmnet.cli.common import print_counterexample
    from fsmnet.train.data import task_automaton
    from fsmnet.train.loop import TrainConfig
    from fsmnet.train.snap import describe
    from fsmnet.train.until_proved import Budget, RoundRecord, train_until_proved

    automaton = task_automaton(args.spec)  # a bad SPEC fails here, before any training
    _warn_if_proved_impossible(automaton, args.arch)
    config = TrainConfig(arch=args.arch, hidden=args.hidden, lengths=args.lengths,
                         steps=args.steps, batch=args.batch, lr=args.lr, seed=args.seed,
                         threads=args.threads, device=args.device, options=options,
                         weight_decay=args.weight_decay, lr_halve_every=args.lr_halve_every)
    budget = Budget(rounds=8 if args.rounds is None else args.rounds, steps=args.max_steps,
                    seconds=args.max_seconds)

    def progress(r: RoundRecord) -> None:
        if args.json:
            return
        snap = "" if r.snap is None else f", snap {describe(r.snap)} {r.snap['verdict']}"
        cex = "-" if r.counterexample is None else str(len(r.counterexample))
        length = "all" if r.verdict == "proved" else r.proved_length
        print(f"round {r.round}: {r.steps} steps{' (fresh start)' if r.restarted else ''}, "
              f"loss {r.loss:.4g}, accuracy {r.accuracy:.4f}, {r.verdict} ({r.method}"
              f"{'' if r.claim is None else ', ' + r.claim}{snap}), proved length {length}, "
              f"counterexample length {cex}", flush=True)

    result = train_until_proved(automaton, config, budget=budget, round_steps=args.round_steps,
                                snap=args.snap, output=args.output, progress=progress)
    if args.json:
        print_json({"spec": args.spec, "arch": args.arch, **result.to_json()})
    else:
        snapped = "" if result.snapped is None else f", snapped to {describe(result.snapped)}"
        if result.verdict == "proved":
            print(f"proved ({result.claim}{snapped}) after {len(result.rounds)} rounds, "
                  f"{result.steps} steps, {result.seconds:.1f} s")
        else:
            print(f"{result.verdict}: the budget ended ({result.stopped_by}) after "
                  f"{len(result.rounds)} rounds, {result.steps} steps, {result.seconds:.1f} s; "
                  f"proved up to length {result.proved_length}")
            if result.counterexample is not None:
                print_counterexample(result.counterexample)
        if result.output:
            print(f"wrote {result.output} ({result.network.arch})")
        if result.certificate:
            print(f"certificate written to {result.certificate}")
    sys.stdout.flush()
    return {"proved": 0, "refuted": 1}.get(result.verdict, 3)
