"""Built-in families checked against independent re-implementations of their definitions.

Every expected output here comes from a small model written in this file
(Python arithmetic, tuple permutations, substring search, ...) following the
definitions in docs/families.md, never from the family code itself.  Group
orders are published facts (standard group theory).
"""

from __future__ import annotations

import itertools
import re
from functools import cache

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from fsmnet.automata import Automaton, is_minimal, load
from fsmnet.automata.families import FAMILIES, build_family, family_help, family_names
from fsmnet.errors import SpecError


@cache
def fam(spec: str) -> Automaton:
    return build_family(spec)


def outputs_along(a: Automaton, word: list[str]) -> list[object]:
    """Outputs after every non-empty prefix."""
    return [a.output(int(q)) for q in a.trace(a.encode(word))[1:]]


def words(alphabet: list[str] | tuple[str, ...], max_size: int = 30) -> st.SearchStrategy:
    return st.lists(st.sampled_from(list(alphabet)), max_size=max_size)


# --------------------------------------------------------------- counting
@given(w=words(["0", "1"]))
def test_parity_accepts_even_number_of_ones(w: list[str]) -> None:
    a = fam("parity")
    assert a.is_acceptor
    assert a.accepts(w) == (w.count("1") % 2 == 0)


@given(m=st.integers(1, 12), w=words(["0", "1"]))
def test_modcount(m: int, w: list[str]) -> None:
    expected = [w[: t + 1].count("1") % m for t in range(len(w))]
    assert outputs_along(fam(f"modcount:{m}"), w) == expected


@given(data=st.data(), m=st.integers(1, 30))
def test_modadd_running_sum(data: st.DataObject, m: int) -> None:
    digits = data.draw(st.lists(st.integers(0, m - 1), max_size=30))
    expected = [sum(digits[: t + 1]) % m for t in range(len(digits))]
    assert outputs_along(fam(f"modadd:{m}"), [str(d) for d in digits]) == expected


def calculator(word: list[str], m: int) -> list[int]:
    """The documented modarith semantics, written as a plain loop."""
    value, pending, out = 0, None, []
    for s in word:
        if s in ("+", "-", "*"):
            pending = s
        else:
            d = int(s)
            if pending is None:
                value = d
            else:
                value = eval(f"({value}) {pending} ({d})") % m  # Python's own arithmetic
                pending = None
        out.append(value)
    return out


@given(data=st.data(), m=st.integers(2, 12))
def test_modarith_total_semantics(data: st.DataObject, m: int) -> None:
    w = data.draw(words([str(d) for d in range(m)] + ["+", "-", "*"]))
    assert outputs_along(fam(f"modarith:{m}"), w) == calculator(w, m)


@given(data=st.data(), m=st.integers(2, 12))
def test_modarith_left_to_right_on_expressions(data: st.DataObject, m: int) -> None:
    # Well-formed "d op d op d": the value is the left-to-right evaluation,
    # computed here with unbounded integers and a single final "mod m".
    first = data.draw(st.integers(0, m - 1))
    rest = data.draw(st.lists(st.tuples(st.sampled_from("+-*"), st.integers(0, m - 1)),
                              max_size=10))
    exact = first
    word = [str(first)]
    for op, d in rest:
        exact = {"+": exact + d, "-": exact - d, "*": exact * d}[op]
        word += [op, str(d)]
    assert fam(f"modarith:{m}").output_of(word) == exact % m


@pytest.mark.parametrize("m", [2, 3, 5, 7])
def test_modarith_is_minimal(m: int) -> None:
    a = fam(f"modarith:{m}")
    assert is_minimal(a)  # partition refinement in minimize.py, a second algorithm
    assert a.minimal().n_states == a.n_states


def test_random_machine_follows_documented_draw() -> None:
    a = fam("random:n=12,k=4,seed=7,classes=3")
    rng = np.random.default_rng(7)  # the draw order stated in the docs
    delta = rng.integers(0, 12, size=(4, 12))
    labels = rng.integers(0, 3, size=12)
    assert np.array_equal(a.delta, delta)
    assert list(a.outputs) == [int(x) for x in labels]
    assert a.symbols == ("0", "1", "2", "3") and a.initial == 0
    assert fam("random").n_states == 20 and fam("random").n_symbols == 3
    assert fam("random").is_acceptor
    assert build_family("random:n=9,seed=3") == build_family("random:9,seed=3")
    assert build_family("random:n=9,seed=3") != build_family("random:n=9,seed=4")
    assert list(fam("random:n=6,classes=state").outputs) == list(range(6))


