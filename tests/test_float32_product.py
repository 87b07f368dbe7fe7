"""Bit-exact float32 exploration (fsmnet.proofs.float32_product) and its checker.

Oracles: ``numpy_float32_labels`` (tests/test_adversarial_float32.py), a numpy
float32 loop written in the tests, run on every word up to a length (brute
force), and the automaton's own outputs.
"""

from __future__ import annotations

import copy
import itertools
import json
import struct

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples
from test_adversarial_float32 import numpy_float32_labels

import fsmnet
from fsmnet.automata import Automaton
from fsmnet.cli import main
from fsmnet.proofs.checker import CertificateError
from fsmnet.proofs.checker.float32_states import check_float32_product
from fsmnet.proofs.float32_product import explore_float32, float32_certificate
from fsmnet.proofs.verifier import prepare_automaton

ENDS_AB = Automaton(delta=[[1, 1, 1], [0, 2, 0]], symbols=["a", "b"], initial=0,
                    outputs=[False, False, True], name="ends-ab")


def _noisy(automaton, eps: float, seed: int = 0):
    net = fsmnet.compile(automaton, "bilinear-full")
    rng = np.random.default_rng(seed)
    return net.with_params(**{k: v + eps * rng.standard_normal(v.shape)
                              for k, v in net.params.items()})


def _all_words_agree(net, automaton, length: int) -> bool:
    for n in range(length + 1):
        for word in itertools.product(range(len(net.symbols)), repeat=n):
            names = [net.symbols[i] for i in word]
            if numpy_float32_labels(net, list(word))[-1] != automaton.output_of(names):
                return False
    return True


@pytest.mark.parametrize("eps", [1e-6, 1e-4, 1e-2])
def test_noisy_contracting_nets_close_in_float32_and_are_right(eps):
    """Rounding pins the drifting states: the product closes; brute force over every
    word to length 9 in numpy float32 agrees with the proof."""
    net = _noisy(ENDS_AB, eps)
    automaton = prepare_automaton(ENDS_AB, net)
    found = explore_float32(net, automaton)
    assert found.status == "closed"
    cert = float32_certificate(net, automaton, found)
    assert check_float32_product(cert).startswith("valid")
    assert _all_words_agree(net, ENDS_AB, 9)


@pytest.mark.parametrize(("spec", "arch"), [("parity", "bilinear-full"),
                                            ("symmetric:3", "deltaproduct"),
                                            ("modadd:3", "bilinear-cp")])
def test_compiled_nets_are_proved_in_float32_through_the_cli(tmp_path, spec, arch):
    net_path, cert_path = tmp_path / "n.safetensors", tmp_path / "c.json"
    fsmnet.compile(spec, arch).save(net_path)
    assert main(["certify", str(net_path), spec, "--float32", "--certificate",
                 str(cert_path), "-q"]) == 0
    cert = json.loads(cert_path.read_text())
    assert cert["method"] == "float32-product" and "reference" in cert["covers"]
    assert main(["check", str(cert_path), "--network", str(net_path), "-q"]) == 0


def test_the_shortest_float32_counterexample_is_found():
    """A parity net whose letter 1 is [[0.4, 1], [1, 0.4]]: letter 0 is the identity,
    exact in float32 (x·1 + 0·y = x, and h is already normalized), so a state depends
    only on the number of 1s and the shortest wrong word is 1^n for the least wrong n.
    Oracle: the numpy float32 loop on 1^n, n = 0, 1, ..., and brute force over every
    word up to length 10 (all right)."""
    net = fsmnet.compile("parity", "bilinear-full")
    w = np.array(net.params["W"])
    w[:, :, 1] = [[0.4, 1.0], [1.0, 0.4]]
    bad = net.with_params(W=w)
    automaton = prepare_automaton("parity", bad)
    found = explore_float32(bad, automaton)
    assert found.status == "mismatch"
    least = next(n for n in range(200)
                 if numpy_float32_labels(bad, [1] * n)[-1] != (n % 2 == 0))
    assert found.word == [1] * least
    assert _all_words_agree(bad, automaton, 10)


def _cert():
    net = _noisy(ENDS_AB, 1e-4)
    automaton = prepare_automaton(ENDS_AB, net)
    return float32_certificate(net, automaton, explore_float32(net, automaton))


CERT = _cert()


def _flip(bits: str, k: int) -> str:
    word = struct.unpack(">I", bytes.fromhex(bits))[0] ^ (1 << k)
    return struct.pack(">I", word).hex()


@settings(max_examples=examples(40))
@given(data=st.data())
def test_every_tampered_state_bit_or_target_is_refused(data):
    """Oracle: the untampered certificate is valid; a state with one bit flipped is no
    longer the replayed step's image (or h_0), and a redirected target reaches a pair
    with other bits or another automaton state."""
    cert = copy.deepcopy(CERT)
    if data.draw(st.booleans()):
        s = data.draw(st.integers(0, len(cert["states"]) - 1))
        j = data.draw(st.integers(0, len(cert["states"][s]) - 1))
        cert["states"][s][j] = _flip(cert["states"][s][j], data.draw(st.integers(0, 31)))
        assume_distinct = cert["states"][s] not in cert["states"][:s] + cert["states"][s + 1:]
        if not assume_distinct:
            return
    else:
        i = data.draw(st.integers(0, len(cert["transitions"]) - 1))
        a = data.draw(st.integers(0, len(cert["transitions"][i]) - 1))
        t = data.draw(st.integers(0, len(cert["pairs"]) - 1))
        old = cert["transitions"][i][a]
        if cert["pairs"][t] == cert["pairs"][old]:
            return
        cert["transitions"][i][a] = t
    with pytest.raises(CertificateError):
        check_float32_product(cert)


def test_a_transition_weight_moved_is_refused():
    """Oracle: the replayed steps of symbol 0 change bits once A[0][0][0] changes by
    2^-10 relative (every listed image then differs from its listed state)."""
    from fractions import Fraction

    cert = copy.deepcopy(CERT)
    assert check_float32_product(cert).startswith("valid")
    m = cert["network"]["model"]["matrices"][0]
    m[0][0] = str(Fraction(m[0][0]) * (1 + Fraction(1, 2**10)))
    with pytest.raises(CertificateError, match="replayed"):
        check_float32_product(cert)
