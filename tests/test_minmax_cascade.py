"""minmax-cascade / minmax-scalar: update order, holonomy compilation, scalar refusal.

Independent sources: the automaton's own run (``Automaton.trace``); the
aperiodicity of the transition monoid from libsemigroups (``TransitionMonoid``,
a Konieczny computation, not the BFS the compiler uses); and a "same-time"
evaluator written here, to show the t−1 order is not a detail.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis_budget import examples

import fsmnet
from fsmnet.algebra.monoid import TransitionMonoid
from fsmnet.automata import Automaton
from fsmnet.constructions import compile_automaton
from fsmnet.constructions.minmax_cascade import NotAperiodic
from fsmnet.errors import NetworkFileError, NotExpressible
from fsmnet.nets import Network, load_network
from fsmnet.nets.minmax import affine_step, scalar_step
from fsmnet.nets.minmax_cascade import levelwise_label_trace
from fsmnet.testing.strategies import automata
from fsmnet.train.convert import to_torch

APERIODIC = ["flipflop", "starfree", "latch:3", "contains:aba", "induction:2"]
CYCLIC = ["parity", "modadd:3", "symmetric:3", "shellgame:3"]


def expected(a: Automaton, word: np.ndarray) -> np.ndarray:
    return a.output_ids[a.trace(word)]


# ------------------------------------------------------------- update order
def two_level_counter() -> Network:
    """Unit 0 is reset to 2 by 'a'; unit 1 copies (negated) what unit 0 *was*.

    One letter, two scalar units with values 1..2; label = coordinate of unit 1.
    Under the t−1 reading: a^0 -> 0, a^1 -> 1 (unit 0 was 1), a^2 -> 0 (unit 0
    was 2): parity is counted correctly up to 2, which no idempotent map can do.
    """
    params = {
        "unit_level": np.array([0, 1]), "unit_size": np.array([2, 2]),
        "unit_kind": np.array([0, 0]),
        "unit0_r": np.array([[0.0]]), "unit0_s": np.array([[2.0]]), "unit0_x0": np.array([1.0]),
        # code of unit 0 = 0 (value 1): reset to 2; code 1 (value 2): reset to 1
        "unit1_r": np.array([[0.0, 0.0]]), "unit1_s": np.array([[2.0, 1.0]]),
        "unit1_x0": np.array([1.0]),
        "readout": np.array([0, 1, 0, 1]),  # code = 2*c0 + c1 -> c1
    }
    return Network(arch="minmax-scalar", params=params, symbols=("a",), labels=(False, True))


def same_time_step(net: Network, state: tuple, symbol: int) -> tuple:
    """The *wrong* order: each unit reads the units above *after* their update."""
    sem = net.semantics
    lay = sem.layout(net)
    p = net.params
    new = list(state)
    for u in range(lay.n_units):
        coords = sem.coordinates(net, new)
        a = lay.above[u]
        d = int(np.dot(coords[:a], lay.prefix_strides[u])) if a else 0
        if lay.kinds[u] == 0:
            new[u] = scalar_step(p[f"unit{u}_r"][symbol, d:d + 1],
                                 p[f"unit{u}_s"][symbol, d:d + 1], new[u])
        else:
            new[u] = affine_step(p[f"unit{u}_R"][symbol, d], p[f"unit{u}_s"][symbol, d], new[u])
    return tuple(new)


def same_time_trace(net: Network, word: np.ndarray) -> np.ndarray:
    sem = net.semantics
    state = sem.initial_state(net, False)
    out = [sem.readout(net, state, False)]
    for sym in word:
        state = same_time_step(net, state, int(sym))
        out.append(sem.readout(net, state, False))
    return np.array(out)


def test_update_order_reads_units_above_at_t_minus_1() -> None:
    net = two_level_counter()
    word = np.zeros(2, dtype=np.int64)
    # t−1 semantics: parity of the number of a's, for 0, 1 and 2 letters
    assert net.label_trace(word).tolist() == [0, 1, 0]
    assert levelwise_label_trace(net, word).tolist() == [0, 1, 0]
    # same-time semantics: "a" and "aa" look the same
    assert same_time_trace(net, word).tolist() == [0, 0, 0]


def test_same_time_semantics_makes_every_letter_idempotent() -> None:
    # Brute force over every cascade state of the scalar counter: under the
    # same-time order, a·a = a on the whole cascade (docs/theory.md, theorem 4).
    net = two_level_counter()
    for values in itertools.product([1.0, 2.0], repeat=2):
        state = tuple(np.array([v]) for v in values)
        once = same_time_step(net, state, 0)
        twice = same_time_step(net, once, 0)
        assert all(np.array_equal(x, y) for x, y in zip(once, twice))


def test_t_minus_1_counts_mod_2_where_same_time_cannot() -> None:
    # A compiled multi-level cascade with a permutation level: the t−1 order
    # reproduces the automaton on long words; the same-time order does not.
    a = fsmnet.load("random:n=6,k=2,seed=3").minimal()
    net = compile_automaton(a, "minmax-cascade")
    assert net.options["levels"] >= 2
    w = np.random.default_rng(0).integers(0, a.n_symbols, 2000)
    assert np.array_equal(net.label_trace(w), expected(a, w))
    assert not np.array_equal(same_time_trace(net, w), expected(a, w))
    # parity itself: the one permutation unit counts mod 2 for ever
    p = fsmnet.load("parity").minimal()
    pnet = compile_automaton(p, "minmax-cascade")
    ones = np.full(2001, p.symbol_index("1"), dtype=np.int64)
    assert np.array_equal(pnet.label_trace(ones), expected(p, ones))


# ------------------------------------------------------------- compilation
@pytest.mark.parametrize("family", APERIODIC + CYCLIC + ["random:n=6,k=2,seed=3"])
def test_cascade_reproduces_families(family: str) -> None:
    a = fsmnet.load(family).minimal()
    net = compile_automaton(a, "minmax-cascade")
    assert net.labels == a.labels
    opts = net.options
    # One unit per level; a product cascade (tests/test_minmax_product.py) runs
    # its components' levels side by side.
    assert opts["units"] == len(opts["unit_sizes"]) and opts["state_size"] == net.hidden_size
    assert opts["levels"] == int(net.params["unit_level"].max()) + 1
    if opts["construction"] != "product":
        assert opts["levels"] == opts["units"]
    rng = np.random.default_rng(11)
    for length in (0, 1, 2000):
        w = rng.integers(0, a.n_symbols, length)
        assert np.array_equal(net.label_trace(w), expected(a, w))
        assert np.array_equal(levelwise_label_trace(net, w), expected(a, w))


@settings(max_examples=examples(25))
@given(automata(max_states=6, max_labels=3))
def test_cascade_reproduces_random_automata(a: Automaton) -> None:
    m = a.minimal()
    net = compile_automaton(a, "minmax-cascade")
    w = np.random.default_rng(m.n_states).integers(0, m.n_symbols, 2000)
    assert np.array_equal(net.label_trace(w), expected(m, w))
    assert np.array_equal(levelwise_label_trace(net, w[:300]), expected(m, w[:300]))


@given(automata(max_states=6))
def test_scalar_compiles_iff_aperiodic(a: Automaton) -> None:
    m = a.minimal()
    aperiodic = TransitionMonoid.from_automaton(m).is_aperiodic
    try:
        net = compile_automaton(a, "minmax-scalar")
    except NotAperiodic as exc:
        assert not aperiodic
        check_witness(m, exc.witness)
        return
    assert aperiodic
    assert set(net.options["unit_kinds"]) == {"scalar"}
    w = np.random.default_rng(5).integers(0, m.n_symbols, 1000)
    assert np.array_equal(net.label_trace(w), expected(m, w))


@pytest.mark.parametrize("family", APERIODIC)
def test_scalar_compiles_aperiodic_families(family: str) -> None:
    a = fsmnet.load(family).minimal()
    net = compile_automaton(a, "minmax-scalar")
    assert net.arch == "minmax-scalar" and set(net.options["unit_kinds"]) == {"scalar"}
    assert net.hidden_size == net.options["units"]
    w = np.random.default_rng(2).integers(0, a.n_symbols, 2000)
    assert np.array_equal(net.label_trace(w), expected(a, w))


@pytest.mark.parametrize("family", ["starfree", "contains:aba", "latch:3"])
def test_scalar_cascade_settles_after_one_period_per_level(family: str) -> None:
    # Theorem (docs/theory.md, theorem 4): with L scalar levels read at t−1, the output
    # along p·u^k·s is constant for k >= L.  Checked on the network itself.
    net = compile_automaton(family, "minmax-scalar")
    levels = net.options["levels"]
    rng = np.random.default_rng(9)
    n = len(net.symbols)
    for _ in range(30):
        p, u, s = (list(rng.integers(0, n, m)) for m in rng.integers(1, 5, 3))
        outs = {int(net.label_trace(p + u * k + s)[-1]) for k in range(levels, levels + 4)}
        assert len(outs) == 1


def check_witness(a: Automaton, witness) -> None:
    """Re-check a periodicity witness by running the automaton."""
    u = a.encode(list(witness.word))
    q = a.states.index(witness.state)
    assert a.run(a.encode(list(witness.prefix))) == q
    cycle = [q]
    for _ in range(witness.period - 1):
        cycle.append(a.run(u, start=cycle[-1]))
    assert [a.states[c] for c in cycle] == list(witness.cycle)
    assert len(set(cycle)) == witness.period >= 2
    assert a.run(u, start=cycle[-1]) == q  # u permutes the cycle
    # outputs along prefix·u^j·suffix never settle: j ≡ 0 and j ≡ 1 (mod period) differ
    for k in range(3):
        j = k * witness.period
        outs = [a.output_of(list(witness.prefix) + list(witness.word) * i + list(witness.suffix))
                for i in (j, j + 1)]
        assert outs[0] != outs[1]


@pytest.mark.parametrize("family", CYCLIC)
def test_scalar_refuses_cyclic_with_witness(family: str) -> None:
    a = fsmnet.load(family).minimal()
    with pytest.raises(NotExpressible) as info:
        compile_automaton(a, "minmax-scalar")
    witness = info.value.witness
    assert repr(" ".join(witness.word)) in str(info.value)
    check_witness(a, witness)


# ------------------------------------------------------------- export, files
def test_torch_export_agrees() -> None:
    import torch

    for family in ("random:n=6,k=2,seed=3", "contains:aba"):
        a = fsmnet.load(family).minimal()
        net = compile_automaton(a, "minmax-cascade")
        words = np.random.default_rng(4).integers(0, a.n_symbols, (3, 250))
        got = to_torch(net)(torch.tensor(words)).numpy()
        for b in range(3):
            assert np.array_equal(got[b], expected(a, words[b]))


def test_save_load_round_trip(tmp_path) -> None:
    net = compile_automaton("random:n=6,k=2,seed=3", "minmax-cascade")
    net.save(tmp_path / "c.safetensors")
    back = load_network(tmp_path / "c.safetensors")
    w = np.random.default_rng(6).integers(0, len(net.symbols), 500)
    assert np.array_equal(back.label_trace(w), net.label_trace(w))


def test_bad_cascades_are_refused() -> None:
    net = compile_automaton("parity", "minmax-cascade")
    with pytest.raises(NetworkFileError, match="unit_kind"):
        Network(arch="minmax-scalar", params=net.params, symbols=net.symbols,
                labels=net.labels)
    with pytest.raises(NetworkFileError, match="readout"):
        net.with_params(readout=np.array([0, 5]))
    with pytest.raises(NetworkFileError, match="unit_level"):
        two_level_counter().with_params(unit_level=np.array([1, 0]))
