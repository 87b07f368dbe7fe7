"""Shared parts of the trusted base: exact numbers, automaton tables, network files.

Standard library only (safetensors is not needed: a network file is compared by
its SHA-256).
"""

from __future__ import annotations

import functools
import hashlib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from types import MappingProxyType
from typing import Any


class CertificateError(Exception):
    """The certificate is malformed or one of its claims is false."""


# The size of a number string, bounded before any arithmetic: each integer it spells
# (numerator, denominator, the digits of a decimal) has at most MAX_DIGITS digits and
# an exponent is at most MAX_DIGITS in magnitude, so Fraction never builds a giant
# integer ("1e999999999" would be 10^999999999).  Every genuine certificate is within
# it: a float64 is p/q with at most 309 digits above and 324 below (2^1074), and
# fsmnet writes every rational with str(int), which Python refuses beyond 4300 digits
# (sys.int_max_str_digits, by default).
MAX_DIGITS = 4300
_MAX_CHARS = 2 * MAX_DIGITS + 8
_NUMBER = re.compile(r"[+-]?(?:([0-9]+)/([0-9]+)"  # p/q, or a decimal:
                     r"|([0-9]*)(?:\.([0-9]*))?(?:[eE]([+-]?[0-9]{1,6}))?)", re.ASCII)


def _number_size_ok(x: str) -> bool:
    """x is a plain rational ("p", "p/q", a decimal with an optional exponent; ASCII, no
    spaces or underscores) within MAX_DIGITS."""
    m = _NUMBER.fullmatch(x) if len(x) <= _MAX_CHARS else None
    if m is None:
        return False
    num, den, whole, frac, exp = m.groups()
    if num is not None:
        return len(num) <= MAX_DIGITS and len(den) <= MAX_DIGITS
    digits = len(whole) + len(frac or "")
    return 0 < digits <= MAX_DIGITS and (exp is None or abs(int(exp)) <= MAX_DIGITS)


@functools.lru_cache(maxsize=1 << 14)
def _parse(x: str) -> Fraction:
    # Fractions are immutable, so one object per distinct string is safe to share;
    # a compiled network's tensors repeat a few strings ("0", "1") millions of times.
    if not _number_size_ok(x):
        shown = repr(x) if len(x) <= 60 else f"{x[:40]!r}... ({len(x)} characters)"
        raise CertificateError(f"not a rational (\"p\", \"p/q\" or a decimal, at most "
                               f"{MAX_DIGITS} digits each): {shown}")
    try:
        return Fraction(x)
    except (ValueError, ZeroDivisionError):
        raise CertificateError(f"not a rational: {x!r}") from None


def _frac(x: Any) -> Fraction:
    if not isinstance(x, str):
        raise CertificateError(f"expected a rational as a string, got {x!r}")
    return _parse(x)


def _vec(v: Any) -> list[Fraction]:
    if not isinstance(v, list):
        raise CertificateError(f"expected a list, got {type(v).__name__}")
    return [_frac(x) for x in v]


def _mat(m: Any) -> list[list[Fraction]]:
    if not isinstance(m, list):
        raise CertificateError(f"expected a matrix, got {type(m).__name__}")
    return [_vec(row) for row in m]


def _normalize(h: list[Fraction]) -> list[Fraction]:
    scale = max((abs(x) for x in h), default=Fraction(0))
    return h if scale == 0 else [x / scale for x in h]


def _matvec(a: Sequence[Sequence[Fraction]], h: Sequence[Fraction]) -> list[Fraction]:
    if any(len(row) != len(h) for row in a):
        raise CertificateError("matrix and vector sizes differ")
    support = [j for j, y in enumerate(h) if y]  # zero entries add nothing
    return [sum((row[j] * h[j] for j in support), Fraction(0)) for row in a]


def _argmax(scores: list[Fraction]) -> int:
    best = 0
    for i in range(1, len(scores)):
        if scores[i] > scores[best]:
            best = i
    return best


def _same_label(x: Any, y: Any) -> bool:
    return type(x) is type(y) and x == y


def is_index(x: Any, n: int) -> bool:
    """x is an index of a sequence of length n: an integer (not a boolean), from the
    start (no negative index from the end)."""
    return isinstance(x, int) and not isinstance(x, bool) and 0 <= x < n


def is_index_table(rows: Any, width: int, bound: int) -> bool:
    """rows is a list of lists of ``width`` indices below ``bound`` each."""
    return isinstance(rows, list) and all(
        isinstance(row, list) and len(row) == width and all(is_index(t, bound) for t in row)
        for row in rows)


@dataclass(frozen=True)
class Automaton:
    """The certified automaton: ``delta[a][q]`` the successor of state q on symbol a."""

    delta: tuple[tuple[int, ...], ...]
    outputs: tuple[Any, ...]
    initial: int
    index: Mapping[str, int]  # symbol name -> its row of delta

    @property
    def n_states(self) -> int:
        return len(self.outputs)

    @property
    def n_symbols(self) -> int:
        return len(self.delta)

    def run(self, q: int, word: Any) -> int:
        """The state reached from q by ``word`` (a list of symbol names)."""
        if not isinstance(word, list):
            raise CertificateError("a word must be a list of symbols")
        for sym in word:
            if sym not in self.index:
                raise CertificateError(f"unknown symbol {sym!r}")
            q = self.delta[self.index[sym]][q]
        return q


def read_automaton(auto: dict[str, Any]) -> Automaton:
    """The certificate's ``automaton``: a total table over its states, one row per symbol."""
    delta, outputs, q0 = auto["delta"], auto["outputs"], auto["initial"]
    n = len(outputs)
    if not is_index_table(delta, n, n):
        raise CertificateError("automaton.delta is not a table over the states")
    if not is_index(q0, n):
        raise CertificateError("automaton.initial is not a state")
    index = {s: i for i, s in enumerate(auto["symbols"])}
    if len(index) != len(delta):
        raise CertificateError("one table row per symbol is required")
    return Automaton(tuple(tuple(row) for row in delta), tuple(outputs), q0,
                     MappingProxyType(index))


def _automaton_table(auto: dict[str, Any]) -> tuple[list[list[int]], list[Any], int, dict]:
    """(delta, outputs, initial, symbol index) of :func:`read_automaton`, as plain lists."""
    table = read_automaton(auto)
    return ([list(row) for row in table.delta], list(table.outputs), table.initial,
            dict(table.index))


def check_network_file(cert: dict[str, Any], network_path: str) -> None:
    """The network file is the one certified (same bytes, by SHA-256)."""
    digest = hashlib.sha256()
    with open(network_path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    if cert["network"].get("sha256") != digest.hexdigest():
        raise CertificateError("the network file differs from the certified one (SHA-256)")
