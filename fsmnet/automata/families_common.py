"""Shared pieces of the built-in families: parameters, size limits, errors.

The family modules (:mod:`fsmnet.automata.families_counting`,
:mod:`fsmnet.automata.families_groups`, :mod:`fsmnet.automata.families_memory`)
receive already parsed and range-checked parameters; this module holds what
they share so that none of them imports the registry in
:mod:`fsmnet.automata.families`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from fsmnet.errors import SpecError

SOURCE = "<family>"
"""The ``source`` of every :class:`~fsmnet.errors.SpecError` raised for a family spec."""

MAX_TABLE = 5_000_000
"""Largest transition table (symbols × states) a family may build.

5·10⁶ int64 entries are 40 MB: large enough for S_6 with all 720 elements as
letters (518,400 entries) or S_8 with generators, small enough that a typo
such as ``symmetric:12`` fails at once instead of exhausting memory.
"""


@dataclass(frozen=True, kw_only=True)
class Param:
    """One parameter of a family.

    Parameters
    ----------
    name
        Keyword used in the spec (``key=value``).
    kind
        ``"int"``, ``"str"`` (free text) or ``"bool"`` (a bare flag ``name``
        or ``name=true|false|1|0``).
    default
        Value when the parameter is absent; ``None`` with ``required=True``.
    low, high
        Inclusive range of an ``int`` parameter (``high=None``: unbounded).
    choices
        Extra words an ``int`` parameter also accepts (e.g. ``classes=state``).
    required
        Whether the spec must give it.
    """

    name: str
    kind: Literal["int", "str", "bool"] = "int"
    default: object = None
    low: int = 0
    high: int | None = None
    choices: tuple[str, ...] = ()
    required: bool = False


def check_size(n_symbols: int, n_states: int, *, spec: str, hint: str = "") -> None:
    """Refuse tables larger than :data:`MAX_TABLE` before building them.

    Raises
    ------
    SpecError
        ``field="size"`` with the number of table entries as value.
    """
    entries = int(n_symbols) * int(n_states)
    if entries > MAX_TABLE:
        extra = f"; {hint}" if hint else ""
        raise SpecError(
            f"'{spec}' needs {n_symbols} symbols x {n_states} states, more than the "
            f"limit of {MAX_TABLE:,} table entries{extra}",
            source=SOURCE, field="size", value=entries)


def bad(spec: str, field: str, value: object, message: str) -> SpecError:
    """A :class:`SpecError` for a family spec (returned, to be raised by the caller)."""
    return SpecError(f"{message} in '{spec}'", source=SOURCE, field=field, value=value)
