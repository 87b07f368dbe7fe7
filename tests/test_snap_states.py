"""State snapping of bilinear-full networks (fsmnet.train.snap_states) and the exact-W
header that carries it.

The networks snapped here are compiled one-hot networks moved into a random basis and
perturbed, so that their exact states never repeat: what training produces, with the
automaton known.  Independent routes: the header's rationals multiplied out in
Fractions here (A'_a c_q against the positive multiple of c_δ(q,a)); the automaton's
table against the exact run on every word up to length 7 (brute force); the header
check that loading runs; mutants of the header.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest
from brute_force import mat_vec, reached_directions, wrong_words
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples

import fsmnet
from fsmnet.errors import NetworkFileError
from fsmnet.nets import Network, load_network
from fsmnet.nets.bilinear import exact_w_header
from fsmnet.nets.exact_header import COVERS_HEADER, header_is_truth
from fsmnet.train.snap_states import state_snaps, visited_directions


def _moved(automaton, seed: int, noise: float) -> Network:
    """The compiled one-hot network in a random basis P (W ↦ P W P⁻¹, h0 ↦ P h0,
    readout ↦ R P⁻¹), every weight then moved by up to ``noise``."""
    net = fsmnet.compile(automaton, "bilinear-full")
    rng = np.random.default_rng(seed)
    w = np.moveaxis(np.asarray(net.params["W"], dtype=np.float64), 2, 0)
    h = w.shape[1]
    p = np.eye(h) + rng.uniform(-0.5, 0.5, (h, h))
    p_inv = np.linalg.inv(p)
    moved = np.array([p @ m @ p_inv for m in w])
    moved += rng.uniform(-noise, noise, moved.shape)
    return net.with_params(W=np.moveaxis(moved, 0, 2), h0=p @ net.params["h0"],
                           readout=np.asarray(net.params["readout"]) @ p_inv)


def _sample(automaton, seed: int = 0, count: int = 128, length: int = 10) -> list[list[int]]:
    rng = np.random.default_rng(seed)
    return rng.integers(0, automaton.n_symbols, size=(count, length)).tolist()


def _maps_states_exactly(snapped: Network, automaton, sample) -> int:
    """Oracle: multiply the header's rationals out here (tests/brute_force.py): from
    h0 = c_q0, every letter maps each reached direction onto a positive multiple of
    its successor's; returns the number of directions."""
    mats = exact_w_header(snapped)
    assert mats is not None
    start = [Fraction(float(x)) for x in snapped.params["h0"]]
    return len(reached_directions(automaton, start, lambda v, a: mat_vec(mats[a], v)))


def _proved_about_its_header_and_after_a_round_trip(snapped: Network, automaton, length: int,
                                                     tmp_path) -> None:
    """verify proves it about its exact header, brute force agrees on every word up to
    ``length``, and the saved file loads and proves again."""
    result = fsmnet.verify(automaton, snapped)
    assert result.verdict == "proved" and result.details["covers"] == COVERS_HEADER
    assert wrong_words(snapped, automaton, length) == []
    path = tmp_path / "snapped.safetensors"
    snapped.save(path)
    assert fsmnet.verify(automaton, load_network(path)).verdict == "proved"


# Brute-force lengths: exact runs of a 6-state network's big rationals are slow in Python;
# the exact state map checked by ``_maps_states_exactly`` covers every length.
@pytest.mark.parametrize("spec,length", [("modcount:3", 6), ("flipflop", 6),
                                         ("symmetric:3", 3)])
