"""Turn a SPEC (a spec-file path or a built-in family string) into an Automaton."""

from __future__ import annotations

import os
from typing import Any

from fsmnet.automata.automaton import Automaton
from fsmnet.errors import SpecError

_SPEC_SUFFIXES = (".json", ".yaml", ".yml")


def load(spec: str | os.PathLike[str] | dict[str, Any] | Automaton | Any) -> Automaton:
    """Load an automaton from whatever a user has in hand.

    Parameters
    ----------
    spec
        - an :class:`Automaton` (returned as is);
        - a ``dict`` in the spec-file form;
        - a path to a JSON or YAML spec file, or ``"-"`` for standard input
          (JSON or YAML, told apart by the content);
        - a built-in family string such as ``"parity"`` or ``"modadd:5"``
          (see :mod:`fsmnet.automata.families`);
        - an automata-lib ``DFA`` or ``NFA`` (an NFA is determinized);
        - an AALpy ``Dfa`` or ``MooreMachine``.

    Raises
    ------
    SpecError
        With the file, field and value at fault.
    """
    if isinstance(spec, Automaton):
        return spec
    if isinstance(spec, dict):
        from fsmnet.automata.spec import from_dict

        return from_dict(spec, source="<dict>")
    if isinstance(spec, (str, os.PathLike)):
        text = os.fspath(spec)
        if (text == "-" or os.path.exists(text) or text.lower().endswith(_SPEC_SUFFIXES)
                or os.sep in text):
            from fsmnet.automata.spec import load_file

            return load_file(text)
        from fsmnet.automata.families import build_family
        from fsmnet.automata.pfsa_families import is_pfsa_family

        if is_pfsa_family(text):  # a known family, not a misspelt one: say where it goes
            raise SpecError(
                f"'{text}' is a PFSA-SR spec (probabilistic), which this command does not "
                "support; info, compile, verify, run and expressivity take PFSA-SR specs "
                "(docs/pfsa.md)", source="<spec>")
        return build_family(text)
    module = type(spec).__module__ or ""
    if module.startswith("automata."):
        from fsmnet.automata.convert import from_automata_lib

        return from_automata_lib(spec)
    if module.startswith("aalpy."):
        from fsmnet.automata.convert import from_aalpy

        return from_aalpy(spec)
    raise SpecError("cannot load an automaton from this object", source="<load>",
                    field="spec", value=type(spec).__name__)
