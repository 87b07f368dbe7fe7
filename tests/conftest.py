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
import os
from collections.abc import Callable
from typing import Any

import pytest

# Under ``pytest -n 2`` two workers share two cores, and each worker's torch and
# BLAS would start one thread per core: four busy threads on two cores, which
# thrash.  One BLAS thread per worker cut the default suite from 4m03 to 3m21 on
# a 2-core machine (docs/performance.md).  Numba's pool is left alone: limiting it
# too measured no better.  Set before any test module imports torch, and
# inherited by the CLI subprocesses the tests start.
if os.environ.get("PYTEST_XDIST_WORKER"):
    for _var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        os.environ.setdefault(_var, "1")


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
