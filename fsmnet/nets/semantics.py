"""The per-architecture semantics protocol and the registry of architectures.

A :class:`~fsmnet.nets.network.Network` is just named arrays plus metadata;
what those arrays *mean* lives in exactly one place per architecture: a
``Semantics`` object with the step, the readout, and parameter validation.
The registry maps each stable architecture id (DESIGN.md §4) to the module
that defines its semantics, imported only when first used.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from fsmnet.errors import NetworkFileError

if TYPE_CHECKING:
    from fsmnet.nets.network import Network


class Semantics(Protocol):
    """What an architecture's parameters mean.

    ``state`` is whatever the architecture needs: a float64 vector, an object
    array of :class:`fractions.Fraction` when ``exact`` is true, a tuple of
    unit states for a cascade, ...
    """

    arch: str

    def validate(self, params: Mapping[str, np.ndarray], n_symbols: int, n_labels: int,
                 source: str) -> None:
        """Raise :class:`NetworkFileError` naming ``source``, the tensor and the value
        when a tensor is missing, has a wrong shape or dtype, or holds NaN/inf."""

    def hidden_size(self, net: Network) -> int:
        """Size of the hidden state (number of real scalars)."""

    def initial_state(self, net: Network, exact: bool) -> Any:
        """h_0."""

    def step(self, net: Network, state: Any, symbol: int, exact: bool) -> Any:
        """h_t from h_{t-1} and the symbol index x_t."""

    def readout(self, net: Network, state: Any, exact: bool) -> int:
        """Index of the output label (into ``net.labels``) for a hidden state."""


# Stable architecture ids -> "module:attribute" of their Semantics instance.
ARCHITECTURES: dict[str, str] = {
    "bilinear-full": "fsmnet.nets.bilinear:FULL",
    "bilinear-cp": "fsmnet.nets.bilinear:CP",
    "bilinear-block": "fsmnet.nets.bilinear_block:BLOCK",
    "bilinear-r2": "fsmnet.nets.diagonal:R2",
    "bilinear-real-diag": "fsmnet.nets.diagonal:REAL_DIAG",
    "bilinear-positive-diag": "fsmnet.nets.diagonal:POSITIVE_DIAG",
    "deltaproduct": "fsmnet.nets.deltaproduct:DELTAPRODUCT",
    "fixed-point": "fsmnet.nets.fixed_point:FIXED_POINT",
    "minmax-dense": "fsmnet.nets.minmax:DENSE",
    "minmax-cascade": "fsmnet.nets.minmax_cascade:CASCADE",
    "minmax-scalar": "fsmnet.nets.minmax_cascade:SCALAR",
}


def semantics_for(arch: str, source: str = "<network>") -> Semantics:
    """The semantics of an architecture id; a clear error for an unknown id."""
    try:
        target = ARCHITECTURES[arch]
    except KeyError:
        raise NetworkFileError(
            f"{source}: field 'arch': unknown architecture (value: {arch!r}); "
            f"known: {', '.join(ARCHITECTURES)}"
        ) from None
    module_name, attr = target.split(":")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name != module_name:
            raise
        raise NetworkFileError(
            f"{source}: field 'arch': architecture {arch!r} is not implemented in this version"
        ) from None
    return getattr(module, attr)  # type: ignore[no-any-return]


def require_tensor(params: Mapping[str, np.ndarray], name: str, shape: tuple[int | None, ...],
                   source: str, *, kind: str = "float") -> np.ndarray:
    """Fetch a tensor and check its rank, the given dimensions (None = any) and dtype kind.

    ``kind`` is ``"float"`` (float64, finite) or ``"int"`` (an integer dtype).
    """
    if name not in params:
        raise NetworkFileError(f"{source}: field '{name}': tensor is missing "
                               f"(present: {sorted(params)})")
    arr = np.asarray(params[name])
    if arr.ndim != len(shape) or any(s is not None and s != d for s, d in zip(shape, arr.shape)):
        want = tuple("*" if s is None else s for s in shape)
        raise NetworkFileError(f"{source}: field '{name}': wrong shape "
                               f"(value: {arr.shape}, expected {want})")
    if kind == "float":
        if arr.dtype != np.float64:
            raise NetworkFileError(f"{source}: field '{name}': dtype must be float64 "
                                   f"(value: {arr.dtype})")
        if not np.all(np.isfinite(arr)):
            bad = arr[~np.isfinite(arr)].ravel()[0]
            raise NetworkFileError(f"{source}: field '{name}': NaN or infinite entry "
                                   f"(value: {bad})")
    elif not np.issubdtype(arr.dtype, np.integer):
        raise NetworkFileError(f"{source}: field '{name}': dtype must be an integer type "
                               f"(value: {arr.dtype})")
    return arr
