"""The architecture registry: every record complete, every listing equal to it, and a
made-up architecture picked up everywhere from one record (docs/architecture.md)."""

from __future__ import annotations

import dataclasses
import inspect
import json

import pytest
import toy_architecture

import fsmnet
from fsmnet import archs
from fsmnet.archs import Architecture
from fsmnet.cli import build_parser, main
from fsmnet.errors import FsmnetError, SpecError
from fsmnet.nets.semantics import semantics_for
from fsmnet.types import PROOF_METHODS, SCAN_FAMILIES


@pytest.mark.parametrize("record", archs.records(), ids=lambda r: r.id)
def test_every_record_is_complete_and_resolves(record: Architecture) -> None:
    assert record.summary and record.family
    sem = archs.resolve(record.semantics)
    assert sem.arch == record.id  # the semantics object knows its own id
    build = archs.resolve(record.construction)
    assert callable(build) and inspect.signature(build).parameters
    for theorem in record.theorems:
        assert callable(archs.resolve(archs.THEOREMS[theorem].witness))
    if record.certificate_model is not None:
        form = archs.resolve(record.certificate_model)
        assert callable(form.model) and callable(form.state)
    assert record.scan in SCAN_FAMILIES
    assert set(record.proofs) <= set(PROOF_METHODS) and record.proofs[0] == "exact-product"
    for optional in ("trainable", "abstract_transformer", "construction_progress"):
        ref = getattr(record, optional)
        if ref is not None:
            assert archs.resolve(ref) is not None
    if record.belief_construction is not None:
        assert callable(archs.resolve(record.belief_construction))



@pytest.mark.parametrize("change, message", [
    ({"one_hot_tensor": "yes"}, "one_hot_tensor must be True or False"),
    ({"trained_to_network": False, "trainable": None}, "trained_to_network=False needs"),
    ({"construction_progress": "no colon"}, "construction_progress must be 'module:attribute'"),
])
def test_the_record_flags_are_checked(change: dict, message: str) -> None:
    import dataclasses

    with pytest.raises(FsmnetError, match=message):
        dataclasses.replace(archs.get("bilinear-full"), **change)

def test_listings_equal_the_registry() -> None:
    ids = list(archs.ids())
    assert len(ids) == len(set(ids)) >= 11
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    for command in ("compile", "expressivity", "hierarchy"):
        arch_action = next(a for a in sub.choices[command]._actions if a.dest == "arch")
        assert list(arch_action.choices) == ids, command
    help_text = sub.choices["compile"].format_help()
    assert all(r.summary.split(";")[0][:30] in " ".join(help_text.split()) for r in
               archs.records())
    results = fsmnet.expressivity("parity")
    assert [r.arch for r in results] == ids


def test_bad_records_and_ids_are_refused() -> None:
    with pytest.raises(FsmnetError, match="module:attribute"):
        Architecture(id="x", family="f", summary="s", semantics="nocolon", construction="a:b")
    with pytest.raises(FsmnetError, match="exact-product"):
        Architecture(id="x", family="f", summary="s", semantics="a.b:c", construction="a.b:c",
                     proofs=("cone-invariant",))
    with pytest.raises(FsmnetError, match="already registered"):
        archs.register(archs.get("bilinear-full"))
    with pytest.raises(FsmnetError, match="unknown theorem"):
        archs.register(dataclasses.replace(toy_architecture.RECORD, theorems=("nope",)))
    with pytest.raises(SpecError, match="unknown architecture"):
        archs.get("bilinear-fulll")
    with pytest.raises(SpecError, match="unknown architecture"):
        fsmnet.compile("parity", "bilinear-fulll")


def test_a_made_up_architecture_is_one_record(tmp_path, capsys) -> None:
    with archs.registered(toy_architecture.RECORD):
        # The library: semantics, construction, proof, certificate, engine.
        assert semantics_for("toy-doubled") is toy_architecture.TOY
        net = fsmnet.compile("modadd:3", "toy-doubled")
        result = fsmnet.verify("modadd:3", net, certificate=str(tmp_path / "c.json"))
        assert result.verdict == "proved"
        from fsmnet.proofs.checker import check_certificate

        assert check_certificate(json.loads((tmp_path / "c.json").read_text())).startswith(
            "valid")
        out = fsmnet.evaluate(net, [1, 2, 2, 1], backend="numba").outputs
        ref = fsmnet.evaluate(fsmnet.load("modadd:3"), [1, 2, 2, 1], backend="numpy").outputs
        assert [net.labels[i] for i in out] == [fsmnet.load("modadd:3").labels[i] for i in ref]
        # The command line: compile's choices, expressivity's default list, hierarchy.
        path = tmp_path / "toy.safetensors"
        assert main(["compile", "parity", "--arch", "toy-doubled", "-o", str(path)]) == 0
        assert fsmnet.load_network(str(path)).arch == "toy-doubled"
        capsys.readouterr()
        main(["expressivity", "parity", "--json"])
        rows = json.loads(capsys.readouterr().out)["results"]
        assert rows[-1]["arch"] == "toy-doubled" and rows[-1]["verdict"] == "possible"
        assert main(["hierarchy", "--task", "parity", "--arch", "toy-doubled",
                     "--length", "0", "--json"]) == 0
        table = json.loads(capsys.readouterr().out)
        assert table["archs"] == ["toy-doubled"] and table["cells"][0]["verdict"] == "possible"
    assert "toy-doubled" not in archs.ids()
    with pytest.raises(SystemExit):
        main(["compile", "parity", "--arch", "toy-doubled", "-o", str(path)])
