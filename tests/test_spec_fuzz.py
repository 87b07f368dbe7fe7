"""Fuzzing the loader: mutated specs load to a valid Automaton or raise SpecError.

Nothing else may escape: no KeyError, TypeError, RecursionError, ... from
any input a user's file can hold.
"""

from __future__ import annotations

import copy
import json
import warnings
from typing import Any

import yaml
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples

from fsmnet.automata import Automaton
from fsmnet.automata.spec import SpecWarning, from_dict, load_file, save_file
from fsmnet.errors import SpecError

JUNK = st.one_of(
    st.none(), st.booleans(), st.integers(), st.integers(10**30, 10**60),
    st.floats(allow_nan=True), st.text(max_size=5), st.sampled_from(["p", "q", "a", "zz"]),
    st.lists(st.sampled_from(["p", "q", "zz", 1, None]), max_size=3),
    st.dictionaries(st.sampled_from(["p", "a", "zz"]), st.sampled_from(["p", "q", 0]),
                    max_size=2),
)


@st.composite
def valid_specs(draw) -> dict[str, Any]:
    n = draw(st.integers(1, 4))
    k = draw(st.integers(1, 3))
    states = [f"s{i}" for i in range(n)]
    symbols = ["a", "b", "c"][:k]
    spec: dict[str, Any] = {
        "states": states,
        "input_symbols": symbols,
        "transitions": {q: {a: draw(st.sampled_from(states)) for a in symbols}
                        for q in states},
    }
    if draw(st.booleans()):
        spec["initial_state"] = draw(st.sampled_from(states))
    kind = draw(st.sampled_from(["none", "final", "outputs"]))
    if kind == "final":
        spec["final_states"] = draw(st.lists(st.sampled_from(states), unique=True))
    elif kind == "outputs":
        spec["outputs"] = {q: draw(st.integers(0, 2) | st.booleans()) for q in states}
    if draw(st.booleans()):
        spec["name"] = draw(st.text(max_size=5))
    return spec


def _paths(node: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix]
    if isinstance(node, dict):
        for key, value in node.items():
            out += _paths(value, (*prefix, key))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            out += _paths(value, (*prefix, i))
    return out


def _mutate(spec: dict[str, Any], data: st.DataObject) -> Any:
    spec = copy.deepcopy(spec)
    for _ in range(data.draw(st.integers(0, 3))):
        paths = [p for p in _paths(spec) if p]
        if not paths:
            break
        path = data.draw(st.sampled_from(paths))
        parent: Any = spec
        for step in path[:-1]:
            parent = parent[step]
        last = path[-1]
        op = data.draw(st.sampled_from(["drop", "replace", "duplicate", "rekey", "unknown"]))
        if op == "drop":
            del parent[last]
        elif op == "replace":
            parent[last] = data.draw(JUNK)
        elif op == "duplicate" and isinstance(parent, list):
            parent.append(parent[last])
        elif op == "rekey" and isinstance(parent, dict):
            # A non-string key survives only in YAML; JSON turns it into text.
            parent[data.draw(st.sampled_from([0, 1, True, None, "zz"]))] = parent.pop(last)
        elif op == "unknown":
            parent[last] = data.draw(st.sampled_from(["zz", "__sink__", ""]))
    return spec


def _serialize(obj: Any, fmt: str) -> bytes:
    if fmt == "json":
        try:
            return json.dumps(obj, allow_nan=True).encode()
        except (TypeError, ValueError):  # e.g. keys JSON cannot hold
            return yaml.safe_dump(obj).encode()
    return yaml.safe_dump(obj, allow_unicode=True).encode()


def _load_checked(path: Any) -> Automaton | None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SpecWarning)
        try:
            automaton = load_file(path)
        except SpecError as exc:
            assert str(path) in str(exc)  # every error names the file
            event(f"SpecError on field {str(exc.field).split('.')[0]}")
            return None
    event("loaded")
    assert isinstance(automaton, Automaton)
    return automaton


@settings(max_examples=examples(250), suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(base=valid_specs(), data=st.data(),
       fmt=st.sampled_from(["json", "yaml"]), suffix=st.sampled_from([".json", ".yaml", ""]))
def test_mutated_specs_load_or_raise_spec_error(tmp_path, base, data, fmt, suffix) -> None:
    raw = _serialize(_mutate(base, data), fmt)
    # Mostly intact bytes, so that the field-level checks get exercised too.
    byte_op = data.draw(st.sampled_from(["keep"] * 5 + ["truncate", "bad-utf8", "splice"]))
    if byte_op == "truncate" and raw:
        raw = raw[: data.draw(st.integers(0, len(raw) - 1))]
    elif byte_op == "bad-utf8":
        at = data.draw(st.integers(0, len(raw)))
        raw = raw[:at] + data.draw(st.sampled_from([b"\xff", b"\xc3", b"\xed\xa0\x80"])) + raw[at:]
    elif byte_op == "splice":
        at = data.draw(st.integers(0, len(raw)))
        raw = raw[:at] + data.draw(st.sampled_from([b"{", b"]", b"\"", b": ", b"\n- ",
                                                    b"&a *a", b"!!set", b"\x00"])) + raw[at:]
    path = tmp_path / f"fuzz{suffix}"
    path.write_bytes(raw)
    automaton = _load_checked(path)
    if automaton is not None:
        # What loads must also save and load back exactly.
        again = tmp_path / "again.json"
        save_file(automaton, again)
        assert load_file(again) == automaton


@settings(max_examples=examples(150))
@given(base=valid_specs(), data=st.data())
def test_from_dict_on_mutated_python_objects(base, data) -> None:
    # Python objects directly: sets, tuples, bytes and NaN that no file holds.
    mutated = _mutate(base, data)
    if data.draw(st.booleans()):
        key = data.draw(st.sampled_from(["states", "input_symbols", "final_states", "x"]))
        mutated[key] = data.draw(st.sampled_from([{"s0"}, ("s0",), b"s0", float("nan"),
                                                  frozenset(), object()]))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SpecWarning)
        try:
            result = from_dict(mutated, source="fuzz-source")
        except SpecError as exc:
            assert "fuzz-source" in str(exc)
            return
    assert isinstance(result, Automaton)


@given(spec=valid_specs())
def test_unmutated_specs_always_load(spec) -> None:
    # The control group: the base specs are valid, so mutations are what fail.
    a = from_dict(spec)
    assert a.n_states == len(spec["states"])
