"""fsmnet: a formal-methods toolkit for recurrent networks and finite automata.

The public API is this module's functions; each hands over to one stage
(docs/architecture.md):

>>> import fsmnet
>>> automaton = fsmnet.load("modadd:3")
>>> net = fsmnet.compile(automaton, "bilinear-full")
>>> fsmnet.verify(automaton, net).verdict
'proved'
>>> int(fsmnet.evaluate(net, [1, 2, 2], backend="numpy").outputs[-1])
2

**Argument order.**  Every function that takes an automaton and a network takes
the automaton first, ``(spec, net)``, by position or by keyword (``spec=``,
``net=``): :func:`verify`, :func:`certify`, :func:`fsmnet.testing.fuzz.fuzz`.
The command line follows it (``fsmnet verify SPEC NET``, ``fsmnet fuzz SPEC
NET``) except ``fsmnet certify NET [SPEC]``, whose SPEC may be left out (then
learned from the network).

The packages import one way only, from ``fsmnet.errors`` and the
architecture registry up to the command line; a test enforces it.  Heavy
dependencies (torch, z3, numba, cupy, dask) are imported when first used; so
are the result classes and the subpackages named here (``fsmnet.Network``,
``fsmnet.train``), on first access.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from fsmnet import plugins as _plugins
from fsmnet.automata import Automaton
from fsmnet.automata import load as _load_automaton
from fsmnet.errors import FsmnetError, NetworkFileError, NotExpressible, SpecError
from fsmnet.types import Backend, ClassVerdict, EvalPath, Outputs, Verdict
from fsmnet.version import __version__

if TYPE_CHECKING:
    from fsmnet.algebra.holonomy import Holonomy
    from fsmnet.automata.pfsa import PFSA
    from fsmnet.decide.expressivity import ExpressivityResult
    from fsmnet.gpu.engine import EvalResult
    from fsmnet.nets import Network
    from fsmnet.proofs.abstract.certify import CertifyResult
    from fsmnet.proofs.verifier import VerifyResult
    from fsmnet.train import TrainedNetwork

# ``compile`` is deliberately not in __all__: ``from fsmnet import *`` must not
# shadow the builtin.  Call it as ``fsmnet.compile``.
__all__ = [
    "__version__",
    "Automaton",
    "Backend",
    "CertifyResult",
    "ClassVerdict",
    "EvalResult",
    "ExpressivityResult",
    "FsmnetError",
    "Holonomy",
    "Network",
    "NetworkFileError",
    "NotExpressible",
    "Outputs",
    "SpecError",
    "TrainedNetwork",
    "Verdict",
    "VerifyResult",
    "certify",
    "decompose",
    "evaluate",
    "expressivity",
    "load",
    "load_network",
    "to_torch",
    "train_network",
    "verify",
]

# The result classes live with their stages and are imported on first access, so
# that ``import fsmnet`` loads only the automata layer.
_LAZY_CLASSES = {
    "CertifyResult": "fsmnet.proofs.abstract.certify",
    "EvalResult": "fsmnet.gpu.engine",
    "ExpressivityResult": "fsmnet.decide.expressivity",
    "Holonomy": "fsmnet.algebra.holonomy",
    "Network": "fsmnet.nets",
    "TrainedNetwork": "fsmnet.train",
    "VerifyResult": "fsmnet.proofs.verifier",
}
# Public subpackages, reachable as ``fsmnet.NAME`` without importing them first.
_SUBPACKAGES = ("algebra", "archs", "automata", "constructions", "decide", "errors", "gpu",
                "io", "nets", "proofs", "testing", "train")
# Other names of subpackages: the scan engine runs on CPUs by default, so
# ``fsmnet.scan`` is its name in the vocabulary (docs/architecture.md).
_SUBPACKAGE_ALIASES = {"scan": "gpu"}


def _lazy_attribute(name: str) -> Any:
    if name in _LAZY_CLASSES:
        value = getattr(importlib.import_module(_LAZY_CLASSES[name]), name)
        globals()[name] = value  # once: later lookups do not come back here
        return value
    if name in _SUBPACKAGES:
        return importlib.import_module(f"fsmnet.{name}")
    if name in _SUBPACKAGE_ALIASES:
        return importlib.import_module(f"fsmnet.{_SUBPACKAGE_ALIASES[name]}")
    raise AttributeError(f"module 'fsmnet' has no attribute {name!r}")


def __dir__() -> list[str]:
    """The public API (``__all__``, ``compile``, the subpackages) and module dunders."""
    dunders = [n for n in globals() if n.startswith("__") and n.endswith("__")
               and n not in ("__builtins__", "__dir__", "__getattr__")]
    return sorted({*__all__, "compile", *_SUBPACKAGES, *_SUBPACKAGE_ALIASES, *dunders})


if not TYPE_CHECKING:
    # Hidden from type checkers, which would otherwise read every unknown attribute
    # of fsmnet as Any; they see the names above through the TYPE_CHECKING imports.
    __getattr__ = _lazy_attribute


def _spec_first(function: str, spec: Any, net: Any) -> None:
    """A clear TypeError where the arguments come NET first (the order of ``fsmnet
    certify NET [SPEC]`` on the command line) or ``net`` is not a network."""
    from fsmnet.nets import Network

    if isinstance(net, Network):
        return
    if isinstance(spec, Network):
        raise TypeError(f"fsmnet.{function}(spec, net) takes the automaton first; it was "
                        f"given the network first and {type(net).__name__} {net!r:.60} as net")
    raise TypeError(f"fsmnet.{function}: net must be a Network (load a file with "
                    f"fsmnet.load_network(path)), got {type(net).__name__} {net!r:.60}")


def load(spec: Automaton | PFSA | str | Any) -> Automaton | PFSA:
    """The model a SPEC describes: an :class:`Automaton`, or a PFSA-SR for a spec of
    ``kind: pfsa-sr`` or a PFSA-SR family (``"pcups:3"``; docs/pfsa.md).

    ``spec`` is an :class:`Automaton` or a PFSA (returned as is), a dict in the
    spec-file form, a spec file (JSON or YAML, ``"-"`` for standard input), a
    built-in family string (``"modadd:5"``), an automata-lib ``DFA``/``NFA`` or an
    AALpy ``Dfa``/``MooreMachine`` (:func:`fsmnet.automata.load`, which takes
    automata only).  Raises :class:`SpecError` with the file, field and value at
    fault.
    """
    from fsmnet.automata.pfsa_spec import is_pfsa_spec, load_pfsa

    if is_pfsa_spec(spec):  # a probabilistic model, not an automaton: docs/pfsa.md
        return load_pfsa(spec)
    return _load_automaton(spec)


def compile(spec: Automaton | PFSA | str | Any = None, arch: str | None = None,  # noqa: A001
            **options: Any) -> Network:
    """Compile an automaton (minimized first) into exact weights for ``arch``, or a
    PFSA-SR into the network that tracks its belief.

    ``spec`` is anything :func:`load` accepts (``automaton=`` is a deprecated
    spelling); ``arch`` an id of :func:`fsmnet.archs.ids` (for a PFSA-SR, one of
    :func:`fsmnet.archs.belief_ids`, with no options).  Raises
    :class:`NotExpressible` when the architecture cannot express the automaton,
    :class:`SpecError` for bad input, and :class:`FsmnetError` for an architecture
    that takes no PFSA-SR.
    """
    from fsmnet.automata.pfsa_spec import is_pfsa_spec

    spec = _renamed("compile", "automaton", "spec", options, spec)
    if spec is None or arch is None:
        raise TypeError("fsmnet.compile(spec, arch) needs a spec and an architecture id")
    if is_pfsa_spec(spec):
        from fsmnet import archs
        from fsmnet.automata.pfsa_spec import load_pfsa

        build = archs.resolve(archs.belief_construction(arch, context="fsmnet.compile"))
        if options:
            raise SpecError("the PFSA-SR construction takes no options", source="<compile>",
                            field="options", value=sorted(options))
        net: Network = build(load_pfsa(spec))
        return net
    from fsmnet.constructions import compile_automaton

    return compile_automaton(spec, arch, **options)


def _renamed(function: str, old: str, new: str, keywords: dict[str, Any], value: Any) -> Any:
    """The value of a parameter whose name changed (docs/architecture.md, "Vocabulary"):
    the old keyword still works, with a DeprecationWarning; both at once is an error."""
    if old not in keywords:
        return value
    if value is not None:
        raise TypeError(f"fsmnet.{function}: give {new}= or the deprecated {old}=, not both")
    import warnings

    warnings.warn(f"fsmnet.{function}({old}=...) is deprecated; use {new}=",
                  DeprecationWarning, stacklevel=3)
    return keywords.pop(old)


def verify(spec: Automaton | str | Any, net: Network, *, max_states: int | None = None,
           certificate: str | None = None, network_path: str | None = None) -> VerifyResult:
    """Prove ``net`` equal to the automaton on every word of every length, or refute it
    with a word confirmed by the exact reference evaluator
    (:func:`fsmnet.proofs.verifier.verify`, which lists the methods in order).

    Parameters
    ----------
    spec
        The automaton: anything :func:`load` accepts (an :class:`Automaton`, a SPEC
        string such as ``"modadd:5"``, a spec file, an automata-lib or AALpy
        object).  It needs an initial state and outputs, and the network's alphabet.
    net
        The network (:func:`compile`, :func:`load_network`, a trained module's
        ``to_network()``).
    max_states
        Budget of distinct exact network states for the product exploration;
        default :func:`fsmnet.proofs.verifier.default_max_states` (20,000, or twice
        the hidden states a MinMax compiler recorded).
    certificate
        Where to write a JSON proof certificate when the verdict is "proved"
        (``fsmnet check`` re-verifies it); ``"-"`` is standard output.
    network_path
        The network's file, whose SHA-256 the certificate records.

    Returns
    -------
    VerifyResult
        ``verdict``: ``"proved"``, ``"refuted"`` or ``"unknown"``; ``method``: the
        method that decided; ``counterexample`` (``word``, ``expected``, ``got``) for
        "refuted"; ``details`` (``pairs``, ``network_states``, ``certificate``,
        ``note``, ...).  ``to_json()`` is the ``fsmnet verify --json`` object.

    Raises
    ------
    SpecError
        For a bad spec, a semiautomaton, different alphabets, or a bad budget.
    TypeError
        When ``net`` is not a :class:`Network` (for instance the arguments in NET,
        SPEC order).
    """
    _spec_first("verify", spec, net)
    from fsmnet.proofs.verifier import verify as _verify

    return _verify(spec, net, max_states=max_states, certificate=certificate,
                   network_path=network_path)


def certify(spec: Automaton | str | Any | None, net: Network, *, float32: bool = False,
            certificate: str | None = None, network_path: str | None = None) -> CertifyResult:
    """Prove a network with infinitely many reachable states (trained, perturbed) equal
    to the automaton for every length, refute it with a confirmed word, or say up to
    which length it is proved (:func:`fsmnet.proofs.abstract.certify.certify`).

    The automaton comes first, as in :func:`verify`; on the command line the order
    is ``fsmnet certify NET [SPEC]``, because SPEC may be left out there.

    Parameters
    ----------
    spec
        The automaton (anything :func:`load` accepts), or None to learn it from the
        network with L* (needs aalpy).
    net
        The network.
    float32
        Prove the claim about the network run in float32 (the reference step of
        docs/formats.md) rather than in exact arithmetic.
    certificate
        Where to write a JSON proof certificate when the verdict is "proved".
    network_path
        The network's file, whose SHA-256 the certificate records.

    Returns
    -------
    CertifyResult
        ``verdict``, ``method``, ``counterexample``, ``proved_length`` (None for
        "proved"), ``domain``; ``to_json()`` is the ``fsmnet certify --json`` object.

    Raises
    ------
    SpecError
        For a bad spec or different alphabets.
    TypeError
        When ``net`` is not a :class:`Network` (for instance NET, SPEC order).
    """
    _spec_first("certify", spec, net)
    from fsmnet.proofs.abstract.certify import certify as _certify

    return _certify(spec, net, float32=float32, certificate=certificate,
                    network_path=network_path)


def evaluate(model: Automaton | Network, word: Sequence[int] | Any = None, *,
             backend: Backend = "auto", outputs: Outputs = "all", start: Any = None,
             chunk: int | None = None, path: EvalPath = "auto", **renamed: Any) -> EvalResult:
    """Run an automaton or a network on a word given as symbol indices (an integer
    array; ``symbols=`` is a deprecated spelling) with the scan engine
    (:func:`fsmnet.gpu.engine.evaluate`)."""
    from fsmnet.gpu.engine import evaluate as _evaluate

    word = _renamed("evaluate", "symbols", "word", renamed, word)
    if renamed:
        raise TypeError(f"fsmnet.evaluate: unexpected keyword {sorted(renamed)[0]!r}")
    if word is None:
        raise TypeError("fsmnet.evaluate(model, word) needs a word (symbol indices)")
    return _evaluate(model, word, backend=backend, outputs=outputs, start=start,
                     chunk=chunk, path=path)


def decompose(spec: Automaton | str | Sequence[Sequence[int]] | None = None, *,
              symbols: Sequence[str] | None = None, **renamed: Any) -> Holonomy:
    """The Krohn-Rhodes holonomy decomposition of a semiautomaton
    (:func:`fsmnet.algebra.holonomy.decompose`): ``spec`` is an automaton, a SPEC
    string (loaded first) or a list of transformations; ``source=`` is a deprecated
    spelling; ``symbols`` names the letters."""
    from fsmnet.algebra.holonomy import decompose as _decompose

    spec = _renamed("decompose", "source", "spec", renamed, spec)
    if renamed:
        raise TypeError(f"fsmnet.decompose: unexpected keyword {sorted(renamed)[0]!r}")
    if spec is None:
        raise TypeError("fsmnet.decompose(spec) needs an automaton or a spec")
    return _decompose(_load_automaton(spec) if isinstance(spec, str) else spec,
                      symbols=symbols)


def expressivity(spec: Automaton | str | Any, archs: Sequence[str] | None = None, *,
                 max_states: int | None = None,
                 progress: Callable[[str], None] | None = None) -> list[ExpressivityResult]:
    """A verdict (possible / impossible / unknown) for each architecture class
    (default: every registered one) on the minimal automaton of ``spec``."""
    from fsmnet.decide.expressivity import expressivity as _expressivity

    return _expressivity(spec, archs, max_states=max_states, progress=progress)


def to_torch(net: Network) -> Any:
    """The architecture's float32 torch module loaded with ``net``'s weights; its
    labels are the network's float32 reference execution
    (:func:`fsmnet.train.convert.to_torch`, which this calls; needs torch)."""
    from fsmnet.train.convert import to_torch as _to_torch

    return _to_torch(net)


_plugins.install("to_torch", to_torch)  # Network.to_torch(), the deprecated alias


def load_network(path: str) -> Network:
    """Load a network saved with ``Network.save`` (safetensors + JSON metadata)."""
    from fsmnet.nets import load_network as _load

    return _load(path)


def train_network(spec: Automaton | str | Any, arch: str, *, hidden: int = 16,
                  steps: int = 500, seed: int = 0, lengths: tuple[int, int] = (2, 10),
                  batch: int = 64, lr: float = 0.01, threads: int = 1, device: str = "cpu",
                  progress: Callable[[int, float], None] | None = None,
                  weight_decay: float = 0.0, lr_halve_every: int | None = None,
                  **options: Any) -> TrainedNetwork:
    """Train a float32 torch module of ``arch`` on the labels of ``spec`` and convert it
    to a network: ``fsmnet train`` from Python (:func:`fsmnet.train.train_network`,
    where every parameter is described).

    ``result.module`` is the trained module, ``result.network`` its network (ready
    for :func:`verify` and :func:`certify`), ``result.losses`` the loss of every
    step.  Not ``fsmnet.train(...)``: ``fsmnet.train`` is the training subpackage,
    and importing it would rebind a function of that name.
    """
    from fsmnet.train import train_network as _train_network

    return _train_network(spec, arch, hidden=hidden, steps=steps, seed=seed, lengths=lengths,
                          batch=batch, lr=lr, threads=threads, device=device,
                          progress=progress, weight_decay=weight_decay,
                          lr_halve_every=lr_halve_every, **options)
