"""Adversarial certificates: what ``fsmnet check --network`` binds, what a reduced
certificate's ``invariant`` may hold, and strict parsing.

Every subject is a real certificate written by a prover (each method), checked
valid untampered first, so that every refusal below is a refusal of the edit.

* Binding: swapped labels (with the outputs remapped), swapped symbol names,
  and symbols reordered together with the automaton's rows, the model's
  matrices and the transitions are all true claims about *some* model — the
  checker alone accepts them — but not about the file; ``check_against_network``
  and ``fsmnet check --network`` must refuse them.
* ``reduced-invariant``: no field inside ``invariant`` may override a visible one.
* Strict parsing: unknown, misplaced and duplicate keys, giant numbers.

The property test's independent oracle is the network file itself: its exact
labels (``Network.label_trace(word, exact=True)``) on every word up to length 6,
read through the symbol names the certificate states, against the certificate's
automaton run by hand (``_claim_holds``); it shares no code with the checker.
"""

from __future__ import annotations

import copy
import itertools
import json
import sys
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples

import fsmnet
from fsmnet.automata import Automaton
from fsmnet.cli import main
from fsmnet.proofs.certificate import check_against_network, check_model_against_file
from fsmnet.proofs.checker import METHODS, CertificateError, check_certificate, parse_certificate
from fsmnet.proofs.checker import main as checker_main
from fsmnet.proofs.checker.core import MAX_DIGITS, _parse
from fsmnet.proofs.checker.schema import CLAIMS, SCHEMA

sys.path.insert(0, str(Path(__file__).parent))

AT_LEAST_TWO_A = Automaton(delta=np.array([[1, 2, 2], [0, 1, 2]]), symbols=("a", "b"),
                           initial=0, outputs=(False, False, True))
PRODUCTS = ("parity", "flipflop", "modadd3")


def _subjects() -> dict[str, tuple[Any, Any, str]]:
    """name -> (automaton or PFSA, network, how it is proved)."""
    from certify_helpers import ENDS_AB, perturb
    from test_certify_zonotope import LAST_B, rotation_net
    from test_minimal_linear import _pad

    from fsmnet.automata.pfsa_families import cups
    from fsmnet.constructions.pfsa_bilinear import compile_pfsa_bilinear

    ends_ab = fsmnet.compile(ENDS_AB, "bilinear-full")
    seq = fsmnet.load("sequences:2,tracks=3").minimal()
    subjects = {
        "parity": ("parity", fsmnet.compile("parity", "bilinear-full"), "verify"),
        "flipflop": ("flipflop", fsmnet.compile("flipflop", "minmax-dense"), "verify"),
        "modadd3": ("modadd:3", fsmnet.compile("modadd:3", "bilinear-full"), "verify"),
        "box": (ENDS_AB, perturb(ends_ab, 1e-4), "certify"),
        "reduced": (ENDS_AB, _pad(perturb(ends_ab, 1e-4), 3), "certify"),
        "zonotope": (LAST_B, rotation_net(1e-3), "certify"),
        "count": (AT_LEAST_TWO_A, fsmnet.compile(AT_LEAST_TWO_A, "bilinear-positive-diag"),
                  "verify"),
        "cone": ("atleast:2", fsmnet.compile("atleast:2", "fixed-point"), "verify"),
        "cascade": (seq, fsmnet.compile(seq, "minmax-scalar"), "verify"),
        "belief": (cups(3), compile_pfsa_bilinear(cups(3)), "belief"),
        "float32": ("modadd:3", fsmnet.compile("modadd:3", "bilinear-full"), "float32"),
    }
    # float32-product: covered once the checker lists the method
    return {k: v for k, v in subjects.items() if METHOD_OF[k] in METHODS}


METHOD_OF = {"parity": "exact-product", "flipflop": "exact-product",
             "modadd3": "exact-product", "box": "box-invariant",
             "reduced": "reduced-invariant", "zonotope": "zonotope-invariant",
             "count": "count-abstraction", "cone": "cone-invariant",
             "cascade": "cascade-components", "belief": "belief-tracking",
             "float32": "float32-product"}
