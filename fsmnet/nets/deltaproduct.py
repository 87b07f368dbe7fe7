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

from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import TYPE_CHECKING

import numpy as np

from fsmnet.errors import NetworkFileError
from fsmnet.nets.linear import LinearRecurrence, to_fractions
from fsmnet.nets.semantics import require_stored, require_tensor
from fsmnet.nets.sparse import SparseTensor

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


def _is_double(x: Fraction) -> bool:
    """Whether the rational ``x`` is a finite float64 exactly."""
    try:
        return Fraction(float(x)) == x
    except OverflowError:
        return False


def householder_columns(factors: Sequence[tuple[Mapping[int, float], float]], hidden: int,
                        *, as_float64: bool = False) -> list[dict[int, Fraction]] | None:
    """The columns of F_{n_h} ··· F_1 in Fractions, each as ``{row: value}`` (nonzeros
    only), from the factors' keys as ``{index: value}`` (nonzeros only) and their β.

    A factor only touches the columns that meet its key, so a product of n
    transpositions costs O(n), not O(n³).

    With ``as_float64``, the columns are returned only when they are also what the
    dense float64 product (:func:`apply_factors` on the identity) computes, else
    None: every key has at most two entries and every quantity that product forms
    (squares and their sum, β/‖k‖², the two products of a dot and their sum, k_i·d,
    its product with the scale, the difference) is a finite float64 exactly.  An
    IEEE 754 operation whose exact result is a double returns that double, fused
    or not and in any order of the two non-zero terms (the other terms are
    products with 0), so the float64 product equals these Fractions.
    """
    columns: list[dict[int, Fraction]] = [{q: Fraction(1)} for q in range(hidden)]
    where: dict[int, set[int]] = {q: {q} for q in range(hidden)}

    def double(*xs: Fraction) -> bool:
        return not as_float64 or all(_is_double(x) for x in xs)

    for key, beta in factors:
        k = {int(i): Fraction(float(x)) for i, x in key.items() if x != 0}
        if as_float64 and len(k) > 2:
            return None
        squares = [x * x for x in k.values()]
        norm2 = sum(squares, Fraction(0))
        if float(beta) == 0 or norm2 == 0:
            continue
        scale = Fraction(float(beta)) / norm2
        if not double(*squares, norm2, scale):
            return None
        for q in set().union(*(where.get(i, set()) for i in k)):
            column = columns[q]
            terms = [x * column.get(i, 0) for i, x in k.items()]
            dot = sum(terms, Fraction(0))
            if not double(*terms, dot):
                return None
            if not dot:
                continue
            for i, x in k.items():
                move = x * dot
                v = column.get(i, Fraction(0)) - move * scale
                if not double(move, move * scale, v):
                    return None
                if v:
                    column[i] = v
                    where.setdefault(i, set()).add(q)
                else:
                    column.pop(i, None)
                    where.get(i, set()).discard(q)
    return columns


def sparse_householder_columns(keys: np.ndarray, betas: np.ndarray
                               ) -> list[dict[int, Fraction]]:
    """:func:`householder_columns` of dense ``keys`` (n_h, H) and ``betas`` (n_h,)."""
    factors = [({int(i): float(key[i]) for i in np.flatnonzero(key)}, float(beta))
               for key, beta in zip(keys, betas)]
    columns = householder_columns(factors, keys.shape[1])
    assert columns is not None  # only the float64 check returns None
    return columns


def columns_to_dense(columns: Sequence[Mapping[int, Fraction]], hidden: int) -> np.ndarray:
    """The H × H Fraction matrix whose column q is ``columns[q]``."""
    out = np.full((hidden, hidden), Fraction(0), dtype=object)
    for q, column in enumerate(columns):
        for i, v in column.items():
            out[i, q] = v
    return out


def sparse_householder_product(keys: np.ndarray, betas: np.ndarray) -> np.ndarray:
    """F_{n_h} ··· F_1 in Fractions for keys with few nonzero entries (float inputs).

    The same exact product as :func:`householder_product`, from
    :func:`sparse_householder_columns`.
    """
    return columns_to_dense(sparse_householder_columns(keys, betas), keys.shape[1])


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


