"""Conversions: automata-lib round trips, regex against Python's re, DOT export."""

from __future__ import annotations

import itertools
import re
import subprocess
import sys

import numpy as np
import pytest
from automata.fa.dfa import DFA
from automata.fa.nfa import NFA
from hypothesis import given
from hypothesis import strategies as st

from fsmnet.automata import Automaton, equivalent, is_minimal
from fsmnet.automata.convert import from_automata_lib, from_regex, to_automata_lib, to_dot
from fsmnet.errors import SpecError

ABC = ["a", "b", "c"]


def all_words(alphabet: list[str], max_len: int) -> list[str]:
    return ["".join(w) for n in range(max_len + 1)
            for w in itertools.product(alphabet, repeat=n)]


@st.composite
def acceptors(draw, symbols: list[str] | None = None) -> Automaton:
    n = draw(st.integers(1, 6))
    syms = symbols or draw(st.sampled_from([["a"], ["a", "b"], ABC]))
    delta = np.array([draw(st.lists(st.integers(0, n - 1), min_size=n, max_size=n))
                      for _ in syms])
    finals = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    return Automaton(delta=delta, symbols=syms, initial=draw(st.integers(0, n - 1)),
                     outputs=finals, states=[f"s{i}" for i in range(n)])


@st.composite
def lib_dfas(draw) -> DFA:
    """automata-lib DFAs with int states, possibly partial."""
    n = draw(st.integers(1, 5))
    syms = draw(st.sampled_from([{"a"}, {"a", "b"}, set(ABC)]))
    target = st.none() | st.integers(0, n - 1)
    trans = {q: {a: t for a in sorted(syms) if (t := draw(target)) is not None}
             for q in range(n)}
    return DFA(states=set(range(n)), input_symbols=syms, transitions=trans,
               initial_state=draw(st.integers(0, n - 1)),
               final_states={q for q in range(n) if draw(st.booleans())}, allow_partial=True)


@st.composite
def lib_nfas(draw) -> NFA:
    """automata-lib NFAs with string states and epsilon moves."""
    n = draw(st.integers(1, 4))
    states = [f"n{i}" for i in range(n)]
    syms = draw(st.sampled_from([{"a"}, {"a", "b"}]))
    trans = {q: {a: set(draw(st.lists(st.sampled_from(states), max_size=2)))
                 for a in sorted(syms) + [""]} for q in states}
    return NFA(states=set(states), input_symbols=syms, transitions=trans,
               initial_state=states[0],
               final_states={q for q in states if draw(st.booleans())})


# ------------------------------------------------------------- automata-lib
@given(a=acceptors())
def test_round_trip_through_automata_lib_preserves_the_language(a: Automaton) -> None:
    d = to_automata_lib(a)
    b = from_automata_lib(d)
    assert equivalent(a, b)  # our product BFS
    assert to_automata_lib(b) == d  # automata-lib's own equivalence check
    for w in all_words(list(a.symbols), 4):  # automata-lib's evaluator, word by word
        assert d.accepts_input(w) == a.accepts(w)


@given(d=lib_dfas())
def test_lib_dfa_language_is_kept_partial_ones_get_a_sink(d: DFA) -> None:
    a = from_automata_lib(d)
    for w in all_words(sorted(d.input_symbols), 4):
        assert a.accepts(w) == d.accepts_input(w)
    assert to_automata_lib(a) == d
    partial = any(len(row) < len(d.input_symbols) for row in d.transitions.values())
    assert ("__sink__" in a.states) == partial
    assert a.states[a.initial] == str(d.initial_state)


@given(nfa=lib_nfas())
def test_nfa_is_determinized(nfa: NFA) -> None:
    a = from_automata_lib(nfa)
    for w in all_words(sorted(nfa.input_symbols), 5):
        assert a.accepts(w) == nfa.accepts_input(w)  # automata-lib's NFA simulation
    assert to_automata_lib(a) == DFA.from_nfa(nfa)


_NAMES_SCRIPT = """
from automata.fa.dfa import DFA
from automata.fa.nfa import NFA
from fsmnet.automata.convert import from_automata_lib
nfa = NFA(states={"x", "y", "z"}, input_symbols={"a", "b"},
          transitions={"x": {"a": {"x", "y"}, "b": {"z"}}, "y": {"b": {"x", "z"}},
                       "z": {"a": {"y"}, "": {"x"}}},
          initial_state="x", final_states={"z"})
dfa = DFA.from_nfa(nfa, retain_names=True, minify=False)
print(from_automata_lib(dfa).states)
"""


def test_frozenset_state_names_do_not_depend_on_hash_seed() -> None:
    # String hashing is randomized per process: run under two seeds.
    outs = []
    for seed in ("1", "2"):
        res = subprocess.run([sys.executable, "-c", _NAMES_SCRIPT], capture_output=True,
                             text=True, env={"PYTHONHASHSEED": seed}, timeout=120)
        assert res.returncode == 0, res.stderr
        outs.append(res.stdout)
    assert outs[0] == outs[1]
    assert "{x}" in outs[0]  # the initial subset, named by its sorted members


