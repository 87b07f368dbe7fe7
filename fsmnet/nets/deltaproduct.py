"""Semantics of the ``deltaproduct`` architecture (docs/constructions-deltaproduct-fixedpoint.md).

DeltaProduct (Siems et al. 2025, arXiv 2502.10297) takes n_h delta-rule steps
per token; without the additive (value) term the state transition is a product
of generalized Householder matrices

    A(σ) = F_{n_h} ··· F_2 F_1,    F_j = I − β_j k̂_j k̂_jᵀ,   β_j ∈ [0, 2],

where F_1 is applied first.  Keys are **L2-normalized by the semantics**
(k̂ = k / ‖k‖), as DeltaNet/DeltaProduct normalize the key projection; the
stored ``keys`` need not have unit length.  This is what keeps the weights
exact: β k̂ k̂ᵀ = β k kᵀ / (kᵀk) is rational whenever k and β are, so a key
(e_i − e_j) with β = 2 is the reflection swapping e_i and e_j with no √2
anywhere (docs/constructions-deltaproduct-fixedpoint.md).

Tensors
-------
``keys`` (|Σ|, n_h, H)
    Unnormalized keys; a key may be zero only where its β is 0 (then F_j = I).
``betas`` (|Σ|, n_h)
    Step sizes in [0, 2] (Grazzi et al., ICLR 2025, allow the range up to 2,
    which gives eigenvalue 1 − β ∈ [−1, 1]).
``h0`` (H), ``readout`` (C, H)
    As for every linear recurrence.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import TYPE_CHECKING

import numpy as np

from fsmnet.errors import NetworkFileError
from fsmnet.nets.linear import LinearRecurrence, to_fractions
from fsmnet.nets.semantics import require_tensor

if TYPE_CHECKING:
    from fsmnet.nets.network import Network


def apply_factors(keys: np.ndarray, betas: np.ndarray, x: np.ndarray) -> np.ndarray:
    """F_{n_h} ··· F_1 x for a vector or a matrix x (columns), by rank-one updates.

    Works on float arrays and on Fraction object arrays alike.
    """
    out = x
    for j in range(keys.shape[0]):
        k, beta = keys[j], betas[j]
        norm2 = k.dot(k)
        if beta == 0 or norm2 == 0:
            continue  # F_j = I (a zero key is only valid with β = 0, checked on load)
        out = out - np.multiply.outer(k, k.dot(out)) * (beta / norm2)
    return out


def sparse_householder_columns(keys: np.ndarray, betas: np.ndarray
                               ) -> list[dict[int, Fraction]]:
    """The columns of F_{n_h} ··· F_1 in Fractions, each as ``{row: value}`` (nonzeros only).

    A factor only touches the columns that meet its key, so a product of n
    transpositions costs O(n), not O(n³).
    """
    hidden = keys.shape[1]
    columns: list[dict[int, Fraction]] = [{q: Fraction(1)} for q in range(hidden)]
    where: dict[int, set[int]] = {q: {q} for q in range(hidden)}
    for key, beta in zip(keys, betas):
        k = {int(i): Fraction(float(key[i])) for i in np.flatnonzero(key)}
        norm2 = sum((x * x for x in k.values()), Fraction(0))
        if float(beta) == 0 or norm2 == 0:
            continue
        scale = Fraction(float(beta)) / norm2
        for q in set().union(*(where.get(i, set()) for i in k)):
            column = columns[q]
            dot = sum((x * column.get(i, 0) for i, x in k.items()), Fraction(0))
            if not dot:
                continue
            for i, x in k.items():
                v = column.get(i, Fraction(0)) - scale * dot * x
                if v:
                    column[i] = v
                    where.setdefault(i, set()).add(q)
                else:
                    column.pop(i, None)
                    where.get(i, set()).discard(q)
    return columns


def sparse_householder_product(keys: np.ndarray, betas: np.ndarray) -> np.ndarray:
    """F_{n_h} ··· F_1 in Fractions for keys with few nonzero entries (float inputs).

    The same exact product as :func:`householder_product`, from
    :func:`sparse_householder_columns`.
    """
    hidden = keys.shape[1]
    columns = sparse_householder_columns(keys, betas)
    out = np.full((hidden, hidden), Fraction(0), dtype=object)
    for q, column in enumerate(columns):
        for i, v in column.items():
            out[i, q] = v
    return out


def householder_product(keys: np.ndarray, betas: np.ndarray) -> np.ndarray:
    """F_{n_h} ··· F_1 for one symbol; float arrays or Fraction object arrays.

    Parameters
    ----------
    keys
        (n_h, H) unnormalized keys.
    betas
        (n_h,) step sizes.
    """
    hidden = keys.shape[1]
    if keys.dtype == object:
        eye = np.array([[Fraction(int(i == j)) for j in range(hidden)] for i in range(hidden)],
                       dtype=object).reshape(hidden, hidden)
    else:
        eye = np.eye(hidden)
    return apply_factors(keys, betas, eye)


class DeltaProductSemantics(LinearRecurrence):
    """h_t = A(x_t) h_{t-1} with A a product of n_h generalized Householder matrices."""

    arch = "deltaproduct"

    def validate_tensors(self, params: Mapping[str, np.ndarray], n_symbols: int,
                         source: str) -> int:
        keys = require_tensor(params, "keys", (n_symbols, None, None), source)
        _, n_h, hidden = keys.shape
        if hidden == 0:
            raise NetworkFileError(f"{source}: field 'keys': hidden size is 0 "
                                   f"(value: {keys.shape})")
        betas = require_tensor(params, "betas", (n_symbols, n_h), source)
        bad = (betas < 0) | (betas > 2)
        if np.any(bad):
            raise NetworkFileError(f"{source}: field 'betas': every β must lie in [0, 2] "
                                   f"(value: {float(betas[bad][0])!r})")
        zero_key = ~np.any(keys != 0, axis=2)
        if np.any(zero_key & (betas != 0)):
            s, j = map(int, np.argwhere(zero_key & (betas != 0))[0])
            raise NetworkFileError(f"{source}: field 'keys': key [{s}, {j}] is zero but its "
                                   f"β is not (value: {float(betas[s, j])!r}); keys are "
                                   f"normalized, so a zero key needs β = 0")
        return int(hidden)

    def n_h(self, net: Network) -> int:
        """Number of Householder factors per token."""
        return int(net.params["betas"].shape[1])

    def matrices_float(self, net: Network) -> np.ndarray:
        keys, betas = net.params["keys"], net.params["betas"]
        return np.array([householder_product(keys[s], betas[s]) for s in range(len(keys))])

    def matrices_exact(self, net: Network) -> np.ndarray:
        raw = np.asarray(net.params["keys"])
        if raw.size and np.count_nonzero(raw, axis=-1).max() <= 2:
            # Compiled nets: keys e_i − e_j or e_q. Same exact product, sparse.
            return np.array([sparse_householder_product(raw[s], net.params["betas"][s])
                             for s in range(len(raw))], dtype=object)
        keys, betas = to_fractions(net.params["keys"]), to_fractions(net.params["betas"])
        return np.array([householder_product(keys[s], betas[s]) for s in range(len(keys))],
                        dtype=object)


DELTAPRODUCT = DeltaProductSemantics()
