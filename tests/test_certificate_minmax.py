"""MinMax certificates: the prover's are accepted by the independent checker,
hand-edited ones are rejected, and the checker's own re-implementation of the
MinMax steps agrees with the network semantics on random words."""

import copy
import json
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples

import fsmnet
from fsmnet.automata import Automaton, load
from fsmnet.cli import main
from fsmnet.proofs.checker import CertificateError, check_certificate
from fsmnet.proofs.checker import models as checker_models
from fsmnet.proofs.verifier import verify
from fsmnet.testing.strategies import automata

# (family, arch): a matrix-unit cascade (modcount:3, a cyclic group), scalar
# cascades (latch:3, starfree), a mixed cascade (random), dense networks.
CASES = [("modcount:3", "minmax-cascade"), ("latch:3", "minmax-scalar"),
         ("starfree", "minmax-cascade"), ("random:n=5,k=2,seed=1", "minmax-cascade"),
         ("symmetric:3", "minmax-dense"), ("latch:3", "minmax-dense")]


def _prove(spec, arch, tmp_path):
    a = load(spec).minimal()
    net = fsmnet.compile(a, arch)
    net_path = tmp_path / "n.safetensors"
    net.save(net_path)
    cert_path = tmp_path / "c.json"
    result = verify(a, net, certificate=str(cert_path), network_path=str(net_path))
    assert result.verdict == "proved"
    return a, net, json.loads(cert_path.read_text()), net_path, cert_path


@pytest.mark.parametrize(("spec", "arch"), CASES)
def test_prover_certificate_is_accepted(spec, arch, tmp_path) -> None:
    _, _, cert, net_path, cert_path = _prove(spec, arch, tmp_path)
    assert cert["network"]["model"]["type"] in ("minmax-dense", "minmax-cascade")
    assert check_certificate(cert, str(net_path)).startswith("valid")
    assert main(["check", str(cert_path), "--network", str(net_path)]) == 0


def _dense_edits(cert):
    model = cert["network"]["model"]
    edits = []
    e = copy.deepcopy(cert)  # a one-hot 1 becomes 1/2: the stepped state changes
    e["network"]["model"]["R"][0][int(np.argmax(np.array(model["R"][0], float)[:, 0]))][0] = "1/2"
    edits.append(e)
    e = copy.deepcopy(cert)  # a 0 offset becomes 1: every state gets a 1 there
    e["network"]["model"]["s"][0][0] = "1"
    edits.append(e)
    e = copy.deepcopy(cert)  # swap two readout rows: labels 0 and 1 trade places
    r = e["network"]["model"]["readout"]
    r[0], r[1] = r[1], r[0]
    edits.append(e)
    e = copy.deepcopy(cert)
    e["network"]["model"]["x0"] = ["0"] * len(model["x0"])
    edits.append(e)
    return edits


def _cascade_edits(cert):
    edits = []
    e = copy.deepcopy(cert)  # the initial state's code gets another label
    q0_label = cert["automaton"]["outputs"][cert["automaton"]["initial"]]
    n_labels = len(cert["network"]["labels"])
    other = (cert["network"]["labels"].index(q0_label) + 1) % n_labels
    e["network"]["model"]["readout"] = [other] * len(cert["network"]["model"]["readout"])
    edits.append(e)
    e = copy.deepcopy(cert)  # a negative level
    e["network"]["model"]["units"][0]["level"] = -1
    edits.append(e)
    if len(cert["network"]["model"]["units"]) > 1:
        e = copy.deepcopy(cert)  # levels out of order
        units = e["network"]["model"]["units"]
        units[0]["level"] = units[-1]["level"] + 1
        edits.append(e)
    e = copy.deepcopy(cert)
    e["network"]["model"]["units"][0]["kind"] = "vector"
    edits.append(e)
    e = copy.deepcopy(cert)  # a non-rational value
    e["network"]["model"]["units"][0]["x0"][0] = "inf"
    edits.append(e)
    return edits


@pytest.mark.parametrize(("spec", "arch"), CASES)
def test_hand_edited_certificates_fail(spec, arch, tmp_path) -> None:
    _, _, cert, _, _ = _prove(spec, arch, tmp_path)
    common = []
    e = copy.deepcopy(cert)
    e["transitions"].pop()
    common.append(e)
    e = copy.deepcopy(cert)
    e["automaton"]["outputs"] = e["automaton"]["outputs"][1:] + e["automaton"]["outputs"][:1]
    common.append(e)
    e = copy.deepcopy(cert)
    e["network"]["model"]["type"] = "maxplus"
    common.append(e)
    e = copy.deepcopy(cert)  # numbers must be strings (exact), not JSON floats
    e["states"][0] = json.loads(json.dumps(e["states"][0]).replace('"', ""))
    common.append(e)
    specific = (_dense_edits(cert) if arch == "minmax-dense" else _cascade_edits(cert))
    for edited in common + specific:
        with pytest.raises(CertificateError):
            check_certificate(edited)


