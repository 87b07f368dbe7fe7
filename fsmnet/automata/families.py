"""Built-in automaton families, addressed by SPEC strings (docs/families.md).

A SPEC is ``name``, ``name:arg``, or ``name:key=val,key=val`` (positional
and keyword arguments may be mixed, positional first; a boolean parameter
may be given as a bare flag, as in ``symmetric:7,gens``).  Direct products
of groups join group specs with ``*`` and put shared flags at the end:
``cyclic:2*cyclic:3`` or ``dihedral:4*symmetric:3,gens``.

>>> build_family("modadd:5").output_of(["3", "4"])
2

:func:`build_family` turns a SPEC into an :class:`~fsmnet.automata.Automaton`
named after the SPEC; :data:`FAMILIES` lists the families for ``--help``
(see :func:`family_help`).  Definitions are in the builders' docstrings and
in ``docs/families.md``.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from fsmnet.automata.automaton import Automaton
from fsmnet.automata.families_common import SOURCE, Param, bad
from fsmnet.automata.families_counting import (
    atleast,
    counter,
    dyck,
    modadd,
    modarith,
    modcount,
    parity,
    random_machine,
)
from fsmnet.automata.families_groups import GROUP_KINDS, group_word_problem, shellgame
from fsmnet.automata.families_memory import contains, flipflop, induction, latch, sequences
from fsmnet.errors import SpecError

__all__ = ["FAMILIES", "FamilyInfo", "build_family", "family_help", "family_names"]

BILINEAR = "arXiv 2505.21749 (bilinear RNNs)"
FIXED_POINT = "arXiv 2503.10799 (fixed-point RNNs)"
CODE = "arXiv 2602.14814 (state tracking from code)"
MINMAX = "arXiv 2605.06384 (MinMax cascades)"
DYCK = "arXiv 2010.07515 (bounded Dyck)"


@dataclass(frozen=True, kw_only=True)
class FamilyInfo:
    """One line of the family table shown by ``--help``.

    Parameters
    ----------
    name
        The family name (what comes before ``:``).
    syntax
        The SPEC syntax with its defaults, e.g. ``"random:n=20,k=3,seed=1[,classes=c]"``.
    description
        One line saying what the automaton computes.
    source
        The paper whose benchmark it reproduces.
    """

    name: str
    syntax: str
    description: str
    source: str


@dataclass(frozen=True, kw_only=True)
class _Family:
    info: FamilyInfo
    params: tuple[Param, ...]
    build: Callable[..., Automaton]


_N_GROUP = {"cyclic": 1000, "dihedral": 1000, "symmetric": 64, "alternating": 64}
_GENS = Param(name="gens", kind="bool", default=False)


def _group_builder(kind: str) -> Callable[..., Automaton]:
    def build(*, n: int, gens: bool, spec: str) -> Automaton:
        return group_word_problem(factors=[(kind, n)], gens=gens, spec=spec)

    return build


def _group_family(kind: str, title: str, source: str) -> _Family:
    return _Family(
        info=FamilyInfo(name=kind, syntax=f"{kind}:n[,gens]",
                        description=f"word problem of {title}; letters: all elements, "
                                    "or generators with 'gens'",
                        source=source),
        params=(Param(name="n", required=True, low=1, high=_N_GROUP[kind]), _GENS),
        build=_group_builder(kind))


def _m(low: int) -> tuple[Param, ...]:
    return (Param(name="m", required=True, low=low),)


_REGISTRY: dict[str, _Family] = {
    f.info.name: f for f in (
        _Family(info=FamilyInfo(name="parity", syntax="parity",
                                description="acceptor over {0,1}: even number of 1s",
                                source=BILINEAR),
                params=(), build=parity),
        _Family(info=FamilyInfo(name="modcount", syntax="modcount:m",
                                description="number of 1s over {0,1} modulo m (outputs 0..m-1)",
                                source=BILINEAR),
                params=_m(1), build=modcount),
        _Family(info=FamilyInfo(name="atleast", syntax="atleast:k",
                                description="acceptor over {0,1}: at least k 1s (threshold)",
                                source=BILINEAR),
                params=(Param(name="k", required=True, low=1),), build=atleast),
        _Family(info=FamilyInfo(name="counter", syntax="counter:k",
                                description="u/d counter kept within 0..k (output the count); "
                                            "star-free, no congruence",
                                source="docs/constructions-minmax.md"),
                params=(Param(name="k", required=True, low=1),), build=counter),
        _Family(info=FamilyInfo(name="dyck", syntax="dyck:k",
                                description="acceptor: balanced ( ) of depth at most k "
                                            "(bounded Dyck, a sink past 0 or k)",
                                source=DYCK),
                params=(Param(name="k", required=True, low=1),), build=dyck),
        _Family(info=FamilyInfo(name="modadd", syntax="modadd:m",
                                description="digits 0..m-1, output the running sum mod m",
                                source=BILINEAR),
                params=_m(1), build=modadd),
        _Family(info=FamilyInfo(name="modarith", syntax="modarith:m",
                                description="digits and + - * evaluated left to right mod m",
                                source=BILINEAR),
                params=_m(2), build=modarith),
        _group_family("cyclic", "the cyclic group C_n", FIXED_POINT),
        _group_family("dihedral", "the dihedral group D_n (order 2n)", FIXED_POINT),
        _group_family("symmetric", "the symmetric group S_n (S5 benchmark)", FIXED_POINT),
        _group_family("alternating", "the alternating group A_n (A5 benchmark)",
                      FIXED_POINT),
        _Family(info=FamilyInfo(name="random",
                                syntax="random:n=20,k=3,seed=1[,classes=c|state]",
                                description="uniformly random transitions (numpy seed); "
                                            "acceptor, c classes, or output = state",
                                source=BILINEAR),
                params=(Param(name="n", default=20, low=1), Param(name="k", default=3, low=1),
                        Param(name="seed", default=1, low=0),
                        Param(name="classes", default=None, low=2, choices=("state",))),
                build=random_machine),
        _Family(info=FamilyInfo(name="flipflop", syntax="flipflop",
                                description="set/reset/read flip-flop, output the stored bit",
                                source=MINMAX),
                params=(), build=flipflop),
        _Family(info=FamilyInfo(name="latch", syntax="latch:n",
                                description="remember the first of n symbols and output it",
                                source=MINMAX),
                params=(Param(name="n", required=True, low=1),), build=latch),
        _Family(info=FamilyInfo(name="sequences", syntax="sequences:n[,tracks=2,others=1]",
                                description="Sequences(n): which tracks saw their n sets "
                                            "in order since their reset",
                                source=MINMAX),
                params=(Param(name="n", required=True, low=1),
                        Param(name="tracks", default=2, low=1, high=16),
                        Param(name="others", default=1, low=0)),
                build=sequences),
        _Family(info=FamilyInfo(name="induction", syntax="induction:M",
                                description="InductionHeads(M): at '@' output the token "
                                            "after the previous '@'",
                                source=MINMAX),
                params=(Param(name="m", required=True, low=1),), build=induction),
        _Family(info=FamilyInfo(name="shellgame", syntax="shellgame:n",
                                description="ball under one of n cups, letters swap two cups",
                                source=CODE),
                params=(Param(name="n", required=True, low=2),), build=shellgame),
        _Family(info=FamilyInfo(name="contains", syntax="contains:word[,alphabet=chars]",
                                description="star-free acceptor: the word contains the factor",
                                source=MINMAX + ", star-free task"),
                params=(Param(name="word", kind="str", required=True),
                        Param(name="alphabet", kind="str", default=None)),
                build=contains),
        _Family(info=FamilyInfo(name="starfree", syntax="starfree",
                                description="= contains:ab, words over {a,b} containing 'ab'",
                                source=MINMAX + ", star-free task"),
                params=(),
                build=lambda *, spec: contains(word="ab", alphabet=None, spec=spec)),
    )
}

_PRODUCT = FamilyInfo(name="product", syntax="G1*G2*...[,gens]  e.g. cyclic:2*symmetric:3",
                      description="word problem of a direct product of the group families",
                      source=FIXED_POINT)

FAMILIES: tuple[FamilyInfo, ...] = (*(f.info for f in _REGISTRY.values()), _PRODUCT)
"""Every built-in family, in the order ``--help`` prints them."""


def family_names() -> tuple[str, ...]:
    """The names a SPEC may start with."""
    return tuple(_REGISTRY)


def family_help() -> str:
    """The family table as plain text, for the CLI's ``--help``."""
    width = max(len(f.syntax) for f in FAMILIES)
    lines = ["built-in families (SPEC):"]
    for f in FAMILIES:
        lines.append(f"  {f.syntax:<{width}}  {f.description}  [{f.source}]")
    return "\n".join(lines)