# ----------------------------------------------------------------- groups
def parse_perm(name: str, degree: int) -> tuple[int, ...]:
    """Cycle notation "(0 1 2)(3 4)" -> one-line tuple, parsed independently."""
    img = list(range(degree))
    for body in re.findall(r"\(([^()]*)\)", name):
        pts = [int(x) for x in body.split()]
        for i, p in enumerate(pts):
            img[p] = pts[(i + 1) % len(pts)]
    return tuple(img)


def then(p: tuple[int, ...], q: tuple[int, ...]) -> tuple[int, ...]:
    """Apply p first, then q."""
    return tuple(q[p[i]] for i in range(len(p)))


def degree_of(a: Automaton) -> int:
    pts = [int(x) for nm in a.states + a.symbols for x in re.findall(r"\d+", nm)]
    return max(pts, default=0) + 1


def closure(gens: list[tuple[int, ...]], degree: int) -> set[tuple[int, ...]]:
    ident = tuple(range(degree))
    seen, todo = {ident}, [ident]
    while todo:
        p = todo.pop()
        for g in gens:
            r = then(p, g)
            if r not in seen:
                seen.add(r)
                todo.append(r)
    return seen


GROUP_SPECS = ["cyclic:5", "dihedral:4", "symmetric:4", "alternating:5", "symmetric:5",
               "symmetric:5,gens", "dihedral:5,gens", "cyclic:2*cyclic:3",
               "dihedral:3*cyclic:2,gens", "symmetric:3*alternating:4"]


@pytest.mark.parametrize("spec", GROUP_SPECS)
@given(data=st.data())
def test_group_word_problem_composes_permutations(spec: str, data: st.DataObject) -> None:
    a = fam(spec)
    d = degree_of(a)
    w = data.draw(words(a.symbols, max_size=25))
    state = tuple(range(d))
    for letter, out in zip(w, outputs_along(a, w), strict=True):
        state = then(state, parse_perm(letter, d))
        assert parse_perm(str(out), d) == state
    assert a.states[a.initial] == "()" and a.output(a.initial) == "()"


# Orders: standard group theory (|S_n| = n!, |A_n| = n!/2, |D_n| = 2n, |C_n| = n,
# |G x H| = |G||H|).
@pytest.mark.parametrize("spec, order", [
    ("symmetric:5", 120), ("alternating:5", 60), ("dihedral:4", 8), ("cyclic:7", 7),
    ("symmetric:3", 6), ("alternating:4", 12), ("dihedral:6,gens", 12),
    ("cyclic:2*cyclic:3", 6), ("symmetric:3*dihedral:4,gens", 48),
])
def test_group_orders(spec: str, order: int) -> None:
    a = fam(spec)
    assert a.n_states == order
    assert len(set(a.outputs)) == order  # one label per element
    if "gens" not in spec:
        assert set(a.symbols) == set(a.states)  # every element is a letter
    assert is_minimal(a)


def test_symmetric_and_alternating_element_sets() -> None:
    # S_4 is all 24 permutations; A_4 the even ones (parity by inversions).
    s4 = {parse_perm(s, 4) for s in fam("symmetric:4").states}
    assert s4 == set(itertools.permutations(range(4)))
    even = {p for p in s4
            if sum(p[i] > p[j] for i in range(4) for j in range(i + 1, 4)) % 2 == 0}
    assert {parse_perm(s, 4) for s in fam("alternating:4").states} == even


def test_dihedral_is_symmetries_of_polygon() -> None:
    # D_5: generated by the rotation i -> i+1 and the reflection i -> -i (mod 5).
    rot = tuple((i + 1) % 5 for i in range(5))
    ref = tuple((-i) % 5 for i in range(5))
    assert {parse_perm(s, 5) for s in fam("dihedral:5").states} == closure([rot, ref], 5)


def test_gens_alphabet_generates_the_group() -> None:
    a = fam("symmetric:5,gens")
    gens = [parse_perm(s, 5) for s in a.symbols]
    assert len(gens) == 2
    assert len(closure(gens, 5)) == 120
    assert {parse_perm(s, 5) for s in a.states} == closure(gens, 5)


