"""The training protocol of a table cell, and the options every table script takes.

A cell (:class:`Protocol`) is either the **last step** of one run at one learning
rate (the default, the budget of the tables in docs/experiments.md), or **best of
learning rates by validation** (the bilinear-RNN paper, arXiv 2505.21749, trains
with 3 learning rates and keeps the best): one run per learning rate, a checkpoint
every ``validate_every`` steps scored by the per-position accuracy on held-out
words of a held-out length (``validate_length``, drawn with ``validate_seed``, not
the test words of :func:`fsmnet.train.data.accuracy`'s default seed), early
stopping after ``patience`` validations without a strict improvement, a stop when
the loss is not finite, and the cell reports the checkpoint with the best
validation accuracy (ties: the later step, then the first learning rate).

The guard for a float32 training loss of exactly 0: from there on the loss cannot
show progress (its gradient is not zero, the softmax tails survive below the
loss's rounding, and Adam's normalized steps keep moving the weights), so the
first such step is always validated as a checkpoint; ``stop_at_zero_loss`` also
ends the run there.  ``stop_at_perfect`` ends the whole cell at the first
checkpoint that is right on every position of every validation word: no later
checkpoint or learning rate can score higher, so a reduced budget spends its
steps on the cells that still need them.
"""

# No "from __future__ import annotations": the tests load this file by path, outside
# sys.modules, where dataclasses cannot resolve string annotations.
import argparse
import math
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from fsmnet.train.data import accuracy, task_automaton
from fsmnet.train.loop import TrainConfig, TrainResult, train


@dataclass(frozen=True)
class Protocol:
    """How a cell is trained and which checkpoint it reports (module docstring).

    ``validate_every = 0``: no validation, the last step of the one learning rate.
    """

    lrs: tuple[float, ...] = (0.01,)
    validate_every: int = 0
    validate_length: int = 100
    validate_words: int = 64
    validate_seed: int = 4321
    patience: int = 0
    stop_at_zero_loss: bool = False
    stop_at_perfect: bool = False
    # The optimizer recipe (TrainConfig's): Adam's L2 weight decay and a halving of the
    # learning rate every so many steps (0: constant), the MinMax paper's 1e-4 and 5 epochs.
    weight_decay: float = 0.0
    lr_halve_every: int = 0

    def __post_init__(self) -> None:
        if not self.lrs or any(not (lr > 0 and math.isfinite(lr)) for lr in self.lrs):
            raise ValueError(f"learning rates must be positive numbers (value: {self.lrs})")
        if len(self.lrs) > 1 and self.validate_every <= 0:
            raise ValueError("best of several learning rates needs validation "
                             "(validate_every > 0)")

    @property
    def selects(self) -> bool:
        return self.validate_every > 0

    def recipe(self) -> dict[str, Any]:
        """TrainConfig's optimizer fields (a constant rate where none is halved)."""
        return {"weight_decay": self.weight_decay,
                "lr_halve_every": self.lr_halve_every or None}

    def key(self) -> dict[str, Any]:
        """The fields a cell's record is matched on: the recipe's only where it is set,
        so that the records written before it existed still match."""
        return {k: v for k, v in asdict(self).items()
                if k not in ("weight_decay", "lr_halve_every") or v}

    def describe(self, steps: int, seeds: int) -> str:
        """One line for the table: budget and selection."""
        lrs = ", ".join(f"{lr:g}" for lr in self.lrs)
        stop = (f", early stop after {self.patience} validations without improvement"
                if self.patience else "")
        zero = ", stop at a float32 loss of exactly 0" if self.stop_at_zero_loss else ""
        perfect = (", the cell ends at its first perfect validation"
                   if self.stop_at_perfect else "")
        recipe = "".join([f", weight decay {self.weight_decay:g}" if self.weight_decay else "",
                          f", lr halved every {self.lr_halve_every} steps"
                          if self.lr_halve_every else ""])
        if not self.selects:
            return f"{steps} steps, lr {lrs}{recipe}, {seeds} seeds, last step"
        return (f"up to {steps} steps, best of lr {{{lrs}}} by validation at length "
                f"{self.validate_length} ({self.validate_words} held-out words, every "
                f"{self.validate_every} steps){stop}{zero}{perfect}{recipe}, {seeds} seeds")


PERFECT = "perfect on every validation word"


class _Stop(Exception):
    """Raised from the progress callback to end one run early (caught here)."""


