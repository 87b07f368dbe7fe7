"""``possible`` by theorem: the verdict names the theorem and builds nothing; the
network is built, proved and certified on request (``--witness-dir``).

Independent sources: the verdicts with the theorems switched off
(``by_theorem=False``: every network compiled and proved, the path before the
theorems), the constructions' own recorded sizes, and ``fsmnet check``.
"""

from __future__ import annotations

import inspect
import json

import pytest
from hypothesis import given, settings
from hypothesis_budget import examples

import fsmnet
from fsmnet import archs, constructions
from fsmnet.archs.theorems import POSSIBILITY_THEOREMS, possibility_theorems
from fsmnet.cli import main
from fsmnet.constructions import construction_for
from fsmnet.decide import expressivity as expressivity_module
from fsmnet.decide import possibility, witness
from fsmnet.decide.expressivity import expressivity
from fsmnet.proofs import verifier
from fsmnet.testing.strategies import automata

SETTLED = tuple(a for a in archs.ids() if possibility_theorems(a))
"""The classes a possibility theorem settles."""


def test_every_theorem_names_registered_classes_and_resolves() -> None:
    assert set(SETTLED) == {"bilinear-full", "bilinear-cp", "bilinear-block", "minmax-dense",
                            "minmax-cascade", "deltaproduct"}
    for theorem in POSSIBILITY_THEOREMS.values():
        assert callable(archs.resolve(theorem.size))
        for arch in theorem.classes:
            # The theorem's options are options of the class's own construction.
            build = inspect.signature(construction_for(arch)).parameters
            assert all(name in build for name, _ in theorem.construction_options)
    for arch in SETTLED:  # no class both settled "possible" and bounded by a theorem
        assert not archs.get(arch).theorems


def test_a_theorem_verdict_builds_and_checks_nothing(count_calls) -> None:
    builds = count_calls(expressivity_module, "_construct_and_prove")
    compiles = count_calls(constructions, "construction_for")
    proofs = count_calls(verifier, "verify")
    results = expressivity("symmetric:4,gens", list(SETTLED))
    assert [r.verdict for r in results] == ["possible"] * len(SETTLED)
    assert builds.calls == 0 and proofs.calls == 0
    assert compiles.calls == 0
    for r in results:
        (theorem,) = possibility_theorems(r.arch)
        assert r.by == f"theorem: {theorem.id}"
        assert r.reason.startswith("by theorem (") and "no network built or checked" in r.reason
        assert r.witness is None and r.files is None
        assert r.size is not None and r.size["hidden"] == 24


def test_without_the_theorems_the_networks_are_built_and_proved(count_calls) -> None:
    builds = count_calls(expressivity_module, "_construct_and_prove")
    results = expressivity("modadd:3", ["bilinear-full", "minmax-dense"], by_theorem=False)
    assert builds.calls == 2
    assert all(r.verdict == "possible" and r.by == "proof: exact-product" for r in results)


def test_theorem_sizes_are_the_constructions_sizes() -> None:
    for spec in ("random:n=7,k=3,seed=2", "symmetric:3", "modarith:3", "flipflop"):
        m = fsmnet.load(spec).minimal()
        for arch in SETTLED:
            (theorem,) = possibility_theorems(arch)
            net = possibility.theorem_witness_network(m, arch)
            size = possibility.theorem_size(theorem, m)
            assert size["hidden"] == m.n_states, (spec, arch)
            for key in ("rank", "n_h", "blocks", "levels"):
                if key in size:
                    assert size[key] == net.options[key], (spec, arch, key)


@settings(max_examples=examples(10), deadline=None)
@given(automata(max_states=4, max_symbols=2, max_labels=3))
def test_verdicts_by_theorem_equal_the_verdicts_by_proof(a) -> None:
    # Second source: every network compiled and proved, as before the theorems.
    chosen = [*SETTLED, "bilinear-r2", "minmax-scalar"]
    fast = expressivity(a, chosen)
    slow = expressivity(a, chosen, by_theorem=False)
    assert [r.verdict for r in fast] == [r.verdict for r in slow]
    for f, s in zip(fast, slow):
        if f.by.startswith("theorem:"):
            assert s.by.startswith("proof:")


def test_witness_dir_builds_proves_and_certifies_the_theorem_network(tmp_path, capsys) -> None:
    out = tmp_path / "w"
    code = main(["expressivity", "symmetric:3", "--arch", "bilinear-full", "--arch",
                 "bilinear-cp", "--arch", "minmax-cascade", "--arch", "bilinear-r2", "--json",
                 "--witness-dir", str(out)])
    assert code == 1  # r2 is impossible
    rows = {r["arch"]: r for r in json.loads(capsys.readouterr().out)["results"]}
    assert set(rows["bilinear-full"]) == {"arch", "verdict", "reason", "witness", "by", "files"}
    for arch in ("bilinear-full", "bilinear-cp", "minmax-cascade"):
        row = rows[arch]
        assert row["verdict"] == "possible" and row["by"].startswith("proof: ")
        files = row["files"]
        assert files == {"network": str(out / f"{arch}.safetensors"),
                         "certificate": str(out / f"{arch}.json")}
        assert main(["check", files["certificate"], "--network", files["network"]]) == 0
        assert fsmnet.verify("symmetric:3", fsmnet.load_network(files["network"])).verdict \
            == "proved"
    assert fsmnet.load_network(out / "bilinear-cp.safetensors").options["start"] == "image"
    assert rows["bilinear-r2"]["by"] == "witness: commuting"
    assert main(["check", str(out / "bilinear-r2.json")]) == 0


def test_a_theorem_verdict_stands_when_its_network_cannot_be_proved(tmp_path,
                                                                   monkeypatch) -> None:
    # A proof that comes back unknown (here: forced) does not turn the theorem's verdict
    # into "unknown"; the reason says the network was not proved.
    def unknown(*args, **kwargs):
        return "unknown", {"method": "exact-product", "network": "n", "note": "budget"}

    monkeypatch.setattr(possibility, "prove_witness", unknown)
    (r,) = expressivity("parity", ["bilinear-full"], witness_dir=tmp_path)
    assert r.verdict == "possible" and r.by == "theorem: one-hot"
    assert "not proved here" in r.reason


def test_shared_witness_searches_run_once_per_call(count_calls) -> None:
    searches = count_calls(witness, "equal_counts_witness")
    monkey = archs.THEOREMS["commuting"]
    assert monkey.witness == "fsmnet.decide.witness:equal_counts_witness"
    results = expressivity("symmetric:3,gens", ["bilinear-r2", "bilinear-real-diag",
                                                "bilinear-positive-diag"])
    assert [r.verdict for r in results] == ["impossible"] * 3
    assert searches.calls == 1


@pytest.mark.parametrize("arch", ["bilinear-full", "deltaproduct"])
def test_text_output_names_the_theorem(arch, capsys) -> None:
    assert main(["expressivity", "modadd:3", "--arch", arch]) == 0
    out = capsys.readouterr().out
    assert "by theorem" in out and "no network built" in out
    assert main(["expressivity", "modadd:3", "--arch", arch, "--prove-all"]) == 0
    assert "proved equal to the automaton" in capsys.readouterr().out