def build_family(spec: str) -> Automaton:
    """Build the automaton of a family SPEC string.

    Parameters
    ----------
    spec
        E.g. ``"parity"``, ``"modadd:5"``, ``"random:n=20,k=3,seed=1"``,
        ``"symmetric:7,gens"``, ``"cyclic:2*cyclic:3"``.

    Returns
    -------
    Automaton
        Named ``spec`` (stripped), with a description.

    Raises
    ------
    SpecError
        ``source="<family>"``; ``field`` is ``"family"`` for an unknown name
        (with close names suggested), the parameter name for a missing, unknown,
        malformed or out-of-range parameter, or ``"size"`` for a table beyond
        :data:`~fsmnet.automata.families_common.MAX_TABLE`.
    """
    if not isinstance(spec, str) or not spec.strip():
        raise SpecError("empty family spec", source=SOURCE, field="family", value=spec)
    text = spec.strip()
    if "*" in text:
        return _build_product(text)
    name, has_args, rest = text.partition(":")
    family = _lookup(name, text)
    items = _split(rest, text) if has_args else []
    args = _bind(family.params, items, text)
    return family.build(spec=text, **args)


# ---------------------------------------------------------------- parsing
def _lookup(name: str, spec: str) -> _Family:
    key = name.strip().lower()
    if key in _REGISTRY:
        return _REGISTRY[key]
    head, comma, rest = key.partition(",")
    if comma and head.strip() in _REGISTRY:  # the name is right, the separator is not
        family = _REGISTRY[head.strip()]
        why = (f"parameters follow a colon (did you mean '{head.strip()}:{rest.strip()}'?)"
               if family.params else f"'{head.strip()}' takes no parameters")
        raise SpecError(f"{why} (in '{spec}')", source=SOURCE, field="family", value=name)
    raise SpecError(f"unknown family{_suggest(key, list(_REGISTRY))}; known: "
                    + ", ".join(_REGISTRY) + f" (in '{spec}')",
                    source=SOURCE, field="family", value=name)


