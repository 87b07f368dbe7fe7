"""Training: float32 torch modules for the registry's architectures, a deterministic
training loop, and conversions to and from :class:`~fsmnet.nets.Network`.

The entry point is :func:`train_network` (also ``fsmnet.train_network``): train a
fresh module on an automaton's labels and get the module and its network back.

>>> import fsmnet
>>> result = fsmnet.train_network("parity", "bilinear-full", hidden=2, steps=100,
...                               batch=32, lr=0.05, seed=0)
>>> result.network.arch, len(result.losses)
('bilinear-full', 100)
>>> fsmnet.verify("parity", result.network).verdict in ("proved", "refuted", "unknown")
True

torch is imported only by the submodules and when training starts (``import
fsmnet.train`` stays light).  Modules: :mod:`~fsmnet.train.scan` (parallel scans),
:mod:`~fsmnet.train.modules_linear`, :mod:`~fsmnet.train.modules_block`,
:mod:`~fsmnet.train.modules_minmax`, :mod:`~fsmnet.train.lstm`,
:mod:`~fsmnet.train.convert`, :mod:`~fsmnet.train.data`, :mod:`~fsmnet.train.loop`
(:class:`TrainConfig`, ``train``), :mod:`~fsmnet.train.report` (accuracy against
length, the plot).
"""

from __future__ import annotations

import importlib
import inspect
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from fsmnet.automata import Automaton
from fsmnet.errors import FsmnetError, SpecError
from fsmnet.nets import Network
from fsmnet.train.loop import TrainConfig

__all__ = ["NO_NETWORK_FORM", "TrainConfig", "TrainedNetwork", "train_network"]

# The documented submodules, reachable as ``fsmnet.train.NAME`` on first access (most
# import torch, which ``import fsmnet.train`` does not).
_SUBMODULES = ("benchmark_words", "cascade_parts", "convert", "copying", "data",
               "fp_iteration", "fp_training", "loop", "lstm", "module_base",
               "modules_block", "modules_linear", "modules_minmax", "relax", "report",
               "scan", "snap", "token_deltanet", "until_proved")


def __dir__() -> list[str]:
    """The public names (``__all__``) and the documented submodules."""
    return sorted({*__all__, *_SUBMODULES, "__doc__", "__name__", "__path__", "__file__"})


def _submodule(name: str) -> Any:
    if name in _SUBMODULES:
        return importlib.import_module(f"fsmnet.train.{name}")
    raise AttributeError(f"module 'fsmnet.train' has no attribute {name!r}")


if not TYPE_CHECKING:  # type checkers would read every unknown attribute as Any
    __getattr__ = _submodule

NO_NETWORK_FORM = ("lstm", "minmax-cascade", "minmax-scalar")
"""Training choices whose trained module has no :class:`~fsmnet.nets.Network` form: an
LSTM has no exact semantics in fsmnet, a gated MinMax cascade no lookup controllers
(:mod:`fsmnet.train.modules_minmax`)."""


@dataclass(frozen=True)
class TrainedNetwork:
    """What :func:`train_network` returns.

    Attributes
    ----------
    module
        The trained float32 torch module, on the CPU; ``module(words)`` gives the label
        index after every prefix, ``module.to_network()`` its network.
    automaton
        The automaton whose labels it was trained on (a semiautomaton starts in
        state 0).
    config
        The :class:`TrainConfig` of the run.
    losses
        The training loss after every step.
    seconds
        Wall-clock time of the training loop.
    """

    module: Any = field(repr=False)
    automaton: Automaton
    config: TrainConfig
    losses: list[float] = field(repr=False)
    seconds: float
    _network: Network | None = field(default=None, repr=False)

    @property
    def network(self) -> Network:
        """The trained network (float64 copies of the module's float32 weights, the
        automaton's symbols and labels, ``options["training"]`` the run's settings),
        ready for ``save``, :func:`fsmnet.verify`, :func:`fsmnet.certify` and
        :func:`fsmnet.evaluate`.  :class:`~fsmnet.errors.FsmnetError` for the
        architectures in :data:`NO_NETWORK_FORM`."""
        if self._network is None:
            raise FsmnetError(f"a trained {self.config.arch} has no network form "
                              f"(only {', '.join(NO_NETWORK_FORM)} lack one); its torch "
                              f"module is result.module")
        return self._network