def test_product_of_cyclic_2_and_3_is_cyclic_of_order_6() -> None:
    # C_2 x C_3 ≅ C_6 (Chinese remainder theorem): some element has order 6.
    a = fam("cyclic:2*cyclic:3")
    d = degree_of(a)
    orders = []
    for s in a.states:
        p, k, ident = parse_perm(s, d), 1, tuple(range(d))
        q = p
        while q != ident:
            q, k = then(q, p), k + 1
        orders.append(k)
    assert max(orders) == 6


def test_symmetric_7_with_generators_names_its_states_without_sympy(count_calls) -> None:
    # sympy's cyclic_form costs milliseconds a call: naming 5,040 (or S_8's 40,320)
    # states with it is the slow way; cycle_name does it in plain Python.
    from sympy.combinatorics import Permutation

    cyclic_forms = count_calls(Permutation, "cyclic_form")
    a = build_family("symmetric:7,gens")
    assert a.n_states == 5040 and a.n_symbols == 2  # 7! = 5040
    assert cyclic_forms.calls == 0


@given(n=st.integers(2, 7), data=st.data())
def test_shellgame_tracks_the_ball(n: int, data: st.DataObject) -> None:
    a = fam(f"shellgame:{n}")
    assert a.n_symbols == n * (n - 1) // 2
    w = data.draw(words(a.symbols))
    cups = ["ball"] + ["empty"] * (n - 1)  # cups[i]: what cup i hides
    expected = []
    for s in w:
        i, j = (int(x) for x in s.strip("()").split())
        cups[i], cups[j] = cups[j], cups[i]
        expected.append(cups.index("ball"))
    assert outputs_along(a, w) == expected


# ----------------------------------------------------------------- memory
@given(w=words(["set", "reset", "read"]))
def test_flipflop(w: list[str]) -> None:
    bit, expected = 0, []
    for s in w:
        bit = {"set": 1, "reset": 0}.get(s, bit)
        expected.append(bit)
    assert outputs_along(fam("flipflop"), w) == expected


@given(n=st.integers(1, 9), data=st.data())
def test_latch_outputs_first_symbol(n: int, data: st.DataObject) -> None:
    a = fam(f"latch:{n}")
    w = data.draw(words(a.symbols))
    assert outputs_along(a, w) == [w[0]] * len(w) if w else a.output_of([]) == "-"
    assert a.output(a.initial) == "-"


def sequences_model(w: list[str], n: int, tracks: int) -> list[str]:
    progress = [0] * tracks
    out = []
    for s in w:
        if s.startswith("s"):
            t, i = (int(x) for x in s[1:].split("."))
            if progress[t] == i:
                progress[t] += 1
        elif s.startswith("r"):
            progress[int(s[1:])] = 0
        out.append("{" + ",".join(str(t) for t in range(tracks) if progress[t] == n) + "}")
    return out


@given(n=st.integers(1, 4), tracks=st.integers(1, 3), data=st.data())
def test_sequences(n: int, tracks: int, data: st.DataObject) -> None:
    a = fam(f"sequences:{n},tracks={tracks}")
    assert a.n_states == (n + 1) ** tracks
    # Bias towards in-order sets so that completions actually happen.
    w = data.draw(st.lists(st.one_of(
        st.sampled_from(a.symbols),
        st.builds(lambda t: [f"s{t}.{i}" for i in range(n)], st.integers(0, tracks - 1)),
    ), max_size=12).map(lambda xs: [y for x in xs for y in (x if isinstance(x, list) else [x])]))
    assert outputs_along(a, w) == sequences_model(w, n, tracks)


def induction_model(w: list[str]) -> list[str]:
    out = []
    for t, s in enumerate(w):
        if s != "@":
            out.append("-")
            continue
        # latest earlier "@" followed (before t) by a token
        keys = [w[j + 1] for j in range(t - 1) if w[j] == "@" and w[j + 1] != "@"]
        out.append(keys[-1] if keys else "-")
    return out


@given(m=st.integers(1, 6), data=st.data())
def test_induction_heads(m: int, data: st.DataObject) -> None:
    a = fam(f"induction:{m}")
    w = data.draw(st.lists(st.sampled_from(a.symbols), max_size=30))
    assert outputs_along(a, w) == induction_model(w)


