"""Spec files: JSON or YAML descriptions of automata, loaded and saved.

The format follows automata-lib's field names (``states``, ``input_symbols``,
``transitions``, ``initial_state``, ``final_states``) plus ``outputs`` for
multi-class Moore machines, ``regex`` as a shorthand, and free-text ``name``
and ``description``.  ``docs/spec-format.md`` is the user-facing reference.

Everything a user can get wrong raises :class:`~fsmnet.errors.SpecError`
naming the file, the field (``"transitions.q0.a"``) and the value, and
nothing else escapes: the loader validates every field *before* touching it,
so odd types (YAML ints as keys, lists where strings belong, ...) are
reported rather than crashing a comparison or a hash.
"""

from __future__ import annotations

import json
import os
import sys
import warnings
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from fsmnet.automata.automaton import Automaton
from fsmnet.errors import SpecError

__all__ = ["SpecWarning", "from_dict", "load_file", "save_file", "SINK_STATE"]

SINK_STATE = "__sink__"
"""Preferred name of the state added to complete a partial transition table."""

_FIELDS = ("name", "description", "states", "input_symbols", "transitions",
           "initial_state", "final_states", "outputs", "regex")
_MACHINE_FIELDS = ("states", "transitions", "initial_state", "final_states", "outputs")
_JSON_SUFFIXES = (".json",)
_YAML_SUFFIXES = (".yaml", ".yml")


class SpecWarning(UserWarning):
    """A spec that loads, but not quite as written (e.g. a partial table completed)."""


# ------------------------------------------------------------------ files
def load_file(path: str | os.PathLike[str]) -> Automaton:
    """Load an automaton from a JSON or YAML spec file.

    The format is chosen by suffix (``.json``; ``.yaml``/``.yml``); any other
    suffix is tried as JSON when the text starts with ``{``, else as YAML.

    Parameters
    ----------
    path
        The spec file, or ``"-"`` for standard input (JSON when the text
        starts with ``{``, else YAML).

    Returns
    -------
    Automaton

    Raises
    ------
    SpecError
        If the file cannot be read, is not UTF-8, is not JSON/YAML, or is not
        a valid spec; ``source`` is the file path.

    Warns
    -----
    SpecWarning
        When a partial transition table is completed with a sink state.
    """
    source = os.fspath(path)
    try:
        if source == "-":  # standard input; the format is told by the content
            source = "<stdin>"
            raw = sys.stdin.buffer.read()
        else:
            raw = Path(source).read_bytes()
    except OSError as exc:
        raise SpecError(f"cannot read the spec file ({exc.strerror or exc})",
                        source=source) from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise SpecError(f"the file is not UTF-8 text (bad byte at offset {exc.start})",
                        source=source, value=raw[exc.start:exc.start + 4]) from None
    return from_dict(_parse(text, source), source=source)


def save_file(automaton: Automaton, path: str | os.PathLike[str], *,
              format: str | None = None) -> None:  # noqa: A002 - mirrors the CLI word
    """Write an automaton as a spec file that :func:`load_file` reads back exactly.

    Parameters
    ----------
    automaton
        What to write (via :meth:`Automaton.to_dict`).
    path
        Destination; the suffix picks the format unless ``format`` is given.
    format
        ``"json"`` or ``"yaml"``.

    Raises
    ------
    SpecError
        For an unknown format or a file that cannot be written.
    """
    target = os.fspath(path)
    fmt = format or _format_of(target)
    if fmt not in ("json", "yaml"):
        raise SpecError("cannot tell the format: use a .json/.yaml/.yml suffix or format=",
                        source=target, field="format", value=format)
    data = automaton.to_dict()
    if fmt == "json":
        text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    else:
        # sort_keys=False keeps states/symbols in index order; safe_dump quotes
        # strings like "1", "true" or "null" so they come back as strings.
        text = yaml.safe_dump(data, sort_keys=False, allow_unicode=True)
        if yaml.safe_load(text) != data:
            # PyYAML writes some characters raw that its reader then folds
            # (U+0085 becomes a space); escaping all non-ASCII is exact.
            text = yaml.safe_dump(data, sort_keys=False, allow_unicode=False)
    try:
        encoded = text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise SpecError("a name or label is not valid Unicode (a lone surrogate)",
                        source=target, value=exc.object[exc.start:exc.end]) from None
    from fsmnet.io import write_bytes  # atomic for regular files; "-" is standard output

    try:
        write_bytes(target, encoded)
    except OSError as exc:  # fsmnet.io.OutputError included: keep the documented SpecError
        raise SpecError(f"cannot write the spec file ({exc})", source=target) from None


