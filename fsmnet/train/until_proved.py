"""Train until proved: rounds of training, certification and counterexample-guided data.

Each round trains the module (the first round ``config.steps`` steps from a fresh
module, later rounds ``round_steps`` more on the same one; a fresh module again when
the last round proved no longer a length than the best before it), then

1. tries snapping (:mod:`fsmnet.train.snap`) from a training accuracy of
   :data:`SNAP_FROM` on: the first snaps (exact states, exact rotations, then dyadic
   grids) whose float32 labels are right on the whole training sample are certified,
   a proof of a snapped network ends the run with the snapped network;
2. certifies the network itself: ``certify(automaton, net, float32=True)`` first
   (the claim about how a trained network runs), the exact claim when that one is
   unknown;
3. adds a refutation's word to a weighted pool of extra training words, with its
   pumped variants p·u^n (w = p·u^m, u each short suffix) and its single-symbol
   edits (:mod:`fsmnet.train.counterexample_pool`).  From the next round on, a
   fraction of the batches are drawn from the pool (each word padded with random
   symbols to the batch's length: padding only appends prefixes, all labelled by
   the automaton).

The run stops at a proof, or at a budget: rounds and total steps (deterministic),
seconds and CPU seconds (outer guards, checked between rounds).  With ``output`` the network is
saved, its header holding ``options["until_proved"]`` (every round's record, the
verdict) and ``options["snapped"]`` for a snapped network, and a proof's certificate
is written next to it (``net.safetensors`` -> ``net.cert.json``), bound to the file.
"""

from __future__ import annotations

import dataclasses
import math
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from fsmnet.automata import Automaton
from fsmnet.errors import FsmnetError
from fsmnet.nets import Network
from fsmnet.train.counterexample_pool import KINDS, PoolWord, WeightedWords, variants
from fsmnet.train.loop import TrainConfig

SNAP_CERTIFIES = 2      # snapped networks certified per round (each costs a certification)
SAMPLE_WORDS = 256      # the training sample a snap must keep right
SNAP_FROM = 0.99        # snaps are tried from this training accuracy on (each snap must
                        # then be right on the whole sample: a snap can mend a near miss)
PATIENCE = 1            # rounds without a longer proved length before a fresh start


@dataclass(frozen=True)
class Budget:
    """When the loop gives up: ``rounds`` and total training ``steps`` (None: no limit)
    are deterministic; ``seconds`` (wall clock) and ``cpu_seconds`` (this process's CPU
    time, ``time.process_time``: what a loaded machine does not inflate) are checked
    between rounds, as outer guards."""

    rounds: int = 8
    steps: int | None = None
    seconds: float | None = None
    cpu_seconds: float | None = None

    def check(self) -> None:
        if not isinstance(self.rounds, int) or self.rounds < 1:
            raise FsmnetError(f"budget: rounds must be an integer >= 1 (value: {self.rounds!r})")
        if self.steps is not None and (not isinstance(self.steps, int) or self.steps < 1):
            raise FsmnetError(f"budget: steps must be an integer >= 1 (value: {self.steps!r})")
        for name in ("seconds", "cpu_seconds"):
            value = getattr(self, name)
            if value is not None and not (0 < value < math.inf):
                raise FsmnetError(f"budget: {name} must be a positive number (value: "
                                  f"{value!r})")


@dataclass(frozen=True)
class RoundRecord:
    """One round: training, snapping, certification, what joined the pool."""

    round: int
    steps: int
    loss: float
    accuracy: float
    verdict: str
    method: str
    claim: str | None                   # "float32" or "exact": what a verdict is about
    proved_length: int | None
    counterexample: tuple[str, ...] | None
    snap: dict[str, Any] | None         # the last snapped network certified, and its verdict
    restarted: bool                     # trained from a fresh module (stuck before)
    added: dict[str, int]               # pool words added after this round, per kind
    drawn: dict[str, int]               # pool words drawn into this round's batches
    seconds: float
    theorem: str | None = None          # certify's note: a theorem rules the claim out

    def to_json(self, *, seconds: bool = True) -> dict[str, Any]:
        out = dataclasses.asdict(self)
        out["counterexample"] = None if self.counterexample is None else list(self.counterexample)
        if not seconds:  # file headers stay byte-reproducible
            del out["seconds"]
        return out


