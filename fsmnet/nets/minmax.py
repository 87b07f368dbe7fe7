"""The (max, min) algebra and the semantics of ``minmax-dense`` (docs/constructions-minmax.md).

Over a chain (here: float64 values) ``a ⊕ b = max(a, b)`` and ``a ⊗ b = min(a, b)``
form a distributive lattice, hence a commutative semiring with ``-inf`` as zero
and ``+inf`` as one.  Max and min only *select* among their arguments, so every
result below is exactly one of the inputs: evaluation in float64 is exact and
needs no rounding analysis.

Steps and their exact composition (used by the scan engine)
------------------------------------------------------------
* scalar unit step ``f(x) = max(min(r, x), s)``, the pair ``(r, s)``; applying
  ``(r1, s1)`` and then ``(r2, s2)`` is the step
  ``(min(r1, r2), max(min(r2, s1), s2))`` (:func:`compose_scalar`);
* matrix unit step ``x ↦ (R ⊗ x) ⊕ s``; applying ``(R1, s1)`` and then
  ``(R2, s2)`` is ``(R2 ⊗ R1, (R2 ⊗ s1) ⊕ s2)`` by distributivity
  (:func:`compose_affine`).

Every function broadcasts over leading batch axes, so a scan can combine
whole arrays of summaries at once.

``minmax-dense`` tensors
------------------------
``R`` (|Σ|, n, n), ``s`` (|Σ|, n), ``x0`` (n), ``readout`` (C, n), all float64.
The step is ``x_t = (R[x_t] ⊗ x_{t-1}) ⊕ s[x_t]``; the label is the first index
of the largest max-min score ``readout ⊗ x`` (so the readout stays inside the
algebra, and verification by boxes stays exact).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from fsmnet.errors import NetworkFileError
from fsmnet.nets.semantics import require_stored, require_tensor

if TYPE_CHECKING:
    from fsmnet.nets.network import Network

TOP = np.inf
"""The unit of ⊗ (min) and absorbing element of ⊕ (max)."""
BOTTOM = -np.inf
"""The unit of ⊕ (max) and absorbing element of ⊗ (min)."""


# ------------------------------------------------------------------ products
def maxmin_matvec(matrix: np.ndarray, vector: np.ndarray) -> np.ndarray:
    """``(A ⊗ x)_i = max_j min(A[i, j], x[j])``, broadcasting over leading axes.

    Parameters
    ----------
    matrix
        Shape ``(..., m, n)``.
    vector
        Shape ``(..., n)``.
    """
    a = np.asarray(matrix, dtype=np.float64)
    x = np.asarray(vector, dtype=np.float64)
    return np.minimum(a, x[..., None, :]).max(axis=-1)


def maxmin_matmul(left: np.ndarray, right: np.ndarray) -> np.ndarray:
    """``(A ⊗ B)_ij = max_k min(A[i, k], B[k, j])``, broadcasting over leading axes."""
    a = np.asarray(left, dtype=np.float64)
    b = np.asarray(right, dtype=np.float64)
    return np.minimum(a[..., :, :, None], b[..., None, :, :]).max(axis=-2)


def affine_identity(n: int) -> tuple[np.ndarray, np.ndarray]:
    """The identity step of dimension n: ``R`` = TOP on the diagonal, BOTTOM elsewhere,
    ``s`` = BOTTOM (so ``(R ⊗ x) ⊕ s = x`` for every real x)."""
    r = np.full((n, n), BOTTOM)
    np.fill_diagonal(r, TOP)
    return r, np.full(n, BOTTOM)


def affine_step(matrix: np.ndarray, offset: np.ndarray, x: np.ndarray) -> np.ndarray:
    """``(R ⊗ x) ⊕ s`` (one matrix-unit step)."""
    return np.maximum(maxmin_matvec(matrix, x), np.asarray(offset, dtype=np.float64))


def compose_affine(first: tuple[np.ndarray, np.ndarray],
                   second: tuple[np.ndarray, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """The step "``first``, then ``second``": ``(R2 ⊗ R1, (R2 ⊗ s1) ⊕ s2)``.

    Exact because ⊗ distributes over ⊕ on a chain:
    ``R2 ⊗ ((R1 ⊗ x) ⊕ s1) ⊕ s2 = ((R2 ⊗ R1) ⊗ x) ⊕ ((R2 ⊗ s1) ⊕ s2)``.
    """
    r1, s1 = first
    r2, s2 = second
    return maxmin_matmul(r2, r1), np.maximum(maxmin_matvec(r2, s1), s2)


# -------------------------------------------------------------- scalar steps
def scalar_step(r: Any, s: Any, x: Any) -> Any:
    """``max(min(r, x), s)``: keep x clipped below r, then raise it to at least s."""
    return np.maximum(np.minimum(r, x), s)


SCALAR_IDENTITY = (TOP, BOTTOM)
"""``(r, s) = (+inf, -inf)`` acts as the identity on every real x."""


def compose_scalar(first: tuple[Any, Any], second: tuple[Any, Any]) -> tuple[Any, Any]:
    """The step "``first``, then ``second``": ``(min(r1, r2), max(min(r2, s1), s2))``.

    Derivation: ``max(min(r2, max(min(r1, x), s1)), s2)``; min distributes over
    max, so this is ``max(min(r2, r1, x), min(r2, s1), s2)``.
    """
    r1, s1 = first
    r2, s2 = second
    return np.minimum(r1, r2), np.maximum(np.minimum(r2, s1), s2)


def scan_scalar(r: np.ndarray, s: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Inclusive prefix compositions of scalar steps along axis 0.

    Returns ``(R, S)`` with ``(R[t], S[t])`` = step 0, then 1, ..., then t.  A
    Hillis-Steele doubling scan: ⌈log2 T⌉ vectorized passes of
    :func:`compose_scalar`, valid because composition is associative.
    """
    rr = np.array(r, dtype=np.float64, copy=True)
    ss = np.array(s, dtype=np.float64, copy=True)
    shift = 1
    while shift < len(rr):
        nr, ns = compose_scalar((rr[:-shift], ss[:-shift]), (rr[shift:], ss[shift:]))
        rr[shift:], ss[shift:] = nr, ns
        shift *= 2
    return rr, ss


