"""Semantics of the full and CP-factored bilinear RNNs (docs/formats.md).

Both have h_t = A(x_t) h_{t-1} with A linear in the input and no additive
term, so the state is scale-invariant and a one-hot input picks one matrix.

Tensors
-------
bilinear-full
    ``W`` (H, H, |Σ|): ``W[:, :, σ]`` is A(e_σ); ``h0`` (H); ``readout`` (C, H).
    ``W`` and ``readout`` may be stored sparse (fsmnet.nets.sparse: the one-hot
    construction on many states).
bilinear-cp
    ``U`` (H, R), ``V`` (|Σ|, R), ``Z`` (H, R): A(x) = U diag(Vᵀx) Zᵀ, so
    A(e_σ) = U diag(V[σ]) Zᵀ; ``h0`` and ``readout`` as above.  ``U``, ``Z`` and
    ``readout`` may be stored sparse (the one-hot factors of the construction).
    An ``exact-U`` header states U as rationals (a snapped trained network,
    fsmnet.train.snap_states): then A(e_σ) = U diag(V[σ]) Zᵀ with that U and the
    stored V and Z, and the file's U holds its correctly rounded doubles.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import numpy as np

from fsmnet.nets.linear import LinearRecurrence, to_fractions
from fsmnet.nets.semantics import require_stored, require_tensor
from fsmnet.nets.sparse import SparseTensor, columns

if TYPE_CHECKING:
    from fsmnet.nets.network import Network


EXACT_W = "exact-W"
"""The header kind whose rational matrices *are* the exact weights (a snapped trained
network, fsmnet.train.snap_states).  A ``rational-W`` header (the PFSA construction)
only records the rationals that W rounds: there the tensors stay the exact weights."""


def exact_w_header(net: Network) -> np.ndarray | None:
    """(S, H, H) Fractions of a ``{"kind": "exact-W", "W": [per symbol, rows]}`` header,
    or None without one (the header is checked against W, bit for bit, on load)."""
    exact = net.exact
    if exact is None or exact.get("kind") != EXACT_W:
        return None

    def parse() -> np.ndarray:
        from fsmnet.nets.exact_header import rational_array

        n, _, k = net.params["W"].shape
        return rational_array(exact.get("W"), (k, n, n), "exact.W", f"<network {net.name}>")

    return net.cached("exact_w", parse)  # type: ignore[no-any-return]


EXACT_U = "exact-U"
"""The bilinear-cp header kind whose rational U *is* the exact factor (V and Z stay the
stored doubles, which are rationals already)."""


def exact_u_header(net: Network) -> np.ndarray | None:
    """(H, R) Fractions of a ``{"kind": "exact-U", "U": rows}`` header, or None without
    one (checked against U, bit for bit, on load)."""
    exact = net.exact
    if exact is None or exact.get("kind") != EXACT_U:
        return None

    def parse() -> np.ndarray:
        from fsmnet.nets.exact_header import rational_array

        return rational_array(exact.get("U"), net.params["U"].shape, "exact.U",
                              f"<network {net.name}>")

    return net.cached("exact_u", parse)  # type: ignore[no-any-return]


class FullBilinear(LinearRecurrence):
    """A(x) = Σ_k W[:, :, k] x_k."""

    arch = "bilinear-full"
    sparse_tensors = frozenset({"W", "readout"})

    def validate_tensors(self, params: Mapping[str, np.ndarray], n_symbols: int,
                         source: str) -> int:
        shape = require_stored(params, "W", (None, None, n_symbols), source)
        if shape[0] != shape[1]:
            require_stored(params, "W", (shape[0], shape[0], n_symbols), source)
        return int(shape[0])

    def matrices_float(self, net: Network) -> np.ndarray:
        return np.ascontiguousarray(np.moveaxis(net.params["W"], 2, 0))

    def matrices_exact(self, net: Network) -> np.ndarray:
        """The header's rational matrices where it states them as the exact weights
        (``{"kind": "exact-W"}``: the file's W holds their correctly rounded doubles,
        checked on load), else the stored doubles as rationals."""
        header = exact_w_header(net)
        return header if header is not None else super().matrices_exact(net)

    def matrix_entries(self, net: Network, exact: bool) -> tuple[np.ndarray, ...] | None:
        # The exact matrices are the float64 ones (every double is a rational), unless an
        # exact-W header states them (then read densely from the header).
        w = net.stored["W"]
        if not isinstance(w, SparseTensor) or exact and exact_w_header(net) is not None:
            return None
        rows, cols, symbols = w.indices  # W[i, j, σ] is row i, column j of A(e_σ)
        return symbols, rows, cols, w.values


class CPBilinear(LinearRecurrence):
    """A(x) = U diag(Vᵀx) Zᵀ, a rank-R CP factorization of the full tensor."""

    arch = "bilinear-cp"
    sparse_tensors = frozenset({"U", "Z", "readout"})

    def validate_tensors(self, params: Mapping[str, np.ndarray], n_symbols: int,
                         source: str) -> int:
        hidden, rank = require_stored(params, "U", (None, None), source)
        require_tensor(params, "V", (n_symbols, rank), source)
        require_stored(params, "Z", (hidden, rank), source)
        return int(hidden)

    def matrix_entries(self, net: Network, exact: bool) -> tuple[np.ndarray, ...] | None:
        """A(e_σ)'s entries from sparse U and Z, term by term on the factors' supports:
        exact Fractions, or float64 values where each entry is a single term whose
        pairwise and triple products are doubles (then ``einsum`` computes exactly that
        value in any order: its other terms are products with 0).  None for dense
        factors, and for float64 where that does not hold."""
        stored = net.stored
        if not any(isinstance(stored[name], SparseTensor) for name in ("U", "Z")) or \
                exact and exact_u_header(net) is not None:
            return None
        v = np.asarray(net.params["V"], dtype=np.float64)
        u_cols, z_cols = columns(stored["U"]), columns(stored["Z"])
        acc: dict[tuple[int, int, int], list[tuple[float, float, float]]] = {}
        for s, r in zip(*(axis.tolist() for axis in np.nonzero(v))):
            for i, x in u_cols[r]:
                for j, y in z_cols[r]:
                    acc.setdefault((s, i, j), []).append((x, float(v[s, r]), y))
        keys = sorted(acc)
        values: list[Any] = []
        for key in keys:
            terms = acc[key]
            if exact:
                values.append(sum((Fraction(a) * Fraction(b) * Fraction(c)
                                   for a, b, c in terms), Fraction(0)))
            elif len(terms) == 1 and _products_are_doubles(*terms[0]):
                values.append(terms[0][0] * terms[0][1] * terms[0][2])
            else:
                return None
        coords = np.array(keys, dtype=np.int64).reshape(-1, 3).T
        return (*coords, np.array(values, dtype=object if exact else np.float64))

    def matrices_float(self, net: Network) -> np.ndarray:
        p = net.params
        return np.einsum("ir,sr,jr->sij", p["U"], p["V"], p["Z"])

    def matrices_exact(self, net: Network) -> np.ndarray:
        p = net.params
        header = exact_u_header(net)
        if header is not None:
            return _rational_cp_matrices(header, np.asarray(p["V"], dtype=np.float64),
                                         np.asarray(p["Z"], dtype=np.float64))
        u, v, z = (np.asarray(p[k], dtype=np.float64) for k in ("U", "V", "Z"))
        top = [float(np.abs(t).max()) if t.size else 0.0 for t in (u, v, z)]
        if all(np.array_equal(t, np.trunc(t)) for t in (u, v, z)) and \
                u.shape[1] * top[0] * top[1] * top[2] < 2.0**52:
            # Integer factors (every compiled CP net): every product and partial
            # sum is an integer below 2^52, so float64 matmul is exact whatever
            # order BLAS adds in; only the results become Fractions.
            # Only the terms a symbol uses (V[s, r] ≠ 0) enter its matrix.
            used = [np.flatnonzero(v[s]) for s in range(v.shape[0])]
            return np.array([_integer_fractions(_integer_product(u[:, r] * v[s, r], z[:, r]))
                             for s, r in enumerate(used)], dtype=object)
        if not all(np.all(np.isfinite(t)) for t in (u, v, z)):
            uf, vf, zf = (to_fractions(t) for t in (u, v, z))  # raises on inf/NaN
            return np.array([(uf * vf[s]).dot(zf.T) for s in range(vf.shape[0])],
                            dtype=object)
        return _dyadic_cp_matrices(u, v, z)

    def rank(self, net: Network) -> int:
        return int(net.params["U"].shape[1])


def _dyadic_integers(t: np.ndarray) -> tuple[np.ndarray, int]:
    """Python integers n and one exponent e with t = n · 2^e exactly, entry by entry
    (every finite double is m · 2^k with a 53-bit integer m)."""
    parts = [math.frexp(float(x)) for x in t.ravel()]
    low = min((k - 53 for _, k in parts), default=0)
    ints = [int(m * 2.0**53) << (k - 53 - low) for m, k in parts]
    return np.array(ints, dtype=object).reshape(t.shape), low


def _dyadic_cp_matrices(u: np.ndarray, v: np.ndarray, z: np.ndarray) -> np.ndarray:
    """U diag(V[s]) Zᵀ for every symbol s, exactly, as Fractions: the factors as
    integers over one power of two each, the products and sums in Python integers
    (no gcd per operation, which is what makes Fraction arithmetic slow), and only
    the results made Fractions."""
    un, ue = _dyadic_integers(u)
    return _integer_cp_matrices(un, Fraction(2) ** ue, v, z)


def _rational_cp_matrices(u: np.ndarray, v: np.ndarray, z: np.ndarray) -> np.ndarray:
    """:func:`_dyadic_cp_matrices` for a Fraction U: its entries as integers over their
    common denominator."""
    den = math.lcm(*(int(x.denominator) for x in u.ravel()))
    un = np.array([int(x.numerator) * (den // int(x.denominator)) for x in u.ravel()],
                  dtype=object).reshape(u.shape)
    return _integer_cp_matrices(un, Fraction(1, den), v, z)


def _integer_cp_matrices(un: np.ndarray, u_scale: Fraction, v: np.ndarray,
                         z: np.ndarray) -> np.ndarray:
    """(un · u_scale) diag(V[s]) Zᵀ for integer ``un``, V and Z as dyadic integers."""
    (vn, ve), (zn, ze) = (_dyadic_integers(t) for t in (v, z))
    scale = u_scale * Fraction(2) ** (ve + ze)
    exact = np.frompyfunc(lambda n: n * scale, 1, 1)
    zt = zn.T
    return np.array([exact((un * vn[s]).dot(zt)) for s in range(vn.shape[0])],
                    dtype=object).reshape(v.shape[0], un.shape[0], z.shape[0])


def _integer_product(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a @ b.T for integer-valued float arrays whose products stay below 2^52, without
    BLAS (on shared cores its threads stalled: 3 s instead of 0.04 s at S5).  One-hot
    columns (compiled nets) are a scatter-add of one product per term; otherwise an
    int64 matmul (numpy's own loop).  Exact either way."""
    if a.size and b.size and np.all(np.count_nonzero(a, axis=0) <= 1) and \
            np.all(np.count_nonzero(b, axis=0) <= 1):
        cols = np.arange(a.shape[1])
        ia, ib = np.abs(a).argmax(axis=0), np.abs(b).argmax(axis=0)
        out = np.zeros((a.shape[0], b.shape[0]))
        np.add.at(out, (ia, ib), a[ia, cols] * b[ib, cols])
        return out
    return (a.astype(np.int64) @ b.T.astype(np.int64)).astype(np.float64)


def _integer_fractions(matrix: np.ndarray) -> np.ndarray:
    """An integer-valued float array as Fractions, one shared Fraction per value
    (a few distinct values, so this is a handful of masked writes)."""
    ints = matrix.astype(np.int64)
    out = np.empty(ints.shape, dtype=object)
    for value in np.unique(ints):
        out[ints == value] = Fraction(int(value))
    return out


def _products_are_doubles(a: float, b: float, c: float) -> bool:
    """Whether a·b, b·c, a·c and a·b·c are finite float64 values exactly."""
    fa, fb, fc = Fraction(a), Fraction(b), Fraction(c)
    for exact in (fa * fb, fb * fc, fa * fc, fa * fb * fc):
        try:
            if Fraction(float(exact)) != exact:
                return False
        except OverflowError:
            return False
    return True


FULL = FullBilinear()
CP = CPBilinear()
