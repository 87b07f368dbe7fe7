"""The minimal linear representation (fsmnet.proofs.abstract.minimal_linear).

Independent routes: brute force over all words (the scores W A_w h0 of the
original system, computed directly), and the rank of the Hankel matrix of the
score function (its rank is the minimal dimension: Fliess 1974, Carlyle–Paz
1971), computed with the shared exact row reduction.
"""

from __future__ import annotations

from fractions import Fraction
from itertools import product

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import fsmnet
from fsmnet.nets.exact_linalg import row_reduce
from fsmnet.proofs.abstract.minimal_linear import (
    minimal_representation,
    reduce_network,
    surely_minimal,
)

# small rationals, zero half of the time (so that many systems are not minimal)
ENTRY = st.one_of(st.just(Fraction(0)),
                  st.builds(Fraction, st.integers(-3, 3), st.integers(1, 3)))


@st.composite
def systems(draw: st.DrawFn) -> tuple[list, list, list]:
    h = draw(st.integers(1, 4))
    k = draw(st.integers(1, 2))
    labels = draw(st.integers(1, 3))
    mats = [[[draw(ENTRY) for _ in range(h)] for _ in range(h)] for _ in range(k)]
    h0 = [draw(ENTRY) for _ in range(h)]
    readout = [[draw(ENTRY) for _ in range(h)] for _ in range(labels)]
    return mats, h0, readout


def scores(mats: list, h0: list, readout: list, word: tuple[int, ...]) -> list[Fraction]:
    """W A_w h0 straight from the definition (the first symbol applied first)."""
    v = list(h0)
    for a in word:
        v = [sum((x * y for x, y in zip(row, v)), Fraction(0)) for row in mats[a]]
    return [sum((x * y for x, y in zip(row, v)), Fraction(0)) for row in readout]


def words(k: int, length: int) -> list[tuple[int, ...]]:
    return [w for n in range(length + 1) for w in product(range(k), repeat=n)]


def hankel_rank(mats: list, h0: list, readout: list) -> int:
    """rank of [W A_v A_u h0] (rows: prefixes u, columns: suffixes v × labels)."""
    n = len(h0)
    ws = words(len(mats), n)
    rows = [[x for v in ws for x in scores(mats, h0, readout, u + v)] for u in ws]
    return len(row_reduce(rows, len(rows[0]))[1])


@settings(max_examples=60, deadline=None)
@given(systems())
def test_reduced_scores_equal_on_every_word_up_to_length_6(system: tuple) -> None:
    mats, h0, readout = system
    red = minimal_representation(mats, h0, readout)
    assert red.dim <= len(h0)
    for w in words(len(mats), 6):  # brute force is the oracle
        assert red.scores(w) == scores(mats, h0, readout, w)


@settings(max_examples=60, deadline=None)
@given(systems())
def test_dimension_is_the_hankel_rank(system: tuple) -> None:
    mats, h0, readout = system
    red = minimal_representation(mats, h0, readout)
    assert red.dim == hankel_rank(mats, h0, readout)
    if surely_minimal(mats, h0, readout):  # the mod-p shortcut never claims too much
        assert red.dim == len(h0)


@settings(max_examples=40, deadline=None)
@given(systems())
def test_the_maps_satisfy_the_checked_identities(system: tuple) -> None:
    # A_x P = P B_x, Q B_x = A'_x Q on the reachable part, i.e. T A_x P = A'_x T P,
    # T h0 = h0' and W P = W' T P (T = the projection d × H).
    mats, h0, readout = system
    red = minimal_representation(mats, h0, readout)
    if red.dim == 0:
        return
    a = [np.array(m, dtype=object) for m in mats]
    p = np.array(red.reachable, dtype=object)
    t = np.array(red.projection(), dtype=object)
    for m, mr in zip(a, red.matrices):
        assert (t.dot(m).dot(p) == np.array(mr, dtype=object).dot(t).dot(p)).all()
    assert list(t.dot(np.array(h0, dtype=object))) == red.h0
    assert (np.array(readout, dtype=object).dot(p) ==
            np.array(red.readout, dtype=object).dot(t).dot(p)).all()


def _pad(net: fsmnet.nets.Network, extra: int, seed: int = 0) -> fsmnet.nets.Network:
    """The same net with ``extra`` unreachable directions (fed nowhere from the
    original block, but read out) and ``extra`` unobservable ones (fed by the
    original block, never read), all couplings random dyadic."""
    rng = np.random.default_rng(seed)
    w = net.params["W"]
    h, k = w.shape[0], w.shape[2]
    big = np.zeros((h + 2 * extra, h + 2 * extra, k))
    u = slice(h, h + extra)           # unreachable
    o = slice(h + extra, h + 2 * extra)  # unobservable

    def r(*shape: int) -> np.ndarray:
        return rng.integers(-4, 5, size=shape) / 4

    for a in range(k):
        big[:h, :h, a] = w[:, :, a]
        big[:h, u, a] = r(h, extra)       # the original block reads the unreachable part
        big[u, u, a] = r(extra, extra)
        big[o, :h, a] = r(extra, h)       # the unobservable part reads the original
        big[o, o, a] = r(extra, extra)
        big[o, u, a] = r(extra, extra)
    h0 = np.r_[net.params["h0"], np.zeros(2 * extra)]
    readout = np.c_[net.params["readout"], r(len(net.labels), extra),
                    np.zeros((len(net.labels), extra))]
    return fsmnet.nets.Network(arch="bilinear-full", params={"W": big, "h0": h0,
                               "readout": readout}, symbols=net.symbols, labels=net.labels)


def test_padded_compiled_nets_reduce_to_the_original_size() -> None:
    for spec in ("parity", "contains:ab", "modcount:3"):
        net = fsmnet.compile(spec, "bilinear-full")
        sem = net.semantics
        plain = minimal_representation(sem.matrices(net, True), sem.initial_state(net, True),
                                       sem.readout_matrix(net, True))
        # independent: the compiled one-hot nets are minimal (Hankel rank = H)
        assert plain.dim == net.hidden_size == hankel_rank(
            sem.matrices(net, True).tolist(), list(sem.initial_state(net, True)),
            sem.readout_matrix(net, True).tolist())
        padded = _pad(net, 3)
        found = reduce_network(padded)
        assert found is not None
        red, small = found
        assert red.dim == net.hidden_size and small.hidden_size == net.hidden_size
        automaton = fsmnet.load(spec)
        for w in words(len(net.symbols), 6):  # brute force: the labels agree
            word = [net.symbols[a] for a in w]
            assert small.output_of(word, exact=True) == padded.output_of(word, exact=True) \
                == automaton.output_of(word)


def test_a_generic_network_is_already_minimal_and_is_not_reduced() -> None:
    net = fsmnet.compile("parity", "bilinear-full")
    rng = np.random.default_rng(1)
    noisy = net.with_params(**{k: v + 1e-3 * rng.standard_normal(v.shape)
                               for k, v in net.params.items()})
    assert reduce_network(noisy) is None