def _format_of(path: str) -> str | None:
    low = path.lower()
    if low.endswith(_JSON_SUFFIXES):
        return "json"
    if low.endswith(_YAML_SUFFIXES):
        return "yaml"
    return None


def _parse(text: str, source: str) -> Any:
    fmt = _format_of(source)
    if fmt is None:
        fmt = "json" if text.lstrip().startswith("{") else "yaml"
    try:
        if fmt == "json":
            return json.loads(text, object_pairs_hook=_json_object)
        return yaml.load(text, Loader=_StrictLoader)  # noqa: S506 - a SafeLoader subclass
    except json.JSONDecodeError as exc:
        raise SpecError(f"not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}",
                        source=source) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1} column {mark.column + 1}" if mark else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise SpecError(f"not valid YAML: {problem}{where}", source=source) from None
    except RecursionError:
        raise SpecError(f"not a usable {fmt.upper()} spec: nested too deeply",
                        source=source) from None
    except (ValueError, TypeError, OverflowError) as exc:
        # e.g. an integer literal beyond Python's digit limit, a bad YAML date.
        raise SpecError(f"not a usable {fmt.upper()} spec: {exc}", source=source) from None


class _Pairs(dict):  # type: ignore[type-arg]
    """A parsed mapping that remembers the keys it saw twice.

    JSON and YAML parsers silently keep the last of duplicate keys; we record
    them so that :func:`from_dict` can report them with their field path.
    """

    duplicates: list[Any]

    def __init__(self) -> None:
        super().__init__()
        self.duplicates = []


def _json_object(pairs: list[tuple[str, Any]]) -> _Pairs:
    out = _Pairs()
    for key, value in pairs:
        if key in out:
            out.duplicates.append(key)
        out[key] = value
    return out


class _StrictLoader(yaml.SafeLoader):
    """A SafeLoader whose mappings record duplicate keys (see :class:`_Pairs`)."""


def _yaml_map(loader: _StrictLoader, node: yaml.MappingNode) -> Any:
    data = _Pairs()
    yield data
    loader.flatten_mapping(node)
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=False)
        try:
            hash(key)
        except TypeError:
            raise yaml.constructor.ConstructorError(
                None, None, "found an unhashable mapping key", key_node.start_mark) from None
        if key in data:
            data.duplicates.append(key)
        data[key] = loader.construct_object(value_node, deep=False)


_StrictLoader.add_constructor("tag:yaml.org,2002:map", _yaml_map)