NAMES = [name for name, method in METHOD_OF.items() if method in METHODS]


@pytest.fixture(scope="module")
def certs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[dict, str, Any]]:
    """name -> (certificate, network file, network), each written by its prover."""
    from fsmnet.proofs.abstract.certify import certify
    from fsmnet.proofs.pfsa_proof import belief_certificate
    from fsmnet.proofs.verifier import prepare_automaton, verify

    root = tmp_path_factory.mktemp("binding")
    out = {}
    for name, (spec, net, how) in _subjects().items():
        path, cert_path = str(root / f"{name}.safetensors"), root / f"{name}.json"
        net.save(path)
        net = fsmnet.load_network(path)
        if how == "belief":
            cert = belief_certificate(spec, net, network_path=path)
        elif how == "float32":
            from fsmnet.proofs.float32_product import explore_float32, float32_certificate

            automaton = prepare_automaton(spec, net)
            cert = json.loads(json.dumps(float32_certificate(
                net, automaton, explore_float32(net, automaton), network_path=path)))
        else:
            prove = verify if how == "verify" else certify
            prove(spec, net, certificate=str(cert_path), network_path=path)
            cert = json.loads(cert_path.read_text())
        assert cert["method"] == METHOD_OF[name]
        out[name] = (cert, path, net)
    return out


def _refused(cert: dict, path: str, match: str | None = None) -> str:
    """check_against_network refuses ``cert`` (message matching ``match``); returns it."""
    with pytest.raises(CertificateError, match=match) as info:
        check_against_network(cert, path)
    return str(info.value)


def _cli(cert_or_text: Any, path: str | None, tmp_path: Path, capsys: Any) -> tuple[int, str]:
    text = cert_or_text if isinstance(cert_or_text, str) else json.dumps(cert_or_text)
    file = tmp_path / "edited.json"
    file.write_text(text)
    capsys.readouterr()
    code = main(["check", str(file)] + ([] if path is None else ["--network", path]))
    return code, capsys.readouterr().out


def _same(x: Any, y: Any) -> bool:
    return type(x) is type(y) and x == y


# ------------------------------------------------------------------ the untampered


@pytest.mark.parametrize("name", NAMES)
def test_every_prover_certificate_is_bound_and_valid(certs, name, tmp_path, capsys) -> None:
    cert, path, _ = certs[name]
    assert check_against_network(cert, path).startswith("valid")
    code, out = _cli(cert, path, tmp_path, capsys)
    assert code == 0 and out.startswith("valid")


def test_the_schema_covers_every_method_and_states_their_claims() -> None:
    assert set(METHODS) <= set(SCHEMA.table)
    assert set(CLAIMS) <= set(SCHEMA.table)
    assert all(m in CLAIMS for m in METHODS if m not in ("witness", "belief-decay"))


def test_a_method_the_schema_knows_but_the_checker_does_not_is_refused(certs) -> None:
    if "float32-product" in METHODS:
        pytest.skip("the checker lists every method of the schema")
    cert, _, _ = certs["parity"]  # a well-formed float32-product certificate but for bits
    edited = {**copy.deepcopy(cert), "method": "float32-product",
              "rounding": "float32-reference", "covers": "the float32 reference step"}
    with pytest.raises(CertificateError, match="unsupported method 'float32-product'"):
        check_certificate(edited)


# ------------------------------------------------------------------ binding


def _swap_labels(cert: dict) -> dict:
    """Labels reversed and every output renamed with them: the same claim about the
    readout rows, a different one about the file's labels (e.g. the complement)."""
    c = copy.deepcopy(cert)
    labels = c["network"]["labels"]
    n = len(labels)
    at = {json.dumps(lab): i for i, lab in enumerate(labels)}
    c["network"]["labels"] = labels[::-1]
    if "automaton" in c:
        c["automaton"]["outputs"] = [labels[n - 1 - at[json.dumps(o)]]
                                     for o in c["automaton"]["outputs"]]
    else:  # belief tracking: the labels are the PFSA's state names
        c["pfsa"]["states"] = c["network"]["labels"]
    return c


