"""Semantics of the ``fixed-point`` architecture (Movahedi et al., "Fixed-Point RNNs",
arXiv 2503.10799; docs/constructions-deltaproduct-fixedpoint.md).

A dense transition is the fixed point of a diagonal linear RNN with channel
mixing.  Per symbol σ there is a diagonal Λ = diag(λ), λ ∈ (0, 1)^H (a gate,
as the paper's sigmoid), and a mixing matrix Q.  The iteration (the paper's
layer, for one time step, with h_prev fixed) is

    h^(k+1) = Λ h_prev + (I − Λ)(I − Q) h^(k),                    (FP)

whose fixed point h* solves (Λ + (I − Λ)Q) h* = Λ h_prev, i.e.

    h* = A h_prev,   A = (I + (Λ⁻¹ − I) Q)⁻¹.

The error contracts with M = (I − Λ)(I − Q) = I − Λ A⁻¹, so (FP) converges
from every start iff ρ(M) < 1.  The reference step of this module uses A
itself (exactly, in Fractions, in exact mode); :func:`iterate_fixed_point`
runs (FP) and counts the iterations.

Tensors
-------
``Lambda`` (|Σ|, H) in (0, 1); ``Q`` (|Σ|, H, H); ``h0`` (H); ``readout`` (C, H).

Exact weights
-------------
Compiled networks have rational Λ and Q that float64 cannot hold.  Their
exact values are stored in the header, ``exact = {"Lambda": [...], "Q": [...]}``
as strings ``"p/q"``; every float tensor entry must be the float64 rounding of
its exact value (checked, no tolerance), and exact mode uses the rationals.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from math import gcd, lcm
from typing import TYPE_CHECKING, Any

import numpy as np

from fsmnet.errors import NetworkFileError
from fsmnet.nets.exact_linalg import row_reduce
from fsmnet.nets.linear import LinearRecurrence, to_fractions
from fsmnet.nets.semantics import require_tensor

if TYPE_CHECKING:
    from fsmnet.nets.network import Network


# ------------------------------------------------------------ exact linear algebra
def exact_inverse(matrix: np.ndarray) -> np.ndarray:
    """Inverse of a square Fraction matrix by Gauss-Jordan elimination (exact)."""
    n = matrix.shape[0]
    work, pivots = row_reduce(
        [list(row) + [int(i == j) for j in range(n)] for i, row in enumerate(matrix)], n)
    if len(pivots) < n:
        raise ZeroDivisionError("singular matrix")
    return np.array([row[n:] for row in work], dtype=object).reshape(n, n)


def charpoly(matrix: np.ndarray) -> list[Fraction]:
    """Characteristic polynomial det(zI − M), coefficients a_0..a_n (Faddeev-LeVerrier)."""
    n = matrix.shape[0]
    m = np.array([[Fraction(x) for x in row] for row in matrix], dtype=object).reshape(n, n)
    eye = np.array([[Fraction(int(i == j)) for j in range(n)] for i in range(n)],
                   dtype=object).reshape(n, n)
    coeffs = [Fraction(0)] * (n + 1)
    coeffs[n] = Fraction(1)
    acc = np.zeros((n, n), dtype=object) + Fraction(0)
    for k in range(1, n + 1):
        acc = m.dot(acc) + eye * coeffs[n - k + 1]
        coeffs[n - k] = -sum(m.dot(acc).diagonal()) / k
    return coeffs


def schur_stable(coeffs: Sequence[int | Fraction]) -> bool:
    """True iff every root of Σ a_i z^i lies in the open unit disk (Schur-Cohn, exact).

    Reduction: p is Schur-stable iff |a_0| < |a_d| and the degree-(d−1)
    polynomial (a_d p(z) − a_0 z^d p(1/z)) / z is Schur-stable.  The coefficients
    are made integers first (times the lcm of their denominators) and each reduced
    polynomial is divided by the gcd of its coefficients: positive factors, so the
    roots and every comparison stay the same, while in plain Fractions the digits
    double with every step.
    """
    exact = [Fraction(x) for x in coeffs]
    scale = lcm(*(x.denominator for x in exact))
    a = [int(x * scale) for x in exact]
    while len(a) > 1 and a[-1] == 0:
        a.pop()
    while len(a) > 1:
        d = len(a) - 1
        if abs(a[0]) >= abs(a[d]):
            return False
        a = [a[d] * a[i] - a[0] * a[d - i] for i in range(1, d + 1)]
        common = gcd(*a)
        if common > 1:
            a = [x // common for x in a]
    return True


def radius_below_one(lam: Sequence[Fraction], num: Sequence[Sequence[int]] | np.ndarray,
                     den: int = 1) -> bool:
    """Exact proof that ρ(I − Λ B) < 1 for B = ``num`` / ``den`` (``num`` an integer
    matrix, den > 0, every λ dyadic), as the construction needs it at larger sizes.

    N = c (I − Λ B) with c = 2^E den is an integer matrix, and c^H det(zI − M) =
    det(czI − N) has the integer coefficients c_k(N) c^k.  sympy's characteristic
    polynomial over ZZ costs about n³ integer operations, where Faddeev-LeVerrier
    in Fractions (:func:`charpoly`) costs n⁴ on growing rationals.
    """
    from sympy import ZZ
    from sympy.polys.matrices import DomainMatrix

    n = len(lam)
    e = max(x.denominator.bit_length() - 1 for x in lam)  # denominators are powers of 2
    scaled = [x.numerator << (e - (x.denominator.bit_length() - 1)) for x in lam]
    c = den << e
    rows = [[ZZ(c * int(i == j) - scaled[i] * int(num[i][j])) for j in range(n)]
            for i in range(n)]
    top_first = DomainMatrix(rows, (n, n), ZZ).charpoly()  # c_n .. c_0
    return schur_stable([int(x) * c**k for k, x in enumerate(reversed(top_first))])


# -------------------------------------------------------------------- semantics
def _parse_rationals(values: Any, shape: tuple[int, ...], name: str,
                     source: str) -> np.ndarray:
    try:
        flat = np.array(values, dtype=object).reshape(shape)
        return np.vectorize(lambda s: Fraction(str(s)), otypes=[object])(flat)
    except (ValueError, ZeroDivisionError, TypeError) as exc:
        raise NetworkFileError(f"{source}: field 'exact.{name}': not an array of rationals of "
                               f"shape {shape} ({exc})") from None


class FixedPointSemantics(LinearRecurrence):
    """h_t = A(x_t) h_{t-1}, A = (I + (Λ⁻¹ − I) Q)⁻¹ reached by the iteration (FP)."""

    arch = "fixed-point"

    def validate_tensors(self, params: Mapping[str, np.ndarray], n_symbols: int,
                         source: str) -> int:
        lam = require_tensor(params, "Lambda", (n_symbols, None), source)
        hidden = lam.shape[1]
        if hidden == 0:
            raise NetworkFileError(f"{source}: field 'Lambda': hidden size is 0")
        bad = (lam <= 0) | (lam >= 1)
        if np.any(bad):
            raise NetworkFileError(f"{source}: field 'Lambda': every λ must lie in (0, 1) "
                                   f"(value: {float(lam[bad][0])!r})")
        require_tensor(params, "Q", (n_symbols, hidden, hidden), source)
        return int(hidden)

    # exact rationals from the header (or the float tensors themselves)
    def exact_tensors(self, net: Network) -> tuple[np.ndarray, np.ndarray]:
        """(Λ, Q) as Fraction arrays; the header's rationals when present."""
        def compute() -> tuple[np.ndarray, np.ndarray]:
            lam, q = net.params["Lambda"], net.params["Q"]
            meta = net.exact or {}
            if "Lambda" not in meta and "Q" not in meta:
                return to_fractions(lam), to_fractions(q)
            src = f"<network {net.name}>"
            out = []
            for name, arr in (("Lambda", lam), ("Q", q)):
                exact = _parse_rationals(meta.get(name), arr.shape, name, src)
                rounded = np.vectorize(float, otypes=[np.float64])(exact)
                if not np.array_equal(rounded, arr):
                    raise NetworkFileError(f"{src}: field 'exact.{name}': the float tensor is "
                                           f"not the rounding of the exact values")
                out.append(exact)
            return out[0], out[1]
        return net.cached("fixed_point_exact_tensors", compute)  # type: ignore[no-any-return]

    def _tensors_and_identity(self, net: Network, exact: bool) -> tuple[Any, Any, Any, Any]:
        """(Λ, Q, 1, I) in exact rationals or in float64."""
        if exact:
            lam, q = self.exact_tensors(net)
            one: Fraction | float = Fraction(1)
        else:
            lam, q = net.params["Lambda"], net.params["Q"]
            one = 1.0
        hidden = lam.shape[1]
        eye = np.array([[one * (i == j) for j in range(hidden)] for i in range(hidden)],
                       dtype=object if exact else np.float64)
        return lam, q, one, eye

    def inverse_matrices(self, net: Network, exact: bool) -> np.ndarray:
        """A⁻¹ = I + (Λ⁻¹ − I) Q per symbol."""
        lam, q, one, eye = self._tensors_and_identity(net, exact)
        return np.array([eye + (one / lam[s] - one)[:, None] * q[s] for s in range(len(lam))],
                        dtype=object if exact else np.float64)

    def matrices_float(self, net: Network) -> np.ndarray:
        return np.linalg.inv(self.inverse_matrices(net, exact=False))

    def matrices_exact(self, net: Network) -> np.ndarray:
        inv = self.inverse_matrices(net, exact=True)
        return np.array([exact_inverse(m) for m in inv], dtype=object)

    def iteration_matrix(self, net: Network, symbol: int, exact: bool = False) -> np.ndarray:
        """M = (I − Λ)(I − Q) = I − Λ A⁻¹: the error of (FP) is multiplied by M."""
        lam, q, one, eye = self._tensors_and_identity(net, exact)
        return (one - lam[symbol])[:, None] * (eye - q[symbol])


