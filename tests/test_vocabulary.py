"""The vocabulary of docs/architecture.md, held in the API: the names the table gives,
the deprecated spellings it lists (each warns and still works), and the exports."""

from __future__ import annotations

import inspect
import pathlib
import re

import numpy as np
import pytest

import fsmnet

DOC = pathlib.Path(__file__).resolve().parents[1] / "docs" / "architecture.md"


@pytest.mark.parametrize("function", ["load", "compile", "verify", "certify", "expressivity",
                                      "decompose", "train_network"])
def test_every_verb_on_a_spec_names_its_first_parameter_spec(function: str) -> None:
    first = next(iter(inspect.signature(getattr(fsmnet, function)).parameters))
    assert first == "spec"


def test_evaluate_takes_a_model_and_a_word() -> None:
    assert list(inspect.signature(fsmnet.evaluate).parameters)[:2] == ["model", "word"]


@pytest.mark.parametrize(("call", "old"), [
    (lambda: fsmnet.compile(automaton="parity", arch="bilinear-full"), "automaton"),
    (lambda: fsmnet.decompose(source="flipflop"), "source"),
    (lambda: fsmnet.evaluate(fsmnet.load("parity"), symbols=np.array([1, 1, 0])), "symbols"),
])
def test_a_deprecated_spelling_warns_and_gives_the_same_result(call, old: str) -> None:
    with pytest.warns(DeprecationWarning, match=rf"{old}=\.\.\.\) is deprecated"):
        result = call()
    assert result is not None


def test_the_deprecated_and_new_spellings_agree() -> None:
    """A second call with the new name is the independent source."""
    word = np.array([1, 1, 0, 1], dtype=np.uint8)
    with pytest.warns(DeprecationWarning):
        old = fsmnet.evaluate(fsmnet.load("parity"), symbols=word)
    new = fsmnet.evaluate(fsmnet.load("parity"), word=word)
    assert old.outputs.tolist() == new.outputs.tolist()
    with pytest.warns(DeprecationWarning):
        old_net = fsmnet.compile(automaton="modadd:3", arch="bilinear-full")
    new_net = fsmnet.compile("modadd:3", "bilinear-full")
    assert all(np.array_equal(old_net.params[k], new_net.params[k]) for k in new_net.params)


def test_both_spellings_at_once_are_refused() -> None:
    with pytest.raises(TypeError, match="not both"):
        fsmnet.compile("parity", "bilinear-full", automaton="parity")


def test_the_scan_engine_answers_to_its_vocabulary_name() -> None:
    assert fsmnet.scan.evaluate is fsmnet.gpu.evaluate
    assert "scan" in dir(fsmnet)


def test_every_export_the_vocabulary_lists_is_importable_from_the_top_level() -> None:
    section = DOC.read_text().split("## Vocabulary", 1)[1].split("\n## ", 1)[0]
    exports = section.split("The top level exports", 1)[1]
    names = re.findall(r"`([A-Za-z_]+)`", exports)
    assert {"Network", "EvalResult", "VerifyResult", "to_torch"} <= set(names)
    for name in names:
        if name.startswith("test_"):
            continue
        assert getattr(fsmnet, name) is not None, name
        assert name in dir(fsmnet)
