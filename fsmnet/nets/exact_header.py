"""Exact headers: a file's tensors must be the correctly rounded values of its header.

Some compiled networks carry an ``exact`` description in their header (irrational
rotations of bilinear-r2, the rationals of the diagonal classes and of fixed-point
networks), and exact evaluation -- so every proof -- reads the weights from it.
``fsmnet run`` executes the float64 tensors.  A proof about the header is a claim
about the file only if the tensors are pinned to it, so they are pinned bit for
bit: every entry the header describes must be the correctly rounded double (round
to nearest, ties to even, the sign of a rounded-away zero kept) of its exact
value, or the file is refused.  A tolerance would let a diagonal entry 1/2 stored
as 0.5·(1 + 9e-10) through, and that network drifts away from the proved one on
long words.

Deciding correct rounding is exact: x rounds to the double f iff x lies strictly
between the midpoints of f and its two neighbours, or on one of them when f's
significand is even.  The exact values are

* rationals (``Fraction``): ``float(Fraction)`` is correctly rounded in CPython;
* real cyclotomic numbers (:class:`~fsmnet.nets.cyclotomic.Cyclotomic`):
  x − midpoint has an exactly decided sign;
* angles 2πk/N (:class:`Angle`): π is enclosed between rationals (Machin's series)
  and the enclosure is tightened until it excludes the midpoint.  2πk/N is
  irrational for k ≠ 0, so it never is a midpoint; an angle that is not separated
  at :data:`ANGLE_MAX_BITS` bits is refused rather than decided.
"""

from __future__ import annotations

import math
import numbers
import struct
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from fsmnet.errors import NetworkFileError
from fsmnet.nets.cyclotomic import Cyclotomic, pi_enclosure

if TYPE_CHECKING:
    from fsmnet.nets.network import Network

COVERS_HEADER = ("exact header (tensors are its correctly rounded float64 values, "
                 "checked bit for bit)")
COVERS_TENSORS = "exact arithmetic of the file's tensors"

ANGLE_BITS = 256
"""Bits of the first π enclosure for an angle; doubled while it cannot decide."""
ANGLE_MAX_BITS = 4096
"""An angle still within 2^-4096 of a rounding midpoint is refused (a header with
huge k and N could otherwise make loading arbitrarily slow)."""

_HALF_TINY = Fraction(1, 2**1075)  # the midpoint between 0 and the least subnormal


@dataclass(frozen=True)
class Angle:
    """The real number 2πk/n (the stored rotation angle of a ζ_n^k multiplier)."""

    k: int
    n: int

    def __str__(self) -> str:
        return f"2*pi*{self.k}/{self.n}"


Exact = Fraction | Cyclotomic | Angle
Compare = Callable[[Fraction], int]  # m -> sign(x − m) for the exact x


class Undecided(ArithmeticError):
    """An angle too close to a rounding midpoint for :data:`ANGLE_MAX_BITS` bits."""


# ------------------------------------------------------------ correct rounding
def same_bits(a: float, b: float) -> bool:
    """Equal as float64 bit patterns (so 0.0 and -0.0 differ)."""
    return struct.pack("<d", a) == struct.pack("<d", b)


def _odd(f: float) -> bool:
    return bool(struct.unpack("<q", struct.pack("<d", f))[0] & 1)


def _sign(d: Fraction) -> int:
    return (d > 0) - (d < 0)


def _compare(x: Exact) -> Compare:
    if isinstance(x, Angle):
        return _angle_compare(x)
    if isinstance(x, Cyclotomic):
        q = x.rational()
        if q is None:
            element = x
            return lambda m: (element - m).sign()  # type: ignore[no-any-return]
        x = q
    value = Fraction(x)
    return lambda m: _sign(value - m)


def _angle_compare(angle: Angle) -> Compare:
    k, n = angle.k, angle.n

    def compare(m: Fraction) -> int:
        if k == 0:
            return _sign(-m)
        bits = ANGLE_BITS
        while bits <= ANGLE_MAX_BITS:
            lo, hi = pi_enclosure(bits)
            a, b = sorted((2 * k * lo / n, 2 * k * hi / n))
            if a > m:
                return 1
            if b < m:
                return -1
            bits *= 2
        raise Undecided(f"{angle} is within 2^-{ANGLE_MAX_BITS} of {float(m)!r}")

    return compare


