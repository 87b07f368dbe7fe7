"""Dask with CuPy inside: a dask array of CuPy chunks runs each block on the CuPy backend.

Run on the CUDA emulator (tests/cudaemu) with Dask's threaded scheduler, so
each block's task launches the real kernels on the host; a GPU cluster runs
the same tasks on its devices.  References: Automaton.trace and
reference_trace (plain loops).
"""

from __future__ import annotations

import dask
import dask.array as da
import numpy as np
import pytest
from emulated_cupy import needs_gxx, use_emulator
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples

import fsmnet
from fsmnet.errors import SpecError
from fsmnet.gpu import evaluate
from fsmnet.nets.evaluate import reference_trace
from fsmnet.testing.strategies import automata

pytestmark = needs_gxx


@pytest.fixture
def cupy_chunks(monkeypatch):
    """A function making a dask array of (emulated) CuPy chunks from a NumPy word."""
    cupy = use_emulator(monkeypatch)

    def make(word: np.ndarray, block: int) -> da.Array:
        meta = cupy.empty(0, dtype=word.dtype)
        return da.from_array(word, chunks=block).map_blocks(cupy.asarray, dtype=word.dtype,
                                                            meta=meta)

    with dask.config.set(scheduler="threads"):
        yield make


@pytest.mark.parametrize("spec", ["modadd:5", "random:n=12,k=3,seed=2",
                                  "random:n=40,k=2,seed=1"])
def test_automata_blocks_on_the_device(cupy_chunks, spec):
    a = fsmnet.load(spec)
    word = np.random.default_rng(3).integers(0, a.n_symbols, 70_001).astype(np.uint8)
    states = a.trace(word)
    res = evaluate(a, cupy_chunks(word, 20_000), backend="dask")
    assert res.path.endswith("-blocks+cupy")
    assert res.state == states[-1]
    assert np.array_equal(res.outputs.compute(), a.output_ids[states[1:]])
    last = evaluate(a, cupy_chunks(word, 9_999), backend="dask", outputs="last")
    assert last.outputs is None and last.state == states[-1]


@pytest.mark.parametrize(("spec", "arch", "path"), [
    ("modadd:5", "bilinear-full", "blocks"), ("symmetric:4", "bilinear-full", "blocks"),
    ("modadd:5", "bilinear-full", "chase"), ("contains:abc", "minmax-cascade", "auto"),
    ("cyclic:2*cyclic:3", "minmax-cascade", "chase"),
])
def test_networks_blocks_on_the_device(cupy_chunks, spec, arch, path):
    net = fsmnet.compile(fsmnet.load(spec), arch)
    word = np.random.default_rng(5).integers(0, len(net.symbols), 50_000).astype(np.uint8)
    res = evaluate(net, cupy_chunks(word, 16_000), backend="dask", path=path)
    assert res.path.endswith("+cupy")
    assert np.array_equal(res.outputs.compute(), reference_trace(net, word)[1:])


def test_device_blocks_are_validated(cupy_chunks):
    a = fsmnet.load("modadd:3")
    word = np.array([0, 1, 2, 5, 1], dtype=np.uint8)
    with pytest.raises(SpecError, match="out of range"):
        evaluate(a, cupy_chunks(word, 2), backend="dask", outputs="last")


@settings(max_examples=examples(15))
@given(a=automata(max_states=7, max_symbols=3), seed=st.integers(0, 2**16),
       length=st.integers(1, 2000), block=st.integers(1, 700))
def test_random_automata_and_block_sizes(a, seed, length, block):
    with pytest.MonkeyPatch.context() as mp, dask.config.set(scheduler="threads"):
        cupy = use_emulator(mp)
        word = np.random.default_rng(seed).integers(0, a.n_symbols, length).astype(np.uint8)
        chunks = da.from_array(word, chunks=block).map_blocks(
            cupy.asarray, dtype=np.uint8, meta=cupy.empty(0, dtype=np.uint8))
        res = evaluate(a, chunks, backend="dask")
        states = a.trace(word)
        assert res.state == states[-1]
        assert np.array_equal(res.outputs.compute(), a.output_ids[states[1:]])
