"""Conveniences that a lower-layer object offers but an upper layer implements.

``Network.to_torch()`` is such a method: the torch modules live in
:mod:`fsmnet.train`, far above :mod:`fsmnet.nets`, and the layer rule
(docs/architecture.md) forbids nets to import them or to resolve them by name.
So the slot lives here, at the bottom, and the top-level package (which runs
before any submodule of fsmnet) fills it with a function that imports the
upper layer only when called.  The lower layer reads the slot; nothing imports
upward.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["install", "installed"]

_SLOTS: dict[str, Callable[..., Any]] = {}


def install(name: str, function: Callable[..., Any]) -> None:
    """Fill the slot ``name`` (the top-level package does this on import)."""
    _SLOTS[name] = function


def installed(name: str) -> Callable[..., Any]:
    """The function in slot ``name``; a LookupError naming it when it is empty."""
    try:
        return _SLOTS[name]
    except KeyError:
        raise LookupError(f"no function installed for {name!r}: import fsmnet first") from None