def test_a_moved_network_snaps_to_exact_states_and_is_proved(spec, length, tmp_path):
    automaton = fsmnet.load(spec).minimal()
    net = _moved(automaton, seed=1, noise=0.01)
    assert wrong_words(net, automaton, length) == []     # it fits short words ...
    sample = _sample(automaton)
    found = list(state_snaps(net, automaton, sample))
    assert found, "a moved one-hot network points one way per state"
    record, snapped = found[0]
    assert record["kind"] == "states" and record["states"] == automaton.n_states
    assert header_is_truth(snapped)
    assert _maps_states_exactly(snapped, automaton, sample) == automaton.n_states
    finest = found[-1][1]  # on the finest grid the change is the noise's size (0.01)
    w_old, w_new = (np.asarray(n.params["W"], dtype=np.float64) for n in (net, finest))
    assert found[-1][0]["bits"] == 12 and np.max(np.abs(w_new - w_old)) < 0.05
    _proved_about_its_header_and_after_a_round_trip(snapped, automaton, length, tmp_path)


@settings(max_examples=examples(10))
@given(n=st.integers(2, 4), seed=st.integers(0, 50), noise=st.sampled_from([0.0, 0.005, 0.02]))
def test_snapped_random_machines_are_exact_and_never_wrongly_proved(n, seed, noise):
    """Random 2-letter machines: every candidate maps its directions exactly (the
    oracle above), and a proof of it is never contradicted by the table on every word
    up to length 6; a mutant header (one letter's first row doubled) is proved only if
    the table agrees with it too."""
    automaton = fsmnet.load(f"random:n={n},k=2,seed={seed}").minimal()
    net = _moved(automaton, seed=seed, noise=noise)
    sample = _sample(automaton, seed)
    for _record, snapped in itertools.islice(state_snaps(net, automaton, sample), 2):
        _maps_states_exactly(snapped, automaton, sample)
        if fsmnet.verify(automaton, snapped).verdict == "proved":
            assert wrong_words(snapped, automaton, 6) == []
        header = snapped.exact
        mutant_w = [[list(map(str, row)) for row in m] for m in exact_w_header(snapped)]
        mutant_w[0][0] = [str(2 * Fraction(x)) for x in mutant_w[0][0]]
        w = np.array([[[float(Fraction(x)) for x in row] for row in m] for m in mutant_w])
        mutant = Network(arch="bilinear-full",
                         params={**snapped.params, "W": np.moveaxis(w, 0, 2)},
                         symbols=snapped.symbols, labels=snapped.labels,
                         exact={**header, "W": mutant_w}, name="mutant")
        if fsmnet.verify(automaton, mutant).verdict == "proved":
            assert wrong_words(mutant, automaton, 6) == []


def test_a_tensor_that_is_not_its_header_is_refused(tmp_path):
    automaton = fsmnet.load("modcount:3").minimal()
    net = _moved(automaton, seed=1, noise=0.01)
    _, snapped = next(iter(state_snaps(net, automaton, _sample(automaton))))
    w = np.array(snapped.params["W"])
    w[0, 0, 0] = np.nextafter(w[0, 0, 0], np.inf)
    with pytest.raises(NetworkFileError, match="field 'W'"):
        Network(arch="bilinear-full", params={**snapped.params, "W": w},
                symbols=snapped.symbols, labels=snapped.labels, exact=snapped.exact,
                name="tampered")


def test_a_pfsa_rational_w_header_stays_a_record_not_the_truth():
    """The PFSA construction's ``rational-W`` header records the rationals its tensors
    round; its proofs are about the tensors (docs/pfsa.md), unlike ``exact-W``."""
    from fsmnet.automata.pfsa_families import cups
    from fsmnet.constructions.pfsa_bilinear import compile_pfsa_bilinear

    net = compile_pfsa_bilinear(cups(3, "1/10"))
    assert net.exact is not None and net.exact["kind"] == "rational-W"
    assert not header_is_truth(net) and exact_w_header(net) is None