# -------------------------------------------------------------- validation
def from_dict(data: Any, *, source: str = "<dict>") -> Automaton:
    """Build an automaton from a spec in dictionary form.

    Parameters
    ----------
    data
        The parsed spec (see ``docs/spec-format.md``).
    source
        Where it came from, for error messages (a file path, ``"<dict>"``).

    Returns
    -------
    Automaton
        An acceptor (``final_states``), a Moore machine (``outputs``), or a
        semiautomaton (neither).  Without ``initial_state`` the result has no
        initial state; an ``initial_state`` alone keeps it on a semiautomaton.

    Raises
    ------
    SpecError
        With ``source``, the field and the value at fault.

    Warns
    -----
    SpecWarning
        When a partial transition table is completed with a sink state.
    """
    v = _Validator(source)
    top = v.mapping(data, "")
    for key in top:
        if key not in _FIELDS:
            v.fail(f"unknown field; known fields are {', '.join(_FIELDS)}", key, key)
    name = v.text(top.get("name", ""), "name")
    description = v.text(top.get("description", ""), "description")
    if "regex" in top:
        return _regex_spec(v, top, name, description)

    for required in ("states", "input_symbols", "transitions"):
        if required not in top:
            v.fail("missing required field", required, None)
    states = v.names(top["states"], "states", "state")
    symbols = v.names(top["input_symbols"], "input_symbols", "symbol")
    st_index = {s: i for i, s in enumerate(states)}
    sy_index = {a: i for i, a in enumerate(symbols)}

    n, k = len(states), len(symbols)
    delta = np.full((k, n), -1, dtype=np.int64)
    table = v.mapping(top["transitions"], "transitions")
    for q, row in table.items():
        src = v.member(q, st_index, "transitions", "state")
        row = v.mapping(row, f"transitions.{q}")
        for a, target in row.items():
            sym = v.member(a, sy_index, f"transitions.{q}", "symbol")
            delta[sym, src] = _target(v, target, st_index, f"transitions.{q}.{a}")

    initial = top.get("initial_state")
    init = None if initial is None else v.member(initial, st_index, "initial_state", "state",
                                                 key=False)
    if top.get("final_states") is not None and top.get("outputs") is not None:
        v.fail("give either final_states (an acceptor) or outputs (a Moore machine), "
               "not both", "outputs", sorted(map(str, top["outputs"])) if isinstance(
                   top["outputs"], Mapping) else top["outputs"])
    outputs: list[Any] | None = None
    if top.get("final_states") is not None:
        finals = v.names(top["final_states"], "final_states", "state", allow_empty=True)
        for f in finals:
            v.member(f, st_index, "final_states", "state", key=False)
        accepting = set(finals)
        outputs = [s in accepting for s in states]
    elif top.get("outputs") is not None:
        outputs = _outputs(v, top["outputs"], states, st_index)

    missing = np.argwhere(delta < 0)
    if len(missing):
        delta, states, outputs = _complete(v, delta, states, outputs, symbols, missing)
    try:
        return Automaton(delta=delta, symbols=symbols, states=states, initial=init,
                         outputs=outputs, name=name, description=description)
    except SpecError as exc:  # defensive: every field was validated above
        raise SpecError(str(exc), source=source, field=exc.field, value=exc.value) from None


def _target(v: _Validator, target: Any, st_index: dict[str, int], field: str) -> int:
    if isinstance(target, (list, tuple, set, frozenset)):
        if len(target) == 1:
            v.fail("a DFA transition names one state, not a list (NFA notation); "
                   "write the state name alone", field, target)
        v.fail(f"nondeterministic transition ({len(target)} targets): a DFA spec needs "
               "exactly one; build an automata-lib NFA and load it to determinize",
               field, target)
    return v.member(target, st_index, field, "state", key=False)


def _outputs(v: _Validator, raw: Any, states: list[str], st_index: dict[str, int]) -> list[Any]:
    table = v.mapping(raw, "outputs")
    labels: dict[str, Any] = {}
    for q, label in table.items():
        v.member(q, st_index, "outputs", "state")
        if not isinstance(label, (bool, int, str)):
            v.fail("an output label must be a bool, an integer or a string",
                   f"outputs.{q}", label)
        if isinstance(label, str):
            v.unicode(label, f"outputs.{q}")
        labels[q] = label
    lacking = [s for s in states if s not in labels]
    if lacking:
        v.fail(f"every state needs an output; {len(lacking)} have none", "outputs",
               lacking[:10])
    return [labels[s] for s in states]


def _complete(v: _Validator, delta: np.ndarray, states: list[str], outputs: list[Any] | None,
              symbols: list[str], missing: np.ndarray
              ) -> tuple[np.ndarray, list[str], list[Any] | None]:
    """Add a sink state for the missing entries of ``delta`` and warn about them."""
    shown = [f"{states[q]} on {symbols[a]!r}" for a, q in sorted(missing.tolist(),
                                                                    key=lambda e: (e[1], e[0]))]
    first = missing[0]
    field = f"transitions.{states[first[1]]}.{symbols[first[0]]}"
    if outputs is not None and not all(isinstance(o, bool) for o in outputs):
        v.fail("the transition table is partial, and a multi-class Moore machine has no "
               f"natural output for a sink state; missing: {', '.join(shown[:10])}",
               field, None)
    taken = set(states)
    sink, i = SINK_STATE, 0
    while sink in taken:
        i += 1
        sink = f"{SINK_STATE}{i}"
    n = len(states)
    full = np.concatenate([delta, np.full((delta.shape[0], 1), n, dtype=np.int64)], axis=1)
    full[full < 0] = n
    more = "" if len(shown) <= 10 else f" and {len(shown) - 10} more"
    warnings.warn(f"{v.source}: partial transition table completed with a rejecting sink "
                  f"state {sink!r}; missing: {', '.join(shown[:10])}{more}",
                  SpecWarning, stacklevel=4)
    return full, [*states, sink], None if outputs is None else [*outputs, False]


