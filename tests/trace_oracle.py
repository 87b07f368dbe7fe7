"""The exact reference evaluator against the automaton, position by position."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def assert_follows_automaton(net: Any, automaton: Any, word: Sequence[int]) -> None:
    """Every prefix of ``word`` (the empty one too): the network's exact label is the
    automaton's output."""
    trace = net.label_trace(list(word), exact=True)
    q = automaton.initial
    for t, x in enumerate([None, *word]):
        if x is not None:
            q = int(automaton.delta[x, q])
        assert net.labels[trace[t]] == automaton.labels[automaton.output_ids[q]], (t, word)
