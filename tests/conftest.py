"""Shared test helpers.

Fixtures here are available to every test module without an import:

* ``shortest_disagreement(net, automaton, max_len)``: brute force over every
  word up to ``max_len``, shortest first, with the exact reference evaluator;
  the independent source the soundness tests compare verdicts with.

Helper modules beside the tests (imported by name, since ``tests/`` is on
``sys.path``): ``bilinear_helpers``, ``cascade_strategies``, ``emulated_cupy``
(the CUDA emulator as ``cupy``), ``holonomy_oracles`` (published SgpDec
results), ``layer_rule`` (the import checker) and ``toy_architecture`` (a
made-up architecture for the registry tests).

The heaviest soundness properties have a ``slow`` twin with a larger budget
(``python -m pytest -m slow``).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import pytest


def shortest_disagreement(net: Any, automaton: Any, max_len: int) -> list[int] | None:
    """The shortest word (symbol indices) on which the network's exact output and the
    automaton's differ, or None when they agree on every word up to ``max_len``."""
    for length in range(max_len + 1):
        for w in itertools.product(range(automaton.n_symbols), repeat=length):
            got = net.labels[int(net.label_trace(list(w), exact=True)[-1])]
            want = automaton.output(automaton.run(w))
            if type(got) is not type(want) or got != want:
                return list(w)
    return None


@pytest.fixture(scope="session", name="shortest_disagreement")
def _shortest_disagreement_fixture() -> Callable[..., list[int] | None]:
    return shortest_disagreement
