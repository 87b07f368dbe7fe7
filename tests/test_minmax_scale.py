"""MinMax cascades beyond 20 states: prefix-indexed tables.

Independent sources:
- the Sequences(n) task is the MinMax paper's (arXiv 2605.06384); every
  track's progress only moves forward or resets, so the automaton is
  star-free (aperiodic) and must compile to a *scalar* cascade; the expected
  outputs come from the automaton itself (``a.trace``), a second evaluator;
- the random automata below are built from the capped counters
  x ↦ min(x + d, n − 1) and constant maps; every element of the monoid they
  generate is "add d, cap at n − 1" or a constant, and x ↦ min(x + d, n − 1)
  satisfies t^n = t^(n+1), so the monoid is aperiodic by construction
  (no brute force needed, whatever n);
- the checker (fsmnet.proofs.checker, stdlib only) re-verifies each proof.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

import fsmnet
from fsmnet.automata import Automaton, load
from fsmnet.constructions.minmax_cascade import cascade_network
from fsmnet.constructions.minmax_holonomy import holonomy_spec
from fsmnet.errors import NetworkFileError
from fsmnet.nets.minmax_cascade import levelwise_label_trace
from fsmnet.nets.network import load_network
from fsmnet.proofs.checker import check_certificate
from fsmnet.proofs.verifier import verify


def _capped(n: int, seed: int) -> Automaton:
    rng = np.random.default_rng(seed)
    x = np.arange(n)
    delta = np.array([np.minimum(x + 1, n - 1), np.minimum(x + int(rng.integers(2, 5)), n - 1),
                      np.zeros(n, dtype=np.int64), np.full(n, int(rng.integers(0, n)))])
    out = [int(v) for v in rng.integers(0, 3, n)]
    return Automaton(delta=delta, symbols=["inc", "jump", "reset", "set"],
                     states=[f"q{i}" for i in range(n)], initial=0, outputs=out).minimal()


def _agrees(net: fsmnet.Network, a: Automaton, seed: int, length: int = 3000) -> None:
    word = np.random.default_rng(seed).integers(0, a.n_symbols, length)
    want = a.output_ids[a.trace(word)]
    assert np.array_equal(net.label_trace(word), want)
    assert np.array_equal(levelwise_label_trace(net, word), want)


def _prove_and_check(a: Automaton, net: fsmnet.Network, tmp_path) -> None:
    path = tmp_path / "net.safetensors"
    net.save(path)
    cert = tmp_path / "cert.json"
    result = verify(a, load_network(path), certificate=str(cert), network_path=str(path))
    assert result.verdict == "proved"
    assert check_certificate(json.loads(cert.read_text()), str(path)).startswith("valid")


def test_sequences_task_is_a_proved_scalar_cascade(tmp_path) -> None:
    # 3 tracks, 2 values: 27 states, holonomy levels of 6..60 points whose
    # product (about 10^14) no dense table holds.
    a = load("sequences:2,tracks=3").minimal()
    # The plain (one-component) cascade; fsmnet.compile now picks the smaller
    # product cascade here (tests/test_minmax_product.py).
    net = cascade_network(holonomy_spec(a), a, arch="minmax-scalar")
    assert net.options["prefix_indexed"] is True
    assert set(net.options["unit_kinds"]) == {"scalar"}
    assert float(np.prod(net.options["unit_sizes"], dtype=np.float64)) > 1e12
    # Tables grow with the reached coordinates, not with the product.
    assert net.n_params < 50 * net.options["reachable_coordinates"] * a.n_symbols
    _agrees(net, a, seed=1)
    _prove_and_check(a, net, tmp_path)
    assert load_network(tmp_path / "net.safetensors").header()["format_version"] == 2


@pytest.mark.parametrize(("n", "seed"), [(25, 0)])
def test_random_aperiodic_automata(n: int, seed: int, tmp_path) -> None:
    a = _capped(n, seed)
    net = fsmnet.compile(a, "minmax-scalar")
    assert set(net.options["unit_kinds"]) == {"scalar"}
    _agrees(net, a, seed)
    _prove_and_check(a, net, tmp_path)


@pytest.mark.parametrize(("n", "seed"), [(100, 2)])
def test_100_state_random_aperiodic_automata(n: int, seed: int, tmp_path) -> None:
    # 99 levels: the level actions come from one memoized chain walk
    # (fsmnet.algebra.holonomy.chains), so this takes well under a second.
    a = _capped(n, seed)
    net = fsmnet.compile(a, "minmax-scalar")
    assert net.options["levels"] == a.n_states - 1
    _agrees(net, a, seed, length=1000)
    _prove_and_check(a, net, tmp_path)


@pytest.mark.slow
@pytest.mark.parametrize(("n", "seed"), [(200, 1)])
def test_larger_random_aperiodic_automata(n: int, seed: int, tmp_path) -> None:
    # 200 states (199 levels), with the check.
    a = _capped(n, seed)
    assert a.n_states > n // 2
    net = fsmnet.compile(a, "minmax-scalar")
    _agrees(net, a, seed, length=1000)
    _prove_and_check(a, net, tmp_path)


@pytest.mark.parametrize("spec", ["modcount:3", "latch:3", "random:n=5,k=2,seed=1"])
def test_both_layouts_agree(spec: str, tmp_path) -> None:
    # The same cascade with mixed-radix (format 1) and prefix-indexed
    # (format 2) tables: equal labels on random words, both proved.
    a = load(spec).minimal()
    dense = cascade_network(holonomy_spec(a), a, prefix_index=False)
    linked = cascade_network(holonomy_spec(a), a, prefix_index=True)
    assert "link0" not in dense.params and "link0" in linked.params
    assert dense.header()["format_version"] == 1
    assert linked.header()["format_version"] == 2
    word = np.random.default_rng(0).integers(0, a.n_symbols, 500)
    assert np.array_equal(dense.label_trace(word), linked.label_trace(word))
    _prove_and_check(a, linked, tmp_path)


def test_format_versions_round_trip(tmp_path) -> None:
    a = load("latch:3").minimal()
    for prefix_index, version in ((False, 1), (True, 2)):
        net = cascade_network(holonomy_spec(a), a, prefix_index=prefix_index)
        path = tmp_path / f"v{version}.safetensors"
        net.save(path)
        back = load_network(path)
        assert back.header()["format_version"] == version
        word = np.random.default_rng(version).integers(0, a.n_symbols, 200)
        assert np.array_equal(back.label_trace(word), a.output_ids[a.trace(word)])


def test_version_1_file_with_links_is_refused(tmp_path) -> None:
    from safetensors.numpy import save

    a = load("latch:3").minimal()
    net = cascade_network(holonomy_spec(a), a, prefix_index=True)
    header = dict(net.header(), format_version=1)
    path = tmp_path / "bad.safetensors"
    path.write_bytes(save({k: np.ascontiguousarray(v) for k, v in net.params.items()},
                          metadata={"fsmnet": json.dumps(header)}))
    with pytest.raises(NetworkFileError, match="format_version"):
        load_network(path)


def test_link_out_of_range_is_refused() -> None:
    a = load("latch:3").minimal()
    net = cascade_network(holonomy_spec(a), a, prefix_index=True)
    bad = np.array(net.params["link0"])
    bad[0, 0] = 10**6
    with pytest.raises(NetworkFileError, match="link0"):
        net.with_params(link0=bad)