def _swap_symbol_names(cert: dict) -> dict:
    c = copy.deepcopy(cert)
    block = c["automaton"] if "automaton" in c else c["pfsa"]
    block["symbols"] = block["symbols"][::-1]
    return c


# Where the checker alone reads the claim by label values and symbol indices only, so
# that these edits pass it: the attacks that only the binding to the file stops.
CHECKER_FOOLED_BY_LABELS = {"parity", "flipflop", "modadd3", "box", "reduced", "zonotope",
                            "cone", "cascade", "belief", "float32"}


@pytest.mark.parametrize("name", NAMES)
def test_swapped_labels_are_refused(certs, name, tmp_path, capsys) -> None:
    cert, path, _ = certs[name]
    swapped = _swap_labels(cert)
    if name in CHECKER_FOOLED_BY_LABELS:
        assert check_certificate(swapped).startswith("valid")  # a true claim about a model
    message = _refused(swapped, path, "network.labels")
    assert repr(cert["network"]["labels"]) in message  # names the field and the value
    code, out = _cli(swapped, path, tmp_path, capsys)
    assert code == 1 and out.startswith("invalid: network.labels")


@pytest.mark.parametrize("name", NAMES)
def test_swapped_symbol_names_are_refused(certs, name, tmp_path, capsys) -> None:
    cert, path, _ = certs[name]
    swapped = _swap_symbol_names(cert)
    assert check_certificate(swapped).startswith("valid")  # names are not the checker's
    _refused(swapped, path, r"(automaton|pfsa)\.symbols")
    code, out = _cli(swapped, path, tmp_path, capsys)
    assert code == 1 and "symbols" in out


def test_swapped_symbols_state_a_false_claim(certs) -> None:
    # Why the binding matters: on parity the swap claims the parity of the 0s.
    cert, _, net = certs["parity"]
    assert _claim_holds(cert, net) and not _claim_holds(_swap_symbol_names(cert), net)
    assert not _claim_holds(_swap_labels(cert), net)  # and this, the complement


def _reorder_symbols(cert: dict) -> dict:
    """Symbols reversed with the automaton's rows, the model's per-symbol tables and
    every transition row: the same claim, indexed in another order than the file's."""
    c = copy.deepcopy(cert)
    auto, model = c["automaton"], c["network"]["model"]
    auto["symbols"], auto["delta"] = auto["symbols"][::-1], auto["delta"][::-1]
    for key in ("matrices", "R", "s"):
        if key in model:
            model[key] = model[key][::-1]
    c["transitions"] = [row[::-1] for row in c["transitions"]]
    return c


@pytest.mark.parametrize("name", PRODUCTS)
def test_reordered_symbols_with_matching_rows_are_refused(certs, name) -> None:
    cert, path, net = certs[name]
    reordered = _reorder_symbols(cert)
    assert check_certificate(reordered).startswith("valid")
    assert _claim_holds(reordered, net)  # the claim itself is still the true one
    _refused(reordered, path, "automaton.symbols")


@pytest.mark.parametrize("name", ["parity", "box", "count"])
def test_another_architecture_is_refused(certs, name) -> None:
    cert, path, _ = certs[name]
    other = copy.deepcopy(cert)
    other["network"]["arch"] = "minmax-dense"
    _refused(other, path, "the file holds a")


@pytest.mark.parametrize("name", ["parity", "box", "reduced", "zonotope"])
def test_labels_of_another_type_are_refused(certs, name) -> None:
    # True -> 1 and False -> 0 in the labels and the outputs alike: equal in Python,
    # consistent for the checker, but not the file's labels.
    cert, path, _ = certs[name]
    retyped = copy.deepcopy(cert)
    assert all(isinstance(x, bool) for x in cert["network"]["labels"])
    retyped["network"]["labels"] = [int(x) for x in cert["network"]["labels"]]
    retyped["automaton"]["outputs"] = [int(x) for x in cert["automaton"]["outputs"]]
    assert check_certificate(retyped).startswith("valid")
    _refused(retyped, path, "network.labels")


# ------------------------------------------------------------------ reduced-invariant


