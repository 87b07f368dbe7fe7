"""minmax-dense: the Boolean one-hot construction reproduces every automaton.

Independent source: the automaton's own run (``Automaton.trace``) on random words.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given

import fsmnet
from fsmnet.automata import Automaton
from fsmnet.constructions import compile_automaton
from fsmnet.errors import NetworkFileError
from fsmnet.nets import Network, load_network
from fsmnet.testing.strategies import automata
from fsmnet.train.convert import to_torch

FAMILIES = ["parity", "modadd:5", "symmetric:3", "flipflop", "latch:3", "starfree",
            "contains:aba", "random:n=12,k=3,seed=4,classes=3"]


def expected(a: Automaton, word: np.ndarray) -> np.ndarray:
    return a.output_ids[a.trace(word)]


@pytest.mark.parametrize("family", FAMILIES)
def test_families_long_words(family: str) -> None:
    a = fsmnet.load(family).minimal()
    net = compile_automaton(a, "minmax-dense")
    assert net.labels == a.labels
    assert net.hidden_size == a.n_states == net.options["state_size"]
    rng = np.random.default_rng(7)
    for length in (0, 1, 2000):
        w = rng.integers(0, a.n_symbols, length)
        assert np.array_equal(net.label_trace(w), expected(a, w))


@given(automata(max_states=6, max_labels=3))
def test_random_automata(a: Automaton) -> None:
    net = compile_automaton(a, "minmax-dense")
    m = a.minimal()
    w = np.random.default_rng(a.n_states).integers(0, m.n_symbols, 500)
    assert np.array_equal(net.label_trace(w), expected(m, w))
    assert np.array_equal(net.label_trace(w[:100], exact=True), expected(m, w[:100]))
    # the state stays exactly one-hot: max/min only select 0s and 1s
    sem = net.semantics
    x = sem.initial_state(net, False)
    for sym in w[:50]:
        x = sem.step(net, x, int(sym), False)
        assert sorted(x.tolist()) == [0.0] * (len(x) - 1) + [1.0]


def test_torch_export_agrees() -> None:
    a = fsmnet.load("symmetric:3").minimal()
    net = compile_automaton(a, "minmax-dense")
    import torch

    rng = np.random.default_rng(1)
    words = rng.integers(0, a.n_symbols, (4, 300))
    got = to_torch(net)(torch.tensor(words)).numpy()
    for b in range(4):
        assert np.array_equal(got[b], net.label_trace(words[b]))
        assert np.array_equal(got[b], expected(a, words[b]))


def test_save_load_round_trip(tmp_path) -> None:
    net = compile_automaton("contains:aba", "minmax-dense")
    path = tmp_path / "net.safetensors"
    net.save(path)
    back = load_network(path)
    assert back.arch == "minmax-dense"
    w = np.random.default_rng(3).integers(0, len(net.symbols), 400)
    assert np.array_equal(back.label_trace(w), net.label_trace(w))


def test_bad_tensors_are_refused() -> None:
    net = compile_automaton("parity", "minmax-dense")
    with pytest.raises(NetworkFileError, match="'s'"):
        net.with_params(s=np.zeros((2, 3)))
    with pytest.raises(NetworkFileError, match="'R'"):
        Network(arch="minmax-dense", params={**net.params, "R": np.zeros((2, 2, 3))},
                symbols=net.symbols, labels=net.labels)
    with pytest.raises(NetworkFileError, match="NaN"):
        net.with_params(x0=np.array([np.nan, 0.0]))