def _factors(keys: np.ndarray | SparseTensor, betas: np.ndarray
             ) -> list[list[tuple[dict[int, float], float]]]:
    """Per symbol, its factors as ({index: key value}, β), from dense or sparse keys."""
    n_symbols, n_h, _ = keys.shape
    out: list[list[tuple[dict[int, float], float]]] = [
        [({}, float(betas[s, j])) for j in range(n_h)] for s in range(n_symbols)]
    if isinstance(keys, SparseTensor):
        coords = zip(*(axis.tolist() for axis in keys.indices), keys.values.tolist())
    else:
        where = np.nonzero(keys)
        coords = zip(*(axis.tolist() for axis in where), keys[where].tolist())
    for s, j, i, value in coords:
        out[s][j][0][i] = value
    return out


class DeltaProductSemantics(LinearRecurrence):
    """h_t = A(x_t) h_{t-1} with A a product of n_h generalized Householder matrices."""

    arch = "deltaproduct"
    sparse_tensors = frozenset({"keys", "readout"})

    def validate_tensors(self, params: Mapping[str, np.ndarray], n_symbols: int,
                         source: str) -> int:
        _, n_h, hidden = require_stored(params, "keys", (n_symbols, None, None), source)
        if hidden == 0:
            raise NetworkFileError(f"{source}: field 'keys': hidden size is 0 "
                                   f"(value: {(n_symbols, n_h, hidden)})")
        betas = require_tensor(params, "betas", (n_symbols, n_h), source)
        bad = (betas < 0) | (betas > 2)
        if np.any(bad):
            raise NetworkFileError(f"{source}: field 'betas': every β must lie in [0, 2] "
                                   f"(value: {float(betas[bad][0])!r})")
        keys = params["keys"]
        if isinstance(keys, SparseTensor):
            zero_key = np.ones((n_symbols, n_h), dtype=bool)
            live = keys.values != 0
            zero_key[keys.indices[0][live], keys.indices[1][live]] = False
        else:
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
        stored = net.stored["keys"]
        if isinstance(stored, SparseTensor) or (
                stored.size and np.count_nonzero(stored, axis=-1).max() <= 2):
            # Compiled nets: keys e_i − e_j or e_q. Same exact product, sparse.
            hidden = stored.shape[2]
            columns = self._columns(net, as_float64=False) or []
            return np.array([columns_to_dense(c, hidden) for c in columns],
                            dtype=object).reshape(len(columns), hidden, hidden)
        keys, betas = to_fractions(net.params["keys"]), to_fractions(net.params["betas"])
        return np.array([householder_product(keys[s], betas[s]) for s in range(len(keys))],
                        dtype=object)

    def matrix_entries(self, net: Network, exact: bool) -> tuple[np.ndarray, ...] | None:
        """The products' non-zero entries from sparse keys, column by column: exact
        Fractions, or float64 values where :func:`householder_columns` shows that the
        dense float64 product computes exactly those (None otherwise, and for dense keys)."""
        if not isinstance(net.stored["keys"], SparseTensor):
            return None
        per_symbol = self._columns(net, as_float64=not exact)
        if per_symbol is None:
            return None
        sym, row, col, val = [], [], [], []
        for s, columns in enumerate(per_symbol):
            for q, column in enumerate(columns):
                for i, v in column.items():
                    sym.append(s)
                    row.append(i)
                    col.append(q)
                    val.append(v)
        values = np.array(val, dtype=object) if exact else np.array(
            [float(v) for v in val], dtype=np.float64)
        return (np.array(sym, dtype=np.int64), np.array(row, dtype=np.int64),
                np.array(col, dtype=np.int64), values)

    def _columns(self, net: Network, *, as_float64: bool
                 ) -> list[list[dict[int, Fraction]]] | None:
        def build() -> list[list[dict[int, Fraction]]] | None:
            keys = net.stored["keys"]
            out = []
            for factors in _factors(keys, net.params["betas"]):
                columns = householder_columns(factors, keys.shape[2], as_float64=as_float64)
                if columns is None:
                    return None
                out.append(columns)
            return out

        return net.cached(f"householder_columns:{as_float64}", build)  # type: ignore[no-any-return]


DELTAPRODUCT = DeltaProductSemantics()
