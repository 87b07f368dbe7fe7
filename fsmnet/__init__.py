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

The packages import one way only, from ``fsmnet.errors`` and the
architecture registry up to the command line; a test enforces it.  Heavy
dependencies (torch, z3, numba, cupy, dask) are imported when first used.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from fsmnet.automata import Automaton, load
from fsmnet.errors import FsmnetError, NetworkFileError, NotExpressible, SpecError
from fsmnet.types import Backend, ClassVerdict, EvalPath, Outputs, Verdict
from fsmnet.version import __version__

if TYPE_CHECKING:
    from fsmnet.algebra.holonomy import Holonomy
    from fsmnet.decide.expressivity import ExpressivityResult
    from fsmnet.gpu.engine import EvalResult
    from fsmnet.nets import Network
    from fsmnet.proofs.abstract.certify import CertifyResult
    from fsmnet.proofs.verifier import VerifyResult

# ``compile`` is deliberately not in __all__: ``from fsmnet import *`` must not
# shadow the builtin.  Call it as ``fsmnet.compile``.
__all__ = [
    "__version__",
    "Automaton",
    "Backend",
    "ClassVerdict",
    "FsmnetError",
    "NetworkFileError",
    "NotExpressible",
    "Outputs",
    "SpecError",
    "Verdict",
    "certify",
    "decompose",
    "evaluate",
    "expressivity",
    "load",
    "load_network",
    "verify",
]


def compile(automaton: Automaton | str | Any, arch: str, **options: Any) -> Network:  # noqa: A001
    """Compile an automaton (minimized first) into exact weights for ``arch``.

    ``automaton`` is anything :func:`load` accepts; ``arch`` an id of
    :func:`fsmnet.archs.ids`.  Raises :class:`NotExpressible` when the
    architecture cannot express it and :class:`SpecError` for bad input.
    """
    from fsmnet.constructions import compile_automaton

    return compile_automaton(automaton, arch, **options)


def verify(spec: Automaton | str | Any, net: Network, *, max_states: int | None = None,
           certificate: str | None = None, network_path: str | None = None) -> VerifyResult:
    """Prove ``net`` equal to the automaton on every word, or refute it with a
    word confirmed by the exact reference evaluator (:mod:`fsmnet.proofs.verifier`)."""
    from fsmnet.proofs.verifier import verify as _verify

    return _verify(spec, net, max_states=max_states, certificate=certificate,
                   network_path=network_path)


def certify(spec: Automaton | str | Any | None, net: Network, *, float32: bool = False,
            certificate: str | None = None, network_path: str | None = None) -> CertifyResult:
    """Prove a network with infinitely many reachable states (trained, perturbed) equal
    to the automaton for every length, refute it with a confirmed word, or say up to
    which length it is proved (:mod:`fsmnet.proofs.abstract.certify`).  ``spec`` None
    learns the automaton from the network with L* (needs aalpy)."""
    from fsmnet.proofs.abstract.certify import certify as _certify

    return _certify(spec, net, float32=float32, certificate=certificate,
                    network_path=network_path)


def evaluate(model: Automaton | Network, symbols: Sequence[int] | Any, *,
             backend: Backend = "auto", outputs: Outputs = "all", start: Any = None,
             chunk: int | None = None, path: EvalPath = "auto") -> EvalResult:
    """Run an automaton or a network on symbol indices with the scan engine
    (:func:`fsmnet.gpu.engine.evaluate`)."""
    from fsmnet.gpu.engine import evaluate as _evaluate

    return _evaluate(model, symbols, backend=backend, outputs=outputs, start=start,
                     chunk=chunk, path=path)


def decompose(source: Automaton | str | Sequence[Sequence[int]], *,
              symbols: Sequence[str] | None = None) -> Holonomy:
    """The Krohn-Rhodes holonomy decomposition of a semiautomaton
    (:func:`fsmnet.algebra.holonomy.decompose`); a SPEC string is loaded first."""
    from fsmnet.algebra.holonomy import decompose as _decompose

    return _decompose(load(source) if isinstance(source, str) else source, symbols=symbols)


def expressivity(spec: Automaton | str | Any, archs: Sequence[str] | None = None, *,
                 max_states: int | None = None,
                 progress: Callable[[str], None] | None = None) -> list[ExpressivityResult]:
    """A verdict (possible / impossible / unknown) for each architecture class
    (default: every registered one) on the minimal automaton of ``spec``."""
    from fsmnet.decide.expressivity import expressivity as _expressivity

    return _expressivity(spec, archs, max_states=max_states, progress=progress)


def load_network(path: str) -> Network:
    """Load a network saved with ``Network.save`` (safetensors + JSON metadata)."""
    from fsmnet.nets import load_network as _load

    return _load(path)
