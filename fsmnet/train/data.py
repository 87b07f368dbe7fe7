"""Training data from an automaton: random words and the label after every prefix.

The labels come from the automaton itself (``Automaton.trace`` and
``output_ids``), never from a network, so they are the ground truth.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from fsmnet.automata import Automaton, load


def task_automaton(spec: Automaton | str) -> Automaton:
    """The automaton of a spec, with a start state (semiautomata start in state 0)."""
    a = spec if isinstance(spec, Automaton) else load(spec)
    if a.initial is None:
        a = a.replace(initial=0)
    return a


def label_traces(automaton: Automaton, words: np.ndarray) -> np.ndarray:
    """(B, T + 1) label indices (into ``automaton.labels``) after every prefix.

    Runs the transition table on the whole batch at once, one step per position.
    """
    words = np.asarray(words, dtype=np.int64)
    delta, out_ids = automaton.delta, automaton.output_ids
    q = np.full(words.shape[0], automaton.start_state(), dtype=np.int64)
    states = [q]
    for t in range(words.shape[1]):
        q = delta[words[:, t], q]
        states.append(q)
    return np.asarray(out_ids)[np.stack(states, axis=1)]


def batch(automaton: Automaton, rng: np.random.Generator, size: int,
          length: int) -> tuple[np.ndarray, np.ndarray]:
    """``size`` uniform random words of ``length`` and their label traces."""
    words = rng.integers(0, automaton.n_symbols, size=(size, length), dtype=np.int64)
    return words, label_traces(automaton, words)


def accuracy(module: Any, automaton: Automaton, length: int, *, words: int = 256,
             seed: int = 1234, device: str = "cpu") -> float:
    """Fraction of positions (the empty prefix excluded) where ``module``'s label
    equals the automaton's, on ``words`` random words of ``length``."""
    import torch

    rng = np.random.default_rng(seed)
    correct = total = 0
    for start in range(0, words, 64):
        n = min(64, words - start)
        w, y = batch(automaton, rng, n, length)
        with torch.no_grad():
            got = module(torch.tensor(w, device=device)).cpu().numpy()
        correct += int(np.sum(got[:, 1:] == y[:, 1:]))
        total += y[:, 1:].size
    return correct / total


def normalized(acc: float, n_labels: int) -> float:
    """(acc − 1/C) / (1 − 1/C): 0 is chance over C labels, 1 is perfect
    (the normalization of the bilinear-RNN paper's tables, arXiv 2505.21749)."""
    chance = 1.0 / max(1, n_labels)
    return (acc - chance) / (1.0 - chance) if n_labels > 1 else 1.0
