"""The architecture registry: one :class:`Architecture` record per architecture id.

Every part of fsmnet that needs to know about architectures reads this
registry: network files (:mod:`fsmnet.nets`), constructions, proofs and
certificates, expressivity and the hierarchy table, the scan engine and the
command line.  Adding an architecture is one record in a family module here
(docs/architecture.md says where its semantics, construction and kernels go).

Examples
--------
>>> from fsmnet import archs
>>> archs.get("bilinear-full").scan
'linear'
>>> "minmax-scalar" in archs.ids()
True
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager

from fsmnet.archs import bilinear, diagonal, fixed_point, householder, minmax
from fsmnet.archs.record import Architecture, resolve
from fsmnet.archs.theorems import THEOREMS, Theorem
from fsmnet.errors import FsmnetError, SpecError

# The order is the order of every listing (--help, expressivity, the hierarchy table).
_REGISTRY: dict[str, Architecture] = {
    r.id: r for family in (bilinear, diagonal, minmax, householder, fixed_point)
    for r in family.RECORDS
}


def ids() -> tuple[str, ...]:
    """Every registered architecture id, in listing order."""
    return tuple(_REGISTRY)


def records() -> tuple[Architecture, ...]:
    """Every registered record, in listing order."""
    return tuple(_REGISTRY.values())


def get(arch: str, *, source: str = "<architecture>", field: str = "arch") -> Architecture:
    """The record of ``arch``; a :class:`SpecError` naming the close and the known ids
    otherwise.

    >>> get("bilinear-ful")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
        ...
    fsmnet.errors.SpecError: ...unknown architecture (did you mean 'bilinear-full'?); known: ...
    """
    try:
        return _REGISTRY[arch]
    except (KeyError, TypeError):
        raise SpecError(f"unknown architecture{suggest(arch)}; known: {', '.join(_REGISTRY)}",
                        source=source, field=field, value=arch) from None


def belief_construction(arch: str, *, context: str) -> str:
    """The ``belief_construction`` of ``arch`` (how it compiles a PFSA-SR); a
    :class:`FsmnetError` beginning ``context`` and naming the ids that have one otherwise."""
    ref = get(arch).belief_construction
    if ref is None:
        raise FsmnetError(f"{context}: a PFSA-SR compiles only to {', '.join(belief_ids())} "
                          "(the belief recurrence b = T D b is a dense linear map; "
                          f"{arch} is not supported for PFSA-SR specs)")
    return ref


def belief_ids() -> tuple[str, ...]:
    """The ids that compile a PFSA-SR (a ``belief_construction``), in listing order."""
    return tuple(r.id for r in _REGISTRY.values() if r.belief_construction is not None)


def suggest(word: object, options: Iterable[str] | None = None) -> str:
    """``" (did you mean 'x'?)"`` for the ids among ``options`` (default: the registered
    ones) closest to ``word``, or ``""`` when none is close.  Every report of an
    unknown architecture goes through it (the registry, network files, the CLI)."""
    import difflib

    if not isinstance(word, str):
        return ""
    known = list(_REGISTRY if options is None else options)
    key = word.strip().lower()
    score = {k: difflib.SequenceMatcher(None, key, k).ratio() for k in known}
    close = difflib.get_close_matches(key, known, n=3, cutoff=0.6)
    # Many ids share a prefix (bilinear-*): name only those about as close as the best.
    close = [c for c in close if score[c] >= score[close[0]] - 0.05] if close else []
    return "" if not close else " (did you mean " + " or ".join(map(repr, close)) + "?)"


def register(record: Architecture) -> None:
    """Add an architecture (e.g. a research variant) to the registry.

    Its parts must be importable ``"module:attribute"`` references; the
    record's theorems must be known.  Raises :class:`FsmnetError` for a taken id.
    """
    if record.id in _REGISTRY:
        raise FsmnetError(f"architecture {record.id!r} is already registered")
    unknown = [t for t in record.theorems if t not in THEOREMS]
    if unknown:
        raise FsmnetError(f"architecture {record.id!r}: unknown theorem(s) {unknown}; "
                          f"known: {', '.join(THEOREMS)}")
    _REGISTRY[record.id] = record


def unregister(arch: str) -> None:
    """Remove a registered architecture (the inverse of :func:`register`)."""
    get(arch)
    del _REGISTRY[arch]


@contextmanager
def registered(record: Architecture) -> Iterator[Architecture]:
    """``register(record)`` for the duration of a ``with`` block."""
    register(record)
    try:
        yield record
    finally:
        unregister(record.id)


__all__ = ["THEOREMS", "Architecture", "Theorem", "belief_construction", "belief_ids", "get",
           "ids", "records", "register", "registered", "resolve", "unregister"]
