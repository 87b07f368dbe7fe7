"""certify on networks equal to compiled ones by construction: the reduced product.

Subjects: ``fsmnet.compile(spec, "bilinear-full")`` padded with k extra
coordinates that the readout never reads, fed by the main block (every
coupling entry nonzero, ±1/4 or ±1/2) and contracting among themselves
(upper triangular, diagonal ±1/4 or ±1/8, above it 0 or ±1/8; with h0 zero
there, they stay below 1 in absolute value, so no normalization touches
them).  Every spec here has a symbol that loops on its initial state, and on
that loop the padding follows an affine contraction from 0 with a nonzero
offset, which never repeats: the padded network's exact states never close,
while its minimal linear representation is the compiled network.

Independent oracles, named where used:

* ``exact labels``: the padded network's exact reference labels
  (``net.label_trace(word, exact=True)``: no product, no reduction) against
  the automaton's outputs (``fsmnet.load(spec).output_of``) on every word up
  to a length L (each trace covers every prefix of a word of length L): 8 for
  two letters, 6 for three, 4 for the six of symmetric:3 in the default run,
  and 8, 8, 5 in the slow one;
* ``fsmnet check CERT --network NET`` (the stdlib checker and the network
  file's tensors) for every certificate certify writes.
"""

from __future__ import annotations

import copy
import json
import tempfile
from fractions import Fraction
from itertools import product
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples

import fsmnet
from fsmnet.cli import main as cli
from fsmnet.nets import Network
from fsmnet.proofs.abstract.certify import certify
from fsmnet.proofs.checker import CertificateError, check_certificate
from fsmnet.proofs.product import explore_product
from fsmnet.proofs.verifier import prepare_automaton

# (spec, extra coordinates k): the family of docs/certify.md, "Reduce first"
FAMILY = [("parity", 2), ("modadd:3", 3), ("contains:ab", 4), ("flipflop", 5),
          ("symmetric:3", 6)]
DEFAULT_LENGTH = {2: 8, 3: 6, 6: 4}  # the oracle's L by alphabet size (default run)
SLOW_LENGTH = {2: 8, 3: 8, 6: 5}


def pad(net: Network, k: int, seed: int, leak: float = 0.0) -> Network:
    """``net`` (bilinear-full) with k coordinates fed by its block, contracting, and
    read by nothing; ``leak`` > 0 lets label 0's readout row read the first one."""
    rng = np.random.default_rng(seed)
    w = net.params["W"]
    h, n_sym = w.shape[0], w.shape[2]
    big = np.zeros((h + k, h + k, n_sym))
    for a in range(n_sym):
        big[:h, :h, a] = w[:, :, a]
        big[h:, :h, a] = rng.choice([-0.5, -0.25, 0.25, 0.5], size=(k, h))
        block = np.triu(rng.choice([-0.125, 0.0, 0.125], size=(k, k)), 1)
        block[np.arange(k), np.arange(k)] = rng.choice([-0.25, -0.125, 0.125, 0.25], size=k)
        big[h:, h:, a] = block
    readout = np.c_[net.params["readout"], np.zeros((len(net.labels), k))]
    readout[0, h] = leak
    return Network(arch="bilinear-full", symbols=net.symbols, labels=net.labels,
                   params={"W": big, "h0": np.r_[net.params["h0"], np.zeros(k)],
                           "readout": readout})


def first_disagreement(net: Network, spec: Any, length: int) -> list[str] | None:
    """The exact-labels oracle: a shortest word up to ``length`` whose exact label
    differs from the automaton's output, or None when every word agrees."""
    automaton = fsmnet.load(spec) if isinstance(spec, str) else spec
    worst: list[str] | None = None
    for word in product(range(len(net.symbols)), repeat=length):
        names = [net.symbols[a] for a in word]
        trace = net.label_trace(list(word), exact=True)
        for n, label in enumerate(trace):
            got, expected = net.labels[int(label)], automaton.output_of(names[:n])
            if type(got) is not type(expected) or got != expected:
                if worst is None or n < len(worst):
                    worst = names[:n]
                break
    return worst


def certified(spec: str, net: Network, where: Path) -> tuple[Any, dict[str, Any], list[str]]:
    """certify with a certificate, the network saved first: (result, certificate,
    the ``fsmnet check`` command line for it)."""
    net_path, cert_path = where / "net.safetensors", where / "cert.json"
    net.save(net_path)
    loaded = fsmnet.nets.load_network(net_path)
    result = certify(spec, loaded, certificate=str(cert_path), network_path=str(net_path))
    cert = json.loads(cert_path.read_text()) if cert_path.exists() else {}
    return result, cert, ["check", str(cert_path), "--network", str(net_path)]


