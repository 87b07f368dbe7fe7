"""The exact linear step and readout on integers (fsmnet/nets/linear.py,
``integer_step`` and ``integer_argmax``) against the rational products they replace.

Independent source: ``normalize(A.dot(state))`` over Python Fractions (object
arrays, one rational operation at a time), the definition of the exact step in
docs/formats.md, and the first maximum of ``R.dot(state)`` for the readout.  The
integer path must give the same Fractions, entry for entry, and the same label,
on random rational matrices and states, including zero rows, a zero image (left
to the general path) and a cyclotomic-like non-rational entry (refused, so the
general path runs).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

import fsmnet
from fsmnet.nets.linear import integer_argmax, integer_matrices, integer_step, normalize

RATIONAL = st.fractions(min_value=-20, max_value=20, max_denominator=60)


def _array(draw: st.DrawFn, shape: tuple[int, ...]) -> np.ndarray:
    flat = draw(st.lists(RATIONAL, min_size=int(np.prod(shape)), max_size=int(np.prod(shape))))
    return np.array(flat, dtype=object).reshape(shape)


@given(data=st.data(), h=st.integers(1, 6))
def test_the_integer_step_is_the_rational_step(data, h):
    mats = _array(data.draw, (2, h, h))
    state = _array(data.draw, (h,))
    rows = integer_matrices(mats)
    assert rows is not None
    for a in range(2):
        want = normalize(mats[a].dot(state))
        got = integer_step(rows[a], state)
        if not any(want):
            assert got is None  # a zero image: the general path keeps its own zeros
        else:
            assert got is not None and list(got) == list(want)
            assert all(type(x) is Fraction for x in got)


@given(data=st.data(), h=st.integers(1, 5), labels=st.integers(1, 4))
def test_the_integer_argmax_is_the_first_rational_argmax(data, h, labels):
    readout = _array(data.draw, (labels, h))
    if labels > 1 and data.draw(st.booleans()):
        readout[-1] = readout[0]  # a tie between the first and the last label
    state = _array(data.draw, (h,))
    scores = list(readout.dot(state))
    first_max = scores.index(max(scores))  # the rational scores, first maximum
    rows = integer_matrices(readout[None])
    assert rows is not None and integer_argmax(rows[0], state) == first_max


def test_a_non_rational_entry_leaves_the_general_path() -> None:
    class Irrational:  # stands for a cyclotomic weight: not a Fraction
        pass

    mats = np.array([[[Fraction(1), Irrational()], [Fraction(0), Fraction(1)]]], dtype=object)
    assert integer_matrices(mats) is None
    assert integer_step([[1, 0], [0, 1]], np.array([Fraction(1), 0.5], dtype=object)) is None


def test_perturbed_networks_run_the_same_exact_states_and_labels_either_way() -> None:
    # The network's own exact step (integer path) against the rational product, on
    # every word up to length 5 of compiled nets whose weights are perturbed (float64
    # weights: rationals with large power-of-two denominators).
    rng = np.random.default_rng(0)
    for spec, arch in [("modadd:3", "bilinear-cp"), ("symmetric:3", "bilinear-full")]:
        net = fsmnet.compile(spec, arch)
        net = net.with_params(**{k: v * (1 + 1e-3 * rng.standard_normal(v.shape))
                                 for k, v in net.params.items() if v.dtype == np.float64})
        sem = net.semantics
        mats = sem.matrices(net, True)
        assert integer_matrices(mats) is not None  # the integer path is the one taken
        level = [sem.initial_state(net, True)]
        for _ in range(5):
            nxt = []
            for h in level:
                for a in range(len(net.symbols)):
                    got = sem.step(net, h, a, True)
                    assert list(got) == list(normalize(mats[a].dot(h)))
                    scores = list(sem.readout_matrix(net, True).dot(got))
                    assert sem.readout(net, got, True) == scores.index(max(scores))
                    nxt.append(got)
            level = nxt
