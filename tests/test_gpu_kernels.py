"""CUDA kernels: they compile with nvcc for sm_90, and what they compute equals the CPU.

The compile tests need only ``nvcc``.  Every numerical test runs twice: on
the CUDA emulator (``tests/cudaemu``: the same kernels built for the host by
g++, run everywhere g++ is) and on a real GPU (marked ``gpu``; needs CuPy and
a CUDA device, skips elsewhere saying why).  References: ``Automaton.trace``
and ``reference_trace`` (plain loops), and the Numba backend.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from cascade_strategies import mixed_cascades
from emulated_cupy import needs_gxx, use_emulator
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples

import fsmnet
from fsmnet.errors import SpecError
from fsmnet.gpu import cuda_available, evaluate
from fsmnet.gpu.cupy_backend import KERNELS, expected_kernels, kernel_source
from fsmnet.nets.evaluate import reference_trace
from fsmnet.testing.strategies import automata

NVCC = shutil.which("nvcc")
SOURCES = sorted(KERNELS.glob("*.cu"))


def test_every_kernel_file_is_known():
    assert {p.stem for p in SOURCES} == set(expected_kernels())


@pytest.mark.skipif(NVCC is None, reason="nvcc is not installed, so the CUDA sources "
                    "cannot be compiled here")
@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.name)
def test_compiles_for_sm90(source: Path, tmp_path: Path):
    full = tmp_path / source.name  # what CuPy compiles: common.cuh, then the file
    full.write_text(kernel_source(source.stem))
    ptx = tmp_path / (source.stem + ".ptx")
    done = subprocess.run([NVCC, "--ptx", "-arch=sm_90", "-std=c++17", "-Werror",
                           "all-warnings", str(full), "-o", str(ptx)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    entries = set(re.findall(r"\.entry\s+(\w+)", ptx.read_text()))
    missing = expected_kernels()[source.stem] - entries
    assert not missing, f"kernels the backend asks for but {source.name} lacks: {missing}"


no_gpu = pytest.mark.skipif(not cuda_available(),
                            reason="no usable CUDA device (CuPy missing or no GPU): the kernels "
                                   "ran on the host emulator only")


@pytest.fixture(params=[pytest.param("cuda", marks=[pytest.mark.gpu, no_gpu]),
                        pytest.param("emulated", marks=needs_gxx)])
def device(request, monkeypatch):
    """The CuPy module the backend will use, streaming in pieces of 10^4 symbols
    so that tests cross piece boundaries."""
    import fsmnet.gpu.cupy_backend as cb

    monkeypatch.setattr(cb, "PIECE", 10_000)
    if request.param == "emulated":
        module = use_emulator(monkeypatch)
    else:
        import cupy as module
    cb.compiled_module.cache_clear()
    yield module
    cb.compiled_module.cache_clear()


@pytest.mark.parametrize("spec", ["modadd:5", "symmetric:4", "flipflop",
                                  "random:n=12,k=3,seed=2", "random:n=40,k=2,seed=1"])
@pytest.mark.parametrize("chunk", [None, 16, 37])
def test_automata(device, spec, chunk):
    a = fsmnet.load(spec)
    rng = np.random.default_rng(11)
    word = rng.integers(0, a.n_symbols, 54_321).astype(np.uint8)
    states = a.trace(word)
    for path in ("cayley", "live"):
        if path == "cayley" and a.n_states > 20:
            continue  # random 40-state monoids are too large for a table
        res = evaluate(a, word, backend="cupy", path=path, chunk=chunk)
        assert res.path == path
        assert res.state == states[-1]
        assert np.array_equal(res.outputs, a.output_ids[states[1:]])
        last = evaluate(a, word, backend="cupy", path=path, chunk=chunk, outputs="last")
        assert last.outputs is None and last.state == states[-1]
    first = evaluate(a, word[:20_000], backend="cupy", path="live")
    second = evaluate(a, word[20_000:], backend="cupy", path="live", start=first.state)
    assert second.state == states[-1]


@needs_gxx
@settings(max_examples=examples(25))
@given(a=automata(max_states=9, max_symbols=4, max_labels=3), seed=st.integers(0, 2**16),
       length=st.integers(0, 3000), chunk=st.sampled_from([None, 1, 16, 33, 256]))
def test_random_automata_on_emulator(a, seed, length, chunk):
    """Property: for random automata, words and chunk sizes the scan equals Automaton.trace."""
    import fsmnet.gpu.cupy_backend as cb

    with pytest.MonkeyPatch.context() as mp:
        use_emulator(mp)
        word = np.random.default_rng(seed).integers(0, a.n_symbols, length)
        states = a.trace(word)
        res = evaluate(a, word, backend="cupy", chunk=chunk)
        assert res.state == states[-1]
        assert np.array_equal(res.outputs, a.output_ids[states[1:]])
    cb.compiled_module.cache_clear()


@pytest.mark.parametrize(("spec", "arch", "kernels"), [
    ("symmetric:3", "bilinear-full", "chunk-products"),
    ("modadd:5", "bilinear-full", "chunk-products"),
    ("random:n=12,k=3,seed=2", "bilinear-full", "chunk-products"),  # H = 12, padded to 16
    ("symmetric:4", "bilinear-full", "host-sequential"),  # H = 24 > 16: no GPU kernel
    ("flipflop", "minmax-scalar", "levelwise"), ("contains:abc", "minmax-scalar", "levelwise"),
    ("modadd:4", "minmax-dense", "host-sequential"),
    ("contains:abc", "minmax-cascade", "levelwise"),  # scalar units only, several levels
    ("cyclic:2*cyclic:3", "minmax-cascade", "levelwise"),  # matrix units
    ("symmetric:3", "minmax-cascade", "levelwise"),  # a matrix unit of 6 values
])
def test_networks(device, spec, arch, kernels):
    """Both ways a network runs: as its reachable-state automaton, and on its own kernels."""
    net = fsmnet.compile(fsmnet.load(spec), arch)
    word = np.random.default_rng(4).integers(0, len(net.symbols), 30_001)
    want = reference_trace(net, word)[1:]
    cpu = evaluate(net, word, backend="numba", path="direct")
    for path, ran in (("tabulated", "tabulated-cayley"), ("direct", kernels)):
        res = evaluate(net, word, backend="cupy", chunk=64, path=path)
        assert res.path == ran
        assert np.array_equal(res.outputs, want)
        last = evaluate(net, word, backend="cupy", outputs="last", path=path)
        if arch.startswith("minmax"):
            assert all(np.array_equal(x, y) for x, y in zip(np.atleast_1d(last.state),
                                                             np.atleast_1d(cpu.state)))
        else:
            assert np.allclose(last.state, cpu.state)


def test_network_paths_are_checked(device):
    net = fsmnet.compile(fsmnet.load("modadd:3"), "bilinear-full")
    with pytest.raises(SpecError, match="network paths"):
        evaluate(net, np.zeros(4, dtype=np.uint8), backend="cupy", path="ilp")
    assert evaluate(net, np.zeros(4, dtype=np.uint8), backend="cupy").path.startswith(
        "tabulated")


def test_cupy_input_in_place(device):
    a = fsmnet.load("parity")
    word = np.random.default_rng(0).integers(0, 2, 100_000).astype(np.uint8)
    res = evaluate(a, device.asarray(word), backend="cupy", outputs="last")
    assert res.state == a.run(word)


def test_cupy_views_unaligned_and_strided(device):
    """A view such as word[3:] is not 16-byte aligned (the vector loads would fault) and
    word[::2] is not contiguous (the kernels would read the skipped symbols): both are
    copied before the kernels see them.  Found by the emulator."""
    a = fsmnet.load("modadd:5")
    word = np.random.default_rng(1).integers(0, 5, 50_001).astype(np.uint8)
    on_device = device.asarray(word)
    for view, host in ((on_device[3:], word[3:]), (on_device[::2], word[::2])):
        res = evaluate(a, view, backend="cupy", chunk=32)
        assert res.state == a.run(host)
        assert np.array_equal(res.outputs, a.output_ids[a.trace(host)[1:]])


def test_cupy_input_is_validated(device):
    a = fsmnet.load("modadd:5")
    with pytest.raises(SpecError, match=r"out of range 0\.\.4.*value: 7"):
        evaluate(a, device.asarray(np.array([0, 7, 1], dtype=np.uint8)), backend="cupy")
    with pytest.raises(SpecError, match="1-D integer"):
        evaluate(a, device.asarray(np.zeros((2, 2), dtype=np.uint8)), backend="cupy")


def test_empty_input(device):
    a = fsmnet.load("modadd:5")
    res = evaluate(a, np.zeros(0, dtype=np.uint8), backend="cupy")
    assert res.state == a.initial and len(res.outputs) == 0


@given(a=automata(max_states=16, max_symbols=5, semiautomaton=True), data=st.data())
def test_word_tables_equal_running_the_word(a, data):
    """The live_words kernels' tables, against running each word with Automaton.trace
    (a plain loop); padded states are fixed points."""
    from fsmnet.gpu.cupy_automaton import word_table
    from fsmnet.gpu.words import word_length

    width = 8 if a.n_states <= 8 else 16
    m = data.draw(st.sampled_from([1, 2, 4, 8]))
    if a.n_symbols ** m > 4096:
        m = word_length(a.n_symbols, width, limit=4096 * width)
    table = word_table(a.delta, width, m)
    assert table.shape == (a.n_symbols ** m, width) and table.dtype == np.uint8
    w = data.draw(st.integers(0, a.n_symbols ** m - 1))
    word = [(w // a.n_symbols ** i) % a.n_symbols for i in range(m)]  # first symbol lowest
    for q in range(a.n_states):
        assert table[w, q] == a.trace(word, start=q)[-1]
    assert list(table[w, a.n_states:]) == list(range(a.n_states, width))


def test_live_words_kernel_is_used_for_small_automata(device):
    """Random 16-state automata have monoids too large for a Cayley table: the live path
    runs the word-table kernel (8 symbols a lookup for two letters)."""
    from fsmnet.gpu.cupy_automaton import WORD_TABLE_BYTES
    from fsmnet.gpu.words import word_length

    a = fsmnet.load("random:n=16,k=2,seed=3")
    assert word_length(a.n_symbols, 16, limit=WORD_TABLE_BYTES) == 8
    word = np.random.default_rng(9).integers(0, 2, 40_003).astype(np.uint8)
    for chunk in (None, 48, 37):  # 37: no vector loads, single-symbol steps only
        res = evaluate(a, word, backend="cupy", path="live", chunk=chunk)
        assert res.state == a.run(word)
        assert np.array_equal(res.outputs, a.output_ids[a.trace(word)[1:]])


@needs_gxx
@settings(max_examples=examples(20))
@given(net=mixed_cascades(), data=st.data())
def test_random_cascades_on_emulator(net, data):
    """Random cascades, scalar and matrix units with arbitrary tables, on the device kernels:
    labels equal reference_trace and unit states are bit-identical (max/min select)."""
    import fsmnet.gpu.cupy_backend as cb

    word = np.array(data.draw(st.lists(st.integers(0, len(net.symbols) - 1), max_size=400)),
                    dtype=np.int64)
    chunk = data.draw(st.integers(1, 40))
    with pytest.MonkeyPatch.context() as mp:
        use_emulator(mp)
        res = evaluate(net, word, backend="cupy", path="direct", chunk=chunk)
    cb.compiled_module.cache_clear()
    assert res.path == "levelwise"
    assert np.array_equal(res.outputs, reference_trace(net, word)[1:])
    state = net.semantics.initial_state(net, False)
    for x in word:
        state = net.semantics.step(net, state, int(x), False)
    assert all(np.array_equal(a, b) for a, b in zip(res.state, state))