@pytest.mark.parametrize(("spec", "k"), FAMILY)
def test_the_padded_family_is_proved_by_the_reduced_product(spec: str, k: int,
                                                           tmp_path: Path) -> None:
    net = pad(fsmnet.compile(spec, "bilinear-full"), k, seed=k)
    automaton = prepare_automaton(spec, net)
    # What the reduction buys: the padded network's own exact states do not close.
    assert explore_product(net, automaton, max_states=200).status == "budget"
    result, cert, check = certified(spec, net, tmp_path)
    assert (result.verdict, result.method, result.domain) == \
        ("proved", "reduced-product", "exact-states")
    assert cert["method"] == "reduced-invariant" and cert["rounding"] == "exact"
    assert cert["invariant"]["method"] == "exact-product"
    hidden = fsmnet.compile(spec, "bilinear-full").hidden_size
    assert len(cert["reduction"]["model"]["h0"]) == hidden  # the compiled size
    assert cli(check) == 0
    assert first_disagreement(net, spec, DEFAULT_LENGTH[len(net.symbols)]) is None


@pytest.mark.parametrize("spec", ["parity", "contains:ab", "modadd:3"])
def test_padding_that_leaks_into_the_readout_is_not_proved(spec: str, tmp_path: Path) -> None:
    net = pad(fsmnet.compile(spec, "bilinear-full"), 3, seed=1, leak=4.0)
    wrong = first_disagreement(net, spec, 4)
    assert wrong is not None  # the exact labels: the mutation is wrong somewhere
    result, cert, _ = certified(spec, net, tmp_path)
    assert result.verdict in ("refuted", "unknown") and not cert
    if result.verdict == "refuted":
        word = result.counterexample.word
        index = [net.symbols.index(s) for s in word]
        got = net.labels[int(net.label_trace(index, exact=True)[-1])]
        assert got != fsmnet.load(spec).output_of(word) and len(word) == len(wrong)


def test_a_wrong_label_past_the_plain_budget_is_refuted_on_the_reduced_model() -> None:
    # modcount:9 whose state 8 reads label 0: the shortest wrong word is 1^8, beyond
    # what the plain exploration of the padded states reaches within its budget.
    net = fsmnet.compile("modcount:9", "bilinear-full")
    readout = net.params["readout"].copy()
    readout[:, 8] = 0.0
    readout[0, 8] = 1.0
    padded = pad(net.with_params(readout=readout), 3, seed=0)
    result = certify("modcount:9", padded)
    assert (result.verdict, result.method) == ("refuted", "reduced-product")
    word = result.counterexample.word
    assert first_disagreement(padded, "modcount:9", len(word) - 1) is None  # the oracle
    assert first_disagreement(padded, "modcount:9", len(word)) == word
    assert result.proved_length == len(word) - 1 == 7


# ------------------------------------------------------------------ the checker refuses
def _numbers(node: Any, path: tuple[Any, ...]) -> list[tuple[Any, ...]]:
    """Paths to every number string under a JSON node."""
    if isinstance(node, list):
        return [p for i, x in enumerate(node) for p in _numbers(x, (*path, i))]
    if isinstance(node, dict):
        return [p for key, x in node.items() if key != "type"
                for p in _numbers(x, (*path, key))]
    return [path] if isinstance(node, str) else []


def _changed(cert: dict[str, Any], path: tuple[Any, ...], value: Any) -> dict[str, Any]:
    out = copy.deepcopy(cert)
    node = out
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value(node[path[-1]])
    return out


@pytest.fixture(scope="module")
def proof(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], list[str]]:
    net = pad(fsmnet.compile("contains:ab", "bilinear-full"), 4, seed=4)
    result, cert, check = certified("contains:ab", net, tmp_path_factory.mktemp("proof"))
    assert result.verdict == "proved"
    return cert, check


def test_every_changed_transition_target_is_refused(proof: tuple) -> None:
    cert, _ = proof
    check_certificate(cert)
    rows = cert["invariant"]["transitions"]
    n = len(cert["invariant"]["pairs"])
    for p, row in enumerate(rows):
        for a in range(len(row)):
            bad = _changed(cert, ("invariant", "transitions", p, a), lambda t: (t + 1) % n)
            with pytest.raises(CertificateError):
                check_certificate(bad)