def _run_validated(automaton: Any, config: TrainConfig, module: Any, protocol: Protocol,
                   index: int, checkpoints: list[dict[str, Any]],
                   best: dict[str, Any]) -> dict[str, Any]:
    """One learning rate of :func:`train_selected`: train ``module`` under ``config``,
    validating as ``protocol`` says; checkpoints are appended to ``checkpoints`` and
    ``best`` is updated in place.  Returns where and why the run stopped."""
    losses: list[float] = []
    state: dict[str, Any] = {"own_best": -1.0, "since": 0, "why": "budget", "zero": False}
    began = time.perf_counter()

    def progress(step: int, loss: float) -> None:
        losses.append(loss)
        done = step + 1
        first_zero = loss == 0.0 and not state["zero"]
        state["zero"] = state["zero"] or loss == 0.0
        if not math.isfinite(loss):
            state["why"] = "loss not finite"
            raise _Stop
        if done % protocol.validate_every and done != config.steps and not first_zero:
            return
        # On the device train() moved the module to (the same words: their draw is
        # on the CPU's numpy generator either way).
        val = accuracy(module, automaton, protocol.validate_length,
                       words=protocol.validate_words, seed=protocol.validate_seed,
                       device=config.device)
        checkpoints.append({"lr": config.lr, "step": done, "val": val, "loss": loss})
        key = (val, done, -index)
        if not best or key > best["key"]:
            best.update(key=key, state={k: v.detach().clone()
                                        for k, v in module.state_dict().items()},
                        losses=list(losses), seconds=time.perf_counter() - began,
                        lr=config.lr, step=done, val=val)
        if val > state["own_best"]:
            state["own_best"], state["since"] = val, 0
        else:
            state["since"] += 1
        if val == 1.0 and protocol.stop_at_perfect:
            state["why"] = PERFECT
            raise _Stop
        if first_zero and protocol.stop_at_zero_loss:
            state["why"] = "loss exactly 0"
            raise _Stop
        if protocol.patience and state["since"] >= protocol.patience:
            state["why"] = f"no improvement in {protocol.patience} validations"
            raise _Stop

    try:
        train(automaton, config, progress, module=module)
    except _Stop:
        pass
    return {"step": len(losses), "why": state["why"]}


def train_selected(spec: Any, arch: str, seed: int, *, hidden: int, steps: int,
                   protocol: Protocol, batch: int = 64,
                   options: dict[str, Any] | None = None, start: Any = None,
                   lengths: tuple[int, int] = (2, 10),
                   device: str = "cpu") -> tuple[TrainResult, dict[str, Any]]:
    """One cell under ``protocol``: the trained result (its module holding the selected
    checkpoint's weights) and the record: every checkpoint ``{lr, step, val, loss}``
    in the order scored, the ``selected`` one, and per learning rate where and why
    it stopped.  Without validation this is exactly ``train`` at ``protocol.lrs[0]``
    (the same bytes).  ``start``: a module to train on from (a copy for every
    learning rate) instead of a fresh one.  ``device``: where torch trains (``"cuda"``
    uses the training loop's GPU paths); the returned module is on the CPU."""
    import copy

    import torch

    from fsmnet.train.convert import build

    options = dict(options or {})

    def fresh() -> Any:
        # The module train() would build: the same seed drawn just before it, so a run
        # that is never stopped is the plain run byte for byte.
        torch.manual_seed(seed)
        if start is not None:
            return copy.deepcopy(start)
        return build(arch, automaton.n_symbols, len(automaton.labels), hidden, **options)

    automaton = task_automaton(spec)
    if not protocol.selects:
        config = TrainConfig(arch=arch, hidden=hidden, lengths=lengths, steps=steps,
                             batch=batch, lr=protocol.lrs[0], seed=seed, threads=1,
                             options=options, device=device, **protocol.recipe())
        result = train(automaton, config, module=None if start is None else fresh())
        return result, {"selected": {"lr": protocol.lrs[0], "step": len(result.losses)},
                        "checkpoints": [], "stopped": {}}
    checkpoints: list[dict[str, Any]] = []
    stopped: dict[str, Any] = {}
    best: dict[str, Any] = {}  # key, state, losses, seconds of the best checkpoint so far
    for index, lr in enumerate(protocol.lrs):
        config = TrainConfig(arch=arch, hidden=hidden, lengths=lengths, steps=steps,
                             batch=batch, lr=lr, seed=seed, threads=1, options=options,
                             device=device, **protocol.recipe())
        stopped[f"{lr:g}"] = _run_validated(automaton, config, fresh(), protocol, index,
                                            checkpoints, best)
        if stopped[f"{lr:g}"]["why"] == PERFECT:
            # No later checkpoint can score higher: the other rates are not run.
            stopped.update({f"{later:g}": {"step": 0, "why": "skipped: a perfect checkpoint"}
                            for later in protocol.lrs[index + 1:]})
            break
    if not best:
        raise RuntimeError(f"{spec} {arch} seed {seed}: no checkpoint was validated "
                           f"(every run stopped on a non-finite loss)")
    module = fresh()
    module.load_state_dict(best["state"])
    # tokens: not counted across the runs (no table reports them)
    result = TrainResult(module=module, automaton=automaton, losses=best["losses"],
                         seconds=best["seconds"], tokens=0)
    selected = {"lr": best["lr"], "step": best["step"], "val": best["val"]}
    return result, {"selected": selected, "checkpoints": checkpoints, "stopped": stopped}


def protocol_of(args: argparse.Namespace) -> Protocol:
    """The protocol of a script's options (older namespaces: the last-step default)."""
    lrs = getattr(args, "lrs", None) or (args.lr,)
    return Protocol(lrs=tuple(lrs), validate_every=getattr(args, "validate_every", 0),
                    validate_length=getattr(args, "validate_length", 100),
                    validate_words=getattr(args, "validate_words", 64),
                    patience=getattr(args, "patience", 0),
                    stop_at_zero_loss=getattr(args, "stop_at_zero_loss", False),
                    stop_at_perfect=getattr(args, "stop_at_perfect", False),
                    weight_decay=getattr(args, "weight_decay", 0.0),
                    lr_halve_every=getattr(args, "lr_halve_every", 0))