def test_the_invariant_cannot_hold_the_real_automaton_behind_a_false_visible_one(certs) -> None:
    cert, path, net = certs["reduced"]
    forged = copy.deepcopy(cert)
    real = forged["automaton"]
    forged["automaton"] = {**real, "outputs": [not o for o in real["outputs"]]}  # complement
    forged["invariant"]["automaton"] = real  # what an override would check instead
    with pytest.raises(CertificateError, match=r"invariant: unknown or misplaced key "
                                                r"'automaton'"):
        check_certificate(forged)
    _refused(forged, path, "invariant")


def _visible_values(cert: dict) -> dict[str, Any]:
    """Per visible key of a reduced certificate, a different value to hide in invariant."""
    auto = cert["automaton"]
    return {"format": "fsmnet-certificate-2", "format_version": 2, "claim": "anything",
            "method": "zonotope-invariant", "domain": "chart-box", "rounding": "float32-step",
            "automaton": {**auto, "outputs": auto["outputs"][::-1]},
            "network": {**cert["network"], "labels": cert["network"]["labels"][::-1]},
            "reduction": cert["reduction"], "invariant": {}}


@pytest.mark.parametrize("key", ["format", "format_version", "claim", "method", "domain",
                                 "rounding", "automaton", "network", "reduction",
                                 "invariant"])
def test_no_field_of_invariant_overrides_a_visible_one(certs, key) -> None:
    cert, path, _ = certs["reduced"]
    assert key in cert
    forged = copy.deepcopy(cert)
    forged["invariant"][key] = _visible_values(cert)[key]
    with pytest.raises(CertificateError, match="invariant"):
        check_certificate(forged)


def test_restated_invariant_fields_must_equal_the_visible_ones(certs) -> None:
    cert, _, _ = certs["reduced"]
    assert {"domain", "rounding"} <= set(cert["invariant"])  # the prover restates them
    for key, value, match in (("domain", "zonotope", "invariant.domain"),
                              ("domain", "chart-box", "invariant: unknown or misplaced"),
                              ("rounding", "float32-step", "invariant.rounding")):
        forged = copy.deepcopy(cert)
        forged["invariant"][key] = value
        with pytest.raises(CertificateError, match=match):
            check_certificate(forged)
    visible = copy.deepcopy(cert)  # the visible rounding itself: exact only
    visible["rounding"] = visible["invariant"]["rounding"] = "float32-step"
    with pytest.raises(CertificateError, match="exact arithmetic only|covers"):
        check_certificate(visible)
    from fsmnet.proofs.checker.reduction import check_reduced

    with pytest.raises(CertificateError, match="exact arithmetic only"):
        check_reduced(visible)  # the reduction's own refusal, past the covers check


def test_an_invariant_of_another_method_is_refused(certs) -> None:
    cert, _, _ = certs["reduced"]
    forged = copy.deepcopy(cert)
    forged["invariant"]["method"] = "cone-invariant"  # no inner method of a reduction
    with pytest.raises(CertificateError, match="invariant.method"):
        check_certificate(forged)


# ------------------------------------------------------------------ strict keys


def _objects(tree: Any, path: tuple = ()) -> list[tuple]:
    """The path of every JSON object in ``tree``."""
    found = []
    if isinstance(tree, dict):
        found.append(path)
        for key, value in tree.items():
            found += _objects(value, (*path, key))
    elif isinstance(tree, list):
        for i, value in enumerate(tree):
            found += _objects(value, (*path, i))
    return found


def _get(tree: Any, path: tuple) -> Any:
    for key in path:
        tree = tree[key]
    return tree


@pytest.mark.parametrize("name", NAMES)
def test_an_unknown_key_in_any_object_is_refused(certs, name, tmp_path, capsys) -> None:
    cert, path, _ = certs[name]
    objects = _objects(cert)
    kinds = {}  # one object per shape: the same keys at the same depth
    for p in objects:
        kinds.setdefault((len(p), tuple(sorted(_get(cert, p)))), p)
    assert len(kinds) >= 3
    for p in kinds.values():
        edited = copy.deepcopy(cert)
        _get(edited, p)["zz_note"] = "1"
        with pytest.raises(CertificateError, match="zz_note"):
            check_certificate(edited)
    code, out = _cli(edited, path, tmp_path, capsys)
    assert code == 1 and "zz_note" in out