def test_every_changed_number_of_the_reduction_or_the_states_is_refused(proof: tuple) -> None:
    # bases P and Q, the reduced matrices, h0' and readout, and the reduced states
    cert, _ = proof
    paths = _numbers(cert["reduction"], ("reduction",)) + \
        _numbers(cert["invariant"]["states"], ("invariant", "states"))
    assert len(paths) > 100
    for path in paths:
        bad = _changed(cert, path, lambda x: str(Fraction(x) + 1))
        with pytest.raises(CertificateError):
            check_certificate(bad)


@pytest.mark.parametrize(("path", "value"), [
    (("invariant", "automaton"), None),             # a second automaton inside
    (("invariant", "network"), None),               # a second network inside
    (("invariant", "domain"), "zonotope"),          # a restated field that differs
    (("invariant", "rounding"), "float32-step"),
    (("rounding",), "float32-step"),                # a reduction holds for exact only
    (("domain",), "slice-box"),                     # box domain, product inside
    (("invariant", "method"), "box-invariant"),
])
def test_no_inner_field_overrides_a_visible_one(proof: tuple, path: tuple, value: Any,
                                                tmp_path: Path) -> None:
    cert, check = proof
    bad = _added(cert, path, copy.deepcopy(cert[path[-1]]) if value is None else value)
    with pytest.raises(CertificateError):
        check_certificate(bad)
    file = tmp_path / "bad.json"
    file.write_text(json.dumps(bad))
    assert cli(["check", str(file), *check[2:]]) == 1


def _at(cert: dict[str, Any], path: tuple[Any, ...]) -> Any:
    node: Any = cert
    for key in path:
        node = node[key]
    return node


def _added(cert: dict[str, Any], path: tuple[Any, ...], value: Any) -> dict[str, Any]:
    out = copy.deepcopy(cert)
    _at(out, path[:-1])[path[-1]] = value
    return out


def test_a_changed_transition_fails_fsmnet_check(proof: tuple, tmp_path: Path) -> None:
    cert, check = proof
    bad = _changed(cert, ("invariant", "transitions", 0, 0), lambda t: t + 1)
    file = tmp_path / "bad.json"
    file.write_text(json.dumps(bad))
    assert cli(check) == 0 and cli(["check", str(file), *check[2:]]) == 1


# ------------------------------------------------------------------ over the padding
def _padding_property(spec: str, k: int, seed: int, length: int) -> None:
    net = pad(fsmnet.compile(spec, "bilinear-full"), k, seed)
    with tempfile.TemporaryDirectory() as where:
        result, cert, check = certified(spec, net, Path(where))
        assert (result.verdict, result.method) == ("proved", "reduced-product")
        assert cli(check) == 0
    rng = np.random.default_rng(seed)
    automaton = fsmnet.load(spec)
    for _ in range(10):  # exact labels on random words up to the oracle's length
        word = [int(a) for a in rng.integers(0, len(net.symbols), size=length)]
        names = [net.symbols[a] for a in word]
        trace = net.label_trace(word, exact=True)
        assert [net.labels[int(x)] for x in trace] == \
            [automaton.output_of(names[:n]) for n in range(length + 1)]


@settings(max_examples=examples(10))
@given(spec=st.sampled_from([s for s, _ in FAMILY]), k=st.integers(2, 6),
       seed=st.integers(0, 2**16))
def test_any_such_padding_is_proved(spec: str, k: int, seed: int) -> None:
    _padding_property(spec, k, seed, 8)


@pytest.mark.slow
@settings(max_examples=80)
@given(spec=st.sampled_from([s for s, _ in FAMILY] + ["modcount:5"]),
       k=st.integers(2, 12), seed=st.integers(0, 2**32 - 1))
def test_any_such_padding_is_proved_slow(spec: str, k: int, seed: int) -> None:
    _padding_property(spec, k, seed, 12)


@pytest.mark.slow
@pytest.mark.parametrize(("spec", "k"), FAMILY)
def test_the_padded_family_agrees_on_longer_words_slow(spec: str, k: int) -> None:
    net = pad(fsmnet.compile(spec, "bilinear-full"), k, seed=k)
    assert first_disagreement(net, spec, SLOW_LENGTH[len(net.symbols)]) is None
