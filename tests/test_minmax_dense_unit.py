"""The one-unit minmax-cascade over the states: the fallback when no decomposition fits.

Independent sources:
- the expected outputs come from the automaton's own transition table
  (``Automaton.trace``), a second evaluator, on every word up to length 7;
- proofs are re-checked by the stdlib-only checker (fsmnet.proofs.checker);
- a mutant (one matrix entry or one readout entry changed) must never be
  proved: every one is checked against brute force first, so a mutant that
  happens to stay correct is allowed to be proved and a wrong one is not.
"""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import fsmnet
from fsmnet.automata import Automaton, load
from fsmnet.constructions.minmax_dense_unit import dense_unit_network
from fsmnet.errors import NotExpressible
from fsmnet.nets import Network
from fsmnet.proofs.checker import check_certificate
from fsmnet.proofs.verifier import verify


def _all_words(n_symbols: int, length: int) -> list[tuple[int, ...]]:
    return [w for k in range(length + 1) for w in itertools.product(range(n_symbols), repeat=k)]


def _agrees(a: Automaton, net: Network, length: int = 7) -> bool:
    """Brute force: the network's last label equals the automaton's on every short word."""
    for w in _all_words(a.n_symbols, length):
        word = np.array(w, dtype=np.int64)
        want = int(a.output_ids[a.trace(word)[-1]])
        if int(net.label_trace(word)[-1]) != want:
            return False
    return True


def test_a_machine_whose_holonomy_cascade_explodes_compiles_to_one_unit(tmp_path) -> None:
    # random 40-state machine (30 minimal states, 7,123 image sets): its holonomy
    # cascade reaches more than 100,000 tuples (docs/performance.md); a budget of
    # 2,000 steps makes it give up at once here.
    a = load("random:n=40,k=2,seed=1").minimal()
    net = fsmnet.compile(a, "minmax-cascade", max_steps=2_000)
    assert net.options["construction"] == "dense unit"
    assert "budget" in net.options["fallback_reason"]
    assert net.options["unit_sizes"] == [a.n_states]
    assert net.options["reachable_coordinates"] == a.n_states
    words = np.random.default_rng(3).integers(0, a.n_symbols, (4, 300))
    for word in words:
        assert np.array_equal(net.label_trace(word), a.output_ids[a.trace(word)])
    cert = tmp_path / "cert.json"
    result = verify(a, net, certificate=str(cert))
    assert result.verdict == "proved"
    assert check_certificate(json.loads(cert.read_text())).startswith("valid")


def test_minmax_scalar_never_falls_back_to_a_matrix_unit() -> None:
    # A scalar unit's step is idempotent, so it cannot carry a map: the scalar
    # class refuses a group with its theorem, not with a dense unit.
    with pytest.raises(NotExpressible):
        fsmnet.compile(load("modcount:3"), "minmax-scalar", max_steps=10)


def test_decompositions_are_kept_when_they_fit() -> None:
    net = fsmnet.compile(load("symmetric:3"), "minmax-cascade")
    assert net.options["construction"] != "dense unit"


@st.composite
def _machines(draw) -> Automaton:
    n = draw(st.integers(1, 6))
    k = draw(st.integers(1, 3))
    delta = np.array([[draw(st.integers(0, n - 1)) for _ in range(n)] for _ in range(k)])
    outputs = [draw(st.integers(0, 2)) for _ in range(n)]
    return Automaton(delta=delta, symbols=[f"s{i}" for i in range(k)],
                     states=[f"q{i}" for i in range(n)], initial=0, outputs=outputs,
                     name="drawn").minimal()


@given(_machines())
def test_the_unit_runs_any_automaton_and_is_proved(a: Automaton) -> None:
    net = dense_unit_network(a, why="test")
    assert _agrees(a, net, length=5)
    assert verify(a, net).verdict == "proved"


def test_no_wrong_mutant_is_proved() -> None:
    a = load("random:n=7,k=2,seed=4").minimal()
    base = dense_unit_network(a, why="test")
    proved_wrong = []
    checked = refuted = 0
    for name in ("unit0_R", "readout"):
        arr = base.params[name]
        for flat in range(arr.size):
            params = {k: np.array(v, copy=True) for k, v in base.params.items()}
            view = params[name].reshape(-1)
            if name == "readout":
                view[flat] = (view[flat] + 1) % len(a.labels)
            else:
                view[flat] = 1.0 - view[flat]
            mutant = base.with_params(**{name: params[name]})
            checked += 1
            verdict = verify(a, mutant).verdict
            if verdict == "proved" and not _agrees(a, mutant):
                proved_wrong.append((name, flat))
            refuted += verdict == "refuted"
    assert checked == base.params["unit0_R"].size + base.params["readout"].size
    assert proved_wrong == []
    assert refuted > checked // 4  # most single changes break it, and are caught