@given(data=st.data())
def test_induction_heads_benchmark_words(data: st.DataObject) -> None:
    # The benchmark's words: tokens, "@", key, tokens, final "@" -> the key.
    tokens = [str(i) for i in range(16)]
    pre = data.draw(st.lists(st.sampled_from(tokens), max_size=10))
    key = data.draw(st.sampled_from(tokens))
    post = data.draw(st.lists(st.sampled_from(tokens), max_size=10))
    assert fam("induction:16").output_of(pre + ["@", key] + post + ["@"]) == key


@given(factor=st.text("abc", min_size=1, max_size=4), text=st.text("abc", max_size=25))
def test_contains(factor: str, text: str) -> None:
    a = fam(f"contains:{factor},alphabet=abc")
    assert a.accepts(text) == (factor in text)
    assert is_minimal(a)


@given(text=st.text("ab", max_size=25))
def test_starfree_is_contains_ab(text: str) -> None:
    assert fam("starfree").accepts(text) == ("ab" in text)


@given(st.integers(1, 6), st.lists(st.sampled_from("ud"), max_size=30))
def test_counter_is_the_clamped_count(k: int, w: list[str]) -> None:
    # docs/families.md: u adds 1 up to k, d takes 1 down to 0, the output is the count.
    count = 0
    for ch in w:
        count = min(count + 1, k) if ch == "u" else max(count - 1, 0)
    assert fam(f"counter:{k}").output_of(w) == count


@given(st.integers(1, 5), st.lists(st.sampled_from("()"), max_size=30))
def test_dyck_accepts_balanced_words_of_bounded_depth(k: int, w: list[str]) -> None:
    # docs/families.md: balanced, never below 0, never above k.
    depth, ok = 0, True
    for ch in w:
        depth += 1 if ch == "(" else -1
        ok = ok and 0 <= depth <= k
    assert fam(f"dyck:{k}").output_of(w) == (ok and depth == 0)


# ------------------------------------------------------- registry, errors
EXAMPLES = ["parity", "modcount:3", "modadd:5", "modarith:4", "cyclic:4", "dihedral:4",
            "symmetric:4", "alternating:4", "random:n=8,k=2,seed=2", "flipflop", "latch:3",
            "sequences:2", "induction:3", "shellgame:4", "contains:aba", "starfree",
            "cyclic:2*symmetric:3", "atleast:2", "counter:3", "dyck:2"]


def test_every_family_has_an_example_that_builds_named_and_described() -> None:
    covered = {spec.split(":")[0] for spec in EXAMPLES} | {"product"}
    assert covered == {f.name for f in FAMILIES}
    for spec in EXAMPLES:
        a = fam(spec)
        assert a.name == spec and a.description
        assert load(spec) == a  # the resolver dispatches family strings here
        if not spec.startswith("random"):
            assert is_minimal(a), spec


def test_help_lists_every_family() -> None:
    text = family_help()
    for f in FAMILIES:
        assert f.syntax in text and f.source and f.description
    assert set(family_names()) == {f.name for f in FAMILIES} - {"product"}


@pytest.mark.parametrize("spec, field, value", [
    ("parityy", "family", "parityy"),
    ("modad:5", "family", "modad"),
    ("modadd:x", "m", "x"),
    ("modadd:0", "m", 0),
    ("modadd", "m", None),
    ("modadd:3,m=4", "m", "4"),
    ("random:q=3", "q", "3"),
    ("random:classes=1", "classes", 1),
    ("random:classes=many", "classes", "many"),
    ("symmetric:7", "size", 5040 * 5040),
    ("symmetric:5,gens=maybe", "gens", "maybe"),
    ("parity:3", "arguments", "3"),
    ("cyclic:2*parity", "family", "parity"),
    ("cyclic:2*cycle:3", "family", "cycle"),
    ("contains:abc,alphabet=ab", "alphabet", "ab"),
    ("shellgame:1", "n", 1),
    ("modadd:3,,", "arguments", "3,,"),
    ("", "family", ""),
])
def test_errors_name_field_and_value(spec: str, field: str, value: object) -> None:
    with pytest.raises(SpecError) as info:
        build_family(spec)
    err = info.value
    assert err.source == "<family>"
    assert err.field == field
    assert err.value == value


def test_typo_suggests_close_names() -> None:
    with pytest.raises(SpecError, match="did you mean 'parity'"):
        build_family("parityy")
    with pytest.raises(SpecError, match="did you mean 'symmetric'"):
        build_family("symetric:5")
    with pytest.raises(SpecError, match="did you mean 'seed'"):
        build_family("random:sed=3")
