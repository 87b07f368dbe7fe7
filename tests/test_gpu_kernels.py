"""CUDA kernels: they compile with nvcc for sm_90 (CI), and on a GPU they equal the CPU.

The compile tests need only ``nvcc``; the numerical tests (``-m gpu``) need
CuPy and a CUDA device and skip elsewhere, saying why.  References:
``Automaton.trace`` and ``reference_trace`` (plain loops).
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

import fsmnet
from fsmnet.gpu import cuda_available, evaluate
from fsmnet.gpu.cupy_backend import KERNELS, expected_kernels
from fsmnet.nets.evaluate import reference_trace

NVCC = shutil.which("nvcc")
SOURCES = sorted(KERNELS.glob("*.cu"))


def test_every_kernel_file_is_known():
    assert {p.stem for p in SOURCES} == set(expected_kernels())


@pytest.mark.skipif(NVCC is None, reason="nvcc is not installed, so the CUDA sources "
                    "cannot be compiled here")
@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.name)
def test_compiles_for_sm90(source: Path, tmp_path: Path):
    ptx = tmp_path / (source.stem + ".ptx")
    done = subprocess.run([NVCC, "--ptx", "-arch=sm_90", "-std=c++17", "-Werror",
                           "all-warnings", str(source), "-o", str(ptx)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    entries = set(re.findall(r"\.entry\s+(\w+)", ptx.read_text()))
    missing = expected_kernels()[source.stem] - entries
    assert not missing, f"kernels the backend asks for but {source.name} lacks: {missing}"


gpu = pytest.mark.skipif(not cuda_available(),
                         reason="no usable CUDA device (CuPy missing or no GPU): the kernels "
                                "were only compiled, not run")


@pytest.fixture
def small_pieces(monkeypatch):
    """Stream in pieces of 10^4 symbols so tests cross piece boundaries."""
    import fsmnet.gpu.cupy_backend as cb

    monkeypatch.setattr(cb, "PIECE", 10_000)


@pytest.mark.gpu
@gpu
@pytest.mark.parametrize("spec", ["modadd:5", "symmetric:4", "flipflop",
                                  "random:n=12,k=3,seed=2", "random:n=40,k=2,seed=1"])
@pytest.mark.parametrize("chunk", [None, 16, 37])
def test_automata_on_gpu(spec, chunk, small_pieces):
    a = fsmnet.load(spec)
    rng = np.random.default_rng(11)
    word = rng.integers(0, a.n_symbols, 54_321).astype(np.uint8)
    states = a.trace(word)
    for path in ("cayley", "live"):
        if path == "cayley" and a.n_states > 20:
            continue  # random 40-state monoids are too large for a table
        res = evaluate(a, word, backend="cupy", path=path, chunk=chunk)
        assert res.state == states[-1]
        assert np.array_equal(res.outputs, a.output_ids[states[1:]])
        last = evaluate(a, word, backend="cupy", path=path, chunk=chunk, outputs="last")
        assert last.outputs is None and last.state == states[-1]
    first = evaluate(a, word[:20_000], backend="cupy", path="live")
    second = evaluate(a, word[20_000:], backend="cupy", path="live", start=first.state)
    assert second.state == states[-1]


@pytest.mark.gpu
@gpu
@pytest.mark.parametrize(("spec", "arch"), [
    ("symmetric:4", "bilinear-full"), ("modadd:5", "bilinear-full"),
    ("flipflop", "minmax-scalar"), ("contains:abc", "minmax-scalar"),
    ("modadd:4", "minmax-dense"), ("cyclic:2*cyclic:3", "minmax-cascade"),
])
def test_networks_on_gpu(spec, arch, small_pieces):
    net = fsmnet.compile(fsmnet.load(spec), arch)
    word = np.random.default_rng(4).integers(0, len(net.symbols), 30_001)
    want = reference_trace(net, word)[1:]
    res = evaluate(net, word, backend="cupy", chunk=64)
    assert np.array_equal(res.outputs, want)
    cpu = evaluate(net, word, backend="numba")
    last = evaluate(net, word, backend="cupy", outputs="last")
    if arch.startswith("minmax"):
        assert all(np.array_equal(x, y) for x, y in zip(np.atleast_1d(last.state),
                                                         np.atleast_1d(cpu.state)))
    else:
        assert np.allclose(last.state, cpu.state)


@pytest.mark.gpu
@gpu
def test_cupy_input_in_place():
    import cupy

    a = fsmnet.load("parity")
    word = np.random.default_rng(0).integers(0, 2, 100_000).astype(np.uint8)
    res = evaluate(a, cupy.asarray(word), backend="cupy", outputs="last")
    assert res.state == a.run(word)
