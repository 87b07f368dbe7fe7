"""Trained dense parity networks, proved for every length, exact and float32.

The pinned networks are ``fsmnet train parity --arch A --seed S --threads 1`` with
the defaults (H = 16, 1,000 steps) for A = bilinear-full, bilinear-cp and S = 0, 1,
saved as the files fsmnet writes (``tests/data/parity_bilinear_*_seed*.safetensors``).
Their even and odd states are near ±u, so they are proved by signed chart boxes
with a stride (docs/certify.md, "Signed charts and strides").

Independent routes, none through ``certify``:

* brute force: every word up to length 8 in the exact reference evaluator
  (``certify_helpers.exhaustive_agree``, no merging);
* the float32 reference step on 20,000 random symbols against the automaton's own
  run (evidence for the float32 claim, not a proof);
* the stdlib checker, through ``fsmnet check CERT --network NET``;
* mutants: the readout rows swapped (every label flips) and a net that reads
  parity from a decaying coordinate only are never proved.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from certify_helpers import exhaustive_agree

import fsmnet
from fsmnet.cli import main as cli
from fsmnet.nets.float32 import float32_trace
from fsmnet.proofs.abstract.certify import certify

DATA = Path(__file__).parent / "data"
PINNED = [f"parity_{arch}_seed{seed}" for arch in ("bilinear_full", "bilinear_cp")
          for seed in (0, 1)]
PARITY = fsmnet.load("parity")


@pytest.mark.parametrize("name", PINNED)
def test_the_pinned_net_agrees_with_parity_by_brute_force_and_in_float32(name: str) -> None:
    net = fsmnet.load_network(DATA / f"{name}.safetensors")
    assert exhaustive_agree(net, PARITY, 8)
    word = np.random.default_rng(0).integers(0, 2, 20_000)
    index = [PARITY.symbol_index(s) for s in net.symbols]
    want = [PARITY.output_ids[q] for q in PARITY.trace(np.array(index)[word])]
    labels = float32_trace(net, word)
    ids = [PARITY.labels.index(net.labels[i]) for i in labels]
    assert ids == [int(x) for x in want]


@pytest.mark.parametrize("float32", [False, True], ids=["exact", "float32"])
@pytest.mark.parametrize("name", PINNED)
def test_the_pinned_net_is_proved_and_the_checker_accepts_it(name: str, float32: bool,
                                                              tmp_path: Path) -> None:
    path = DATA / f"{name}.safetensors"
    cert = tmp_path / "cert.json"
    res = certify(PARITY, fsmnet.load_network(path), float32=float32,
                  certificate=str(cert), network_path=str(path))
    assert (res.verdict, res.domain) == ("proved", "chart-box")
    assert cli(["check", str(cert), "--network", str(path)]) == 0


def test_mutants_of_a_pinned_net_are_never_proved() -> None:
    net = fsmnet.load_network(DATA / "parity_bilinear_full_seed0.safetensors")
    swapped = net.with_params(readout=net.params["readout"][::-1].copy())
    assert certify(PARITY, swapped).verdict == "refuted"  # wrong on the empty word
    # read a direction that every letter contracts: the sign of parity is lost
    w = net.params["W"]
    vals, vecs = np.linalg.eig(w[:, :, 0].T)
    weakest = np.real(vecs[:, int(np.argmin(np.abs(vals)))])
    readout = np.stack([weakest, -weakest])
    blind = net.with_params(readout=readout)
    res = certify(PARITY, blind)
    assert res.verdict != "proved"
    if res.verdict == "refuted":
        word = [str(x) for x in res.counterexample.word]
        assert blind.output_of(word, exact=True) != PARITY.output_of(word)