def _edit_state(state, path, value):
    """Replace one leaf (a string) of a nested list state by ``value``."""
    state = copy.deepcopy(state)
    target = state
    for i in path[:-1]:
        target = target[i]
    target[path[-1]] = value
    return state


def _leaves(state, prefix=()):
    if isinstance(state, str):
        return [prefix]
    return [p for i, x in enumerate(state) for p in _leaves(x, prefix + (i,))]


@given(automata(max_states=4, max_symbols=2, max_labels=3),
       st.sampled_from(["minmax-dense", "minmax-cascade"]), st.data())
def test_any_edited_state_entry_is_rejected(a: Automaton, arch: str, data) -> None:
    # Every listed state is h0 or first reached from a pair with an earlier
    # (unedited) state, so changing any entry breaks an obligation.
    a = a.minimal()
    net = fsmnet.compile(a, arch)
    exploration_cert = {}
    from fsmnet.nets.alignment import align_alphabet
    from fsmnet.proofs.certificate import build_certificate
    from fsmnet.proofs.product import explore_product

    m = align_alphabet(a, net)
    exploration = explore_product(net, m)
    assert exploration.status == "closed"
    exploration_cert = build_certificate(net, m, exploration)
    check_certificate(exploration_cert)
    i = data.draw(st.integers(0, len(exploration_cert["states"]) - 1))
    path = data.draw(st.sampled_from(_leaves(exploration_cert["states"][i])))
    edited = copy.deepcopy(exploration_cert)
    edited["states"][i] = _edit_state(edited["states"][i], path, "7/3")  # never a weight
    with pytest.raises(CertificateError):
        check_certificate(edited)


@given(automata(max_states=5, max_symbols=3, max_labels=3),
       st.sampled_from(["minmax-dense", "minmax-cascade"]), st.data())
def test_checker_models_agree_with_the_network_semantics(a: Automaton, arch, data) -> None:
    # Two independent implementations of the same step (the checker's plain
    # Python and fsmnet.nets), perturbed so that the states are not one-hot.
    net = fsmnet.compile(a.minimal(), arch)
    name = data.draw(st.sampled_from(sorted(k for k in net.params
                                            if net.params[k].dtype == np.float64)))
    arr = np.array(net.params[name])
    idx = tuple(data.draw(st.integers(0, d - 1)) for d in arr.shape)
    arr[idx] = data.draw(st.sampled_from([0.0, 0.5, 1.0, 2.5, 3.0, -1.0]))
    net = net.with_params(**{name: arr})
    from fsmnet.proofs.certificate import network_model

    model_json = network_model(net)
    build = checker_models.MODELS[model_json["type"]]
    model = build(json.loads(json.dumps(model_json)), len(net.symbols), len(net.labels))
    word = data.draw(st.lists(st.integers(0, len(net.symbols) - 1), max_size=12))
    h = model.h0
    labels = [model.label(h)]
    for x in word:
        h = model.step(h, x)
        labels.append(model.label(h))
    assert labels == [int(v) for v in net.label_trace(word, exact=True)]


_ENTRY = st.sampled_from([-3, -1, 0, 1, 2, 5]).map(lambda v: Fraction(v, 2))


@settings(max_examples=examples(300))
@given(st.integers(1, 5).flatmap(lambda n: st.tuples(
    st.lists(st.lists(_ENTRY, min_size=n, max_size=n), min_size=1, max_size=4),
    st.lists(_ENTRY, min_size=n, max_size=n),
    st.one_of(st.lists(_ENTRY, min_size=n, max_size=n),  # any vector
              st.tuples(st.integers(0, n - 1), _ENTRY, _ENTRY).map(  # a one-hot one
                  lambda t, n=n: [max(t[1], t[2]) if j == t[0] else min(t[1], t[2])
                                  for j in range(n)])))))
def test_the_checkers_one_hot_step_is_the_max_min_formula(case) -> None:
    # Oracle: the definition x'_i = max(max_j min(R_ij, x_j), s_i), written out here.
    rows, s_row, x = case
    s = [s_row[0]] * len(rows)
    want = [max(max(min(r, v) for r, v in zip(row, x)), si) for row, si in zip(rows, s)]
    got = checker_models._affine(checker_models._MaxMinMatrix(rows), s, x)
    assert got == want