@dataclass(frozen=True)
class UntilProvedResult:
    """``verdict``: "proved" (``network`` is proved, ``claim`` says in which semantics),
    "refuted" (the budget ended on a refutation: ``counterexample``) or "unknown" (the
    budget ended on an unknown: ``proved_length``).  ``stopped_by``: "proved",
    "rounds", "steps", "seconds" or "cpu_seconds"."""

    verdict: str
    stopped_by: str
    network: Network
    module: Any
    rounds: tuple[RoundRecord, ...]
    pool: tuple[PoolWord, ...]
    claim: str | None
    snapped: dict[str, Any] | None
    counterexample: Any
    proved_length: int | None
    steps: int
    seconds: float
    output: str | None = None
    certificate: str | None = None

    def to_json(self) -> dict[str, Any]:
        cex = self.counterexample
        return {"verdict": self.verdict, "stopped_by": self.stopped_by, "claim": self.claim,
                "snapped": self.snapped, "steps": self.steps,
                "seconds": round(self.seconds, 3), "proved_length": self.proved_length,
                "counterexample": None if cex is None else
                {"word": cex.word, "expected": cex.expected, "got": cex.got},
                "rounds": [r.to_json() for r in self.rounds],
                "pool": {k: sum(p.kind == k for p in self.pool) for k in KINDS},
                "output": self.output, "certificate": self.certificate}


def certify_both(automaton: Automaton, net: Network, *, certificate: str | None = None,
                 network_path: str | None = None) -> tuple[Any, str | None]:
    """(result, claim): the float32 claim first; the exact claim when that is unknown,
    or, for a network whose exact header is its truth (a structural snap), whenever the
    float32 claim is not proved (a float32 counterexample then stands beside an exact
    proof, whose claim says what it covers).  ``claim`` says which semantics the verdict
    is about: "float32" (a float32 proof, which for invariants covers exact arithmetic
    too, or a float32 counterexample),
    "exact" (an exact proof or counterexample), None when both are unknown (the result
    is then the exact one's)."""
    from fsmnet.nets.exact_header import header_is_truth
    from fsmnet.proofs.abstract.certify import certify

    first = certify(automaton, net, float32=True, certificate=certificate,
                    network_path=network_path)
    if first.verdict == "proved":
        return first, "float32"
    if header_is_truth(net):  # a snap's exact header: its exact claim is proved apart
        exact = certify(automaton, net, float32=False, certificate=certificate,
                        network_path=network_path)
        if exact.verdict == "proved":
            return exact, "exact"
    if first.method.startswith("float32"):
        return first, "float32"
    if first.verdict == "refuted":  # the exact run is wrong (exact product, sampled words)
        return first, "exact"
    exact = certify(automaton, net, float32=False, certificate=certificate,
                    network_path=network_path)
    return exact, (None if exact.verdict == "unknown" else "exact")


def _sample(automaton: Automaton, config: TrainConfig, pool: list[PoolWord]
            ) -> list[list[int]]:
    """The training sample a snap must keep right: random words at the longest training
    length (every shorter prefix comes with them) and every pool word."""
    rng = np.random.default_rng([config.seed, 7])
    words = rng.integers(0, automaton.n_symbols, size=(SAMPLE_WORDS, config.lengths[1]))
    return [list(map(int, w)) for w in words] + [list(p.word) for p in pool]


