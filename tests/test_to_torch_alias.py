"""``Network.to_torch()``: a deprecated alias of ``fsmnet.to_torch`` that imports nothing
upward (the top-level package installs the function in ``fsmnet.plugins``)."""

from __future__ import annotations

import pytest

import fsmnet
from fsmnet import plugins


def test_the_alias_warns_and_returns_the_same_labels() -> None:
    torch = pytest.importorskip("torch")
    net = fsmnet.compile("modadd:3", "bilinear-full")
    words = torch.tensor([[1, 2, 2, 0, 1, 1]])
    with pytest.warns(DeprecationWarning, match="fsmnet.to_torch"):
        module = net.to_torch()
    # Independent source: the network's own label trace (exact, from the file's tensors).
    assert module(words).tolist()[0] == net.label_trace([1, 2, 2, 0, 1, 1]).tolist()
    assert fsmnet.to_torch(net)(words).tolist() == module(words).tolist()


def test_an_empty_slot_names_itself() -> None:
    with pytest.raises(LookupError, match="'no-such-slot'"):
        plugins.installed("no-such-slot")


def test_the_top_level_package_fills_the_slot() -> None:
    assert plugins.installed("to_torch") is fsmnet.to_torch
