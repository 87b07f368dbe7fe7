"""Test subjects for ``certify``: compiled networks with every weight perturbed."""

from __future__ import annotations

import itertools

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
    """Every word up to ``length`` through the exact reference evaluator (brute force)."""
    index = {s: i for i, s in enumerate(net.symbols)}
    for n in range(length + 1):
        for word in itertools.product(automaton.symbols, repeat=n):
            got = net.labels[int(net.label_trace([index[s] for s in word], exact=True)[-1])]
            if got != automaton.output_of(list(word)):
                return False
    return True
