"""Every index a caller gives the scan engine is range-checked, on every backend: an
out-of-range start state is a typed error naming the value, never an out-of-bounds read."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import fsmnet
from fsmnet.errors import SpecError
from fsmnet.gpu.engine import evaluate

BACKENDS = ["numpy", "numba", "dask", "cupy"]  # cupy: refused before any device is needed


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("start", [99, -1, 2, True, 1.0, "0"])
def test_bad_automaton_start_is_refused(backend: str, start: object) -> None:
    parity = fsmnet.load("parity")  # states 0 and 1
    with pytest.raises(SpecError, match="start") as info:
        evaluate(parity, np.zeros(10, dtype=np.int64), backend=backend, start=start)
    assert "field 'start'" in str(info.value)


@pytest.mark.parametrize("backend", ["numpy", "numba", "dask"])
def test_bad_network_start_is_refused(backend: str) -> None:
    net = fsmnet.compile("modadd:3", "bilinear-full")  # h is a vector of 3 floats
    for start in (np.zeros(4), np.array([np.nan, 0.0, 1.0]), "h"):
        with pytest.raises(SpecError, match="start"):
            evaluate(net, np.zeros(5, dtype=np.int64), backend=backend, start=start)
    cascade = fsmnet.compile("flipflop", "minmax-cascade")  # h is a tuple of unit states
    with pytest.raises(SpecError, match="unit states"):
        evaluate(cascade, np.zeros(5, dtype=np.int64), backend=backend, start=(1.0, 2.0, 3.0))


@pytest.mark.parametrize("chunk", [0, -5, 2.5, True])
def test_bad_chunk_is_refused(chunk: object) -> None:
    with pytest.raises(SpecError, match="chunk"):
        evaluate(fsmnet.load("parity"), np.zeros(10, dtype=np.int64), chunk=chunk)


@given(st.integers(0, 4), st.lists(st.integers(0, 4), max_size=50),
       st.sampled_from(["numpy", "numba"]))
def test_every_valid_start_agrees_with_the_reference_run(q: int, word: list[int],
                                                         backend: str) -> None:
    a = fsmnet.load("modadd:5")  # 5 states; the reference is Automaton.run
    res = evaluate(a, np.array(word, dtype=np.int64), backend=backend, outputs="last", start=q)
    assert res.state == a.run(word, start=q)