def _regex_spec(v: _Validator, top: Mapping[str, Any], name: str, description: str
                ) -> Automaton:
    from fsmnet.automata.convert import from_regex

    for key in _MACHINE_FIELDS:
        if key in top:
            v.fail("a regex spec takes only regex, input_symbols, name and description",
                   key, key)
    pattern = v.text(top["regex"], "regex")
    if "input_symbols" not in top:
        v.fail("a regex spec needs input_symbols", "input_symbols", None)
    symbols = v.names(top["input_symbols"], "input_symbols", "symbol")
    return from_regex(pattern, symbols, name=name, description=description, source=v.source)


def _kind(value: Any) -> str:
    """The JSON/YAML word for a parsed value's type, for messages."""
    if isinstance(value, Mapping):
        return "a mapping"
    return {str: "a string", list: "a list", bool: "a boolean", int: "an integer",
            float: "a number", type(None): "null"}.get(type(value), type(value).__name__)


class _Validator:
    """Type checks that raise :class:`SpecError` carrying the spec's source."""

    def __init__(self, source: str) -> None:
        self.source = source

    def fail(self, message: str, field: str | None, value: Any) -> Any:
        try:
            repr(value)
        except ValueError:  # ints beyond the str-conversion limit
            value = f"<integer of {value.bit_length()} bits>"
        raise SpecError(message, source=self.source, field=field or None, value=value)

    def mapping(self, data: Any, field: str) -> Mapping[Any, Any]:
        if not isinstance(data, Mapping):
            what = "the spec" if not field else "this field"
            self.fail(f"{what} must be a mapping (JSON object / YAML mapping), "
                      f"not {_kind(data)}", field or None, data)
        for dup in getattr(data, "duplicates", ()):
            self.fail("duplicate key", f"{field}.{dup}" if field else str(dup), dup)
        for key in data:
            if not isinstance(key, str):
                self.fail(f"keys must be strings, not {_kind(key)} "
                          "(quote it in YAML)", field or None, key)
        return data

    def text(self, value: Any, field: str) -> str:
        if not isinstance(value, str):
            self.fail("must be a string", field, value)
        self.unicode(value, field)
        return value

    def unicode(self, value: str, field: str) -> None:
        # YAML turns "\ud800" escapes into lone surrogates, which no file can hold.
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            self.fail("not valid Unicode (a lone surrogate)", field, value)

    def names(self, data: Any, field: str, kind: str, *, allow_empty: bool = False
              ) -> list[str]:
        if not isinstance(data, (list, tuple)):
            self.fail(f"must be a list of {kind} names, not {_kind(data)}", field, data)
        if not data and not allow_empty:
            msg = "the input alphabet is empty" if kind == "symbol" else "no states"
            self.fail(msg, field, data)
        seen: set[str] = set()
        for item in data:
            if not isinstance(item, str):
                self.fail(f"{kind} names must be strings, not {_kind(item)} "
                          "(quote it in YAML)", field, item)
            self.unicode(item, field)
            if item in seen:
                self.fail(f"duplicate {kind} name", field, item)
            seen.add(item)
        return list(data)

    def member(self, name: Any, index: dict[str, int], field: str, kind: str, *,
               key: bool = True) -> int:
        """Index of ``name`` in ``index``; ``key`` says the name is a mapping key."""
        where = f"{field}.{name}" if key and isinstance(name, str) else field
        if not isinstance(name, str):
            self.fail(f"a {kind} name must be a string, not {_kind(name)} "
                      "(quote it in YAML)", where, name)
        if name not in index:
            listed = "input_symbols" if kind == "symbol" else "states"
            self.fail(f"unknown {kind}: not listed in {listed}", where, name)
        return index[name]
