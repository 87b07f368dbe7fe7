"""Loading and saving spec files: examples, field semantics, exact round trips."""

from __future__ import annotations

import itertools
import json
import warnings
from pathlib import Path

import numpy as np
import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

import fsmnet
from fsmnet.automata import Automaton
from fsmnet.automata.spec import SpecWarning, from_dict, load_file, save_file

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def words(alphabet: list[str], max_len: int):
    for n in range(max_len + 1):
        yield from itertools.product(alphabet, repeat=n)


# ------------------------------------------------------------ examples
def test_even_a_example_matches_its_definition() -> None:
    a = fsmnet.load(str(EXAMPLES / "even_a.json"))
    assert a.name == "even-a" and a.is_acceptor
    # Independent definition: count the a's.
    for w in words(["a", "b"], 6):
        assert a.accepts(list(w)) == (w.count("a") % 2 == 0)


def test_mod3_yaml_example_is_a_moore_machine() -> None:
    a = load_file(EXAMPLES / "mod3_sum.yaml")
    assert not a.is_acceptor and not a.is_semiautomaton
    assert a.symbols == ("0", "1", "2")  # quoted in YAML, so strings
    for w in words(["0", "1", "2"], 4):
        assert a.output_of(list(w)) == sum(int(c) for c in w) % 3


def test_semiautomaton_example_has_no_initial_and_no_outputs() -> None:
    a = load_file(EXAMPLES / "set_reset.json")
    assert a.is_semiautomaton and a.initial is None and a.outputs is None
    off, on = a.states.index("off"), a.states.index("on")
    # Flip-flop semantics by hand: set -> on, reset -> off, hold keeps.
    for q in (off, on):
        assert a.run(a.encode(["set"]), start=q) == on
        assert a.run(a.encode(["reset"]), start=q) == off
        assert a.run(a.encode(["hold"]), start=q) == q


def test_regex_example_matches_python_re() -> None:
    import re

    a = load_file(EXAMPLES / "contains_aba.json")
    assert a.name == "contains-aba"
    for w in words(["a", "b"], 7):
        s = "".join(w)
        assert a.accepts(s) == (re.fullmatch(r".*aba.*", s) is not None)  # Python's re


# ------------------------------------------------------------ partial tables
def test_partial_example_gets_a_sink_and_warns() -> None:
    with pytest.warns(SpecWarning) as rec:
        a = load_file(EXAMPLES / "ab_star.yaml")
    msg = str(rec[0].message)
    assert "ab_star.yaml" in msg and "__sink__" in msg
    assert "start on 'b'" in msg and "seen_a on 'a'" in msg
    assert a.states == ("start", "seen_a", "__sink__")
    sink = 2
    assert a.outputs is not None and a.outputs[sink] is False
    assert all(int(a.delta[i, sink]) == sink for i in range(a.n_symbols))
    for w in words(["a", "b"], 6):  # language a b*, checked by hand
        s = "".join(w)
        assert a.accepts(s) == (s[:1] == "a" and set(s[1:]) <= {"b"})


def test_sink_name_avoids_taken_names() -> None:
    spec = {"states": ["__sink__", "x"], "input_symbols": ["a"],
            "transitions": {"x": {"a": "x"}}}
    with pytest.warns(SpecWarning, match="__sink__1"):
        a = from_dict(spec)
    assert a.states == ("__sink__", "x", "__sink__1")
    assert a.outputs is None  # a semiautomaton's sink has no output


def test_complete_table_gives_no_warning() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        load_file(EXAMPLES / "even_a.json")


# ------------------------------------------------------------ field semantics
BASE = {"states": ["p", "q"], "input_symbols": ["a"],
        "transitions": {"p": {"a": "q"}, "q": {"a": "p"}}}


def test_initial_without_outputs_keeps_initial() -> None:
    a = from_dict({**BASE, "initial_state": "q"})
    assert a.initial == 1 and a.outputs is None and a.is_semiautomaton


def test_empty_final_states_gives_empty_language() -> None:
    a = from_dict({**BASE, "initial_state": "p", "final_states": []})
    assert a.is_acceptor and a.outputs == (False, False)


def test_outputs_with_all_bool_labels_is_an_acceptor() -> None:
    a = from_dict({**BASE, "initial_state": "p", "outputs": {"p": True, "q": False}})
    b = from_dict({**BASE, "initial_state": "p", "final_states": ["p"]})
    assert a == b


