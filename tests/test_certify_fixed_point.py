"""The behavioural-reset fixed-point construction, proved by a box invariant."""

from __future__ import annotations

import json

import numpy as np
from certify_helpers import exhaustive_agree

import fsmnet
from fsmnet.nets.fixed_point import converges_exactly, iterate_fixed_point
from fsmnet.proofs.checker import check_certificate


def test_flipflop_compiles_to_fixed_point_and_is_proved(tmp_path) -> None:
    automaton = fsmnet.load("flipflop")
    net = fsmnet.compile(automaton, "fixed-point")
    assert net.options["construction"] == "behavioural reset"
    for sym in range(len(net.symbols)):
        # the iteration converges (exact Schur-Cohn), and to A h
        assert converges_exactly(net, sym)
        h = np.array([0.3, 0.9, 1.0])
        fixed, steps = iterate_fixed_point(net, sym, h, tol=1e-13)
        assert steps < 200
        want = np.array(net.semantics.matrices(net, False)[sym]) @ h
        assert np.allclose(fixed, want, rtol=1e-10)
    path = tmp_path / "c.json"
    result = fsmnet.verify(automaton, net, max_states=300, certificate=str(path))
    assert (result.verdict, result.method) == ("proved", "box-invariant")
    assert check_certificate(json.loads(path.read_text())).startswith("valid")
    # independent: every word up to length 7 in exact arithmetic
    assert exhaustive_agree(net, automaton.minimal(), 7)


def test_expressivity_says_possible() -> None:
    [res] = fsmnet.expressivity("flipflop", ["fixed-point"], max_states=300)
    assert res.verdict == "possible"
