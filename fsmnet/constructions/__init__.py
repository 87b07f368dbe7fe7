"""Compile an automaton into exact weights: one thin dispatcher, one module per family.

In the spirit of tracr's ``compile_rasp_to_model``: :func:`compile_automaton`
loads and minimizes the automaton, validates the options against the
construction's signature (listing everything unsupported at once), and hands
over to the construction module of the architecture.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from fsmnet import archs
from fsmnet.automata import Automaton, load
from fsmnet.errors import SpecError
from fsmnet.nets import Network


def construction_for(arch: str) -> Callable[..., Network]:
    """The construction function of an architecture id (clear error if unknown)."""
    record = archs.get(arch, source="<compile>")
    build: Callable[..., Network] = archs.resolve(record.construction)
    return build


def compile_automaton(automaton: Automaton | Any, arch: str, **options: Any) -> Network:
    """Compile ``automaton`` into a :class:`~fsmnet.nets.Network` of architecture ``arch``.

    Parameters
    ----------
    automaton
        Anything :func:`fsmnet.load` accepts (an Automaton, a SPEC string, ...).
        It must have an initial state and outputs; it is minimized first.
    arch
        A registered architecture id (:func:`fsmnet.archs.ids`).
    **options
        Construction-specific options (see each construction's docstring).

    Raises
    ------
    NotExpressible
        When ``arch`` cannot express the automaton; the message says why.
    SpecError
        For a semiautomaton, an unknown architecture, or unsupported options.
    """
    machine = load(automaton)
    if machine.is_semiautomaton:
        raise SpecError("compiling needs an initial state and outputs (this is a "
                        "semiautomaton)", source=machine.name or "<automaton>",
                        field="initial_state", value=machine.initial)
    build = construction_for(arch)
    accepted = [p.name for p in inspect.signature(build).parameters.values()
                if p.kind is inspect.Parameter.KEYWORD_ONLY]
    unknown = sorted(set(options) - set(accepted))
    if unknown:
        raise SpecError(f"unsupported option(s) for {arch}: {', '.join(unknown)}; "
                        f"supported: {', '.join(accepted) or 'none'}",
                        source="<compile>", field="options", value=unknown)
    _check_values(build, arch, options)
    net = build(machine.minimal(), **options)
    # Every option the construction ran with, defaults included, goes into the file
    # header: a compile is a function of its inputs and these.
    ran_with = {p.name: p.default for p in inspect.signature(build).parameters.values()
                if p.kind is inspect.Parameter.KEYWORD_ONLY}
    ran_with.update(options)
    return net.with_options(compile_options={k: _jsonable(v) for k, v in ran_with.items()})


def _jsonable(value: Any) -> Any:
    """JSON scalars as they are; anything else (a Fraction) as its string."""
    return value if value is None or isinstance(value, (bool, int, float, str)) else str(value)


# Options that count something (a rank, a number of tries, a budget of states) must be
# at least 1; every other number at least 0 (seeds, time or solver budgets, margins).
# A construction module may declare more in an ``OPTION_MINIMUMS`` dict of its own.
OPTION_MINIMUMS: dict[str, float] = {"rank": 1, "attempts": 1, "max_states": 1,
                                     "max_congruences": 1, "tuning_steps": 1}


def _check_values(build: Callable[..., Network], arch: str, options: dict[str, Any]) -> None:
    """Check each option against the construction's annotation and documented bounds.

    A value of the wrong JSON type (``rank="x"``, ``search=3``), a number that
    is not finite, or one below its minimum raises :class:`SpecError` naming
    the option and the value, before any work is done.
    """
    import math
    import sys
    import typing
    from fractions import Fraction

    try:
        hints = typing.get_type_hints(build)
    except Exception:  # noqa: BLE001 - unresolvable annotations: check the bounds only
        hints = {}
    module = sys.modules.get(getattr(build, "__module__", ""), None)
    minimums = {**OPTION_MINIMUMS, **getattr(module, "OPTION_MINIMUMS", {})}
    for name, value in options.items():
        field = f"options.{name}"
        allowed = set(typing.get_args(hints[name]) or (hints[name],)) if name in hints else set()
        if value is None:
            if allowed and type(None) not in allowed:
                raise SpecError(f"{arch} option {name} needs a value", source="<compile>",
                                field=field, value=value)
            continue
        if allowed and not _fits(value, allowed):
            kinds = " or ".join(sorted(getattr(t, "__name__", str(t)) for t in allowed
                                       if t is not type(None)))
            raise SpecError(f"{arch} option {name} must be {kinds}", source="<compile>",
                            field=field, value=value)
        if isinstance(value, (int, float, Fraction)) and not isinstance(value, bool):
            low = minimums.get(name, 0)
            if isinstance(value, float) and not math.isfinite(value):
                raise SpecError(f"{arch} option {name} must be a finite number",
                                source="<compile>", field=field, value=value)
            if value < low:
                raise SpecError(f"{arch} option {name} must be >= {low}", source="<compile>",
                                field=field, value=value)


def _fits(value: Any, allowed: set[Any]) -> bool:
    """Whether a (JSON) value is of one of the annotated types; bool is not an int here."""
    if isinstance(value, bool):
        return bool in allowed
    if isinstance(value, int) and float in allowed:
        return True  # 2 for 2.0
    return any(isinstance(t, type) and t is not bool and isinstance(value, t) for t in allowed)


__all__ = ["compile_automaton", "construction_for"]
