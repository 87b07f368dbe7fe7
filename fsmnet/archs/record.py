"""One :class:`Architecture` record: everything fsmnet knows about an architecture id.

A record names its parts by ``"module:attribute"`` strings instead of
importing them, for two reasons:

* the registry sits below every layer (docs/architecture.md), so it cannot
  import the semantics (``fsmnet.nets``), the construction
  (``fsmnet.constructions``) or the kernels (``fsmnet.gpu``) that sit above it;
* a user who only loads a network file should not pay for Z3, torch or Numba.

Each layer resolves only the parts at its own level (or below), with
:func:`resolve`: tests/test_layers.py counts a ``"module:attribute"`` string
outside this package as an import of that module.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any

from fsmnet.errors import FsmnetError
from fsmnet.types import PROOF_METHODS, SCAN_FAMILIES, ProofMethod, ScanFamily


@dataclass(frozen=True, kw_only=True)
class Architecture:
    """An architecture id and the places that give it meaning.

    Attributes
    ----------
    id
        The stable id written into network files (``"bilinear-full"``).
    family
        The family module of :mod:`fsmnet.archs` that defines the record.
    summary
        One line for ``--help``: the recurrence and what it can express.
    semantics
        ``"module:attr"`` of its :class:`~fsmnet.nets.semantics.Semantics` object.
    construction
        ``"module:function"`` of its exact construction (:mod:`fsmnet.constructions`):
        ``build(minimal_automaton, **options) -> Network``.
    theorems
        Ids of the impossibility theorems that bound the class
        (:data:`fsmnet.archs.theorems.THEOREMS`), tried in this order.
    proofs
        Proof methods of :func:`fsmnet.verify` beyond the default, in order.
    certificate_model
        ``"module:function"`` writing the network's exact model for the checker
        (:mod:`fsmnet.proofs.certificate_models`), or ``None`` when the
        architecture has no certificate form yet.
    scan
        Which family of scan kernels runs it (:mod:`fsmnet.gpu`).
    product_budget
        A cap on the exact product exploration before the next method is tried
        (``None``: the caller's budget), for classes whose exact states rarely close.
    trainable
        ``"module:class"`` of its float32 torch module, or ``None`` (training).
    trained_to_network
        Whether a trained module converts back to a network of this id (False for
        the gated MinMax cascades, which train without lookup controllers;
        :mod:`fsmnet.train.modules_minmax`).
    abstract_transformer
        ``"module:function"`` of its abstract step for invariant proofs, or ``None``.
    one_hot_tensor
        Whether the construction writes one-hot k×n×n transition tensors over the
        minimal automaton's n states, so that ``fsmnet compile`` knows the file size
        (8·k·n² bytes) before anything is built.
    construction_progress
        ``"module:function"`` of a context manager ``reporting(update)`` within which
        the construction calls ``update(spent, total)`` on a step budget (``fsmnet
        compile`` draws a progress bar from it), or ``None``.
    belief_construction
        ``"module:function"`` compiling a PFSA-SR (:class:`fsmnet.automata.pfsa.PFSA`)
        into a network that tracks its belief, ``build(pfsa) -> Network``, or ``None``
        when the architecture takes no PFSA-SR (docs/pfsa.md).
    """

    id: str
    family: str
    summary: str
    semantics: str
    construction: str
    theorems: tuple[str, ...] = ()
    proofs: tuple[ProofMethod, ...] = ("exact-product",)
    certificate_model: str | None = None
    scan: ScanFamily = "reference"
    product_budget: int | None = None
    trainable: str | None = None
    trained_to_network: bool = True
    abstract_transformer: str | None = None
    one_hot_tensor: bool = False
    construction_progress: str | None = None
    belief_construction: str | None = None

    def __post_init__(self) -> None:
        problems = []
        if not self.id or self.id != self.id.strip().lower() or " " in self.id:
            problems.append(f"id must be a lower-case word (value: {self.id!r})")
        for name in ("semantics", "construction", "certificate_model", "trainable",
                     "abstract_transformer", "construction_progress", "belief_construction"):
            ref = getattr(self, name)
            module, _, attr = (ref or "").partition(":")
            if ref is not None and not (module and attr.isidentifier()
                                        and all(p.isidentifier() for p in module.split("."))):
                problems.append(f"{name} must be 'module:attribute' (value: {ref!r})")
        for name in ("trained_to_network", "one_hot_tensor"):
            if not isinstance(getattr(self, name), bool):
                problems.append(f"{name} must be True or False (value: {getattr(self, name)!r})")
        if not self.trained_to_network and self.trainable is None:
            problems.append("trained_to_network=False needs a trainable module")
        if self.scan not in SCAN_FAMILIES:
            problems.append(f"scan must be one of {SCAN_FAMILIES} (value: {self.scan!r})")
        bad = [p for p in self.proofs if p not in PROOF_METHODS]
        if bad or not self.proofs or self.proofs[0] != "exact-product":
            problems.append(f"proofs must start with 'exact-product' and use {PROOF_METHODS} "
                            f"(value: {self.proofs!r})")
        if problems:
            raise FsmnetError(f"architecture record {self.id!r}: " + "; ".join(problems))


def resolve(ref: str) -> Any:
    """The object a ``"module:attribute"`` reference names (imported on first use)."""
    module_name, _, attr = ref.partition(":")
    module = importlib.import_module(module_name)
    try:
        return getattr(module, attr)
    except AttributeError:
        raise FsmnetError(f"architecture registry: {module_name} has no {attr!r}") from None