def test_null_optional_fields_mean_absent() -> None:
    a = from_dict({**BASE, "initial_state": None, "final_states": None, "outputs": None})
    assert a.initial is None and a.outputs is None


def test_suffixless_file_is_sniffed(tmp_path: Path) -> None:
    (tmp_path / "spec").write_text(json.dumps(BASE))
    (tmp_path / "spec2").write_text(yaml.safe_dump(BASE))
    assert load_file(tmp_path / "spec") == load_file(tmp_path / "spec2") == from_dict(BASE)


def test_utf8_bom_and_unicode_names(tmp_path: Path) -> None:
    spec = {"states": ["ä", "→"], "input_symbols": ["σ"],
            "transitions": {"ä": {"σ": "→"}, "→": {"σ": "ä"}}}
    path = tmp_path / "u.json"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(spec, ensure_ascii=False).encode())
    assert load_file(path).states == ("ä", "→")


def test_large_spec_loads(tmp_path: Path) -> None:
    n = 20_000  # a few MB of JSON: big files are fine
    states = [f"s{i}" for i in range(n)]
    spec = {"states": states, "input_symbols": ["a", "b"], "initial_state": "s0",
            "transitions": {s: {"a": states[(i + 1) % n], "b": "s0"}
                            for i, s in enumerate(states)},
            "final_states": states[::7]}
    path = tmp_path / "big.json"
    path.write_text(json.dumps(spec))
    a = load_file(path)
    assert a.n_states == n
    assert a.run(a.encode(["a"] * 14)) == 14 and a.accepts(["a"] * 14)


# ------------------------------------------------------------ round trips
@st.composite
def automata(draw) -> Automaton:
    n = draw(st.integers(1, 6))
    k = draw(st.integers(1, 3))
    name_text = st.text(max_size=6)
    states = draw(st.lists(name_text, min_size=n, max_size=n, unique=True))
    symbols = draw(st.lists(name_text, min_size=k, max_size=k, unique=True))
    delta = np.array(draw(st.lists(st.lists(st.integers(0, n - 1), min_size=n, max_size=n),
                                   min_size=k, max_size=k)))
    initial = draw(st.none() | st.integers(0, n - 1))
    label = st.booleans() | st.integers(-10**20, 10**20) | st.text(max_size=5)
    kind = draw(st.sampled_from(["none", "bool", "mixed"]))
    outputs = None if kind == "none" else draw(
        st.lists(st.booleans() if kind == "bool" else label, min_size=n, max_size=n))
    return Automaton(delta=delta, symbols=symbols, states=states, initial=initial,
                     outputs=outputs, name=draw(st.text(max_size=8)),
                     description=draw(st.text(max_size=20)))


@given(a=automata(), suffix=st.sampled_from([".json", ".yaml", ".yml"]))
def test_save_load_round_trip_is_exact(tmp_path_factory, a: Automaton, suffix: str) -> None:
    path = tmp_path_factory.mktemp("rt") / f"m{suffix}"
    save_file(a, path)
    b = load_file(path)
    assert b == a
    assert (b.name, b.description) == (a.name, a.description)
    # Label types survive (True vs 1 vs "1"): compare with their types.
    if a.outputs is not None:
        assert b.outputs is not None
        assert [type(o) for o in b.outputs] == [type(o) for o in a.outputs]


def test_save_file_rejects_unknown_format(tmp_path: Path) -> None:
    with pytest.raises(fsmnet.SpecError, match="format"):
        save_file(from_dict(BASE), tmp_path / "m.txt")
    save_file(from_dict(BASE), tmp_path / "m.txt", format="yaml")
    assert load_file(tmp_path / "m.txt") == from_dict(BASE)


def test_docs_example_runs(monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    """The Python block of docs/spec-format.md runs as written, from the repo root."""
    import re

    doc = (EXAMPLES.parent / "docs" / "spec-format.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", doc, flags=re.S)
    assert blocks
    monkeypatch.chdir(EXAMPLES.parent)
    for code in blocks:
        exec(compile(code, "spec-format.md", "exec"), {})
    assert "<Automaton 'even-a': 2 states, 2 symbols, acceptor>" in capsys.readouterr().out
    mod3 = load_file(EXAMPLES / "mod3_sum.yaml")
    assert mod3.output_of("12") == 0  # the value the doc states: (1 + 2) mod 3