def rounds_to(x: Exact, f: float) -> bool:
    """Whether the double ``f`` is the correctly rounded value of ``x`` (decided exactly)."""
    if not math.isfinite(f):
        return False
    if isinstance(x, numbers.Rational):
        return same_bits(float(x), f)
    return _rounds_to(_compare(x), f)


def _rounds_to(compare: Compare, f: float) -> bool:
    if f == 0:
        side = compare(Fraction(0))
        if side == 0:
            return same_bits(f, 0.0)
        if side > 0:  # (0, 2^-1075] rounds to +0.0; the midpoint itself is a tie, 0 is even
            return same_bits(f, 0.0) and compare(_HALF_TINY) <= 0
        return same_bits(f, -0.0) and compare(-_HALF_TINY) >= 0
    value = Fraction(f)
    below, above = math.nextafter(f, -math.inf), math.nextafter(f, math.inf)
    # Past the largest double the neighbour is infinite: the midpoint is half an ulp out.
    lo = (value + Fraction(below)) / 2 if math.isfinite(below) else \
        value - (Fraction(above) - value) / 2
    hi = (value + Fraction(above)) / 2 if math.isfinite(above) else \
        value + (value - Fraction(below)) / 2
    at_lo = compare(lo)
    if at_lo < 0:
        return False
    at_hi = compare(hi)
    if at_hi > 0:
        return False
    return (at_lo > 0 and at_hi < 0) or not _odd(f)


def round_exact(x: Exact) -> float:
    """The correctly rounded double of ``x`` (round to nearest, ties to even).

    Raises :class:`Undecided` for an angle too close to a midpoint,
    :class:`OverflowError` when x rounds beyond the largest double.
    """
    if isinstance(x, numbers.Rational):
        return float(x)
    if isinstance(x, Cyclotomic):
        q = x.rational()
        if q is not None:
            return float(q)
        guess = float(x.approximation())
    else:
        lo, hi = pi_enclosure(ANGLE_BITS)
        guess = float((lo + hi) * x.k / x.n)
    compare, f = _compare(x), guess
    # The guess is within an ulp or two; step towards x until the rounding holds.
    for _ in range(64):
        if not math.isfinite(f):
            raise OverflowError(f"{x} rounds beyond the largest double")
        if _rounds_to(compare, f):
            return f
        toward = compare(Fraction(f))
        if toward == 0:  # x is this double (a zero is +0.0)
            return float(Fraction(f))
        f = math.nextafter(f, math.inf if toward > 0 else -math.inf)
    raise ArithmeticError(f"no rounding of {x} found near {guess!r}")  # pragma: no cover


# ------------------------------------------------------------ tensor checks
def check_tensor(source: str, name: str, tensor: np.ndarray, exact: np.ndarray) -> None:
    """Raise :class:`NetworkFileError` (file, tensor, index, both values) unless every
    entry of ``tensor`` is the correctly rounded double of the same entry of ``exact``."""
    arr = np.asarray(tensor, dtype=np.float64)
    if arr.shape != np.shape(exact):
        raise NetworkFileError(f"{source}: field '{name}': the exact header describes shape "
                               f"{np.shape(exact)} (value: {arr.shape})")
    for index in np.ndindex(arr.shape):
        x, got = cast(Exact, exact[index]), float(arr[index])
        where = f"{source}: field '{name}': entry {list(index)}"
        try:
            if rounds_to(x, got):
                continue
            want = round_exact(x)
        except Undecided as exc:
            raise NetworkFileError(f"{where}: cannot decide whether the value is the correctly "
                                   f"rounded double of {x} ({exc}); refused "
                                   f"(value: {got!r})") from None
        except OverflowError:
            want = math.inf
        raise NetworkFileError(f"{where}: not the correctly rounded float64 value of its "
                               f"exact header entry (value: {got!r}, correctly rounded: "
                               f"{want!r})")


