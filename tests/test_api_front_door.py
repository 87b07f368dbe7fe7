"""The front door: what ``import fsmnet`` offers, in which order it takes its arguments,
``VerifyResult.to_json``, ``fsmnet.train_network``, the torch modules' repr, inputs and
``to_network``, and the API reference pages that document them."""

from __future__ import annotations

import inspect
import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

import fsmnet
from fsmnet.cli import main
from fsmnet.errors import FsmnetError, SpecError
from fsmnet.train.convert import to_torch

ROOT = Path(__file__).resolve().parent.parent
HEAVY = ("torch", "z3", "numba", "cupy", "dask")


# ---------------------------------------------------------------- import fsmnet
def test_import_fsmnet_stays_light() -> None:
    code = f"import sys, fsmnet; print(','.join(m for m in {HEAVY!r} if m in sys.modules))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, check=True)
    assert done.stdout.strip() == "", f"import fsmnet imported {done.stdout.strip()}"


def test_dir_lists_the_public_api_and_every_name_resolves() -> None:
    names = dir(fsmnet)
    for name in [*fsmnet.__all__, "compile", "train", "train_network", "Network",
                 "VerifyResult", "EvalResult", "CertifyResult"]:
        assert name in names, name
    assert not [n for n in names if n.startswith("_") and not n.startswith("__")]
    for name in names:  # a lazy name that fails to import fails here
        assert hasattr(fsmnet, name), name


def test_result_classes_import_from_the_top_level() -> None:
    from fsmnet import CertifyResult, EvalResult, Network, TrainedNetwork, VerifyResult
    from fsmnet.gpu.engine import EvalResult as EvalHome
    from fsmnet.nets import Network as NetworkHome
    from fsmnet.proofs.abstract.certify import CertifyResult as CertifyHome
    from fsmnet.proofs.verifier import VerifyResult as VerifyHome
    from fsmnet.train import TrainedNetwork as TrainedHome

    assert (Network, VerifyResult, EvalResult, CertifyResult, TrainedNetwork) == (
        NetworkHome, VerifyHome, EvalHome, CertifyHome, TrainedHome)
    assert isinstance(fsmnet.compile("parity", "bilinear-full"), Network)


def test_unknown_attribute_is_an_attribute_error_naming_it() -> None:
    with pytest.raises(AttributeError, match="'verfy'"):
        getattr(fsmnet, "verfy")  # noqa: B009 - a typo on purpose, which mypy would refuse
    with pytest.raises(AttributeError, match="'loops'"):
        getattr(fsmnet.train, "loops")  # noqa: B009


def test_fsmnet_train_exports_trainconfig_and_lists_its_names() -> None:
    from fsmnet.train.loop import TrainConfig

    assert fsmnet.train.TrainConfig is TrainConfig
    assert {"TrainConfig", "train_network", "TrainedNetwork", "convert", "loop"} <= set(
        dir(fsmnet.train))


# ------------------------------------------------------------------ argument order
@pytest.mark.parametrize("function", [
    "fsmnet:verify", "fsmnet:certify", "fsmnet.proofs.verifier:verify",
    "fsmnet.proofs.abstract.certify:certify", "fsmnet.testing.fuzz:fuzz",
])
def test_spec_comes_first_and_both_take_keywords(function: str) -> None:
    from fsmnet import archs

    params = list(inspect.signature(archs.resolve(function)).parameters.values())
    assert [p.name for p in params[:2]] == ["spec", "net"], function
    assert all(p.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD for p in params[:2])


def test_verify_and_certify_by_keyword() -> None:
    net = fsmnet.compile("modadd:3", "bilinear-full")
    assert fsmnet.verify(net=net, spec="modadd:3").verdict == "proved"
    assert fsmnet.certify(net=net, spec="modadd:3").verdict == "proved"


@pytest.mark.parametrize("function", ["verify", "certify"])
def test_network_first_is_a_type_error_that_says_so(function: str) -> None:
    net = fsmnet.compile("parity", "bilinear-full")
    with pytest.raises(TypeError, match=r"takes the automaton first.*'parity'"):
        getattr(fsmnet, function)(net, "parity")
    with pytest.raises(TypeError, match=r"load_network.*'net\.safetensors'"):
        getattr(fsmnet, function)("parity", "net.safetensors")


# ------------------------------------------------------------ VerifyResult.to_json
@pytest.mark.parametrize("spec", ["parity", "atleast:1"])  # proved, refuted (empty word)
def test_verify_to_json_is_the_cli_json(spec: str, tmp_path: Path, capsys) -> None:
    net = fsmnet.compile("parity", "bilinear-full")
    path = str(tmp_path / "net.safetensors")
    net.save(path)
    code = main(["verify", spec, path, "--json"])
    cli = json.loads(capsys.readouterr().out)
    result = fsmnet.verify(spec, fsmnet.load_network(path), network_path=path)
    assert json.loads(json.dumps(result.to_json())) == cli
    assert code == (0 if result.verdict == "proved" else 1)
    assert set(cli) == {"verdict", "method", "counterexample", "rests_on_z3", "certificate",
                        "note", "certificate_error"}
    if spec == "atleast:1":
        # parity accepts the empty word (zero 1s is even); at least one 1 does not.
        assert cli["counterexample"] == {"word": [], "expected": False, "got": True}