def _whole(name: str, value: Any, least: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < least:
        raise SpecError(f"must be a whole number >= {least}", source="train_network",
                        field=name, value=value)
    return value


def train_network(spec: Automaton | str | Any, arch: str, *, hidden: int = 16,
                  steps: int = 500, seed: int = 0, lengths: tuple[int, int] = (2, 10),
                  batch: int = 64, lr: float = 0.01, threads: int = 1, device: str = "cpu",
                  progress: Callable[[int, float], None] | None = None,
                  weight_decay: float = 0.0, lr_halve_every: int | None = None,
                  **options: Any) -> TrainedNetwork:
    """Train a fresh float32 module of ``arch`` on the labels of ``spec`` and convert it
    to a network (``fsmnet train`` from Python; :func:`fsmnet.train.loop.train` runs
    the loop).

    Deterministic on the CPU given ``seed`` and ``threads``: the data come from
    ``numpy.random.default_rng(seed)``, the weights from ``torch.manual_seed(seed)``.
    The loop sets torch's intra-op threads and ``use_deterministic_algorithms(True)``
    for the whole process.

    Parameters
    ----------
    spec
        Anything :func:`fsmnet.load` accepts (a semiautomaton starts in state 0).
    arch
        A registry id with a trainable module, or a training-only choice
        (``deltanet``, ``deltanet-neg``, ``lstm``):
        :func:`fsmnet.train.convert.train_arch_ids`.
    hidden
        Hidden size.
    steps
        Adam steps, one batch each.
    seed
        Seed of the data and of the initial weights.
    lengths
        Shortest and longest training word; each batch draws one length.
    batch
        Words per batch.
    lr
        Adam's learning rate.
    threads
        torch intra-op threads.
    device
        ``"cpu"`` or a CUDA device (``"cuda"``, ``"cuda:1"``).
    progress
        Called as ``progress(step, loss)`` after every step.
    weight_decay
        Adam's L2 weight decay (0: none).
    lr_halve_every
        Halve the learning rate every this many steps (None: constant).
    **options
        Constructor options of the module: ``rank`` (bilinear-cp), ``blocks``
        (bilinear-block), ``n_h`` (deltaproduct), ``layers`` (minmax-cascade,
        minmax-scalar), ``relax`` (minmax-dense: τ of the straight-through
        gradient, fsmnet.train.relax).

    Returns
    -------
    TrainedNetwork
        ``.module`` (the torch module), ``.network`` (its network; none for the
        choices in :data:`NO_NETWORK_FORM`), ``.losses``, ``.automaton``, ``.config``.

    Raises
    ------
    SpecError
        For a bad ``spec``, an unknown ``arch``, an option the module does not take,
        or a size, count or rate out of range; each names the value.
    """
    from fsmnet.train.convert import module_class, to_network, train_arch_ids
    from fsmnet.train.data import task_automaton

    for name, value, least in (("hidden", hidden, 1), ("steps", steps, 1),
                               ("seed", seed, 0), ("batch", batch, 1), ("threads", threads, 1)):
        _whole(name, value, least)
    if (not isinstance(lengths, (tuple, list)) or len(lengths) != 2
            or not all(isinstance(n, int) and not isinstance(n, bool) for n in lengths)
            or not 1 <= lengths[0] <= lengths[1]):
        raise SpecError("lengths must be (shortest, longest) with 1 <= shortest <= longest",
                        source="train_network", field="lengths", value=lengths)
    if isinstance(lr, bool) or not isinstance(lr, (int, float)) or not (
            lr > 0 and math.isfinite(lr)):
        raise SpecError("the learning rate must be a positive number", source="train_network",
                        field="lr", value=lr)
    if isinstance(weight_decay, bool) or not isinstance(weight_decay, (int, float)) or not (
            0 <= weight_decay < math.inf):
        raise SpecError("the weight decay must be a number >= 0", source="train_network",
                        field="weight_decay", value=weight_decay)
    if lr_halve_every is not None:
        _whole("lr_halve_every", lr_halve_every, 1)
    if not isinstance(device, str) or not (device == "cpu" or device.startswith("cuda")):
        raise SpecError("device must be 'cpu' or a CUDA device ('cuda', 'cuda:1')",
                        source="train_network", field="device", value=device)
    if not isinstance(arch, str) or arch not in train_arch_ids():
        raise SpecError(f"not a training choice; choices: {', '.join(train_arch_ids())}",
                        source="train_network", field="arch", value=arch)
    cls, fixed = module_class(arch)
    # The module's own keyword options, less those the training choice fixes
    # (deltanet is DeltaProduct with n_h = 1: an n_h would make it another model).
    taken = [p.name for p in list(inspect.signature(cls).parameters.values())[3:]
             if p.name not in fixed]
    unknown = sorted(set(options) - set(taken))
    if unknown:
        raise SpecError(f"unsupported option(s) for {arch}: {', '.join(unknown)}; "
                        f"supported: {', '.join(taken) or 'none'}", source="train_network",
                        field="options", value=unknown)
    automaton = task_automaton(spec)  # a bad spec fails here, before any training
    if device != "cpu":
        import torch

        if not torch.cuda.is_available():
            raise FsmnetError(f"device {device!r}: this torch build has no usable CUDA device")
    config = TrainConfig(arch=arch, hidden=hidden, lengths=(int(lengths[0]), int(lengths[1])),
                         steps=steps, batch=batch, lr=float(lr), seed=seed, threads=threads,
                         device=device, options=dict(options),
                         weight_decay=float(weight_decay), lr_halve_every=lr_halve_every)
    from fsmnet.train.loop import train

    result = train(automaton, config, progress)
    network = None
    if arch not in NO_NETWORK_FORM:
        import torch

        settings = {"arch": arch, "hidden": hidden, "lengths": list(config.lengths),
                    "steps": steps, "batch": batch, "lr": config.lr, "seed": seed,
                    "threads": threads, "device": device, "options": dict(options),
                    "final_loss": result.losses[-1], "torch": torch.__version__}
        network = to_network(result.module, automaton.symbols, automaton.labels,
                             name=spec if isinstance(spec, str) else automaton.name or "",
                             options={"training": settings})
    return TrainedNetwork(module=result.module, automaton=automaton, config=config,
                          losses=result.losses, seconds=result.seconds, _network=network)