def test_colliding_names_fall_back_to_numbers() -> None:
    d = DFA(states={1, "1"}, input_symbols={"a"}, transitions={1: {"a": "1"}, "1": {"a": 1}},
            initial_state=1, final_states={1})
    a = from_automata_lib(d)
    assert a.states == ("q0", "q1")
    assert a.accepts("aa") and not a.accepts("a")


def test_to_automata_lib_rejects_moore_machines_and_semiautomata() -> None:
    moore = Automaton(delta=[[1, 2, 0]], symbols=["a"], initial=0, outputs=[0, 1, 2])
    with pytest.raises(SpecError, match="3 output labels") as info:
        to_automata_lib(moore)
    assert info.value.field == "outputs"
    semi = Automaton(delta=[[1, 0]], symbols=["a"], initial=None)
    with pytest.raises(SpecError, match="semiautomaton"):
        to_automata_lib(semi)


def test_from_automata_lib_rejects_other_objects() -> None:
    with pytest.raises(SpecError, match="DFA or NFA"):
        from_automata_lib(object())


# ------------------------------------------------------------- regex
def regexes(depth: int = 3) -> st.SearchStrategy[str]:
    """Patterns that mean the same in automata-lib and in Python's re."""
    leaf = st.sampled_from(["a", "b", "c", "."])
    return st.recursive(
        leaf,
        lambda inner: st.one_of(
            st.tuples(inner, inner).map(lambda p: p[0] + p[1]),
            st.tuples(inner, inner).map(lambda p: f"({p[0]}|{p[1]})"),
            st.tuples(inner, st.sampled_from("*+?")).map(lambda p: f"({p[0]}){p[1]}"),
        ),
        max_leaves=6,
    )


@given(pattern=regexes(), data=st.data())
def test_regex_agrees_with_python_re(pattern: str, data: st.DataObject) -> None:
    a = from_regex(pattern, ABC)
    assert is_minimal(a)
    assert a.states == tuple(f"q{i}" for i in range(a.n_states))
    compiled = re.compile(pattern)  # an independent implementation
    words = data.draw(st.lists(st.text(alphabet="abc", max_size=8), min_size=20, max_size=20))
    for w in words + all_words(ABC, 3):
        assert a.accepts(w) == (compiled.fullmatch(w) is not None), (pattern, w)


def test_regex_keeps_symbol_order_and_sorts_sets() -> None:
    assert from_regex("ab", ["b", "a"]).symbols == ("b", "a")
    assert from_regex("ab", {"b", "a"}).symbols == ("a", "b")


def test_regex_extended_operators() -> None:
    inter = from_regex("(a|b)*a(a|b)*&(a|b)*b(a|b)*", ["a", "b"])  # contains a and b
    for w in all_words(["a", "b"], 5):
        assert inter.accepts(w) == ("a" in w and "b" in w)
    empty_word = from_regex("()", ["a"])
    assert empty_word.accepts("") and not empty_word.accepts("a")


# ------------------------------------------------------------- DOT
_QUOTED = re.compile(r'"((?:[^"\\]|\\.)*)"')


def _unescape(body: str) -> str:
    # DOT's reading of our escapes, written independently of _dot_quote.
    return re.sub(r"\\(.)", lambda m: {"n": "\n", "r": "\r"}.get(m[1], m[1]), body)


def test_dot_of_an_acceptor() -> None:
    a = from_regex("(ab)*", ["a", "b"])
    dot = to_dot(a)
    assert dot.startswith("digraph") and dot.rstrip().endswith("}")
    assert dot.count("doublecircle") == sum(bool(o) for o in a.outputs)
    assert "start -> s0;" in dot
    edges = re.findall(r"s(\d+) -> s(\d+) \[label=\"([^\"]*)\"\]", dot)
    seen = {(int(p), sym, int(q)) for p, q, syms in edges for sym in syms.split(", ")}
    expect = {(j, s, int(a.delta[i, j])) for j in range(a.n_states)
              for i, s in enumerate(a.symbols)}
    assert seen == expect


def test_dot_escapes_names_and_shows_moore_labels() -> None:
    nasty = ['q"0', "back\\slash", "two\nlines", "}; digraph x {"]
    m = Automaton(delta=[[1, 2, 3, 0]], symbols=['"'], states=nasty, initial=0,
                  outputs=["x", 'y"', 3, True])
    dot = to_dot(m)
    labels = [_unescape(b) for b in _QUOTED.findall(dot)]
    for q, out in zip(nasty, m.outputs):
        assert f"{q} / {out}" in labels
    assert '"' in labels  # the edge label, i.e. the symbol '"'
    assert "doublecircle" not in dot  # not an acceptor
    # Outside quoted strings only our own syntax remains (no injected braces).
    bare = _QUOTED.sub("", dot)
    assert bare.count("{") == 1 and bare.count("}") == 1


def test_dot_of_a_semiautomaton_has_no_start_arrow() -> None:
    semi = Automaton(delta=[[1, 0]], symbols=["a"], initial=None)
    dot = to_dot(semi)
    assert "start" not in dot and "doublecircle" not in dot
