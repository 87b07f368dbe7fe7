"""Compile an automaton into exact weights: one thin dispatcher, one module per family.

In the spirit of tracr's ``compile_rasp_to_model``: :func:`compile_automaton`
loads and minimizes the automaton, validates the options against the
construction's signature (listing everything unsupported at once), and hands
over to the construction module of the architecture.
"""

from __future__ import annotations

import importlib
import inspect
import sys
import types
from typing import Any

from fsmnet.automata import Automaton, load
from fsmnet.errors import NotExpressible, SpecError

# Stable architecture id -> "module:function" of its construction.
CONSTRUCTIONS: dict[str, str] = {
    "bilinear-full": "fsmnet.compile.bilinear_full:compile_bilinear_full",
    "bilinear-cp": "fsmnet.compile.bilinear_cp:compile_bilinear_cp",
    "bilinear-block": "fsmnet.compile.bilinear_block:compile_bilinear_block",
    "bilinear-r2": "fsmnet.compile.commutative:compile_r2",
    "bilinear-real-diag": "fsmnet.compile.commutative:compile_real_diag",
    "bilinear-positive-diag": "fsmnet.compile.commutative:compile_positive_diag",
    "deltaproduct": "fsmnet.compile.deltaproduct:compile_deltaproduct",
    "fixed-point": "fsmnet.compile.fixed_point:compile_fixed_point",
    "minmax-dense": "fsmnet.compile.minmax_dense:compile_minmax_dense",
    "minmax-cascade": "fsmnet.compile.minmax_cascade:compile_minmax_cascade",
    "minmax-scalar": "fsmnet.compile.minmax_cascade:compile_minmax_scalar",
}


def construction_for(arch: str) -> Any:
    """The construction function of an architecture id (clear error if unknown)."""
    if arch not in CONSTRUCTIONS:
        raise SpecError(f"unknown architecture; known: {', '.join(CONSTRUCTIONS)}",
                        source="<compile>", field="arch", value=arch)
    module_name, func = CONSTRUCTIONS[arch].split(":")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name != module_name:
            raise
        raise NotExpressible(f"{arch}: this construction is not implemented yet") from None
    return getattr(module, func)


def compile_automaton(automaton: Automaton | Any, arch: str, **options: Any) -> Any:
    """Compile ``automaton`` into a :class:`~fsmnet.nets.Network` of architecture ``arch``.

    Parameters
    ----------
    automaton
        Anything :func:`fsmnet.load` accepts (an Automaton, a SPEC string, ...).
        It must have an initial state and outputs; it is minimized first.
    arch
        A stable architecture id (``fsmnet.compile.CONSTRUCTIONS``).
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


class _CallableModule(types.ModuleType):
    """Makes ``fsmnet.compile(automaton, arch)`` work although ``fsmnet.compile``
    is also this package (importing a submodule rebinds the package attribute)."""

    def __call__(self, automaton: Automaton | Any, arch: str, **options: Any) -> Any:
        return compile_automaton(automaton, arch, **options)


sys.modules[__name__].__class__ = _CallableModule

__all__ = ["CONSTRUCTIONS", "compile_automaton", "construction_for"]