def scan_affine(r: np.ndarray, s: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Inclusive prefix compositions of matrix steps ``(R[t], s[t])`` along axis 0."""
    rr = np.array(r, dtype=np.float64, copy=True)
    ss = np.array(s, dtype=np.float64, copy=True)
    shift = 1
    while shift < len(rr):
        nr, ns = compose_affine((rr[:-shift], ss[:-shift]), (rr[shift:], ss[shift:]))
        rr[shift:], ss[shift:] = nr, ns
        shift *= 2
    return rr, ss


def first_argmax(scores: np.ndarray) -> int:
    """Index of the first largest entry (ties go to the lowest label index)."""
    return int(np.argmax(np.asarray(scores)))


# ---------------------------------------------------------------- semantics
class DenseMinMax:
    """Semantics of ``minmax-dense``: ``x_t = (R[x_t] ⊗ x_{t-1}) ⊕ s[x_t]``."""

    arch = "minmax-dense"
    sparse_tensors = frozenset({"R", "readout"})
    """A sparse tensor's absent entries are 0.0 (fsmnet.nets.sparse), as everywhere: the
    step is the same max-min product of the dense tensor."""

    def validate(self, params: Mapping[str, np.ndarray], n_symbols: int, n_labels: int,
                 source: str) -> None:
        shape = require_stored(params, "R", (n_symbols, None, None), source)
        n = int(shape[1])
        if shape[2] != n:
            require_stored(params, "R", (n_symbols, n, n), source)
        if n == 0:
            raise NetworkFileError(f"{source}: field 'R': hidden size must be positive "
                                   f"(value: {shape})")
        require_tensor(params, "s", (n_symbols, n), source)
        require_tensor(params, "x0", (n,), source)
        require_stored(params, "readout", (n_labels, n), source)

    def hidden_size(self, net: Network) -> int:
        return int(net.params["x0"].shape[0])

    def initial_state(self, net: Network, exact: bool) -> np.ndarray:
        # Max and min only select: float64 is already exact, ``exact`` changes nothing.
        return np.array(net.params["x0"], dtype=np.float64)

    def step(self, net: Network, state: np.ndarray, symbol: int, exact: bool) -> np.ndarray:
        p = net.params
        return affine_step(p["R"][symbol], p["s"][symbol], state)

    def readout(self, net: Network, state: np.ndarray, exact: bool) -> int:
        return first_argmax(maxmin_matvec(net.params["readout"], state))

DENSE = DenseMinMax()
