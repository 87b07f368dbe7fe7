"""Test subjects for ``certify``: compiled networks with every weight perturbed, and the
trained networks pinned in tests/data/trained_nets.json."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

import fsmnet
from fsmnet.automata import Automaton

# "the last two symbols are a b": a definite automaton, so every letter of the
# compiled network is contracting once composed twice (rank one after two steps).
ENDS_AB = Automaton(delta=[[1, 1, 1], [0, 2, 0]], symbols=["a", "b"], initial=0,
                    outputs=[False, False, True], name="ends-ab")


def perturb(net: fsmnet.nets.Network, eps: float, seed: int = 0) -> fsmnet.nets.Network:
    """Every float tensor entry plus eps times a standard normal draw."""
    rng = np.random.default_rng(seed)
    return net.with_params(**{k: v + eps * rng.standard_normal(v.shape)
                              for k, v in net.params.items() if v.dtype == np.float64})


def exhaustive_agree(net: fsmnet.nets.Network, automaton: Automaton, length: int) -> bool:
    """Every word up to ``length`` in the exact reference semantics (brute force over
    all words, prefixes shared; no merging, so nothing but the semantics is trusted)."""
    sem = net.semantics
    index = [automaton.symbol_index(s) for s in net.symbols]
    level = [(sem.initial_state(net, True), automaton.initial)]
    for n in range(length + 1):
        for h, q in level:
            if net.labels[sem.readout(net, h, True)] != automaton.output(q):
                return False
        if n < length:
            level = [(sem.step(net, h, a, True), int(automaton.delta[index[a], q]))
                     for h, q in level for a in range(len(net.symbols))]
    return True


def pinned_network(name: str) -> fsmnet.nets.Network:
    """A trained network pinned in tests/data/trained_nets.json, bit for bit
    (tests/data/make_trained.py trains it with fsmnet.train and the configuration
    stored beside it; training itself rounds differently on other CPUs)."""
    from fsmnet.nets import Network

    entry = json.loads((Path(__file__).parent / "data" / "trained_nets.json").read_text())[name]
    params = {k: np.array([float.fromhex(x) for x in v["hex"]]).reshape(v["shape"])
              for k, v in entry["params"].items()}
    return Network(arch=entry["arch"], params=params, symbols=entry["symbols"],
                   labels=entry["labels"], name=name)
