"""deltaproduct: Householder-product networks reproduce automata exactly."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples

from fsmnet.automata import Automaton, load
from fsmnet.constructions import compile_automaton
from fsmnet.constructions.deltaproduct import letter_period, n_h_lower_bound
from fsmnet.errors import NetworkFileError
from fsmnet.nets.network import Network, load_network


def _agrees(net: Network, a: Automaton, word: np.ndarray, exact: bool = False) -> bool:
    return bool(np.array_equal(net.label_trace(word, exact=exact), a.output_ids[a.trace(word)]))


def _brute_cycles(images: list[int]) -> int:
    # independent count: number of orbits found by flood fill over the permutation
    seen, count = set(), 0
    for q in range(len(images)):
        if q not in seen:
            count += 1
            while q not in seen:
                seen.add(q)
                q = images[q]
    return count


@pytest.mark.parametrize("spec", ["parity", "cyclic:5", "symmetric:3", "dihedral:4",
                                  "shellgame:3", "modadd:4", "flipflop",
                                  "random:n=7,k=3,seed=3"])
def test_families_long_float_and_exact(spec: str) -> None:
    a = load(spec).minimal()
    net = compile_automaton(a, "deltaproduct")
    assert net.labels == a.labels
    rng = np.random.default_rng(7)
    word = rng.integers(0, a.n_symbols, 2000)
    assert _agrees(net, a, word)
    assert _agrees(net, a, word[:80], exact=True)
    # The stored tensors are exact: keys in {-1, 0, 1}, betas in {0, 1, 2}.
    assert set(np.unique(net.params["keys"])) <= {-1.0, 0.0, 1.0}
    assert set(np.unique(net.params["betas"])) <= {0.0, 1.0, 2.0}


@st.composite
def permutation_automata(draw: st.DrawFn) -> Automaton:
    n = draw(st.integers(1, 6))
    k = draw(st.integers(1, 3))
    perms = [draw(st.permutations(list(range(n)))) for _ in range(k)]
    outputs = [draw(st.integers(0, 2)) for _ in range(n)]
    return Automaton(delta=np.array(perms).reshape(k, n), symbols=[f"s{i}" for i in range(k)],
                     initial=0, outputs=outputs)


@settings(max_examples=examples(25))
@given(permutation_automata(), st.integers(0, 2**32 - 1))
def test_random_permutation_automata(a: Automaton, seed: int) -> None:
    m = a.minimal()
    net = compile_automaton(a, "deltaproduct")
    word = np.random.default_rng(seed).integers(0, m.n_symbols, 2000)
    assert _agrees(net, m, word)
    assert _agrees(net, m, word[:40], exact=True)
    # n_h = max over letters of (n − cycles), counted independently here
    want = max(m.n_states - _brute_cycles([int(x) for x in m.delta[s]])
               for s in range(m.n_symbols))
    assert net.options["n_h"] == want == net.params["betas"].shape[1]
    assert net.options["n_h_lower_bound"] <= want


@given(st.integers(2, 6), st.integers(1, 3), st.integers(0, 10**6))
def test_random_transformation_automata(n: int, k: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    a = Automaton(delta=rng.integers(0, n, (k, n)), symbols=[f"s{i}" for i in range(k)],
                  initial=0, outputs=[int(x) for x in rng.integers(0, 2, n)]).minimal()
    net = compile_automaton(a, "deltaproduct")
    word = rng.integers(0, a.n_symbols, 2000)
    assert _agrees(net, a, word)
    assert _agrees(net, a, word[:40], exact=True)


def test_letter_period_brute_force() -> None:
    rng = np.random.default_rng(0)
    for _ in range(200):
        f = rng.integers(0, 6, 6)
        # brute force: smallest p with f^(m+p) = f^m for m = 6 (past every tail)
        powers = [np.arange(6)]
        for _ in range(20):
            powers.append(f[powers[-1]])
        p = next(p for p in range(1, 13) if np.array_equal(powers[6 + p], powers[6]))
        assert letter_period(f) == p


def test_lower_bound_examples() -> None:
    # parity: period 2 -> 1 factor suffices (and one reflection is what we build)
    assert n_h_lower_bound(load("parity")) == 1
    # C3: period 3 -> at least 2 factors whatever the encoding
    # (docs/constructions-deltaproduct-fixedpoint.md)
    assert n_h_lower_bound(load("cyclic:3")) == 2
    one = Automaton(delta=np.array([[0]]), symbols=["a"], initial=0, outputs=[True])
    assert n_h_lower_bound(one) == 0


def test_save_load_roundtrip(tmp_path) -> None:
    a = load("symmetric:3").minimal()
    net = compile_automaton(a, "deltaproduct")
    path = tmp_path / "dp.safetensors"
    net.save(path)
    back = load_network(path)
    word = np.random.default_rng(2).integers(0, a.n_symbols, 300)
    assert _agrees(back, a, word, exact=True)


def test_bad_tensors_rejected() -> None:
    net = compile_automaton(load("parity"), "deltaproduct")
    with pytest.raises(NetworkFileError, match="betas"):
        net.with_params(betas=net.params["betas"] * 3.0)
    keys = np.zeros_like(net.params["keys"])
    with pytest.raises(NetworkFileError, match="zero"):
        net.with_params(keys=keys)
