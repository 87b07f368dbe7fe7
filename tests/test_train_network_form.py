"""``fsmnet.train.NO_NETWORK_FORM`` (a constant, so that ``import fsmnet.train`` needs no
torch) agrees with its source of truth: the registry's ``trained_to_network`` and,
for training-only choices, whether the module class converts (``to_params``)."""

from __future__ import annotations

import pytest

from fsmnet import archs


def test_the_constant_lists_exactly_the_choices_without_a_network_form() -> None:
    pytest.importorskip("torch")
    from fsmnet.train import NO_NETWORK_FORM, convert

    trainable = [a for a in archs.ids() if archs.get(a).trainable is not None]
    choices = [*trainable, *convert.EXTRA_ARCHS]
    assert sorted(NO_NETWORK_FORM) == sorted(a for a in choices
                                             if not convert.has_network_form(a))
