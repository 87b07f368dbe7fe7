"""Every malformed spec gives a SpecError naming the file, the field and the value."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import fsmnet
from fsmnet.automata.spec import load_file
from fsmnet.errors import SpecError

GOOD: dict[str, Any] = {
    "states": ["p", "q"],
    "input_symbols": ["a", "b"],
    "transitions": {"p": {"a": "q", "b": "p"}, "q": {"a": "p", "b": "q"}},
    "initial_state": "p",
    "final_states": ["q"],
}


def spec(**changes: Any) -> dict[str, Any]:
    out = json.loads(json.dumps(GOOD))
    for key, value in changes.items():
        if value is _DROP:
            out.pop(key)
        else:
            out[key] = value
    return out


_DROP = object()


def expect(path: Path, field: str | None, value: Any, fragment: str) -> SpecError:
    """Load ``path`` and check the error names file, field, value and the problem."""
    with pytest.raises(SpecError) as info:
        load_file(path)
    exc = info.value
    msg = str(exc)
    assert exc.source == str(path) and str(path) in msg
    assert exc.field == field
    if field is not None:
        assert f"'{field}'" in msg
    if value is not None:
        assert exc.value == value and isinstance(exc.value, type(value))
        assert repr(value)[:60] in msg
    assert fragment.lower() in msg.lower()
    return exc


def write_json(tmp_path: Path, data: Any, name: str = "spec.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(data))
    return path


def write_text(tmp_path: Path, text: str, name: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


# (id, spec, field, value, message fragment) for JSON specs.
JSON_CASES = [
    ("unknown target state", spec(transitions={"p": {"a": "zz", "b": "p"},
                                               "q": {"a": "p", "b": "q"}}),
     "transitions.p.a", "zz", "unknown state"),
    ("unknown source state", spec(transitions={**GOOD["transitions"], "zz": {"a": "p"}}),
     "transitions.zz", "zz", "unknown state"),
    ("unknown initial state", spec(initial_state="zz"), "initial_state", "zz", "unknown state"),
    ("unknown final state", spec(final_states=["q", "zz"]), "final_states", "zz",
     "unknown state"),
    ("unknown outputs key", spec(final_states=_DROP, outputs={"p": 0, "q": 1, "zz": 2}),
     "outputs.zz", "zz", "unknown state"),
    ("unknown symbol", spec(transitions={"p": {"a": "q", "b": "p", "c": "p"},
                                         "q": {"a": "p", "b": "q"}}),
     "transitions.p.c", "c", "unknown symbol"),
    ("duplicate state", spec(states=["p", "q", "p"]), "states", "p", "duplicate state"),
    ("duplicate symbol", spec(input_symbols=["a", "b", "a"]), "input_symbols", "a",
     "duplicate symbol"),
    ("duplicate final state", spec(final_states=["q", "q"]), "final_states", "q",
     "duplicate state"),
    ("nondeterministic", spec(transitions={"p": {"a": ["p", "q"], "b": "p"},
                                           "q": {"a": "p", "b": "q"}}),
     "transitions.p.a", ["p", "q"], "nondeterministic"),
    ("one-element target list", spec(transitions={"p": {"a": ["q"], "b": "p"},
                                                  "q": {"a": "p", "b": "q"}}),
     "transitions.p.a", ["q"], "NFA notation"),
    ("empty alphabet", spec(input_symbols=[], transitions={"p": {}, "q": {}}),
     "input_symbols", [], "alphabet is empty"),
    ("no states", spec(states=[]), "states", [], "no states"),
    ("states not a list", spec(states="pq"), "states", "pq", "must be a list"),
    ("symbols not a list", spec(input_symbols={"a": 1}), "input_symbols", {"a": 1},
     "must be a list"),
    ("transitions not a mapping", spec(transitions=[["p", "a", "q"]]), "transitions",
     [["p", "a", "q"]], "must be a mapping"),
    ("row not a mapping", spec(transitions={"p": "q", "q": {"a": "p", "b": "q"}}),
     "transitions.p", "q", "must be a mapping"),
    ("integer state name", spec(states=["p", 7]), "states", 7, "must be strings"),
    ("integer target", spec(transitions={"p": {"a": 1, "b": "p"}, "q": {"a": "p", "b": "q"}}),
     "transitions.p.a", 1, "must be a string"),
    ("missing states", spec(states=_DROP), "states", None, "missing required field"),
    ("missing input_symbols", spec(input_symbols=_DROP), "input_symbols", None,
     "missing required field"),
    ("missing transitions", spec(transitions=_DROP), "transitions", None,
     "missing required field"),
    ("final_states and outputs", spec(outputs={"p": 0, "q": 1}), "outputs", ["p", "q"],
     "not both"),
    ("float label", spec(final_states=_DROP, outputs={"p": 1.5, "q": 1}), "outputs.p", 1.5,
     "output label"),
    ("outputs missing a state", spec(final_states=_DROP, outputs={"p": 0}), "outputs", ["q"],
     "needs an output"),
    ("partial multi-class", spec(final_states=_DROP, outputs={"p": "x", "q": "y"},
                                 transitions={"p": {"a": "q"}, "q": {"a": "p", "b": "q"}}),
     "transitions.p.b", None, "partial"),
    ("unknown field (typo)", spec(final_state=["q"]), "final_state", "final_state",
     "unknown field"),
    ("name not a string", spec(name=["x"]), "name", ["x"], "must be a string"),
    ("final_states not a list", spec(final_states="q"), "final_states", "q", "must be a list"),
    ("spec is a list", [GOOD], None, [GOOD], "must be a mapping"),
    ("regex with a table", {"regex": "a*", "input_symbols": ["a"], "states": ["p"]},
     "states", "states", "regex"),
    ("regex without symbols", {"regex": "a*"}, "input_symbols", None, "needs input_symbols"),
    ("bad regex", {"regex": "(a", "input_symbols": ["a"]}, "regex", "(a", "invalid regex"),
    ("regex symbol outside alphabet", {"regex": "ab", "input_symbols": ["a"]}, "regex", "ab",
     "invalid regex"),
    ("multi-character regex symbol", {"regex": "a", "input_symbols": ["a", "bc"]},
     "input_symbols", "bc", "one-character"),
    ("operator as regex symbol", {"regex": "a", "input_symbols": ["a", "*"]},
     "input_symbols", "*", "operator"),
    ("regex not a string", {"regex": 5, "input_symbols": ["a"]}, "regex", 5, "string"),
]


@pytest.mark.parametrize("data, field, value, fragment",
                         [c[1:] for c in JSON_CASES], ids=[c[0] for c in JSON_CASES])
def test_malformed_json_spec(tmp_path: Path, data: Any, field: str | None, value: Any,
                             fragment: str) -> None:
    expect(write_json(tmp_path, data), field, value, fragment)


def test_the_good_spec_loads(tmp_path: Path) -> None:
    # Guards the cases above: each differs from a spec that does load.
    a = load_file(write_json(tmp_path, GOOD))
    assert a.accepts("a") and not a.accepts("aa")


# ------------------------------------------------------------- YAML specific
YAML_HEAD = "states: [p, q]\ninput_symbols: [a]\n"

YAML_CASES = [
    ("int key", YAML_HEAD + "transitions: {p: {a: q}, 1: {a: p}}\n", "transitions", 1,
     "keys must be strings"),
    ("bool key", YAML_HEAD + "transitions: {p: {a: q}, q: {true: p}}\n", "transitions.q",
     True, "keys must be strings"),
    ("null key", YAML_HEAD + "transitions: {p: {a: q}, ~: {a: p}}\n", "transitions", None,
     "not null"),
    ("int state name", "states: [p, 0]\ninput_symbols: [a]\ntransitions: {}\n", "states", 0,
     "quote it"),
    ("bool symbol name", "states: [p]\ninput_symbols: [a, no]\ntransitions: {}\n",
     "input_symbols", False, "quote it"),
    ("duplicate YAML key", YAML_HEAD + "transitions:\n  p: {a: q}\n  p: {a: p}\n",
     "transitions.p", "p", "duplicate key"),
    ("lone surrogate", 'states: ["p\\ud800"]\ninput_symbols: [a]\ntransitions: {}\n',
     "states", "p\ud800", "lone surrogate"),
    ("YAML set of states", "states: !!set {p: null}\ninput_symbols: [a]\ntransitions: {}\n",
     "states", {"p"}, "not set"),
]


@pytest.mark.parametrize("text, field, value, fragment",
                         [c[1:] for c in YAML_CASES], ids=[c[0] for c in YAML_CASES])
def test_malformed_yaml_spec(tmp_path: Path, text: str, field: str, value: Any,
                             fragment: str) -> None:
    expect(write_text(tmp_path, text, "spec.yaml"), field, value, fragment)


def test_duplicate_json_key(tmp_path: Path) -> None:
    text = ('{"states": ["p"], "input_symbols": ["a"], '
            '"transitions": {"p": {"a": "p", "a": "p"}}}')
    expect(write_text(tmp_path, text, "dup.json"), "transitions.p.a", "a", "duplicate key")


# ------------------------------------------------------------- not a spec at all
FILE_CASES = [
    ("garbage .json", "spec.json", b"{states: nope", None, "not valid JSON"),
    ("bad YAML", "spec.yaml", b"states: [p, q\ninput_symbols: [a]\n", None, "not valid YAML"),
    ("two YAML documents", "spec.yml", b"states: [p]\n---\nstates: [q]\n", None,
     "not valid YAML"),
    ("plain text", "notes.txt", b"hello world, this is not a spec\n",
     "hello world, this is not a spec", "must be a mapping"),
    ("empty file", "empty.yaml", b"", None, "must be a mapping"),
    # The value is the first undecodable bytes (up to four).
    ("non-UTF-8", "spec.json", b'{"states": ["\xff\xfe"]}', b'\xff\xfe"]', "not UTF-8"),
    ("binary", "blob.bin", bytes(range(256)), bytes([128, 129, 130, 131]), "not UTF-8"),
    ("huge int literal", "spec.json", b'{"states": [' + b"9" * 5000 + b"]}", None,
     "usable JSON"),
    ("deep nesting", "spec.json", b"[" * 100_000 + b"]" * 100_000, None, "nested too deeply"),
    ("unhashable YAML key", "spec.yaml", b"? [a, b]\n: c\n", None, "unhashable"),
    ("unsafe YAML tag", "spec.yaml", b"states: !!python/object:os.system ls\n", None,
     "not valid YAML"),
]


@pytest.mark.parametrize("name, content, value, fragment", [c[1:] for c in FILE_CASES],
                         ids=[c[0] for c in FILE_CASES])
def test_not_a_spec_file(tmp_path: Path, name: str, content: bytes, value: Any,
                         fragment: str) -> None:
    path = tmp_path / name
    path.write_bytes(content)
    expect(path, None, value, fragment)


def test_missing_file(tmp_path: Path) -> None:
    expect(tmp_path / "absent.json", None, None, "cannot read")


def test_directory_is_not_a_file(tmp_path: Path) -> None:
    expect(tmp_path, None, None, "cannot read")


def test_fsmnet_load_routes_paths_to_the_loader(tmp_path: Path) -> None:
    path = write_json(tmp_path, spec(initial_state="zz"))
    with pytest.raises(SpecError, match="initial_state"):
        fsmnet.load(str(path))


def test_spec_error_is_a_value_error() -> None:
    # Callers that only know Python's ValueError still catch bad specs.
    assert issubclass(SpecError, ValueError)


def test_save_file_rejects_unencodable_names(tmp_path: Path) -> None:
    from fsmnet.automata import Automaton
    from fsmnet.automata.spec import save_file

    m = Automaton(delta=[[0]], symbols=["a"], states=["\ud800"], initial=0, outputs=[True])
    with pytest.raises(SpecError, match="lone surrogate") as info:
        save_file(m, tmp_path / "m.json")
    assert info.value.source == str(tmp_path / "m.json")
    assert not (tmp_path / "m.json").exists()
