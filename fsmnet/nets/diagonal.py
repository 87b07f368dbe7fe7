"""Semantics of the commuting (diagonal) bilinear RNNs (docs/formats.md).

All three have h_t = A(x_t) h_{t-1} with every A(x) diagonal over C, so the
letters commute and h depends only on the letter counts.

Tensors
-------
bilinear-r2
    ``modulus`` (|Σ|, K) ≥ 0 and ``angle`` (|Σ|, K): channel k is a complex
    number stored as the real pair (h[2k], h[2k+1]); letter a multiplies it by
    modulus[a, k]·e^(i·angle[a, k]), the 2×2 rotation-scaling block
    [[r cos θ, −r sin θ], [r sin θ, r cos θ]].  H = 2K.
bilinear-real-diag
    ``diag`` (|Σ|, H), any real entries.
bilinear-positive-diag
    ``diag`` (|Σ|, H), every entry in (0, 1] (the Mamba-like class).

All three also have ``h0`` (H) and ``readout`` (C, H); the label is the argmax
of ``readout @ h``.

Exact weights
-------------
A compiled network's floats are rounded (μ^i, 2πj/p, the readout).  Its ``exact``
metadata (written by :mod:`fsmnet.constructions.commutative`) is then the truth:

``{"construction": "commutative-monomials", "mu": "1/8", "zeta_order": N,
"channels": [[[i_a, k_a] per letter] per channel],
"readout": [[{"k": "q", ...} per channel] per label]}``

Channel c's transition on letter a is μ^(i_a)·ζ_N^(k_a) with ζ_N = e^(2πi/N);
its readout coefficient for label l is the complex number Σ_k q·ζ_N^k, and
the score of l is the real part of Σ_c coefficient·channel.  Exact mode
evaluates this in Q(ζ_M), M = lcm(N, 4) (:mod:`fsmnet.nets.cyclotomic`);
values that are rational (always, when every period is 1, 2 or 4) are plain
Fractions.

The tensors the header describes must hold its correctly rounded float64 values,
bit for bit (:mod:`fsmnet.nets.exact_header`): ``modulus`` = μ^(i_a), ``angle`` =
2πk_a/N taken in (−π, π], ``diag`` = the real multiplier, ``readout`` = the real
part and minus the imaginary part (r2) of each coefficient.  ``h0`` is not described
and is read as stored.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import numpy as np

from fsmnet.errors import NetworkFileError
from fsmnet.nets.cyclotomic import Cyclotomic, cyclotomic_field
from fsmnet.nets.exact_header import Angle, check_tensor, round_exact
from fsmnet.nets.linear import LinearRecurrence, to_fractions
from fsmnet.nets.semantics import require_tensor

if TYPE_CHECKING:
    from fsmnet.nets.network import Network

Exact = Fraction | Cyclotomic


def _simplify(x: Cyclotomic) -> Exact:
    r = x.rational()
    return r if r is not None else x


Header = tuple[Fraction, int, list[list[tuple[int, int]]], list[list[dict[int, Fraction]]]]


def _parse_header(desc: dict[str, Any], src: str) -> Header:
    """(μ, N, per channel the [i, k] of each letter, per label the coefficients)."""
    try:
        if desc["construction"] != "commutative-monomials":
            raise ValueError(f"unknown construction {desc['construction']!r}")
        mu = Fraction(desc["mu"])
        n = int(desc["zeta_order"])
        channels = [[(int(i), int(k)) for i, k in ch] for ch in desc["channels"]]
        readout = [[{int(k): Fraction(q) for k, q in coef.items()} for coef in row]
                   for row in desc["readout"]]
    except (KeyError, TypeError, ValueError, ZeroDivisionError, AttributeError) as exc:
        raise NetworkFileError(f"{src}: field 'exact': malformed ({exc})") from None
    return mu, n, channels, readout


def _angle(k: int, n: int) -> Angle:
    # The stored angle of ζ_n^k lies in (−π, π]: k > n/2 is the rotation by 2π(k − n)/n.
    k %= n
    return Angle(k - n if 2 * k > n else k, n)


class _Diagonal(LinearRecurrence):
    """Shared exact machinery: block-structured exact steps, exact readout."""

    block = 1  # scalars per channel: 2 for complex channels, 1 for real ones
    reads_exact_header = True  # exact evaluation reads the weights from ``exact``

    # ------------------------------------------------- exact description
    def _exact(self, net: Network, source: str | None = None) -> dict[str, Any] | None:
        desc = net.exact
        if desc is None:
            return None
        src = source or f"<network {net.name}>"
        return net.cached("exact_parsed", lambda: self._parse(net, desc, src))

    def check_header(self, net: Network, source: str) -> None:
        """Refuse a header whose tensors are not its correctly rounded values
        (:func:`fsmnet.nets.exact_header.check_exact_header`)."""
        self._exact(net, source)

    def exact_weights(self, desc: dict[str, Any], n_symbols: int, n_labels: int,
                      src: str) -> dict[str, Any]:
        """The exact weights of a header: per letter and channel the (Re, Im) of the
        multiplier ("factors"), the readout matrix ("readout"), and the exact value of
        every tensor entry the header pins ("tensors", name -> object array)."""
        mu, n, channels, readout = _parse_header(desc, src)
        if (len(readout) != n_labels or any(len(ch) != n_symbols for ch in channels)
                or any(len(row) != len(channels) for row in readout) or n < 1):
            raise NetworkFileError(f"{src}: field 'exact': sizes do not match the tensors")
        field = cyclotomic_field(math.lcm(n, 4) if self.block == 2 else n)
        scale = field.order // n
        k = len(channels)
        mats = np.empty((n_symbols, k, 2), dtype=object)
        moduli = np.empty((n_symbols, k), dtype=object)
        angles = np.empty((n_symbols, k), dtype=object)
        try:
            for c, ch in enumerate(channels):
                for a, (i, e) in enumerate(ch):
                    moduli[a, c], angles[a, c] = mu**i, _angle(e, n)
                    lam = field.element({e * scale: moduli[a, c]})
                    if self.block == 1 and not lam.is_real():
                        raise NetworkFileError(f"{src}: field 'exact': channel {c} has a "
                                               f"non-real multiplier for a {self.arch} network")
                    mats[a, c, 0] = _simplify(lam.real_part())
                    mats[a, c, 1] = (_simplify(lam.imag_part()) if self.block == 2
                                     else Fraction(0))
        except ZeroDivisionError as exc:
            raise NetworkFileError(f"{src}: field 'exact': malformed ({exc})") from None
        read = np.empty((n_labels, k * self.block), dtype=object)
        for label, row in enumerate(readout):
            for c, coef in enumerate(row):
                z = field.element({e * scale: q for e, q in coef.items()})
                read[label, c * self.block] = _simplify(z.real_part())
                if self.block == 2:
                    read[label, 2 * c + 1] = _simplify(-z.imag_part())
        tensors = ({"modulus": moduli, "angle": angles} if self.block == 2
                   else {"diag": mats[:, :, 0]})
        return {"factors": mats, "readout": read, "tensors": {**tensors, "readout": read}}

    def rounded_tensors(self, desc: dict[str, Any], n_symbols: int,
                        n_labels: int) -> dict[str, np.ndarray]:
        """The float64 tensors a header pins: its correctly rounded values (the compiler's)."""
        weights = self.exact_weights(desc, n_symbols, n_labels, "<compile>")
        return {name: np.array([round_exact(x) for x in exact.ravel()],
                               dtype=np.float64).reshape(exact.shape)
                for name, exact in weights["tensors"].items()}

    def _parse(self, net: Network, desc: dict[str, Any], src: str) -> dict[str, Any]:
        parsed = self.exact_weights(desc, len(net.symbols), len(net.labels), src)
        if parsed["factors"].shape[1] * self.block != self.hidden_size(net):
            raise NetworkFileError(f"{src}: field 'exact': sizes do not match the tensors")
        # Bit for bit, no tolerance: the proofs are about the header, and ``fsmnet run``
        # executes the tensors, so they must be its correctly rounded values.
        for name, exact in parsed["tensors"].items():
            check_tensor(src, name, net.params[name], exact)
        return parsed

    def _float_factors(self, net: Network) -> np.ndarray:
        raise NotImplementedError

    def exact_factors(self, net: Network) -> np.ndarray:
        """Per letter and channel, the exact (Re, Im) of the channel's multiplier."""
        parsed = self._exact(net)
        if parsed is not None:
            return parsed["factors"]  # type: ignore[no-any-return]
        f = to_fractions(self._float_factors(net))
        if self.block == 1:
            f = np.stack([f, np.full(f.shape, Fraction(0), dtype=object)], axis=2)
        return f

    # ------------------------------------------------------------ hooks
    def matrices_exact(self, net: Network) -> np.ndarray:
        f = self.exact_factors(net)
        n_sym, k = f.shape[:2]
        h = k * self.block
        out = np.full((n_sym, h, h), Fraction(0), dtype=object)
        for a in range(n_sym):
            for c in range(k):
                re, im = f[a, c]
                if self.block == 1:
                    out[a, c, c] = re
                else:
                    out[a, 2 * c, 2 * c], out[a, 2 * c, 2 * c + 1] = re, -im
                    out[a, 2 * c + 1, 2 * c], out[a, 2 * c + 1, 2 * c + 1] = im, re
        return out

    def readout_matrix(self, net: Network, exact: bool) -> np.ndarray:
        parsed = self._exact(net) if exact else None
        if parsed is not None:
            return parsed["readout"]  # type: ignore[no-any-return]
        return super().readout_matrix(net, exact)

    def step(self, net: Network, state: np.ndarray, symbol: int, exact: bool) -> np.ndarray:
        if not exact:
            return super().step(net, state, symbol, exact)
        # Exact: use the diagonal structure (O(H) instead of O(H²)) and rescale
        # by a positive *rational* bound on the largest entry, which keeps
        # every argmax and avoids dividing by algebraic numbers.
        f = net.cached("exact_factors", lambda: self.exact_factors(net))[symbol]
        new = np.empty(len(state), dtype=object)
        if self.block == 1:
            for c in range(len(state)):
                new[c] = f[c, 0] * state[c]
        else:
            for c in range(len(state) // 2):
                (re, im), u, v = f[c], state[2 * c], state[2 * c + 1]
                new[2 * c], new[2 * c + 1] = re * u - im * v, im * u + re * v
        scale = max((x.abs_bound() if isinstance(x, Cyclotomic) else abs(Fraction(x))
                     for x in new), default=Fraction(0))
        return new if scale == 0 else np.array([x / scale for x in new], dtype=object)


class R2Bilinear(_Diagonal):
    """Complex diagonal stored as 2×2 rotation-scaling blocks."""

    arch = "bilinear-r2"
    block = 2

    def validate_tensors(self, params: Mapping[str, np.ndarray], n_symbols: int,
                         source: str) -> int:
        mod = require_tensor(params, "modulus", (n_symbols, None), source)
        require_tensor(params, "angle", mod.shape, source)
        if np.any(mod < 0):
            raise NetworkFileError(f"{source}: field 'modulus': entries must be >= 0 "
                                   f"(value: {float(mod[mod < 0][0])})")
        return 2 * int(mod.shape[1])

    def _float_factors(self, net: Network) -> np.ndarray:
        r, theta = net.params["modulus"], net.params["angle"]
        return np.stack([r * np.cos(theta), r * np.sin(theta)], axis=2)

    def matrices_float(self, net: Network) -> np.ndarray:
        f = self._float_factors(net)
        n_sym, k = f.shape[:2]
        out = np.zeros((n_sym, 2 * k, 2 * k))
        idx = np.arange(k)
        re, im = f[:, :, 0], f[:, :, 1]
        out[:, 2 * idx, 2 * idx] = re
        out[:, 2 * idx, 2 * idx + 1] = -im
        out[:, 2 * idx + 1, 2 * idx] = im
        out[:, 2 * idx + 1, 2 * idx + 1] = re
        return out


class RealDiagonal(_Diagonal):
    """Real diagonal transitions (entries of either sign)."""

    arch = "bilinear-real-diag"
    lowest: float | None = None  # entries must exceed this (None: any real)

    def validate_tensors(self, params: Mapping[str, np.ndarray], n_symbols: int,
                         source: str) -> int:
        d = require_tensor(params, "diag", (n_symbols, None), source)
        if self.lowest is not None:
            bad = (d <= self.lowest) | (d > 1)
            if np.any(bad):
                raise NetworkFileError(f"{source}: field 'diag': {self.arch} entries must lie "
                                       f"in (0, 1] (value: {float(d[bad][0])})")
        return int(d.shape[1])

    def _float_factors(self, net: Network) -> np.ndarray:
        return np.asarray(net.params["diag"])

    def matrices_float(self, net: Network) -> np.ndarray:
        d = net.params["diag"]
        out = np.zeros((d.shape[0], d.shape[1], d.shape[1]))
        idx = np.arange(d.shape[1])
        out[:, idx, idx] = d
        return out


class PositiveDiagonal(RealDiagonal):
    """Diagonal transitions with every entry in (0, 1]."""

    arch = "bilinear-positive-diag"
    lowest = 0.0


R2 = R2Bilinear()
REAL_DIAG = RealDiagonal()
POSITIVE_DIAG = PositiveDiagonal()
