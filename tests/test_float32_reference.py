"""The float32 reference step (fsmnet.nets.float32) against an independent emulation.

Oracle: the checker's standard-library replay (fsmnet/proofs/checker/float32_replay.py,
no numpy, no Numba), which derives A32, R32 and h_0 from the exact model itself.
float32 arithmetic is emulated with float64 operations and ``struct`` rounding,
which is exact for one +, −, × or ÷ of two float32 values (53 ≥ 2·24 + 2 bits, so
the double result rounds to float32 as the exact result would; Figueroa 1995).
It follows the order docs/formats.md specifies, and labels and the final state
are compared bit for bit with the Numba loop.
"""

from __future__ import annotations

import struct
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples

import fsmnet
from fsmnet.nets import Network
from fsmnet.nets.float32 import OVERFLOW, Float32Run, float32_trace
from fsmnet.proofs.certificate_models import linear_model
from fsmnet.proofs.checker.float32_replay import replay


def emulated_trace(net: Network, word: list[int]) -> tuple[list[int], list[float]]:
    """(labels, final state) of the float32 linear step, by the checker's struct emulation
    from the exact model (A32, R32 and h_0 derived there, not taken from the reference)."""
    return replay(linear_model(net), word)


def _linear_net(mats: np.ndarray, readout: np.ndarray, h0: np.ndarray) -> Network:
    return Network(arch="bilinear-full", params={"W": np.moveaxis(mats, 0, 2).copy(),
                                                 "h0": h0, "readout": readout},
                   symbols=[str(i) for i in range(len(mats))],
                   labels=list(range(len(readout))), name="random")


@settings(max_examples=examples(25))
@given(seed=st.integers(0, 2**31), hidden=st.integers(1, 6), scale=st.sampled_from(
    [1.0, 1e-20, 1e-38, 1e30, 3e37]))
def test_reference_equals_the_struct_emulation_bit_for_bit(seed, hidden, scale):
    """Random weights, including magnitudes near float32's subnormal and overflow ranges."""
    rng = np.random.default_rng(seed)
    mats = rng.standard_normal((2, hidden, hidden)) * scale
    net = _linear_net(mats, rng.standard_normal((3, hidden)) * scale,
                      rng.standard_normal(hidden))
    word = rng.integers(0, 2, 300).tolist()
    want, state = emulated_trace(net, word)
    run = Float32Run(net)
    got = run.labels(word, include_start=True)
    assert got.tolist() == want
    if not run.overflowed:
        assert [struct.pack("f", x) for x in state] == [struct.pack("f", x) for x in run.state]


def test_continued_pieces_equal_one_run():
    """Oracle: the same word in one piece."""
    rng = np.random.default_rng(3)
    net = _linear_net(rng.standard_normal((2, 4, 4)), rng.standard_normal((2, 4)),
                      rng.standard_normal(4))
    word = rng.integers(0, 2, 1000)
    whole = float32_trace(net, word)
    run = Float32Run(net)
    parts = [run.labels(word[:1], include_start=True)] + [
        run.labels(word[i:i + 137], include_start=False) for i in range(1, 1000, 137)]
    assert np.array_equal(np.concatenate(parts), whole)


# ------------------------------------------------ overflow is part of the semantics
def _parity(**change: np.ndarray) -> Network:
    return fsmnet.compile("parity", "bilinear-full").with_params(**change)


def test_a_readout_near_float32_max_overflows_the_scores():
    """The audit's case: a readout of order 3e38 makes a score inf in float32 (the struct
    emulation agrees), so every label is OVERFLOW, the empty word's included."""
    net = _parity()
    big = _parity(readout=np.asarray(net.params["readout"]) * 3e38 + 3e38)
    got = float32_trace(big, [0, 1, 1])
    assert got.tolist() == emulated_trace(big, [0, 1, 1])[0]
    assert set(got.tolist()) == {OVERFLOW}


def test_a_transition_near_float32_max_overflows_from_step_one():
    net = _parity()
    w = np.asarray(net.params["W"]) * 2.7e38 + 2.7e38
    got = float32_trace(_parity(W=w), [1, 0])
    assert got[0] != OVERFLOW and got[1:].tolist() == [OVERFLOW, OVERFLOW]


def test_an_h0_beyond_float32_range_enters_as_its_direction():
    """The audit's h0 of 5e38 (finite in float64, inf in float32): the reference takes
    h0 / max|h0| exactly before rounding, so the run is the compiled parity run
    (oracle: parity's outputs, True for an even number of 1s, on the prefixes of 1 1 0 1)."""
    got = float32_trace(_parity(h0=np.array([5e38, 0.0])), [1, 1, 0, 1])
    net = _parity()
    assert got.tolist() == float32_trace(net, [1, 1, 0, 1]).tolist()
    assert [net.labels[i] for i in got] == [True, False, True, True, False]


def test_subnormal_states_are_kept():
    """Gradual underflow: a state of 1e-40 (subnormal in float32) still normalizes to 1."""
    net = _linear_net(np.array([[[1e-40]]]), np.array([[1.0], [-1.0]]), np.array([1.0]))
    assert float32_trace(net, [0, 0]).tolist() == emulated_trace(net, [0, 0])[0]
    assert float32_trace(net, [0, 0]).tolist() == [0, 0, 0]


def test_a_tie_goes_to_the_first_label():
    """Oracle: argmax takes the first maximum (docs/formats.md)."""
    net = _linear_net(np.eye(2)[None], np.array([[1.0, 0.0], [1.0, 0.0]]), np.array([1.0, 0.0]))
    assert float32_trace(net, [0]).tolist() == [0, 0]


def test_a_bias_that_rounds_to_a_tie_in_float32():
    """1 − 2^-30 rounds to 1 in float32: the scores tie and the first label wins, where
    the exact run (a Fraction comparison, the independent oracle) picks label 1."""
    net = _linear_net(np.eye(1)[None], np.array([[1.0 - 2.0**-30], [1.0]]), np.array([1.0]))
    assert Fraction(1) > Fraction(1.0 - 2.0**-30)
    assert net.label_trace([], exact=True).tolist() == [1]
    assert float32_trace(net, []).tolist() == [0]


# ------------------------------------------------ every architecture, compiled
COMPILED = [("parity", "bilinear-full"), ("modadd:3", "bilinear-cp"),
            ("symmetric:3", "bilinear-block"), ("modadd:5", "bilinear-r2"),
            ("parity", "bilinear-real-diag"), ("atleast:3", "bilinear-positive-diag"),
            ("flipflop", "minmax-dense"), ("contains:aba", "minmax-cascade"),
            ("flipflop", "minmax-scalar"), ("symmetric:3", "deltaproduct"),
            ("cyclic:3", "fixed-point")]


@pytest.mark.parametrize(("spec", "arch"), COMPILED)
def test_compiled_networks_run_right_in_float32(spec, arch):
    """Oracle: the automaton itself, on 20,000 random symbols (compiled weights are
    small dyadics or exact rotations; float32 keeps every label)."""
    net = fsmnet.compile(spec, arch)
    automaton = fsmnet.load(spec)
    word = np.random.default_rng(7).integers(0, len(net.symbols), 20_000)
    got = [net.labels[i] for i in float32_trace(net, word)]
    names = [net.symbols[i] for i in word]
    q = automaton.initial
    want = [automaton.outputs[q]]
    index = {s: i for i, s in enumerate(automaton.symbols)}
    for name in names:
        q = int(automaton.delta[index[name], q])
        want.append(automaton.outputs[q])
    assert got == want
