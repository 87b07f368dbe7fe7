"""The training loop: Adam on the cross-entropy of every prefix's label.

Deterministic on the CPU given the seed and the thread count: the data come
from ``numpy.random.default_rng(seed)``, the initial weights from
``torch.manual_seed(seed)``, torch runs with ``use_deterministic_algorithms``
and a fixed number of intra-op threads, so two runs give the same bytes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from fsmnet.automata import Automaton
from fsmnet.train.convert import build
from fsmnet.train.data import batch, label_traces, task_automaton


@dataclass
class TrainConfig:
    arch: str
    hidden: int = 16
    lengths: tuple[int, int] = (2, 10)
    steps: int = 500
    batch: int = 64
    lr: float = 0.01
    seed: int = 0
    threads: int = 1
    device: str = "cpu"
    options: dict[str, Any] = field(default_factory=dict)
    # Weights of the regularizers of fsmnet.train.losses (keys REGULARIZERS): margin,
    # moduli, contraction (0 or absent = off) and margin_target.  Empty: plain
    # cross-entropy, the same bytes as before they existed.
    regularizers: dict[str, float] = field(default_factory=dict)
    # Adam's L2 weight decay, and a step schedule that halves the learning rate every
    # ``lr_halve_every`` steps (None: constant); the MinMax paper's recipe is 1e-4 and
    # a halving every 5 epochs.  The defaults leave the optimizer as it always was.
    weight_decay: float = 0.0
    lr_halve_every: int | None = None


class ExtraWords(Protocol):
    """More training words besides the uniform ones (``train(..., extra=...)``): on a
    step where ``rng.random() < fraction`` the batch is ``sample(rng, size)`` instead,
    a (B, T) array of symbol ids, labelled by the automaton like every batch."""

    fraction: float

    def sample(self, rng: np.random.Generator, size: int) -> np.ndarray: ...


@dataclass
class TrainResult:
    module: Any
    automaton: Automaton
    losses: list[float]
    seconds: float
    tokens: int


def step_loss(module: Any, words: Any, labels: Any) -> Any:
    """Mean cross-entropy of every prefix's label: the module's own fused ``loss`` where it
    has one (the same function, fewer passes: docs/training.md, "Fast paths"), else
    torch's cross-entropy of its logits."""
    import torch

    if hasattr(module, "loss"):
        return module.loss(words, labels)
    logits = module.logits(words)
    return torch.nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]),
                                             labels.reshape(-1))


def train(spec: Automaton | str, config: TrainConfig,
          progress: Callable[[int, float], None] | None = None, *,
          extra: ExtraWords | None = None, module: Any = None) -> TrainResult:
    """Train a fresh module of ``config.arch`` on the automaton's labels.

    ``progress(step, loss)`` is called after every step (for a progress bar).
    ``module`` continues training that module (a fresh optimizer) instead of a new
    one; ``extra`` mixes in batches of other words (:class:`ExtraWords`).  Without
    them the draws are those of a plain run, so its files stay byte for byte the same.
    ``config.regularizers`` adds :func:`fsmnet.train.losses.regularization` to every
    step's loss (the recorded loss is the sum).
    """
    import time

    import torch

    from fsmnet.train.losses import check_regularizers, regularization

    weights = check_regularizers(config.regularizers) if config.regularizers else {}
    automaton = task_automaton(spec)
    torch.set_num_threads(max(1, int(config.threads)))
    torch.use_deterministic_algorithms(True)
    torch.manual_seed(config.seed)
    rng = np.random.default_rng(config.seed)
    device = torch.device(config.device)
    if module is None:
        module = build(config.arch, automaton.n_symbols, len(automaton.labels), config.hidden,
                       **config.options)
    module = module.to(device)
    opt = torch.optim.Adam(module.parameters(), lr=config.lr,
                           weight_decay=config.weight_decay)
    halve = (torch.optim.lr_scheduler.StepLR(opt, config.lr_halve_every, gamma=0.5)
             if config.lr_halve_every else None)
    lo, hi = config.lengths
    losses: list[float] = []
    tokens = 0
    start = time.perf_counter()
    for step in range(config.steps):
        if extra is not None and rng.random() < extra.fraction:
            words = extra.sample(rng, config.batch)
            labels = label_traces(automaton, words)
        else:
            length = int(rng.integers(lo, hi + 1))
            words, labels = batch(automaton, rng, config.batch, length)
        w = torch.tensor(words, device=device)
        y = torch.tensor(labels, device=device)
        loss = step_loss(module, w, y)
        if weights:
            loss = loss + regularization(module, w, y, weights)
        opt.zero_grad()
        loss.backward()
        # Products of many matrices make rare huge gradients; clipping keeps Adam sane.
        torch.nn.utils.clip_grad_norm_(module.parameters(), 1.0)
        opt.step()
        if halve is not None:
            halve.step()
        value = float(loss.detach())
        losses.append(value)
        tokens += words.size
        if progress is not None:
            progress(step, value)
    return TrainResult(module=module.cpu(), automaton=automaton, losses=losses,
                       seconds=time.perf_counter() - start, tokens=tokens)
