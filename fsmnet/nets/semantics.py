"""The per-architecture semantics protocol, and the lookup of an id's semantics.

A :class:`~fsmnet.nets.network.Network` is just named arrays plus metadata;
what those arrays *mean* lives in exactly one place per architecture: a
``Semantics`` object with the step, the readout, and parameter validation.
The architecture registry (:mod:`fsmnet.archs`) names, for each id, the
object that defines its semantics; it is imported only when first used.
"""

from __future__ import annotations

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


def semantics_for(arch: str, source: str = "<network>") -> Semantics:
    """The semantics of a registered architecture id; a clear error for an unknown id."""
    from fsmnet import archs

    if arch not in archs.ids():
        raise NetworkFileError(
            f"{source}: field 'arch': unknown architecture{archs.suggest(arch)} "
            f"(value: {arch!r}); "
            f"known: {', '.join(archs.ids())}"
        )
    semantics: Semantics = archs.resolve(archs.get(arch).semantics)
    return semantics


def require_tensor(params: Mapping[str, np.ndarray], name: str, shape: tuple[int | None, ...],
                   source: str, *, kind: str = "float") -> np.ndarray:
    """Fetch a tensor and check its rank, the given dimensions (None = any) and dtype kind.

    ``kind`` is ``"float"`` (float64, finite) or ``"int"`` (an integer dtype).
    """
    if name not in params:
        raise NetworkFileError(f"{source}: field '{name}': tensor is missing "
                               f"(present: {sorted(params)})")
    from fsmnet.nets.sparse import SparseTensor

    if isinstance(params[name], SparseTensor):
        raise NetworkFileError(f"{source}: field '{name}': stored sparse, but this "
                               f"architecture reads it only dense")
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


def require_stored(params: Mapping[str, Any], name: str, shape: tuple[int | None, ...],
                   source: str) -> tuple[int, ...]:
    """:func:`require_tensor` for a float tensor that may be stored sparse (a name in
    the semantics' ``sparse_tensors``); returns its shape.  A sparse tensor gets
    :func:`fsmnet.nets.sparse.sparse_tensor`'s checks (finite values, coordinates in
    range, sorted and distinct), whoever built it."""
    from fsmnet.nets.sparse import SparseTensor, sparse_tensor

    tensor = params.get(name)
    if not isinstance(tensor, SparseTensor):
        return tuple(require_tensor(params, name, shape, source).shape)
    sparse_tensor(tensor.shape, tensor.indices, tensor.values, source=source, name=name)
    if tensor.ndim != len(shape) or any(s is not None and s != d
                                        for s, d in zip(shape, tensor.shape)):
        want = tuple("*" if s is None else s for s in shape)
        raise NetworkFileError(f"{source}: field '{name}': wrong shape "
                               f"(value: {tensor.shape}, expected {want})")
    return tensor.shape
