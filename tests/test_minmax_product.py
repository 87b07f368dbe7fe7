"""Product cascades (file format 3): one holonomy cascade per quotient, side by side.

Independent sources:
- the Sequences(n) task (MinMax paper, arXiv 2605.06384) is by definition a
  product of independent tracks; the expected outputs come from the automaton
  itself (``a.trace``, its transition table), a second evaluator;
- the product of two different machines is built by ``fsmnet.automata.language.product``
  (pairs of states), so it is a subdirect product by construction;
- the congruence conditions (p ~ q ⇒ pσ ~ qσ, meet = identity) are checked here
  by brute force over all pairs, not by the code that found them;
- proofs are re-checked by the stdlib-only checker (fsmnet.proofs.checker).
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples

import fsmnet
from fsmnet.automata import Automaton, load
from fsmnet.automata.language import product
from fsmnet.constructions.minmax_cascade import cascade_network
from fsmnet.constructions.minmax_holonomy import holonomy_spec
from fsmnet.constructions.minmax_product import factorization, product_network
from fsmnet.constructions.minmax_threshold import threshold_spec
from fsmnet.errors import NetworkFileError
from fsmnet.nets import Network
from fsmnet.nets.minmax_cascade import levelwise_label_trace
from fsmnet.nets.network import load_network
from fsmnet.proofs.certificate import check_against_network
from fsmnet.proofs.checker import CertificateError, check_certificate
from fsmnet.proofs.verifier import verify
from fsmnet.train.convert import to_torch

SEQ = "sequences:2,tracks=3"  # 27 states, 3 tracks: the smallest 3-way product


def _pair_machine() -> Automaton:
    """at least 5 ones × contains 0110: two different machines on one alphabet."""
    return product(load("atleast:5"), load("contains:0110"),
                   combine=lambda x, y: f"{x}{y}").minimal()


_CACHE: dict[str, tuple[Automaton, Network]] = {}


def _compiled(name: str, arch: str = "minmax-scalar") -> tuple[Automaton, Network]:
    key = f"{name}/{arch}"
    if key not in _CACHE:
        a = _pair_machine() if name == "pair" else load(name).minimal()
        _CACHE[key] = (a, fsmnet.compile(a, arch))
    return _CACHE[key]


def _expected(a: Automaton, word: np.ndarray) -> np.ndarray:
    return a.output_ids[a.trace(word)]


def test_factorization_is_a_set_of_congruences_with_identity_meet() -> None:
    a = load(SEQ).minimal()
    parts = factorization(a)
    assert parts is not None and len(parts) == 3  # one per track (27 = 3 · 3 · 3)
    delta = np.asarray(a.delta)
    for part in parts:  # brute force: p ~ q implies p·σ ~ q·σ
        for p in range(a.n_states):
            for q in range(a.n_states):
                if part[p] == part[q]:
                    assert all(part[row[p]] == part[row[q]] for row in delta)
    tuples = {tuple(part[q] for part in parts) for q in range(a.n_states)}
    assert len(tuples) == a.n_states  # the meet is the identity


def test_a_machine_that_does_not_split_compiles_as_before() -> None:
    # "contains 0110" (5 states) has no two congruences meeting in the identity, and
    # its letters are not monotone along any order tried: the plain holonomy cascade.
    a = load("contains:0110").minimal()
    assert factorization(a) is None and threshold_spec(a) is None
    net = fsmnet.compile(a, "minmax-scalar")
    assert net.options["construction"] == "holonomy" and "unit_component" not in net.params


def _ordered_machine(n: int, letters: list[tuple[str, int]], init: int) -> Automaton:
    """Letters on the chain 0..n-1: ("step", i) moves i to i+1 only, ("cap", d) adds d
    capped at n-1, ("const", c) resets to c: all monotone, none moves a bit below."""
    x = np.arange(n)
    rows = []
    for kind, v in letters:
        if kind == "step":
            rows.append(np.where(x == v % (n - 1), x + 1, x))
        elif kind == "cap":
            rows.append(np.minimum(x + v, n - 1))
        else:
            rows.append(np.full(n, v % n))
    outs = [int(q % 3 == 0) for q in range(n)]
    return Automaton(delta=np.array(rows, dtype=np.int64),
                     symbols=[f"l{i}" for i in range(len(rows))],
                     states=[f"q{q}" for q in range(n)], initial=init % n, outputs=outs)


@settings(max_examples=examples(20))
@given(n=st.integers(2, 12), seed=st.integers(0, 2**32 - 1),
       letters=st.lists(st.tuples(st.sampled_from(["step", "cap", "const"]),
                                  st.integers(0, 20)), min_size=1, max_size=4))
def test_threshold_cascades_of_ordered_machines(n: int, seed: int, letters) -> None:
    # Not minimized: the state order 0..n-1 satisfies the construction's condition by
    # design (each letter is monotone and never needs a bit below), so it must apply.
    a = _ordered_machine(n, letters, 0)
    spec = threshold_spec(a)
    assert spec is not None
    net = cascade_network(spec, a, arch="minmax-scalar")
    assert net.options["units"] == n - 1
    seen, todo = {0}, [0]  # the reachable states, by a plain search of the table
    while todo:
        q = todo.pop()
        for row in np.asarray(a.delta):
            if int(row[q]) not in seen:
                seen.add(int(row[q]))
                todo.append(int(row[q]))
    assert net.options["reachable_coordinates"] == len(seen)  # one tuple per state
    word = np.random.default_rng(seed).integers(0, a.n_symbols, 300)
    assert np.array_equal(net.label_trace(word), _expected(a, word))
    assert verify(a, net).verdict == "proved"


def test_threshold_spec_on_the_raw_ordered_machine() -> None:
    # Unminimized, the construction's precondition holds by design: it must apply.
    a = _ordered_machine(9, [("step", 3), ("cap", 2), ("const", 4), ("step", 0)], 0)
    spec = threshold_spec(a)
    assert spec is not None
    net = cascade_network(spec, a, arch="minmax-scalar")
    word = np.random.default_rng(1).integers(0, a.n_symbols, 500)
    assert np.array_equal(net.label_trace(word), _expected(a, word))
    # parity's flip is not monotone on {even, odd} in either order
    assert threshold_spec(load("parity").minimal()) is None


@pytest.mark.parametrize("name", [SEQ, "pair"])
def test_the_product_form_is_chosen_and_smaller(name: str) -> None:
    a, net = _compiled(name)
    assert net.options["construction"] == "product"
    assert net.options["components"] >= 2 and "unit_component" in net.params
    try:
        plain = cascade_network(holonomy_spec(a), a, arch="minmax-scalar")
    except fsmnet.FsmnetError:  # beyond the plain cascade's budget: nothing to compare
        return
    assert net.n_params < plain.n_params


@given(name=st.sampled_from([SEQ, "pair"]), seed=st.integers(0, 2**32 - 1),
       length=st.integers(0, 400))
def test_product_cascade_agrees_with_the_automaton(name: str, seed: int, length: int) -> None:
    a, net = _compiled(name)
    word = np.random.default_rng(seed).integers(0, a.n_symbols, length)
    want = _expected(a, word)
    assert np.array_equal(net.label_trace(word), want)  # step-by-step reference
    assert np.array_equal(levelwise_label_trace(net, word), want)  # level-by-level scans


def test_numba_and_torch_agree_with_the_automaton() -> None:
    pytest.importorskip("numba")
    from fsmnet.gpu import evaluate

    a, net = _compiled("pair", "minmax-cascade")
    word = np.random.default_rng(7).integers(0, a.n_symbols, 5_000)
    res = evaluate(net, word, backend="numba", path="sequential")
    assert res.path == "sequential"
    assert np.array_equal(np.asarray(res.outputs), _expected(a, word)[1:])
    torch = pytest.importorskip("torch")
    words = np.random.default_rng(8).integers(0, a.n_symbols, (3, 60))
    out = to_torch(net)(torch.tensor(words)).numpy()
    assert np.array_equal(out, np.stack([_expected(a, w) for w in words]))


@pytest.mark.parametrize("name", [SEQ, "pair"])
def test_product_cascade_is_proved_and_checked(name: str, tmp_path) -> None:
    a, net = _compiled(name)
    path = tmp_path / "net.safetensors"
    net.save(path)
    assert load_network(path).header()["format_version"] == 3
    cert = tmp_path / "cert.json"
    result = verify(a, load_network(path), certificate=str(cert), network_path=str(path))
    assert result.verdict == "proved" and result.method == "cascade-components"
    assert check_against_network(json.loads(cert.read_text()), str(path)).startswith("valid")
    # The second, independent route: the whole network's states close too.
    from fsmnet.proofs.product import explore_product

    assert explore_product(net, a).status == "closed"


def test_forged_component_certificates_are_refused(tmp_path) -> None:
    a, net = _compiled(SEQ)
    cert_path = tmp_path / "cert.json"
    assert verify(a, net, certificate=str(cert_path)).method == "cascade-components"
    cert = json.loads(cert_path.read_text())
    assert check_certificate(cert).startswith("valid: 3 components")

    def refused(edit, match: str) -> None:
        forged = json.loads(json.dumps(cert))
        edit(forged)
        with pytest.raises(CertificateError, match=match):
            check_certificate(forged)

    def flip_label(c: dict) -> None:
        readout = c["network"]["model"]["readout"]
        readout[0] = (readout[0] + 1) % len(net.labels)

    def retarget(c: dict) -> None:  # pair 0 of component 1 steps elsewhere on symbol 0
        rows = c["components"][1]["transitions"]
        rows[0][0] = (rows[0][0] + 1) % len(rows)

    def drop_last_pair(c: dict) -> None:  # the list is no longer closed
        part = c["components"][2]
        part["pairs"].pop()
        part["transitions"].pop()

    def other_start(c: dict) -> None:
        part = c["components"][0]
        part["pairs"][0][1] = (part["pairs"][0][1] + 1) % a.n_states

    def bad_component(c: dict) -> None:
        c["network"]["model"]["components"][0] = 7  # components 0..7, most without units

    def bad_join(c: dict) -> None:
        c["network"]["model"]["joins"][0][0][0] = 10**6

    def unit_reads_nothing(c: dict) -> None:  # a link of the wrong width
        c["network"]["model"]["links"][0] = [[0]]

    refused(bad_component, "components")
    refused(bad_join, "join 1")
    refused(unit_reads_nothing, "link 0")
    refused(flip_label, "readout gives")
    refused(retarget, "target differs")
    refused(drop_last_pair, "bad target")
    refused(other_start, "pair 0")


@pytest.mark.slow
def test_sequences_4_with_3_tracks_is_proved_by_components(tmp_path) -> None:
    # 125 states; the joint unit states number 48^3 = 110,592 (each 5-state track
    # reaches 48 coordinate tuples), beyond the whole-network budget of 20,000.
    a = load("sequences:4,tracks=3").minimal()
    net = fsmnet.compile(a, "minmax-scalar")
    assert net.options["components"] == 3
    cert = tmp_path / "cert.json"
    result = verify(a, net, certificate=str(cert))
    assert result.verdict == "proved" and result.method == "cascade-components"
    assert check_certificate(json.loads(cert.read_text())).startswith("valid")
    word = np.random.default_rng(5).integers(0, a.n_symbols, 3_000)
    assert np.array_equal(net.label_trace(word), _expected(a, word))


def _code_after(net: Network, word: np.ndarray) -> int:
    sem = net.semantics
    state = sem.initial_state(net, False)
    for x in word:
        state = sem.step(net, state, int(x), False)
    return int(sem.layout(net).rows_and_code(sem.coordinates(net, state))[1])


def test_mutants_are_refuted_and_their_certificates_refused(tmp_path) -> None:
    a, net = _compiled(SEQ)
    path = tmp_path / "net.safetensors"
    net.save(path)
    cert_path = tmp_path / "cert.json"
    assert verify(a, net, certificate=str(cert_path), network_path=str(path)).verdict == "proved"
    cert = json.loads(cert_path.read_text())
    word = np.random.default_rng(3).integers(0, a.n_symbols, 30)
    # 1. Flip the label read after `word`.
    readout = np.array(net.params["readout"])
    code = _code_after(net, word)
    readout[code] = (readout[code] + 1) % len(net.labels)
    # 2. Send the last link of component 0, at the initial prefix, to another final
    #    prefix whose label differs (so the empty word already disagrees).
    lay = net.semantics.layout(net)
    last = lay.members[0][-1]
    init = lay.rows_and_code(net.semantics.coordinates(net, net.semantics.initial_state(
        net, False)))[0]
    link = np.array(net.params[f"link{last}"])
    c0 = net.semantics.coordinates(net, net.semantics.initial_state(net, False))[last]
    pi = int(init[last])
    candidates = []
    for f in range(lay.finals[0]):
        trial = link.copy()
        trial[pi, c0] = f
        m = net.with_params(**{f"link{last}": trial})
        if m.label_trace([])[0] != a.output_ids[a.initial]:
            candidates.append(m)
    assert candidates, "some final prefix of component 0 must carry another label"
    for mutant in (net.with_params(readout=readout), candidates[0]):
        result = verify(a, mutant)
        assert result.verdict == "refuted"
        cex = [a.symbols.index(s) for s in result.counterexample.word]
        assert mutant.label_trace(cex)[-1] != _expected(a, np.array(cex, dtype=np.int64))[-1]
        mpath = tmp_path / "mutant.safetensors"
        mutant.save(mpath)
        with pytest.raises(CertificateError):  # the original proof is not about it
            check_against_network(cert, str(mpath))
    # The checker alone, on a certificate whose model says the mutant's readout:
    forged = json.loads(json.dumps(cert))
    forged["network"]["model"]["readout"] = [int(v) for v in readout]
    with pytest.raises(CertificateError):
        check_certificate(forged)


def test_old_formats_still_load(tmp_path) -> None:
    a = load("latch:3").minimal()
    for prefix_index, version in ((False, 1), (True, 2)):
        net = cascade_network(holonomy_spec(a), a, prefix_index=prefix_index)
        path = tmp_path / f"v{version}.safetensors"
        net.save(path)
        back = load_network(path)
        assert back.header()["format_version"] == version
        word = np.random.default_rng(version).integers(0, a.n_symbols, 200)
        assert np.array_equal(back.label_trace(word), _expected(a, word))


def test_a_version_2_header_with_components_is_refused(tmp_path) -> None:
    from safetensors.numpy import save

    _, net = _compiled(SEQ)
    header = dict(net.header(), format_version=2)
    path = tmp_path / "bad.safetensors"
    path.write_bytes(save({k: np.ascontiguousarray(v) for k, v in net.params.items()},
                          metadata={"fsmnet": json.dumps(header)}))
    with pytest.raises(NetworkFileError, match="format_version"):
        load_network(path)


def _without(params: dict[str, np.ndarray], *names: str) -> dict[str, np.ndarray]:
    return {k: v for k, v in params.items() if k not in names}


def test_bad_product_tensors_name_the_field() -> None:
    _, net = _compiled(SEQ)
    p = dict(net.params)
    comp = np.array(p["unit_component"])
    n_comp = int(comp.max()) + 1

    def refused(params: dict[str, np.ndarray], field: str) -> None:
        with pytest.raises(NetworkFileError, match=f"'{field}'"):
            Network(arch=net.arch, params=params, symbols=net.symbols,
                           labels=net.labels)

    bad = comp.copy()
    bad[bad == n_comp - 1] = n_comp  # component n_comp - 1 left without units
    refused(dict(p, unit_component=bad), "unit_component")
    refused(dict(p, unit_component=comp[:-1]), "unit_component")  # wrong shape
    refused(_without(p, f"join{n_comp - 1}"), f"join{n_comp - 1}")  # a join missing
    refused(dict(p, **{f"join{n_comp}": np.zeros((1, 1), dtype=np.int64)}), f"join{n_comp}")
    join = np.array(p["join1"])
    join[0, 0] = 10**6
    refused(dict(p, join1=join), "join1")
    refused(dict(p, join1=join.astype(np.float64)), "join1")
    last = [u for u in range(len(comp)) if comp[u] == 1][-1]
    link = np.array(p[f"link{last}"])
    link[0, 0] = 10**6  # beyond the final prefixes of component 1 (join1's columns)
    refused(dict(p, **{f"link{last}": link}), f"link{last}")
    first = [u for u in range(len(comp)) if comp[u] == 1][0]
    two_rows = np.zeros((2, int(p["unit_size"][first])), dtype=np.int64)
    refused(dict(p, **{f"link{first}": two_rows}), f"link{first}")  # reads the empty prefix
    refused(_without(p, *[k for k in p if k.startswith("link")]), "unit_component")


def test_the_cli_compiles_verifies_and_checks(tmp_path) -> None:
    from fsmnet.cli import main

    net, cert = tmp_path / "x.safetensors", tmp_path / "x.cert.json"
    assert main(["compile", SEQ, "--arch", "minmax-cascade", "-o", str(net), "-q"]) == 0
    assert main(["verify", SEQ, str(net), "--certificate", str(cert), "-q"]) == 0
    assert main(["check", str(cert), "--network", str(net)]) == 0


def test_product_network_refuses_a_meet_that_is_not_the_identity() -> None:
    a = load(SEQ).minimal()
    parts = factorization(a)
    assert parts is not None
    with pytest.raises(fsmnet.FsmnetError, match="meet"):
        product_network(a, parts[:2])  # two tracks only: the third is forgotten