@pytest.mark.parametrize("function", ["verify", "certify", "train_network"])
def test_top_level_docstrings_document_every_parameter(function: str) -> None:
    fn = getattr(fsmnet, function)
    doc = inspect.getdoc(fn) or ""
    if function == "train_network":  # the wrapper points at the full description
        doc = inspect.getdoc(fsmnet.train.train_network) or ""
    assert "Returns" in doc and "Parameters" in doc
    for name in inspect.signature(fn).parameters:
        assert re.search(rf"^\s*(\*\*)?{name}$", doc, re.M), f"{function}: {name} undocumented"


# ---------------------------------------------------------------- train_network

def test_train_network_gives_module_and_network() -> None:
    result = fsmnet.train_network("parity", "bilinear-full", hidden=2, steps=30, batch=16,
                                  lr=0.05, seed=3)
    net = result.network
    assert isinstance(net, fsmnet.Network) and net.arch == "bilinear-full"
    assert net.symbols == ("0", "1") and net.labels == result.automaton.labels
    assert net.options["training"]["seed"] == 3 and len(result.losses) == 30
    # The network computes what the module computes (float32 reference labels).
    words = np.random.default_rng(0).integers(0, 2, (3, 40))
    assert np.array_equal(result.module(words).numpy(),
                          np.stack([to_torch(net)(w).numpy() for w in words]))
    again = fsmnet.train_network("parity", "bilinear-full", hidden=2, steps=30, batch=16,
                                 lr=0.05, seed=3)
    assert all(np.array_equal(net.params[k], again.network.params[k]) for k in net.params)


def test_train_network_defaults_are_trainconfigs() -> None:
    from fsmnet.train import TrainConfig

    top, home = inspect.signature(fsmnet.train_network), inspect.signature(
        fsmnet.train.train_network)
    assert str(top) == str(home)
    config = TrainConfig(arch="x")
    for name in ("hidden", "steps", "seed", "lengths", "batch", "lr", "threads", "device"):
        assert home.parameters[name].default == getattr(config, name), name


@pytest.mark.parametrize("arch", ["lstm", "minmax-cascade"])
def test_no_network_form_is_said_when_asked(arch: str) -> None:
    result = fsmnet.train_network("flipflop", arch, hidden=2, steps=2, batch=4)
    assert result.module([0, 1, 2]).shape == (4,)
    with pytest.raises(FsmnetError, match=f"a trained {arch} has no network form"):
        result.network  # noqa: B018


@pytest.mark.parametrize("options, field, value", [
    ({"hidden": 0}, "hidden", 0), ({"steps": True}, "steps", True),
    ({"lengths": (5, 2)}, "lengths", (5, 2)), ({"lr": float("nan")}, "lr", None),
    ({"rank": 3}, "options", ["rank"]), ({"device": "tpu"}, "device", "tpu"),
])
def test_train_network_refuses_bad_settings_naming_them(options, field, value) -> None:
    with pytest.raises(SpecError) as info:
        fsmnet.train_network("parity", "bilinear-full", **options)
    assert info.value.field == field
    if value is not None:
        assert info.value.value == value


def test_train_network_unknown_arch_lists_the_choices() -> None:
    with pytest.raises(SpecError, match="deltanet-neg") as info:
        fsmnet.train_network("parity", "bilinear-fulll")
    assert info.value.value == "bilinear-fulll"


# ------------------------------------------------------------------ torch modules
def _module(arch: str):
    from fsmnet.train import convert

    torch.manual_seed(0)
    return convert.build(arch, 3, 2, 4)


TRAIN_ARCHS = ["bilinear-full", "bilinear-cp", "bilinear-block", "bilinear-r2",
               "bilinear-real-diag", "bilinear-positive-diag", "minmax-dense",
               "minmax-cascade", "deltaproduct", "deltanet", "fixed-point", "lstm"]


@pytest.mark.parametrize("arch", TRAIN_ARCHS)
def test_repr_shows_arch_and_sizes(arch: str) -> None:
    text = repr(_module(arch))
    shown = "deltaproduct" if arch == "deltanet" else arch
    assert f"arch='{shown}'" in text and "symbols=3" in text and "labels=2" in text
    assert re.search(r"hidden=\d", text), text


