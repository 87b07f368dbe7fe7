"""Float32 extremes on every linear architecture: certify --float32 never says "proved"
for a network whose float32 run is wrong, and every float32 refutation is real.

Generators: compiled networks with the readout or h0 scaled towards float32's
largest value or its subnormal range, and every weight perturbed (so rounding
matters).  Oracle: the checker's standard-library float32 replay
(fsmnet/proofs/checker/float32_replay.py, no numpy, no Numba) run by symbol
*names* mapped through the network's own alphabet, against the automaton's
outputs, on every word up to length 6 (or the length where 700 words are reached)
and on 300 random symbols; a word's prefixes are its shorter words.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fsmnet
from fsmnet.proofs.certificate_models import linear_model
from fsmnet.proofs.checker.float32_replay import OVERFLOW, replay_labels

LINEAR = [("parity", "bilinear-full"), ("modadd:3", "bilinear-cp"),
          ("parity", "bilinear-real-diag"), ("atleast:3", "bilinear-positive-diag"),
          ("symmetric:3", "deltaproduct"), ("cyclic:3", "fixed-point"),
          ("modadd:3", "bilinear-r2")]


def _oracle_labels(net, names: list[str]) -> list:
    index = {s: i for i, s in enumerate(net.symbols)}
    labels = replay_labels(linear_model(net), [index[s] for s in names])
    return [None if c == OVERFLOW else net.labels[c] for c in labels]


def _wrong_word(net, automaton, rng) -> list[str] | None:
    """A word (names) on which the float32 replay disagrees with the automaton."""
    longest = max(n for n in range(7) if automaton.n_symbols ** n <= 700)
    words = [list(w) for w in itertools.product(automaton.symbols, repeat=longest)]
    words.append([automaton.symbols[i] for i in rng.integers(0, automaton.n_symbols, 300)])
    for word in words:
        got = _oracle_labels(net, word)
        for t in range(len(word) + 1):
            if got[t] != automaton.output_of(word[:t]):
                return word[:t]
    return None


def _variant(net, kind: str, exponent: int, rng):
    if kind == "readout":
        return net.with_params(readout=np.asarray(net.params["readout"]) * 2.0**exponent)
    if kind == "h0":
        return net.with_params(h0=np.asarray(net.params["h0"]) * 2.0**exponent)
    out = {}
    for k, v in net.params.items():
        if v.dtype == np.float64 and k not in ("Lambda", "betas", "diag", "modulus"):
            out[k] = v * (1 + 2.0**exponent * rng.standard_normal(v.shape))
    return net.with_params(**out)


def _judge(spec: str, arch: str, kind: str, exponent: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    try:
        net = _variant(fsmnet.compile(spec, arch), kind, exponent, rng)
    except fsmnet.errors.NetworkFileError:
        return  # the variant leaves the class (a file no one can load): nothing to judge
    automaton = fsmnet.load(spec)
    result = fsmnet.certify(spec, net, float32=True)
    wrong = _wrong_word(net, automaton, rng)
    if result.verdict == "proved":
        assert wrong is None, f"proved, but the float32 replay is wrong on {wrong}"
    if result.verdict == "refuted" and result.method.startswith("float32"):
        word = result.counterexample.word
        assert _oracle_labels(net, word)[-1] != automaton.output_of(word)


EXTREMES = [("readout", 126), ("readout", -140), ("h0", 127), ("noise", -30)]


def _cases() -> list:
    """Every (architecture, extreme) pair; by default each architecture meets two of
    the four extremes, in turn, so that each extreme meets three or four
    architectures; the other pairs are ``slow`` (and the thorough twin below
    draws the exponents at random)."""
    out = []
    for i, case in enumerate(LINEAR):
        for j, extreme in enumerate(EXTREMES):
            default = j in (i % 4, (i + 1) % 4)
            out.append(pytest.param(*case, *extreme,
                                    marks=() if default else pytest.mark.slow))
    return out


@pytest.mark.parametrize(("spec", "arch", "kind", "exponent"), _cases())
def test_extremes_on_every_linear_architecture(spec, arch, kind, exponent):
    _judge(spec, arch, kind, exponent, 0)


@pytest.mark.slow
@settings(max_examples=60)
@given(case=st.sampled_from(LINEAR), kind=st.sampled_from(["readout", "h0", "noise"]),
       exponent=st.integers(-149, 127), seed=st.integers(0, 2**16))
def test_extremes_on_every_linear_architecture_thorough(case, kind, exponent, seed):
    _judge(*case, kind, exponent if kind != "noise" else min(exponent, -4), seed)