def train_until_proved(spec: Automaton | str, config: TrainConfig, *,
                       budget: Budget | None = None, round_steps: int | None = None,
                       snap: bool = True, extra_fraction: float = 0.25,
                       output: str | None = None,
                       progress: Callable[[RoundRecord], None] | None = None
                       ) -> UntilProvedResult:
    """Train, certify, learn from the counterexamples, until proved or out of budget.

    ``round_steps`` (default ``config.steps``) are the steps of every round after the
    first; ``progress(record)`` is called after every round.  See the module docstring.
    """
    import torch

    from fsmnet.train.convert import to_network
    from fsmnet.train.data import label_traces, task_automaton
    from fsmnet.train.loop import train
    from fsmnet.train.snap import float32_accuracy, prove_snapped

    budget = budget or Budget()
    budget.check()
    round_steps = config.steps if round_steps is None else round_steps
    if round_steps < 1 or config.steps < 1:
        raise FsmnetError("steps per round must be >= 1")
    if not 0.0 <= extra_fraction <= 1.0:
        raise FsmnetError(f"extra_fraction must be in [0, 1] (value: {extra_fraction!r})")
    automaton = task_automaton(spec)
    start, cpu_start = time.perf_counter(), time.process_time()
    rng = np.random.default_rng([config.seed, 3])  # the edits' sample
    pool: list[PoolWord] = []
    records: list[RoundRecord] = []
    module, losses, steps = None, [float("nan")], 0
    net: Network | None = None
    proved: tuple[Network, Any, str | None, dict[str, Any] | None] | None = None
    result: Any = None
    stopped_by = "rounds"
    for r in range(budget.rounds):
        restart = r > 0 and (module is None or _stuck(records))
        if restart:
            module = None
        n = config.steps if module is None else round_steps
        if budget.steps is not None:
            n = min(n, budget.steps - steps)
        t0 = time.perf_counter()
        sampler = WeightedWords(pool, automaton.n_symbols, config.lengths[1],
                                extra_fraction) if pool else None
        try:
            trained = train(automaton, dataclasses.replace(config, steps=n, seed=config.seed + r),
                            extra=sampler, module=module)
        except torch.linalg.LinAlgError:
            # A fixed-point module's I + (Λ⁻¹ − I)Q became exactly singular in float32:
            # these weights are lost, the next round starts from a fresh module.
            records.append(_lost_round(r, n, restart, time.perf_counter() - t0))
            if progress is not None:
                progress(records[-1])
            module, steps = None, steps + n
            continue
        module, losses, steps = trained.module, trained.losses, steps + n
        net = to_network(module, automaton.symbols, automaton.labels, name=automaton.name or "")
        sample = _sample(automaton, config, pool)
        accuracy = float32_accuracy(net, sample, [label_traces(automaton, np.asarray([w]))[0]
                                                  for w in sample])
        snap_record, claim = None, None
        if snap and accuracy >= SNAP_FROM:
            snap_record, result, snapped = prove_snapped(automaton, net, sample, certify_both,
                                                         SNAP_CERTIFIES)
            if snapped is not None and snap_record is not None:
                claim = snap_record["claim"]
                proved = (snapped, result, claim, snap_record)
        if proved is None:
            result, claim = certify_both(automaton, net)
            if result.verdict == "proved":
                proved = (net, result, claim, None)
        added = dict.fromkeys(KINDS, 0)
        cex = result.counterexample
        if cex is not None:
            word = [int(x) for x in automaton.encode(cex.word)]
            pumped, edits = variants(word, automaton.n_symbols, rng)
            pool.append(PoolWord(tuple(word), 1.0, "counterexample", r))
            pool += [PoolWord(tuple(w), 1.0 / len(pumped), "pumped", r) for w in pumped]
            pool += [PoolWord(tuple(w), 1.0 / len(edits), "neighbour", r) for w in edits]
            added = {"counterexample": 1, "pumped": len(pumped), "neighbour": len(edits)}
        record = RoundRecord(
            round=r, steps=n, loss=float(losses[-1]), accuracy=accuracy,
            verdict=result.verdict, method=result.method, claim=claim,
            proved_length=result.proved_length,
            counterexample=None if cex is None else tuple(cex.word), snap=snap_record,
            restarted=restart,
            added=added, drawn=dict(sampler.drawn) if sampler else dict.fromkeys(KINDS, 0),
            seconds=round(time.perf_counter() - t0, 3),
            theorem=result.details.get("theorem"))
        records.append(record)
        if progress is not None:
            progress(record)
        if proved is not None:
            stopped_by = "proved"
            break
        if budget.steps is not None and steps >= budget.steps:
            stopped_by = "steps"
            break
        if budget.seconds is not None and time.perf_counter() - start >= budget.seconds:
            stopped_by = "seconds"
            break
        if (budget.cpu_seconds is not None
                and time.process_time() - cpu_start >= budget.cpu_seconds):
            stopped_by = "cpu_seconds"
            break
    if net is None or result is None:
        raise FsmnetError(f"train until proved: every one of the {len(records)} round(s) "
                          "ended in a singular matrix in training; no network to certify")
    final, claim, snapped_header = net, records[-1].claim, None
    if proved is not None:
        final, result, claim, snap_record = proved
        snapped_header = None if snap_record is None else {
            k: v for k, v in snap_record.items() if k not in ("verdict", "claim")}
    verdict = "proved" if proved is not None else (
        "refuted" if result.verdict == "refuted" else "unknown")
    header = {"training": _training_header(config, steps, float(losses[-1]), round_steps),
              "until_proved": {"verdict": verdict, "claim": claim, "stopped_by": stopped_by,
                               "budget": dataclasses.asdict(budget),
                               "rounds": [x.to_json(seconds=False) for x in records]}}
    if snapped_header is not None:
        header["snapped"] = snapped_header
    final = final.with_options(**header)
    cert_path = None
    if output is not None:
        final, cert_path = _save(automaton, final, output, claim if verdict == "proved" else None)
    return UntilProvedResult(
        verdict=verdict, stopped_by=stopped_by, network=final, module=module,
        rounds=tuple(records), pool=tuple(pool), claim=claim, snapped=snapped_header,
        counterexample=None if verdict == "proved" else result.counterexample,
        proved_length=None if verdict == "proved" else result.proved_length, steps=steps,
        seconds=time.perf_counter() - start, output=output, certificate=cert_path)