MISPLACED = [  # (certificate, where, a key of another method or object, its value)
    ("parity", (), "cones", {}),
    ("parity", ("network", "model"), "R", []),
    ("parity", ("automaton",), "labels", []),
    ("parity", ("network",), "options", {}),
    ("box", (), "basis", []),
    ("box", (), "zonotopes", []),
    ("zonotope", (), "boxes", []),
    ("count", (), "states", []),
    ("cone", (), "pairs", []),
    ("cascade", ("components", 0), "cones", {}),
    ("reduced", ("reduction",), "invariant", {}),
    ("belief", (), "automaton", {}),
]


@pytest.mark.parametrize(("name", "where", "key", "value"), MISPLACED)
def test_a_key_of_another_method_is_refused(certs, name, where, key, value) -> None:
    cert, _, _ = certs[name]
    edited = copy.deepcopy(cert)
    assert key not in _get(edited, where)
    _get(edited, where)[key] = value
    with pytest.raises(CertificateError, match=f"unknown or misplaced key '{key}'"):
        check_certificate(edited)


def test_two_spellings_of_one_integer_key_are_refused(certs) -> None:
    # {"0": ..., "00": ...} would be one cone (or one power of ζ) twice, the last winning.
    for name, where in (("cone", ("cones",)), ("count", ("network", "model", "h0", 0))):
        cert, _, _ = certs[name]
        edited = copy.deepcopy(cert)
        table = _get(edited, where)
        key = sorted(table)[0]
        table["0" + key] = table.pop(key)
        assert check_certificate(cert).startswith("valid")
        with pytest.raises(CertificateError, match="not a decimal integer"):
            check_certificate(edited)


@pytest.mark.parametrize("name", ["parity", "reduced", "belief"])
def test_a_missing_key_is_refused(certs, name) -> None:
    cert, _, _ = certs[name]
    for key in ("claim", "network"):
        edited = copy.deepcopy(cert)
        del edited[key]
        with pytest.raises(CertificateError, match=f"missing key '{key}'"):
            check_certificate(edited)


@pytest.mark.parametrize("name", ["parity", "belief", "reduced"])
def test_another_claim_is_refused(certs, name) -> None:
    cert, _, _ = certs[name]
    edited = copy.deepcopy(cert)
    edited["claim"] = edited["claim"].replace("==", "!=").replace("implies", "excludes")
    with pytest.raises(CertificateError, match="claim"):
        check_certificate(edited)


def _with_duplicate(text: str, obj_start: str, member: str) -> str:
    """``text`` with ``member`` (a key: value) inserted first in the object that
    ``obj_start`` opens."""
    assert obj_start in text
    return text.replace(obj_start, obj_start + member + ",", 1)


@pytest.mark.parametrize("name", ["parity", "reduced", "belief"])
def test_a_repeated_key_in_the_text_is_refused(certs, name, tmp_path, capsys) -> None:
    cert, path, _ = certs[name]
    text = json.dumps(cert, separators=(",", ":"))
    assert parse_certificate(text) == cert
    first = "automaton" if "automaton" in cert else "pfsa"
    # The forged value comes first, the real one last: a plain parser keeps the real
    # one, a reader of the text sees both.  Either way: refused.
    edits = [_with_duplicate(text, "{", '"claim":"nothing"'),
             _with_duplicate(text, f'"{first}":{{', '"symbols":["x"]'),
             _with_duplicate(text, '"network":{', '"labels":[]')]
    for edited in edits:
        assert json.loads(edited) == cert  # what the duplicate would have hidden
        with pytest.raises(CertificateError, match="duplicate key"):
            parse_certificate(edited)
        code, out = _cli(edited, path, tmp_path, capsys)
        assert code == 1 and "duplicate key" in out
        (tmp_path / "dup.json").write_text(edited)
        assert checker_main([str(tmp_path / "dup.json")]) == 1


# ------------------------------------------------------------------ numbers


