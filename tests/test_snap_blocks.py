"""State snapping of bilinear-block networks (fsmnet.train.snap_blocks) and the
per-block exact-W header that carries it.

The networks snapped here are compiled block networks (mod 6 as the blocks Z2 × Z3,
mod 3 as one block) moved into a random basis per block and perturbed, so that their
exact states never repeat.  Independent routes: the header's rationals multiplied
out in Fractions here; the automaton's table against the exact run on every word up
to length 6 (brute force); the header check that loading runs; mutants.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from brute_force import mat_vec, reached_directions, wrong_words

import fsmnet
from fsmnet.errors import NetworkFileError
from fsmnet.nets import Network, load_network
from fsmnet.nets.exact_header import COVERS_HEADER, header_is_truth
from fsmnet.train.snap_blocks import block_snaps, classes


def _moved(spec: str, seed: int, noise: float) -> tuple[fsmnet.Automaton, Network]:
    automaton = fsmnet.load(spec).minimal()
    net = fsmnet.compile(automaton, "bilinear-block")
    rng = np.random.default_rng(seed)
    params = {}
    readout = np.asarray(net.params["readout"], dtype=np.float64)
    for i, b in enumerate(net.semantics.block_sizes(net)):
        p = np.eye(b) + rng.uniform(-0.5, 0.5, (b, b))
        p_inv = np.linalg.inv(p)
        w = np.moveaxis(np.asarray(net.params[f"W.{i}"], dtype=np.float64), 2, 0)
        moved = np.array([p @ m @ p_inv for m in w]) + rng.uniform(-noise, noise, w.shape)
        params[f"W.{i}"] = np.moveaxis(moved, 0, 2)
        params[f"h0.{i}"] = p @ np.asarray(net.params[f"h0.{i}"], dtype=np.float64)
        readout = np.moveaxis(np.tensordot(readout, p_inv, axes=([i + 1], [0])), -1, i + 1)
    return automaton, net.with_params(**params, readout=readout)


def _sample(automaton, seed: int = 0) -> list[list[int]]:
    return np.random.default_rng(seed).integers(0, automaton.n_symbols, (128, 12)).tolist()


def _block_directions(snapped: Network, automaton, block: int) -> int:
    """Oracle: the header's rationals for one block, multiplied out here
    (tests/brute_force.py); returns how many distinct directions the block has."""
    mats = [[[Fraction(x) for x in row] for row in m] for m in snapped.exact[f"W.{block}"]]
    start = [Fraction(float(x)) for x in snapped.params[f"h0.{block}"]]
    found = reached_directions(automaton, start, lambda v, a: mat_vec(mats[a], v))
    return len({tuple(x / max(v, key=abs) for x in v) for v in found.values()})


@pytest.mark.parametrize("spec,classes_per_block", [("modcount:6", [2, 3]),
                                                    ("modcount:3", [3])])
def test_a_moved_block_network_snaps_per_block_and_is_proved(spec, classes_per_block,
                                                             tmp_path):
    """mod 6 = Z2 × Z3: block 0 sees the quotient mod 2 (two classes of three states),
    block 1 mod 3; the header's blocks close on exactly those directions (oracle),
    verify proves the header, brute force agrees, and the file round-trips."""
    automaton, net = _moved(spec, seed=4, noise=0.01)
    assert wrong_words(net, automaton, 6) == []
    found = list(block_snaps(net, automaton, _sample(automaton)))
    assert found
    record, snapped = found[0]
    assert record["states"] == classes_per_block and header_is_truth(snapped)
    assert [_block_directions(snapped, automaton, i)
            for i in range(len(classes_per_block))] == classes_per_block
    assert np.array_equal(snapped.params["readout"], net.params["readout"])
    result = fsmnet.verify(automaton, snapped)
    assert result.verdict == "proved" and result.details["covers"] == COVERS_HEADER
    assert wrong_words(snapped, automaton, 6) == []
    path = tmp_path / "snapped.safetensors"
    snapped.save(path)
    assert fsmnet.verify(automaton, load_network(path)).verdict == "proved"


def test_a_block_tensor_that_is_not_its_header_is_refused_and_a_mutant_refuted():
    automaton, net = _moved("modcount:6", seed=4, noise=0.01)
    _, snapped = next(iter(block_snaps(net, automaton, _sample(automaton))))
    w = np.array(snapped.params["W.1"])
    w[0, 1, 1] = np.nextafter(w[0, 1, 1], -np.inf)
    with pytest.raises(NetworkFileError, match="field 'W.1'"):
        Network(arch="bilinear-block", params={**snapped.params, "W.1": w},
                symbols=snapped.symbols, labels=snapped.labels, exact=snapped.exact,
                name="tampered")
    header = {k: v for k, v in snapped.exact.items()}
    mutant_w = [[list(row) for row in m] for m in header["W.1"]]
    mutant_w[1] = mutant_w[0]  # block 1 stops counting mod 3 on letter 1
    tensor = np.moveaxis(np.array([[[float(Fraction(x)) for x in row] for row in m]
                                   for m in mutant_w]), 0, 2)
    mutant = Network(arch="bilinear-block", params={**snapped.params, "W.1": tensor},
                     symbols=snapped.symbols, labels=snapped.labels,
                     exact={**header, "W.1": mutant_w}, name="mutant")
    result = fsmnet.verify(automaton, mutant)
    assert result.verdict == "refuted"
    word = [snapped.symbols.index(x) for x in result.counterexample.word]
    assert tuple(word) in wrong_words(mutant, automaton, len(word))


def test_classes_must_be_a_congruence():
    """Synthetic visits on mod 3 (letter 1 adds one): states 0 and 1 share a direction,
    2 has its own.  Letter 1 maps the class {0, 1} to 1 and 2, two classes: refused.
    With 0 and 2 sharing a direction instead, {0, 2} ↦ {1, 0}: refused too.  Only
    one class for all three (a block that ignores the count) is a congruence."""
    automaton = fsmnet.load("modcount:3").minimal()
    up, side = np.array([[1.0, 0.0]]), np.array([[0.0, 1.0]])
    q = {int(automaton.trace([1] * n)[-1]): n for n in range(3)}  # state after n ones
    assert classes({q[0]: up, q[1]: up, q[2]: side}, automaton) is None
    assert classes({q[0]: up, q[2]: up, q[1]: side}, automaton) is None
    of, centers, spread = classes({q[0]: up, q[1]: up, q[2]: up}, automaton)
    assert set(of.values()) == {0} and len(centers) == 1 and spread == 0.0