def test_states_that_do_not_point_one_way_are_not_snapped():
    """Oracle: the visited directions themselves.  A network whose state after '1'
    depends on the whole word's length (a slow rotation by 0.3 rad, a 2-state parity
    automaton) spreads beyond 60° from the mean within one state: no candidate."""
    automaton = fsmnet.load("parity")
    turn = np.array([[np.cos(0.3), -np.sin(0.3)], [np.sin(0.3), np.cos(0.3)]])
    w = np.stack([np.eye(2), turn], axis=2)
    net = Network(arch="bilinear-full", params={"W": w, "h0": np.array([1.0, 0.0]),
                                                "readout": np.array([[1.0, 0.0], [-1.0, 0.0]])},
                  symbols=automaton.symbols, labels=automaton.labels, name="slow")
    sample = _sample(automaton)
    visited = visited_directions(net, automaton, sample)
    angles = [np.arctan2(v[:, 1], v[:, 0]) for v in visited.values()]
    assert max(np.ptp(a) for a in angles) > 2 * np.pi / 3  # some pair more than 120° apart
    assert list(state_snaps(net, automaton, sample)) == []


def test_a_perturbed_fixed_point_network_snaps_through_its_lambda_q_header():
    """The compiled fixed-point mod-3 network with Q moved by up to 0.01: the snap keeps
    Λ and solves Q from the snapped matrices, A = (I + (Λ⁻¹ − I) Q)⁻¹; the header's
    rationals map every state exactly (the oracle above, through the semantics' own
    exact A) and the network is proved about the header, brute force agreeing."""
    automaton = fsmnet.load("modcount:3").minimal()
    net = fsmnet.compile(automaton, "fixed-point")
    rng = np.random.default_rng(3)
    q = np.asarray(net.params["Q"]) + rng.uniform(-0.01, 0.01, net.params["Q"].shape)
    moved = net.with_params(Q=q)
    found = list(state_snaps(moved, automaton, _sample(automaton)))
    assert found
    _, snapped = found[0]
    assert header_is_truth(snapped)
    assert [[Fraction(x) for x in row] for row in snapped.exact["Lambda"]] == \
        [[Fraction(float(x)) for x in row] for row in net.params["Lambda"]]
    mats = snapped.semantics.matrices(snapped, True)
    h = [Fraction(float(x)) for x in snapped.params["h0"]]
    seen = {int(automaton.initial): h}
    for word in itertools.product(range(automaton.n_symbols), repeat=3):
        state, q_state = h, int(automaton.initial)
        for a in word:
            state = [sum((m * x for m, x in zip(row, state)), Fraction(0)) for row in mats[a]]
            q_state = int(automaton.delta[a][q_state])
            ref = seen.setdefault(q_state, state)
            j = next(i for i, x in enumerate(ref) if x != 0)
            ratio = state[j] / ref[j]
            assert ratio > 0 and all(x == ratio * y for x, y in zip(state, ref))
    assert fsmnet.verify(automaton, snapped).verdict == "proved"
    assert wrong_words(snapped, automaton, 4) == []


# ------------------------------------------------------------------ bilinear-cp
def _moved_cp(automaton, seed: int, noise: float, rank: int = 0) -> Network:
    """The compiled CP network with zero terms added up to ``rank``, in a random basis
    P (U ↦ P U, Z ↦ P⁻ᵀ Z, so every A_a ↦ P A_a P⁻¹), every factor then moved by up
    to ``noise`` (the added terms too: they become small, not zero)."""
    net = fsmnet.compile(automaton, "bilinear-cp")
    rng = np.random.default_rng(seed)
    u, v, z = (np.asarray(net.params[k], dtype=np.float64) for k in ("U", "V", "Z"))
    pad = max(0, rank - u.shape[1])
    u, v, z = (np.pad(t, ((0, 0), (0, pad))) for t in (u, v, z))
    p = np.eye(u.shape[0]) + rng.uniform(-0.5, 0.5, (u.shape[0],) * 2)
    p_inv = np.linalg.inv(p)
    moved = {"U": p @ u, "V": v, "Z": p_inv.T @ z}
    moved = {k: t + rng.uniform(-noise, noise, t.shape) for k, t in moved.items()}
    return net.with_params(**moved, h0=p @ net.params["h0"],
                           readout=np.asarray(net.params["readout"]) @ p_inv)