def _lost_round(r: int, steps: int, restarted: bool, seconds: float) -> RoundRecord:
    """The record of a round whose training raised on a singular matrix."""
    zero = dict.fromkeys(KINDS, 0)
    return RoundRecord(round=r, steps=steps, loss=math.nan, accuracy=0.0, verdict="unknown",
                       method="singular-in-training", claim=None, proved_length=0,
                       counterexample=None, snap=None, restarted=restarted, added=zero,
                       drawn=dict(zero), seconds=round(seconds, 3))


def _stuck(records: list[RoundRecord]) -> bool:
    """No progress: the last :data:`PATIENCE` rounds since the last fresh start proved no
    longer a length than the best round before them (a refutation proves its
    counterexample's length − 1).  Training that does not move the network off its
    counterexamples (a max-min tie has no gradient, a bad basin keeps its loss) is
    then restarted from a fresh module (seeded by the round: ``config.seed + round``),
    the pool kept."""
    def proved(x: RoundRecord) -> float:
        return math.inf if x.proved_length is None else x.proved_length

    first = max(i for i, x in enumerate(records) if x.restarted or i == 0)
    since = records[first:]
    if len(since) <= PATIENCE:
        return False
    best = max(proved(x) for x in since[:-PATIENCE])
    return all(proved(x) <= best for x in since[-PATIENCE:])


def certificate_path(output: str) -> str:
    """``net.safetensors`` -> ``net.cert.json`` (next to the network)."""
    return os.path.splitext(output)[0] + ".cert.json"


def _save(automaton: Automaton, net: Network, output: str, claim: str | None
          ) -> tuple[Network, str | None]:
    """Save ``net``; for a proof, certify the saved file again with the same claim so
    that the certificate names the file and its SHA-256."""
    from fsmnet.nets import load_network
    from fsmnet.proofs.abstract.certify import certify

    net.save(output)
    saved = load_network(output)
    if claim is None:
        return saved, None
    path = certificate_path(output)
    again = certify(automaton, saved, float32=claim == "float32", certificate=path,
                    network_path=output)
    if again.verdict != "proved" or "certificate" not in again.details:  # a bug, not input
        raise RuntimeError(f"the saved network was not proved again ({again.verdict}, "
                           f"{again.method}): no certificate written")
    return saved, path


def _training_header(config: TrainConfig, steps: int, loss: float, round_steps: int
                     ) -> dict[str, Any]:
    import torch

    return {"arch": config.arch, "hidden": config.hidden, "lengths": list(config.lengths),
            "steps": steps, "round_steps": round_steps, "batch": config.batch,
            "lr": config.lr, "seed": config.seed, "threads": config.threads,
            "device": config.device, "final_loss": loss,
            "options": dict(config.options), "torch": torch.__version__,
            **({"regularizers": dict(config.regularizers)} if config.regularizers else {})}
