"""The optimizer recipe of seed 004 (MinMax): weight decay, a halving learning rate, and
the cascade's update order, from Python and from ``fsmnet train``.

Expected values come from the definitions, not from a run: a StepLR schedule that
halves every k steps changes nothing in the first k steps (so k steps with and without
it give the same bytes, and k + 1 steps do not); weight decay 0 is Adam as before.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from cli_scratch import run_cli

import fsmnet
from fsmnet.errors import SpecError

pytest.importorskip("torch")


def weights(**kw: object) -> dict[str, np.ndarray]:
    res = fsmnet.train_network("parity", "bilinear-full", hidden=4, seed=1, **kw)
    return {k: v.detach().numpy().copy() for k, v in res.module.state_dict().items()}


def same(a: dict[str, np.ndarray], b: dict[str, np.ndarray]) -> bool:
    return a.keys() == b.keys() and all(np.array_equal(a[k], b[k]) for k in a)


def test_the_defaults_train_the_same_bytes_as_plain_adam() -> None:
    assert same(weights(steps=12), weights(steps=12, weight_decay=0.0, lr_halve_every=None))


def test_weight_decay_changes_the_weights() -> None:
    assert not same(weights(steps=12), weights(steps=12, weight_decay=0.1))


def test_the_learning_rate_halves_after_k_steps_not_before() -> None:
    assert same(weights(steps=6), weights(steps=6, lr_halve_every=6))
    assert not same(weights(steps=7), weights(steps=7, lr_halve_every=6))


@pytest.mark.parametrize("bad", [{"weight_decay": -1e-4}, {"weight_decay": float("nan")},
                                 {"lr_halve_every": 0}, {"lr_halve_every": 2.5}])
def test_bad_recipes_are_refused_before_training(bad: dict[str, object]) -> None:
    with pytest.raises(SpecError):
        fsmnet.train_network("parity", "bilinear-full", hidden=4, steps=1, **bad)


def test_the_cascade_order_reaches_the_module() -> None:
    for order in ("lag", "same-time"):
        res = fsmnet.train_network("flipflop", "minmax-cascade", hidden=4, steps=2,
                                   order=order)
        assert res.module.order == order


def test_cli_recipe_flags(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(["train", "flipflop", "--arch", "minmax-cascade", "--order",
                            "same-time", "--weight-decay", "1e-4", "--lr-halve-every", "5",
                            "--steps", "6", "--hidden", "4", "--json", "-q"], capsys)
    assert code == 0 and json.loads(out)["options"]["order"] == "same-time"
    code, _, err = run_cli(["train", "parity", "--arch", "bilinear-full", "--order", "lag",
                            "--steps", "1", "-q"], capsys)
    assert code == 2 and "--order applies to" in err and "Traceback" not in err
    code, _, err = run_cli(["train", "parity", "--arch", "bilinear-full", "--weight-decay",
                            "-1", "--steps", "1", "-q"], capsys)
    assert code == 2 and "weight-decay" in err