HUGE = ["1e999999999", "-1e-999999999", "1/1e9999", "1" * 10**6, "1/" + "3" * 10**6,
        "0." + "0" * 10**6 + "1", "1e" + "9" * 20]


@pytest.mark.parametrize("value", HUGE, ids=lambda v: v[:12] + f"~{len(v)}")
def test_giant_number_strings_are_refused_at_once(certs, value, tmp_path, capsys) -> None:
    cert, path, _ = certs["parity"]
    for where in (("network", "model", "h0", 0), ("states", 0, 0)):
        edited = copy.deepcopy(cert)
        _get(edited, where[:-1])[where[-1]] = value
        with pytest.raises(CertificateError, match="not a rational"):
            check_certificate(edited)
        _refused(edited, path, "not a rational")
        if where[0] == "network":  # the file-model comparison reads numbers as the
            with pytest.raises(CertificateError, match="differs"):  # checker does
                check_model_against_file(edited, path)
    code, out = _cli(edited, path, tmp_path, capsys)
    assert code == 1 and "not a rational" in out


def test_giant_or_non_finite_json_numbers_are_refused(certs, tmp_path, capsys) -> None:
    cert, path, _ = certs["parity"]
    text = json.dumps(cert, separators=(",", ":"))
    assert '"format_version":1,' in text
    for literal, match in (("1" * 10**6, "JSON integer"), ("NaN", "NaN"),
                           ("-Infinity", "Infinity")):
        edited = text.replace('"format_version":1,', f'"format_version":{literal},')
        with pytest.raises(CertificateError, match=match):
            parse_certificate(edited)
        code, out = _cli(edited, path, tmp_path, capsys)
        assert code == 1 and match in out
    code, _ = _cli("{not json", None, tmp_path, capsys)
    assert code == 2  # not JSON at all: unreadable input
    (tmp_path / "junk.json").write_text("{not json")
    assert checker_main([str(tmp_path / "junk.json")]) == 2


def test_the_number_limit_admits_every_float64_and_str_int() -> None:
    from fsmnet.proofs.certificate_models import exact_str

    tiny, huge = 5e-324, sys.float_info.max
    for x in (tiny, -tiny, huge, -huge, 0.1, 1 / 3):
        assert _parse(exact_str(x)) == Fraction(x)
    widest = "9" * MAX_DIGITS  # what str(int) writes at Python's default limit
    assert _parse(f"-{widest}/{widest}") == -1
    assert _parse(f"1e-{MAX_DIGITS}") == Fraction(1, 10**MAX_DIGITS)
    for bad in (f"1{widest}", f"1/1{widest}", f"1e{MAX_DIGITS + 1}", " 1", "1_0", "١",
                "inf", "nan", "0x10", ""):
        with pytest.raises(CertificateError, match="not a rational"):
            _parse(bad)


# ------------------------------------------------------------------ the property


def _claim_holds(cert: dict, net: Any, length: int = 6) -> bool:
    """Independent oracle: for every word w of the certificate's symbols up to
    ``length``, the network file's exact label after w equals the output of the
    certificate's automaton after w (symbols matched by name; a symbol the file
    lacks makes the claim false)."""
    auto = cert["automaton"]
    symbols, delta, outputs = auto["symbols"], auto["delta"], auto["outputs"]
    if any(s not in net.symbols for s in symbols):
        return False
    index = [net.symbols.index(s) for s in symbols]
    for word in itertools.product(range(len(symbols)), repeat=length):
        got = net.label_trace([index[a] for a in word], exact=True)
        q = auto["initial"]
        for i, a in enumerate((None, *word)):
            if a is not None:
                q = delta[a][q]
            if not _same(net.labels[int(got[i])], outputs[q]):
                return False
    return True


def _paths(tree: Any, path: tuple = ()) -> list[tuple]:
    found = [path]
    items = tree.items() if isinstance(tree, dict) else \
        enumerate(tree) if isinstance(tree, list) else ()
    for key, value in items:
        found += _paths(value, (*path, key))
    return found


NUMBERS = ["0", "1", "-1", "2", "1/2", "-1/2", "3/4"]
NEW_KEYS = ["extra", "labels", "symbols", "model", "claim", "outputs", "options", "exact"]


