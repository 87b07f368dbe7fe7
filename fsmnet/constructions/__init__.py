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
    return build(machine.minimal(), **options)


__all__ = ["compile_automaton", "construction_for"]
