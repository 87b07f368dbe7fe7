"""PFSA-SR spec files: the automaton spec format with probabilities and reveals.

A PFSA-SR spec is a JSON or YAML mapping with ``kind: pfsa-sr`` (which is how
every loader tells it from a plain automaton spec) and the automaton fields:

* ``states``, ``input_symbols``, ``initial_state`` (required), ``name``,
  ``description``: as in docs/spec-format.md;
* ``transitions``: state → (symbol → distribution), where a distribution is a
  mapping target → probability, or a single state name for probability 1.
  Every state needs a distribution for every symbol (no sink is added).
  Probabilities are exact rationals: strings like ``"1/3"`` or ``"0.25"``,
  or the integers 0 and 1.  Floats are refused (YAML ``0.5`` is a float);
* ``reveals``: symbol → list of states ρ(a).  A symbol not listed reveals
  nothing (ρ(a) = all states).

docs/pfsa.md is the user-facing reference; errors are
:class:`~fsmnet.errors.SpecError` naming the file, the field and the value.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from fractions import Fraction
from pathlib import Path
from typing import Any

from fsmnet.automata.pfsa import PFSA
from fsmnet.automata.spec import _parse, _Validator
from fsmnet.errors import SpecError

__all__ = ["KIND", "from_dict", "is_pfsa_spec", "load_file", "load_pfsa", "save_file"]

KIND = "pfsa-sr"
_FIELDS = ("kind", "name", "description", "states", "input_symbols", "transitions",
           "initial_state", "reveals")


def _read(path: str) -> Any:
    try:
        text = Path(path).read_bytes().decode("utf-8-sig")
    except OSError as exc:
        raise SpecError(f"cannot read the spec file ({exc.strerror or exc})",
                        source=path) from None
    except UnicodeDecodeError as exc:
        raise SpecError(f"the file is not UTF-8 text (bad byte at offset {exc.start})",
                        source=path) from None
    return _parse(text, path)


def load_file(path: str | os.PathLike[str]) -> PFSA:
    """Load a PFSA-SR from a JSON or YAML spec file (``kind: pfsa-sr``)."""
    source = os.fspath(path)
    return from_dict(_read(source), source=source)


def save_file(pfsa: PFSA, path: str | os.PathLike[str]) -> None:
    """Write a PFSA-SR spec (JSON for ``.json``, else YAML) that loads back equal."""
    import yaml

    target = os.fspath(path)
    data = pfsa.to_dict()
    text = (json.dumps(data, indent=2, ensure_ascii=False) + "\n"
            if target.lower().endswith(".json")
            else yaml.safe_dump(data, sort_keys=False, allow_unicode=True))
    from fsmnet.io import write_text

    write_text(target, text)  # atomic, and refuses what fsmnet.io refuses


def is_pfsa_spec(spec: Any) -> bool:
    """True for a PFSA-SR: a PFSA, a dict or spec file with ``kind: pfsa-sr``, or a
    built-in PFSA family string (``pcups:...``).  Unreadable files answer False
    (the automaton loader then reports them)."""
    from fsmnet.automata.pfsa_families import is_pfsa_family

    if isinstance(spec, PFSA):
        return True
    if isinstance(spec, Mapping):
        return spec.get("kind") == KIND
    if not isinstance(spec, (str, os.PathLike)):
        return False
    text = os.fspath(spec)
    if os.path.isfile(text):
        try:
            data = _read(text)
        except SpecError:
            return False
        return isinstance(data, Mapping) and data.get("kind") == KIND
    return is_pfsa_family(text)


def load_pfsa(spec: Any) -> PFSA:
    """A PFSA from a PFSA, a dict, a spec file or a family string (``pcups:3``)."""
    from fsmnet.automata.pfsa_families import build_pfsa_family, is_pfsa_family

    if isinstance(spec, PFSA):
        return spec
    if isinstance(spec, Mapping):
        return from_dict(spec, source="<dict>")
    text = os.fspath(spec)
    if not os.path.exists(text) and is_pfsa_family(text):
        return build_pfsa_family(text)
    return load_file(text)


def from_dict(data: Any, *, source: str = "<dict>") -> PFSA:
    """Build a PFSA-SR from a spec in dictionary form (see the module docstring)."""
    v = _Validator(source)
    top = v.mapping(data, "")
    for key in top:
        if key not in _FIELDS:
            v.fail(f"unknown field; a PFSA-SR spec has {', '.join(_FIELDS)}", key, key)
    if top.get("kind") != KIND:
        v.fail(f"a PFSA-SR spec needs kind: {KIND}", "kind", top.get("kind"))
    for required in ("states", "input_symbols", "transitions", "initial_state"):
        if top.get(required) is None:
            v.fail("missing required field", required, None)
    states = v.names(top["states"], "states", "state")
    symbols = v.names(top["input_symbols"], "input_symbols", "symbol")
    st_index = {s: i for i, s in enumerate(states)}
    sy_index = {a: i for i, a in enumerate(symbols)}
    n = len(states)
    kernel: list[list[list[Fraction] | None]] = [[None] * n for _ in symbols]
    table = v.mapping(top["transitions"], "transitions")
    for q, row in table.items():
        src = v.member(q, st_index, "transitions", "state")
        for a, dist in v.mapping(row, f"transitions.{q}").items():
            sym = v.member(a, sy_index, f"transitions.{q}", "symbol")
            kernel[sym][src] = _distribution(v, dist, st_index, f"transitions.{q}.{a}")
    for a, sym_name in enumerate(symbols):
        for q, state in enumerate(states):
            if kernel[a][q] is None:
                v.fail("every state needs a distribution for every symbol",
                       f"transitions.{state}.{sym_name}", None)
    reveals: list[list[int]] = [list(range(n)) for _ in symbols]
    raw = top.get("reveals") or {}
    for a, shown in v.mapping(raw, "reveals").items():
        sym = v.member(a, sy_index, "reveals", "symbol")
        names = v.names(shown, f"reveals.{a}", "state")
        reveals[sym] = [v.member(q, st_index, f"reveals.{a}", "state", key=False)
                        for q in names]
    init = v.member(top["initial_state"], st_index, "initial_state", "state", key=False)
    return PFSA(states=states, symbols=symbols, kernel=kernel,  # type: ignore[arg-type]
                reveals=reveals, initial=init, name=v.text(top.get("name", ""), "name"),
                description=v.text(top.get("description", ""), "description"),
                source=source)


def _distribution(v: _Validator, dist: Any, st_index: dict[str, int], field: str
                  ) -> list[Fraction]:
    row = [Fraction(0)] * len(st_index)
    if isinstance(dist, str):
        row[v.member(dist, st_index, field, "state", key=False)] = Fraction(1)
        return row
    for target, p in v.mapping(dist, field).items():
        t = v.member(target, st_index, field, "state")
        row[t] = _probability(v, p, f"{field}.{target}")
    return row


def _probability(v: _Validator, p: Any, field: str) -> Fraction:
    if isinstance(p, bool) or isinstance(p, float):
        v.fail("write a probability as an exact rational string like \"1/2\" "
               "(a float is not exact)", field, p)
    if isinstance(p, int):
        return Fraction(p)
    if not isinstance(p, str):
        v.fail("a probability must be a string like \"1/3\"", field, p)
    try:
        return Fraction(p.strip())
    except (ValueError, ZeroDivisionError):
        v.fail("not an exact rational (write \"p/q\" or a decimal like \"0.25\")", field, p)
    raise AssertionError("unreachable")  # v.fail raises