def _suggest(word: str, options: Sequence[str]) -> str:
    close = difflib.get_close_matches(word, options, n=3, cutoff=0.6)
    return "" if not close else " (did you mean " + " or ".join(repr(c) for c in close) + "?)"


def _split(rest: str, spec: str) -> list[str]:
    items = [item.strip() for item in rest.split(",")]
    if any(not item for item in items):
        raise bad(spec, "arguments", rest, "empty argument")
    return items


def _bind(params: Sequence[Param], items: Sequence[str], spec: str) -> dict[str, Any]:
    by_name = {p.name: p for p in params}
    positional = [p for p in params if p.kind != "bool"]
    raw: dict[str, str] = {}
    next_pos = 0
    for item in items:
        key, eq, value = item.partition("=")
        key = key.strip().lower()
        if eq:
            if key not in by_name:
                hint = _suggest(key, list(by_name)) or (
                    "; parameters: " + ", ".join(by_name) if by_name else "; it takes none")
                raise bad(spec, key, value.strip(), f"unknown parameter{hint}")
            param = by_name[key]
            value = value.strip()
        elif key in by_name and by_name[key].kind == "bool":
            param, value = by_name[key], "true"
        else:
            while next_pos < len(positional) and positional[next_pos].name in raw:
                next_pos += 1
            if next_pos >= len(positional):
                what = "takes no parameters" if not params else "too many arguments"
                raise bad(spec, "arguments", item, what)
            param, value = positional[next_pos], item
        if param.name in raw:
            raise bad(spec, param.name, value, "parameter given twice")
        raw[param.name] = value
    return {p.name: _convert(p, raw[p.name], spec) if p.name in raw else _default(p, spec)
            for p in params}


def _default(param: Param, spec: str) -> Any:
    if param.required:
        raise bad(spec, param.name, None, "missing parameter")
    return param.default


def _convert(param: Param, value: str, spec: str) -> Any:
    if param.kind == "str":
        if not value:
            raise bad(spec, param.name, value, "empty value")
        return value
    if param.kind == "bool":
        low = value.lower()
        if low in ("true", "1", "yes"):
            return True
        if low in ("false", "0", "no"):
            return False
        raise bad(spec, param.name, value, "expected true or false")
    if value.lower() in param.choices:
        return value.lower()
    try:
        number = int(value)
    except ValueError:
        words = "".join(f" or '{c}'" for c in param.choices)
        raise bad(spec, param.name, value, f"expected an integer{words}") from None
    if number < param.low or (param.high is not None and number > param.high):
        top = "" if param.high is None else f"..{param.high}"
        span = f"{param.low}{top}" if top else f">= {param.low}"
        raise bad(spec, param.name, number, f"out of range (allowed: {span})")
    return number


def _build_product(text: str) -> Automaton:
    head, *options = (part.strip() for part in text.split(","))
    flags = _bind((_GENS,), options, text)
    factors: list[tuple[str, int]] = []
    for part in head.split("*"):
        name, has_args, rest = part.strip().partition(":")
        family = _lookup(name, text)
        if family.info.name not in GROUP_KINDS:
            raise bad(text, "family", name,
                      "only group families (" + ", ".join(GROUP_KINDS) + ") form products")
        items = _split(rest, text) if has_args else []
        args = _bind(family.params[:1], items, text)
        factors.append((family.info.name, int(args["n"])))
    return group_word_problem(factors=factors, gens=bool(flags["gens"]), spec=text)