def _floats(text: str) -> tuple[float, ...]:
    return tuple(float(x) for x in text.split(","))


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def _lengths(text: str) -> tuple[int, int]:
    lo, _, hi = text.partition("-")
    return int(lo), int(hi or lo)


def arguments(*, steps: int, hidden: int, paper: dict[str, Any] | None = None,
              argv: Sequence[str] | None = None,
              extra: Callable[[argparse.ArgumentParser], None] | None = None
              ) -> argparse.Namespace:
    """The options every table script takes (its own defaults for steps and hidden size).

    ``paper``: the defaults that ``--paper`` sets (the seed paper's protocol where
    its summary states it, documented by the script); options given explicitly
    still win.  ``extra`` adds a script's own options to the parser.
    """
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=steps)
    parser.add_argument("--hidden", type=int, default=hidden)
    parser.add_argument("--lr", type=float, default=0.01)
    parser.add_argument("--lrs", type=_floats, default=None, metavar="LR,LR,...",
                        help="several learning rates, the best by validation (needs "
                             "--validate-every); overrides --lr")
    parser.add_argument("--validate-every", type=int, default=0, metavar="N",
                        help="checkpoint and validate every N steps; report the best "
                             "checkpoint (0: the last step)")
    parser.add_argument("--validate-length", type=int, default=100, metavar="N",
                        help="held-out validation length (default 100; training 2-10, "
                             "test 500)")
    parser.add_argument("--validate-words", type=int, default=64, metavar="N")
    parser.add_argument("--patience", type=int, default=0, metavar="N",
                        help="stop a run after N validations without improvement (0: never)")
    parser.add_argument("--stop-at-zero-loss", action="store_true",
                        help="stop a run at its first float32 training loss of exactly 0 "
                             "(validated as a checkpoint in any case)")
    parser.add_argument("--weight-decay", type=float, default=0.0, metavar="W",
                        help="Adam's L2 weight decay (the MinMax paper: 1e-4)")
    parser.add_argument("--lr-halve-every", type=int, default=0, metavar="N",
                        help="halve the learning rate every N steps (0: constant)")
    parser.add_argument("--stop-at-perfect", action="store_true",
                        help="end a cell at its first checkpoint right on every position "
                             "of every validation word (later learning rates are skipped)")
    parser.add_argument("--lengths", type=_lengths, default=(2, 10), metavar="MIN-MAX",
                        help="training word lengths (default 2-10)")
    parser.add_argument("--eval-length", type=int, default=500, metavar="N",
                        help="test length of the table's figure (default 500)")
    parser.add_argument("--device", choices=("cpu", "cuda", "auto"), default="cpu",
                        help="where torch trains: cuda uses the training loop's GPU paths, "
                             "auto picks cuda where torch sees a device (default cpu; a "
                             "cell's figures can differ in the last digits between them)")
    parser.add_argument("--long-length", type=int, default=0, metavar="N",
                        help="also the accuracy on one random word of length N, e.g. "
                             "1000000 (default: none)")
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--no-certify", dest="certify", action="store_false",
                        help="skip the 'certified' column (fsmnet certify on each trained net)")
    parser.add_argument("--estimate-only", action="store_true",
                        help="print the wall-time estimate and stop")
    parser.add_argument("--out", default=None, metavar="DIR",
                        help="one JSON record per cell in DIR (trained networks in "
                             "DIR/nets/); a matching record is reused, so an interrupted "
                             "table resumes where it stopped")
    parser.add_argument("--force", action="store_true",
                        help="with --out, retrain every cell even where a record matches")
    parser.add_argument("--jobs", type=_positive, default=1, metavar="N",
                        help="train N cells at a time, one worker process each "
                             "(default 1; a cell itself trains on one thread)")
    parser.add_argument("--grow-hidden", action="store_true",
                        help="hidden size at least the task's number of states, rounded "
                             "up to a multiple of 8 (--hidden is the floor)")
    if extra is not None:
        extra(parser)
    if paper is not None:
        parser.add_argument("--paper", action="store_true",
                            help="the paper's protocol and full grid: " + ", ".join(
                                f"{k}={v}" for k, v in paper.items()))
    args = parser.parse_args(argv)
    if paper is not None and args.paper:
        given = {a.split("=")[0].lstrip("-").replace("-", "_")
                 for a in (sys.argv[1:] if argv is None else argv) if a.startswith("--")}
        for key, value in paper.items():
            if key not in given:
                setattr(args, key, value)
    protocol_of(args)  # refuse a bad combination before any training
    if args.device != "cpu":
        import torch

        if args.device == "cuda" and not torch.cuda.is_available():
            parser.error("--device cuda: this torch build has no usable CUDA device")
        args.device = "cuda" if torch.cuda.is_available() else "cpu"
    return args
