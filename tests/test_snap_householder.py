"""Householder snapping of deltaproduct networks (fsmnet.train.snap_householder).

The network snapped is fsmnet's compiled parity network (letter 0 the identity,
β = 0; letter 1 the reflection along e_0 − e_1, β = 2) with the step sizes moved to
0.03 (letter 0 then needs a key: (0.3, 0.9)) and 1.97, as training leaves them.
Independent routes: the exact product of the reflection squared (F² = I only at
β = 2, computed here in Fractions) for the candidates of both snaps at the same key
grid, and the verifier on the Householder one.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

import fsmnet
from fsmnet.nets.deltaproduct import householder_product
from fsmnet.train.snap import dyadic_snaps
from fsmnet.train.snap_householder import householder_snaps, snap_betas


def _moved_parity():
    automaton = fsmnet.load("parity")
    net = fsmnet.compile(automaton, "deltaproduct")
    keys = np.asarray(net.params["keys"], dtype=np.float64) + np.array([[[0.3, 0.9]],
                                                                       [[0.0, 0.004]]])
    return automaton, net.with_params(betas=np.array([[0.03], [1.97]]), keys=keys)


def test_the_moved_reflection_is_proved_only_once_beta_is_exactly_two():
    automaton, net = _moved_parity()
    square = np.dot(*[householder_product(net.params["keys"][1], net.params["betas"][1])] * 2)
    assert square[0, 0] != 1  # the oracle: F² ≠ I at β = 1.97
    found = {h["bits"]: (h, n) for h, n in householder_snaps(net) if h["tolerance"] == 0.125}
    dyadic = {h["bits"]: n for h, n in dyadic_snaps(net) if h["units"]}
    for bits in (6,):
        _, snapped = found[bits]
        assert snapped.params["betas"].ravel().tolist() == [0.0, 2.0]
        f = householder_product(snapped.params["keys"][1], snapped.params["betas"][1])
        assert (np.dot(f, f) == np.eye(2, dtype=object) * Fraction(1)).all()
        assert fsmnet.verify(automaton, snapped).verdict == "proved"
        # the plain grid keeps β = 1.97 rounded: 1.96875, and its F² ≠ I (the oracle)
        plain = dyadic[bits]
        assert plain.params["betas"][1, 0] == 1.96875
        g = householder_product(plain.params["keys"][1], plain.params["betas"][1])
        assert not (np.dot(g, g) == np.eye(2, dtype=object) * Fraction(1)).all()


@given(st.lists(st.floats(0.0, 2.0, allow_nan=False), min_size=1, max_size=8),
       st.sampled_from([0.125, 0.25]), st.integers(2, 12))
def test_a_snapped_beta_is_a_special_value_near_it_or_on_the_grid(betas, tolerance, bits):
    got = snap_betas(np.array(betas), tolerance, bits)
    for b, g in zip(betas, got.tolist()):
        special = min((0.0, 1.0, 2.0), key=lambda v: abs(b - v))
        if abs(b - special) <= tolerance:
            assert g == special
        else:
            assert g * 2**bits == round(g * 2**bits) and abs(g - b) <= 2.0 ** -(bits + 1)