FIXED_POINT = FixedPointSemantics()


def spectral_radius(net: Network, symbol: int) -> float:
    """ρ(I − Λ A⁻¹) for one symbol, in floating point (a measurement, not a proof)."""
    m = FIXED_POINT.iteration_matrix(net, symbol, exact=False)
    return float(np.max(np.abs(np.linalg.eigvals(m))))


def converges_exactly(net: Network, symbol: int) -> bool:
    """Exact proof that ρ(I − Λ A⁻¹) < 1 (Schur-Cohn on the exact characteristic polynomial)."""
    return schur_stable(charpoly(FIXED_POINT.iteration_matrix(net, symbol, exact=True)))


def iterate_fixed_point(net: Network, symbol: int, h: np.ndarray, *, tol: float = 1e-12,
                        max_iter: int = 100_000) -> tuple[np.ndarray, int]:
    """Run (FP) from h^(0) = 0 with h_prev = ``h`` until the update is at most ``tol``
    times the iterate's size (max norm); return (h^(k), k).

    Raises
    ------
    RuntimeError
        If ``max_iter`` iterations do not reach the tolerance (ρ(M) ≥ 1, or too slow).
    """
    lam = net.params["Lambda"][symbol]
    mix = FIXED_POINT.iteration_matrix(net, symbol, exact=False)
    drive = lam * np.asarray(h, dtype=np.float64)
    current = np.zeros_like(drive)
    for k in range(1, max_iter + 1):
        nxt = drive + mix.dot(current)
        if np.max(np.abs(nxt - current)) <= tol * max(np.max(np.abs(nxt)), 1e-300):
            return nxt, k
        current = nxt
    raise RuntimeError(f"fixed-point iteration for symbol {symbol} did not converge in "
                       f"{max_iter} iterations (spectral radius "
                       f"{spectral_radius(net, symbol):.6g})")
