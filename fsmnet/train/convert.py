"""Between trainable torch modules and :class:`~fsmnet.nets.Network` objects.

* :func:`build` — a fresh module for an architecture id: a registry id
  (resolved through the record's ``trainable`` reference) or one of the extra
  training-only choices :data:`EXTRA_ARCHS` (DeltaNet variants, LSTM).
* :func:`from_network` — a module holding a network's weights, in float32;
  :func:`to_torch` — the same, tied to the network so that its labels are the
  network's float32 reference execution (the torch export of a network).
* :func:`to_network` — the network of a trained module, so it can be saved,
  run by the scan engine and verified (also ``module.to_network()``).  An LSTM
  has no network form; a trained MinMax cascade neither (see
  :mod:`fsmnet.train.modules_minmax`).

>>> import fsmnet
>>> net = fsmnet.compile("parity", "bilinear-full")
>>> module = from_network(net)
>>> back = to_network(module, net.symbols, net.labels, name="parity")
>>> back.arch
'bilinear-full'
>>> module.to_network().symbols, module.to_network().labels  # the default names
(('0', '1'), (0, 1))
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping, Sequence
from typing import Any

from fsmnet import archs
from fsmnet.errors import FsmnetError, SpecError
from fsmnet.nets import Network

# Training-only choices: (module reference, constructor options).  DeltaNet is
# DeltaProduct with one Householder factor, so it saves as a deltaproduct network.
EXTRA_ARCHS: dict[str, tuple[str, dict[str, Any]]] = {
    "deltanet": ("fsmnet.train.modules_linear:DeltaProduct", {"n_h": 1, "beta_max": 1.0}),
    "deltanet-neg": ("fsmnet.train.modules_linear:DeltaProduct", {"n_h": 1, "beta_max": 2.0}),
    "lstm": ("fsmnet.train.lstm:LSTMBaseline", {}),
}


def train_arch_ids() -> tuple[str, ...]:
    """Every choice of ``fsmnet train --arch``: registry ids with a module, then extras."""
    return tuple(r.id for r in archs.records() if r.trainable) + tuple(EXTRA_ARCHS)


def module_class(arch: str) -> tuple[Any, dict[str, Any]]:
    """The module class of ``arch`` and its default constructor options."""
    if arch in EXTRA_ARCHS:
        ref, defaults = EXTRA_ARCHS[arch]
        return archs.resolve(ref), dict(defaults)
    record = archs.get(arch, field="arch")
    if record.trainable is None:
        raise FsmnetError(f"architecture {arch!r} has no trainable module")
    return archs.resolve(record.trainable), {}


def free_options(arch: str) -> frozenset[str]:
    """The constructor keywords of ``arch``'s module that the choice leaves to the caller
    (``rank`` of bilinear-cp; ``n_h`` of deltaproduct, not of deltanet, which fixes it)."""
    cls, defaults = module_class(arch)
    return frozenset(name for name, p in list(inspect.signature(cls).parameters.items())[3:]
                     if p.default is not p.empty and name not in defaults)


def has_network_form(arch: str) -> bool:
    """Whether a trained module of ``arch`` converts to a network (:func:`to_network`):
    the registry's ``trained_to_network``, or for a training-only choice whether its
    module has ``to_params``."""
    if arch in EXTRA_ARCHS:
        return hasattr(module_class(arch)[0], "to_params")
    return archs.get(arch, field="arch").trained_to_network


def build(arch: str, n_symbols: int, n_labels: int, hidden: int, **options: Any) -> Any:
    """A freshly initialized module (draws from torch's global generator)."""
    cls, defaults = module_class(arch)
    defaults.update({k: v for k, v in options.items() if v is not None})
    return cls(n_symbols, n_labels, hidden, **defaults)


def from_network(net: Network) -> Any:
    """A float32 torch module with the network's weights (``forward``: label trace)."""
    cls, _ = module_class(net.arch)
    module = cls.from_params(net.params, len(net.symbols), len(net.labels))
    if getattr(module, "arch", None) != net.arch:
        # A module shared by several ids (a compiled cascade's port reads its record off
        # its units) takes the network's.
        module.arch = net.arch
    return module


def to_torch(net: Network) -> Any:
    """The architecture's float32 training module (the registry's ``trainable``) loaded
    with the network's weights: ``module(words)`` gives the label index after every
    prefix in the float32 reference execution (:mod:`fsmnet.nets.float32`, −1 where
    it overflows), ``module.logits(words)`` the per-position logits.

    The module is tied to ``net`` (:func:`fsmnet.train.infer.adopt_network`): until
    its weights change, its labels are the network's own float32 run, whose matrices
    are the float32 roundings of the file's float64 weights, not of the module's
    float32 copies of them.  A :class:`~fsmnet.errors.FsmnetError` for an
    architecture with no torch module.

    >>> import fsmnet, torch
    >>> net = fsmnet.compile("parity", "bilinear-full")
    >>> to_torch(net)(torch.tensor([[1, 1, 0, 1]])).tolist()  # label indices
    [[1, 0, 1, 1, 0]]
    >>> net.label_trace([1, 1, 0, 1]).tolist()
    [1, 0, 1, 1, 0]
    """
    from fsmnet.train.infer import adopt_network

    if archs.get(net.arch).trainable is None:
        raise FsmnetError(f"torch export is not available for {net.arch}")
    return adopt_network(from_network(net), net)


def to_network(module: Any, symbols: Sequence[str] | None = None,
               labels: Sequence[Any] | None = None, *, name: str = "",
               options: Mapping[str, Any] | None = None) -> Network:
    """The :class:`Network` computing what ``module`` computes (float64 copies of its
    float32 weights).

    ``symbols`` (one name per symbol index) default to ``"0" .. "k-1"`` and
    ``labels`` (one per readout row) to ``0 .. C-1``; give the automaton's to
    verify the network against it.  A count that does not match the module is a
    :class:`~fsmnet.errors.SpecError` naming the value; a module with no network
    form (LSTM, trained MinMax cascade) a :class:`~fsmnet.errors.FsmnetError`.
    """
    to_params = getattr(module, "to_params", None)
    if to_params is None:
        raise FsmnetError(f"a trained {getattr(module, 'arch', type(module).__name__)} has no "
                          f"network form (it is a training baseline only)")
    n_symbols, n_labels = int(module.n_symbols), int(module.n_labels)
    symbols = [str(i) for i in range(n_symbols)] if symbols is None else list(symbols)
    labels = list(range(n_labels)) if labels is None else list(labels)
    for field, given, want in (("symbols", symbols, n_symbols), ("labels", labels, n_labels)):
        if len(given) != want:
            raise SpecError(f"the module has {want} {field}, {len(given)} names were given",
                            source="to_network", field=field, value=given)
    return Network(arch=module.arch, params=to_params(), symbols=symbols, labels=labels,
                   options=dict(options or {}), name=name)
