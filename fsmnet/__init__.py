"""fsmnet: a formal-methods toolkit for recurrent networks and finite automata.

The layers import one way only (DESIGN.md §1):
automata <- algebra <- nets <- compile <- verify / gpu <- cli.
Heavy dependencies (torch, z3, numba, cupy, dask) are imported lazily.
"""

from __future__ import annotations

from typing import Any

from fsmnet import compile  # noqa: A004 - callable package: fsmnet.compile(automaton, arch)
from fsmnet.automata import Automaton, load
from fsmnet.errors import FsmnetError, NetworkFileError, NotExpressible, SpecError

__version__ = "0.1.0"

__all__ = [
    "Automaton",
    "FsmnetError",
    "NetworkFileError",
    "NotExpressible",
    "SpecError",
    "compile",
    "load",
    "load_network",
]


def load_network(path: str) -> Any:
    """Load a network saved with ``Network.save`` (safetensors + JSON metadata)."""
    from fsmnet.nets import load_network as _load

    return _load(path)
