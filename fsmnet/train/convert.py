"""Between trainable torch modules and :class:`~fsmnet.nets.Network` objects.

* :func:`build` — a fresh module for an architecture id: a registry id
  (resolved through the record's ``trainable`` reference) or one of the extra
  training-only choices :data:`EXTRA_ARCHS` (DeltaNet variants, LSTM).
* :func:`from_network` — a module holding a network's weights, in float32
  (what ``Network.to_torch()`` returns).
* :func:`to_network` — the network of a trained module, so it can be saved,
  run by the scan engine and verified.  An LSTM has no network form; a trained
  MinMax cascade neither (see :mod:`fsmnet.train.modules_minmax`).

>>> import fsmnet
>>> net = fsmnet.compile("parity", "bilinear-full")
>>> module = from_network(net)
>>> back = to_network(module, net.symbols, net.labels, name="parity")
>>> back.arch
'bilinear-full'
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from fsmnet import archs
from fsmnet.errors import FsmnetError
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


def build(arch: str, n_symbols: int, n_labels: int, hidden: int, **options: Any) -> Any:
    """A freshly initialized module (draws from torch's global generator)."""
    cls, defaults = module_class(arch)
    defaults.update({k: v for k, v in options.items() if v is not None})
    return cls(n_symbols, n_labels, hidden, **defaults)


def from_network(net: Network) -> Any:
    """A float32 torch module with the network's weights (``forward``: label trace)."""
    cls, _ = module_class(net.arch)
    return cls.from_params(net.params, len(net.symbols), len(net.labels))


def to_network(module: Any, symbols: Sequence[str], labels: Sequence[Any], *,
               name: str = "", options: Mapping[str, Any] | None = None) -> Network:
    """The :class:`Network` computing what ``module`` computes (float64 copies of its
    float32 weights)."""
    to_params = getattr(module, "to_params", None)
    if to_params is None:
        raise FsmnetError(f"a trained {getattr(module, 'arch', type(module).__name__)} has no "
                          f"network form (it is a training baseline only)")
    return Network(arch=module.arch, params=to_params(), symbols=symbols, labels=labels,
                   options=dict(options or {}), name=name)