@st.composite
def _mutation(draw: Any, cert: dict) -> tuple[str, dict]:
    """One field of ``cert`` changed: (what, the mutated certificate)."""
    path = draw(st.sampled_from(_paths(cert)))
    mutated = copy.deepcopy(cert)
    value = _get(mutated, path)
    strings = sorted({v for p in _paths(cert) if isinstance(v := _get(cert, p), str)})
    if isinstance(value, dict):
        if value and draw(st.booleans()):
            key = draw(st.sampled_from(sorted(value)))
            del value[key]
            return f"delete {path + (key,)}", mutated
        key = draw(st.sampled_from(NEW_KEYS))
        value[key] = draw(st.sampled_from([0, "1", [], {}, "x"]))
        return f"add {key} at {path}", mutated
    if isinstance(value, list):
        new: Any = draw(st.permutations(value)) if len(value) > 1 and draw(st.booleans()) \
            else value[1:] + value[:1] * draw(st.integers(0, 2))
    elif isinstance(value, bool):
        new = not value
    elif isinstance(value, int):
        new = draw(st.sampled_from([value - 1, value + 1, 0, True, str(value)]))
    elif isinstance(value, str):
        try:
            number = Fraction(value)
            new = draw(st.sampled_from(NUMBERS + [str(number + 1), str(-number)]))
        except ValueError:
            new = draw(st.sampled_from(strings + ["x"]))
    else:
        new = "x"
    if not path:
        return "replace the certificate", new
    _get(mutated, path[:-1])[path[-1]] = new
    return f"set {path} = {new!r}", mutated


def _refused_or_true(cert: dict, path: str, net: Any, cache: dict) -> bool:
    try:
        check_against_network(cert, path)
    except CertificateError:
        return True
    key = json.dumps(cert.get("automaton"), sort_keys=True)
    if key not in cache:
        cache[key] = _claim_holds(cert, net)
    return cache[key]


_ORACLE_CACHE: dict[str, dict] = {name: {} for name in PRODUCTS}


def _one_mutation(certs: dict, data: Any, name: str) -> None:
    cert, path, net = certs[name]
    what, mutated = data.draw(_mutation(cert), label="mutation")
    assert _refused_or_true(mutated, path, net, _ORACLE_CACHE[name]), what


@settings(max_examples=examples(120))
@given(data=st.data(), name=st.sampled_from(PRODUCTS))
def test_one_mutated_field_is_refused_or_the_claim_is_still_true(certs, data, name) -> None:
    _one_mutation(certs, data, name)


@pytest.mark.slow
@settings(max_examples=2000)
@given(data=st.data(), name=st.sampled_from(PRODUCTS))
def test_one_mutated_field_is_refused_or_the_claim_is_still_true_thorough(certs, data,
                                                                          name) -> None:
    _one_mutation(certs, data, name)


@pytest.mark.parametrize("name", PRODUCTS)
def test_every_field_swept_is_refused_or_still_true(certs, name) -> None:
    # Deterministic sweep: every path, the fixed edits of _sweep_values, same oracle.
    cert, path, net = certs[name]
    cache: dict = {}
    for p in _paths(cert):
        value = _get(cert, p)
        for new in _sweep_values(value):
            mutated = copy.deepcopy(cert)
            if p:
                _get(mutated, p[:-1])[p[-1]] = new
            else:
                mutated = new
            assert _refused_or_true(mutated, path, net, cache), (p, new)


def _sweep_values(value: Any) -> list[Any]:
    if isinstance(value, dict):
        return [{k: v for k, v in value.items() if k != key} for key in value] + \
            [{**value, key: 0} for key in NEW_KEYS if key not in value]
    if isinstance(value, list):
        return [value[::-1], value[1:] + value[:1], value[1:], value + value[:1]]
    if isinstance(value, bool):
        return [not value, int(value)]
    if isinstance(value, int):
        return [value - 1, value + 1, str(value)]
    if isinstance(value, str):
        return NUMBERS + ["x", value + " "]
    return ["x"]