def test_repr_shows_the_options() -> None:
    from fsmnet.train import convert

    assert "rank=5" in repr(convert.build("bilinear-cp", 2, 2, 4, rank=5))
    assert "n_h=2" in repr(convert.build("deltaproduct", 2, 2, 4, n_h=2))
    assert "sizes=[2, 2]" in repr(convert.build("bilinear-block", 2, 2, 4))


@pytest.mark.parametrize("arch", TRAIN_ARCHS)
def test_lists_and_arrays_are_token_ids(arch: str) -> None:
    module = _module(arch)
    words = [[0, 2, 1, 1], [2, 2, 0, 1]]
    want = module(torch.tensor(words))
    assert want.shape == (2, 5) and want.dtype == torch.int64
    assert torch.equal(module(words), want)
    assert torch.equal(module(np.array(words, dtype=np.int32)), want)
    assert torch.equal(module(words[1]), want[1])  # one word, one trace


@pytest.mark.parametrize("words, error, shown", [
    (torch.tensor([[0.0, 1.0]]), TypeError, "torch.float32"),
    (torch.tensor([[0, 1]], dtype=torch.float64), TypeError, "torch.float64"),
    ([[0.5, 1.0]], TypeError, "float64"),
    (torch.tensor([[True, False]]), TypeError, "torch.bool"),
    ([["a", "b"]], TypeError, "<U1"),
    ([[0, 3]], IndexError, "token id 3"),
    ([[-1, 0]], IndexError, "token id -1"),
    ([[[0]]], ValueError, r"\(1, 1, 1\)"),
])
@pytest.mark.parametrize("arch", ["bilinear-full", "minmax-dense", "lstm"])
def test_bad_token_ids_are_refused_naming_them(arch: str, words, error, shown) -> None:
    with pytest.raises(error, match=shown):
        _module(arch)(words)


def test_compiled_cascade_takes_lists_too() -> None:
    net = fsmnet.compile("contains:aba", "minmax-cascade")
    module = to_torch(net)
    assert module([0, 1, 0]).tolist() == list(net.label_trace([0, 1, 0]))
    with pytest.raises(TypeError, match="float32"):
        module(torch.tensor([0.0]))


def test_to_network_defaults_and_counts() -> None:
    module = _module("bilinear-full")
    net = module.to_network()
    assert net.symbols == ("0", "1", "2") and net.labels == (0, 1)
    named = module.to_network(["a", "b", "c"], [False, True], name="mine")
    assert named.name == "mine" and named.output_of(["a", "c"]) in (False, True)
    with pytest.raises(SpecError, match="3 symbols, 2 names") as info:
        module.to_network(["a", "b"])
    assert info.value.field == "symbols" and info.value.value == ["a", "b"]
    with pytest.raises(FsmnetError, match="no network form"):
        _module("lstm").to_network()


@pytest.mark.parametrize("spec, arch", [("parity", "bilinear-full"),
                                        ("symmetric:3", "deltaproduct"),
                                        ("symmetric:3", "minmax-dense"),
                                        ("contains:aba", "minmax-cascade")])
def test_compiled_round_trip_through_to_network(spec: str, arch: str) -> None:
    from fsmnet.train.convert import from_network

    net = fsmnet.compile(spec, arch)
    back = from_network(net).to_network(net.symbols, net.labels)
    assert back.arch == arch  # a cascade of scalar units stays minmax-cascade
    assert fsmnet.verify(spec, back).verdict == "proved"


def test_compiled_cascade_keeps_its_record_through_to_torch() -> None:
    # The units alone cannot tell: a minmax-cascade of scalar units stays minmax-cascade.
    net = fsmnet.compile("contains:aba", "minmax-cascade")
    assert to_torch(net).to_network().arch == "minmax-cascade"
    assert to_torch(fsmnet.compile("flipflop", "minmax-scalar")).arch == "minmax-scalar"


# ------------------------------------------------------------------- the reference
def _nav_pages() -> list[str]:
    text = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    nav = text[text.index("\nnav:"):]
    return re.findall(r":\s*(\S+\.md)\s*$", nav, re.M)


def test_nav_lists_each_page_once_and_every_api_page() -> None:
    pages = _nav_pages()
    assert len(pages) == len(set(pages)), sorted(p for p in pages if pages.count(p) > 1)
    api = {f"api/{p.name}" for p in (ROOT / "docs" / "api").glob("*.md")}
    assert api <= set(pages), sorted(api - set(pages))
    assert {"api/train.md", "api/constructions.md"} <= set(pages)


def test_api_reference_documents_every_top_level_function() -> None:
    page = (ROOT / "docs" / "api" / "fsmnet.md").read_text(encoding="utf-8")
    members = re.search(r"members: \[(.*?)\]", page)
    assert members is not None
    listed = {m.strip() for m in members.group(1).split(",")}
    functions = {n for n in [*fsmnet.__all__, "compile"]
                 if inspect.isfunction(getattr(fsmnet, n))}
    assert functions == listed, functions ^ listed