def rational_array(values: Any, shape: tuple[int, ...], field: str, source: str) -> np.ndarray:
    """``values`` (nested lists of rationals or their strings) as a Fraction array of
    ``shape``; :class:`NetworkFileError` naming ``field`` otherwise."""
    try:
        flat = np.array(values, dtype=object)
        if flat.shape != shape:
            raise ValueError(f"shape {flat.shape}, expected {shape}")
        return np.vectorize(lambda s: Fraction(str(s)), otypes=[object])(flat)
    except (ValueError, ZeroDivisionError, TypeError) as exc:
        raise NetworkFileError(f"{source}: field '{field}': not an array of rationals "
                               f"({exc})") from None


def _fixed_point(net: Network, source: str) -> dict[str, np.ndarray]:
    exact = net.exact or {}
    if "Lambda" not in exact and "Q" not in exact:
        return {}
    return {name: rational_array(exact.get(name), net.params[name].shape, f"exact.{name}", source)
            for name in ("Lambda", "Q")}


def _rational_w(net: Network, source: str) -> dict[str, np.ndarray]:
    exact = net.exact or {}
    if exact.get("kind") not in ("rational-W", "exact-W"):
        return {}
    n, _, k = net.params["W"].shape
    per_symbol = rational_array(exact.get("W"), (k, n, n), "exact.W", source)
    return {"W": per_symbol.transpose(1, 2, 0)}  # W[:, :, a] is the header's matrix a


def _exact_u(net: Network, source: str) -> dict[str, np.ndarray]:
    exact = net.exact or {}
    if exact.get("kind") != "exact-U":
        return {}
    return {"U": rational_array(exact.get("U"), net.params["U"].shape, "exact.U", source)}


def _block_w(net: Network, source: str) -> dict[str, np.ndarray]:
    from fsmnet.nets.bilinear_block import block_count

    exact = net.exact or {}
    if exact.get("kind") != "exact-W":
        return {}
    out = {}
    for i in range(block_count(net.params)):
        b, _, k = net.params[f"W.{i}"].shape
        per_symbol = rational_array(exact.get(f"W.{i}"), (k, b, b), f"exact.W.{i}", source)
        out[f"W.{i}"] = per_symbol.transpose(1, 2, 0)
    return out


# Headers that no semantics class parses itself; the diagonal classes check their own
# (``check_header``), which also caches what exact evaluation then reads.
_DESCRIBED = {"fixed-point": _fixed_point, "bilinear-full": _rational_w,
              "bilinear-cp": _exact_u, "bilinear-block": _block_w}


def check_exact_header(net: Network, source: str | None = None) -> None:
    """Refuse ``net`` unless every tensor its exact header describes holds the correctly
    rounded float64 values of it, bit for bit (the check a network file must pass)."""
    if net.exact is None:
        return
    src = source or f"<network {net.name}>"
    own = getattr(net.semantics, "check_header", None)
    if own is not None:
        own(net, src)
        return
    described = _DESCRIBED.get(net.arch)
    for name, exact in (described(net, src) if described else {}).items():
        check_tensor(src, name, net.params[name], exact)


def header_is_truth(net: Network) -> bool:
    """Whether the network's exact semantics (and so its proofs) come from its header."""
    exact = net.exact
    if exact is None:
        return False
    described = _TRUTH.get(net.arch)
    if described is not None:
        return described(exact)
    return bool(getattr(net.semantics, "reads_exact_header", False))


# Architectures whose exact weights come from a header of one kind only: fixed-point's
# rational Lambda and Q, bilinear-full's exact-W (fsmnet.nets.bilinear; its rational-W
# header only records what the tensors round), bilinear-cp's exact-U, bilinear-block's
# exact-W (one W.i per block).
_TRUTH: dict[str, Callable[[Any], bool]] = {
    "fixed-point": lambda exact: "Lambda" in exact or "Q" in exact,
    "bilinear-full": lambda exact: exact.get("kind") == "exact-W",
    "bilinear-cp": lambda exact: exact.get("kind") == "exact-U",
    "bilinear-block": lambda exact: exact.get("kind") == "exact-W",
}


def covers(net: Network) -> str:
    """What a verdict about ``net`` is a statement about (a result's ``details["covers"]``)."""
    return COVERS_HEADER if header_is_truth(net) else COVERS_TENSORS