def _cp_maps_states_exactly(snapped: Network, automaton) -> int:
    """Oracle: U' from the header, V and Z from the file, multiplied out term by term
    here (A_a v = U (V_a ∘ Zᵀv)); from h0 every letter maps each reached direction onto
    a positive multiple of its successor's.  Returns the number of directions."""
    u = [[Fraction(x) for x in row] for row in snapped.exact["U"]]
    v, z = ([[Fraction(float(x)) for x in row] for row in snapped.params[k]] for k in "VZ")
    zt = [list(col) for col in zip(*z)]  # R × H

    def image(c: list[Fraction], a: int) -> list[Fraction]:
        zc = mat_vec(zt, c)
        return mat_vec(u, [v[a][r] * zc[r] for r in range(len(zc))])

    start = [Fraction(float(x)) for x in snapped.params["h0"]]
    return len(reached_directions(automaton, start, image))


@pytest.mark.parametrize("spec,length", [("modcount:3", 6), ("latch:3", 4)])
def test_a_moved_cp_network_snaps_through_its_exact_u_header(spec, length, tmp_path):
    """At rank |Σ|·k (U' M = T has a solution for M of independent columns) the snap
    keeps V and Z, the oracle multiplies U' out, verify proves it about the header,
    brute force agrees, and the file round-trips."""
    automaton = fsmnet.load(spec).minimal()
    net = _moved_cp(automaton, seed=2, noise=0.01,
                    rank=automaton.n_symbols * automaton.n_states)
    found = list(state_snaps(net, automaton, _sample(automaton)))
    assert found
    record, snapped = found[0]
    assert record["states"] == automaton.n_states and header_is_truth(snapped)
    for name in ("V", "Z"):
        assert np.array_equal(snapped.params[name], net.params[name])
    assert _cp_maps_states_exactly(snapped, automaton) == automaton.n_states
    _proved_about_its_header_and_after_a_round_trip(snapped, automaton, length, tmp_path)


def test_a_cp_rank_below_letters_times_states_gives_no_snap():
    """The mod-3 CP construction has rank 4 < |Σ|·k = 2·3: the 6 columns
    V_a ∘ Zᵀc_q of M cannot be independent in R⁴, so no U' meets every target."""
    automaton = fsmnet.load("modcount:3").minimal()
    net = _moved_cp(automaton, seed=2, noise=0.01)
    assert net.params["U"].shape[1] < automaton.n_symbols * automaton.n_states
    assert list(state_snaps(net, automaton, _sample(automaton))) == []


def test_a_cp_u_that_is_not_its_header_is_refused_and_a_mutant_header_refuted():
    automaton = fsmnet.load("modcount:3").minimal()
    _, snapped = next(iter(state_snaps(_moved_cp(automaton, 2, 0.01, rank=6), automaton,
                                       _sample(automaton))))
    u = np.array(snapped.params["U"])
    u[0, 0] = np.nextafter(u[0, 0], np.inf)
    with pytest.raises(NetworkFileError, match="field 'U'"):
        Network(arch="bilinear-cp", params={**snapped.params, "U": u},
                symbols=snapped.symbols, labels=snapped.labels, exact=snapped.exact,
                name="tampered")
    index = {lab: k for k, lab in enumerate(snapped.labels)}
    for i, j in [(0, 0), (1, 2)]:  # each breaks a state map (found by hand: refuted)
        mutant_u = [list(row) for row in snapped.exact["U"]]
        mutant_u[i][j] = str(-3 * Fraction(mutant_u[i][j]) + Fraction(1, 7))
        floats = np.array([[float(Fraction(x)) for x in row] for row in mutant_u])
        mutant = Network(arch="bilinear-cp", params={**snapped.params, "U": floats},
                         symbols=snapped.symbols, labels=snapped.labels,
                         exact={"kind": "exact-U", "U": mutant_u}, name="mutant")
        result = fsmnet.verify(automaton, mutant)
        assert result.verdict == "refuted"
        word = [snapped.symbols.index(x) for x in result.counterexample.word]
        want = automaton.labels[automaton.output_ids[automaton.trace(word)[-1]]]
        assert mutant.label_trace(word, exact=True)[-1] != index[want]
