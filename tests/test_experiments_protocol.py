"""The tables' training protocol (experiments/common.py): best of learning rates by
validation at a held-out length, early stopping, the exactly-zero-loss guard, and
the wall-time estimate printed before a table trains.

Independent sources: the recorded per-checkpoint validation list (the selected
checkpoint must be its maximum, and the returned module must score that maximum
when validated again), and the plain ``fsmnet.train.loop.train`` run (validation
must not change the training trajectory: the same losses, bit for bit).
"""

from __future__ import annotations

import importlib.util
import sys

import pytest
from experiment_scripts import ROOT, load_script

pytest.importorskip("torch")

import torch  # noqa: E402

import fsmnet  # noqa: E402
from fsmnet.train import convert  # noqa: E402
from fsmnet.train.data import accuracy  # noqa: E402
from fsmnet.train.loop import TrainConfig, train  # noqa: E402

common = load_script("common.py", "exp_common_protocol")
# Tiny budget: modadd:3 on a rank-4 CP net is far from learned after 40 steps, so its
# validation accuracy goes up and down and the best checkpoint is not the last one.
TINY = dict(spec="modadd:3", arch="bilinear-cp", seed=0, hidden=4, steps=40)
SELECT = common.Protocol(lrs=(0.3, 0.03), validate_every=5, validate_length=30,
                         validate_words=16)


@pytest.fixture(scope="module")
def selected():
    return common.train_selected(TINY["spec"], TINY["arch"], TINY["seed"],
                                 hidden=TINY["hidden"], steps=TINY["steps"], protocol=SELECT)


def test_selected_checkpoint_has_the_best_recorded_validation_accuracy(selected):
    result, record = selected
    checkpoints = record["checkpoints"]
    # every learning rate validated every 5 steps, in order
    assert [(c["lr"], c["step"]) for c in checkpoints] == [
        (lr, step) for lr in SELECT.lrs for step in range(5, TINY["steps"] + 1, 5)]
    best = max(c["val"] for c in checkpoints)
    chosen = record["selected"]
    assert chosen["val"] == best
    assert {"lr": chosen["lr"], "step": chosen["step"], "val": best} in [
        {k: c[k] for k in ("lr", "step", "val")} for c in checkpoints]
    # ties: the later step, then the first learning rate
    ties = [c for c in checkpoints if c["val"] == best]
    latest = max(c["step"] for c in ties)
    assert chosen["step"] == latest
    assert chosen["lr"] == next(c["lr"] for c in ties if c["step"] == latest)
    # the returned module is that checkpoint: validated again, it scores the maximum
    again = accuracy(result.module, result.automaton, SELECT.validate_length,
                     words=SELECT.validate_words, seed=SELECT.validate_seed)
    assert again == best
    # and selection mattered here: the last checkpoint of each run scores less
    for lr in SELECT.lrs:
        last = [c for c in checkpoints if c["lr"] == lr][-1]
        assert last["val"] < best, "tiny budget no longer has a mid-run best; pick another"


def test_validation_does_not_change_the_training_run(selected):
    _, record = selected
    for lr in SELECT.lrs:
        plain = train(TINY["spec"], TrainConfig(arch=TINY["arch"], hidden=TINY["hidden"],
                                                steps=TINY["steps"], lr=lr, seed=TINY["seed"],
                                                threads=1))
        scored = {c["step"]: c["loss"] for c in record["checkpoints"] if c["lr"] == lr}
        assert scored == {step: plain.losses[step - 1] for step in scored}


def test_without_validation_the_cell_is_the_plain_last_step():
    result, record = common.train_selected("parity", "bilinear-real-diag", 0, hidden=2,
                                           steps=20, protocol=common.Protocol(lrs=(0.05,)))
    plain = train("parity", TrainConfig(arch="bilinear-real-diag", hidden=2, steps=20,
                                        lr=0.05, seed=0, threads=1))
    assert result.losses == plain.losses
    assert record["selected"] == {"lr": 0.05, "step": 20} and record["checkpoints"] == []
    for a, b in zip(result.module.parameters(), plain.module.parameters()):
        assert torch.equal(a, b)


def test_early_stopping_after_patience_validations_without_improvement():
    protocol = common.Protocol(lrs=(0.3,), validate_every=5, validate_length=30,
                               validate_words=16, patience=2)
    _, record = common.train_selected(TINY["spec"], TINY["arch"], 0, hidden=4, steps=200,
                                      protocol=protocol)
    vals = [c["val"] for c in record["checkpoints"]]
    stop = record["stopped"]["0.3"]
    assert stop["why"].startswith("no improvement") and stop["step"] < 200
    assert stop["step"] == record["checkpoints"][-1]["step"]
    # From the recorded scores alone: the run stops at the first validation that is
    # the 2nd in a row not above the running best.
    running, since, first = -1.0, 0, None
    for i, v in enumerate(vals):
        running, since = (v, 0) if v > running else (running, since + 1)
        if since == 2:
            first = i
            break
    assert first == len(vals) - 1


def test_a_float32_loss_of_exactly_zero_is_a_checkpoint_and_may_stop_the_run():
    # A compiled parity net with its readout scaled by 1000: every logit margin is
    # ≥ 1000, so the float32 cross-entropy is exactly 0 from the first step.
    module = convert.from_network(fsmnet.compile("parity", "bilinear-real-diag"))
    with torch.no_grad():
        module.readout.mul_(1000.0)
    for guard, steps, scored in ((True, 1, [1]), (False, 30, [1, 10, 20, 30])):
        protocol = common.Protocol(lrs=(0.1,), validate_every=10, validate_length=30,
                                   validate_words=16, stop_at_zero_loss=guard)
        result, record = common.train_selected("parity", "bilinear-real-diag", 0, hidden=2,
                                               steps=30, protocol=protocol, start=module)
        assert result.losses[0] == 0.0
        assert record["stopped"]["0.1"]["step"] == steps
        assert [c["step"] for c in record["checkpoints"]] == scored
        assert record["selected"]["val"] == 1.0
        assert record["stopped"]["0.1"]["why"] == ("loss exactly 0" if guard else "budget")


def test_a_float32_loss_of_exactly_zero_still_has_a_gradient():
    # Why the guard validates rather than assumes training is over: logits (20, 0)
    # give a float32 cross-entropy of exactly 0 (log(1 + e^-20) rounds away) but the
    # gradient keeps softmax's tail e^-20 / (1 + e^-20) ≈ 2.06e-9 (worked by hand).
    logits = torch.tensor([[20.0, 0.0]], requires_grad=True)
    loss = torch.nn.functional.cross_entropy(logits, torch.tensor([0]))
    loss.backward()
    assert loss.item() == 0.0
    assert logits.grad[0, 1].item() == pytest.approx(2.0612e-9, rel=1e-3)


def test_several_learning_rates_need_validation():
    with pytest.raises(ValueError, match="validation"):
        common.Protocol(lrs=(0.1, 0.01))
    with pytest.raises(ValueError, match="positive"):
        common.Protocol(lrs=(0.0,))


def test_device_option_resolves_auto_and_refuses_a_missing_cuda(monkeypatch, capsys):
    """--device auto is cuda exactly where torch sees a device; --device cuda without
    one is refused before any training (argparse's exit 2 and one line naming it)."""
    args = common.arguments(steps=10, hidden=4, argv=[])
    assert args.device == "cpu"
    for present in (False, True):
        monkeypatch.setattr(torch.cuda, "is_available", lambda present=present: present)
        args = common.arguments(steps=10, hidden=4, argv=["--device", "auto"])
        assert args.device == ("cuda" if present else "cpu")
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    with pytest.raises(SystemExit) as stop:
        common.arguments(steps=10, hidden=4, argv=["--device", "cuda"])
    assert stop.value.code == 2 and "no usable CUDA device" in capsys.readouterr().err


def test_device_cpu_given_explicitly_is_the_default_run_byte_for_byte(selected):
    again = common.train_selected(TINY["spec"], TINY["arch"], TINY["seed"],
                                  hidden=TINY["hidden"], steps=TINY["steps"],
                                  protocol=SELECT, device="cpu")
    assert again[1] == selected[1]  # the same checkpoints, validations and selection
    assert again[0].losses == selected[0].losses


def test_paper_preset_fills_defaults_and_explicit_options_win():
    paper = {"steps": 100000, "lrs": (0.01, 0.001), "validate_every": 1000}
    args = common.arguments(steps=1000, hidden=16, paper=paper, argv=["--paper"])
    assert (args.steps, args.lrs, args.validate_every) == (100000, (0.01, 0.001), 1000)
    args = common.arguments(steps=1000, hidden=16, paper=paper,
                            argv=["--paper", "--steps", "50"])
    assert args.steps == 50 and args.lrs == (0.01, 0.001)
    args = common.arguments(steps=1000, hidden=16, paper=paper, argv=[])
    assert args.steps == 1000 and args.lrs is None
    assert common.protocol_of(args) == common.Protocol(lrs=(0.01,))


def test_estimate_is_printed_before_training_and_estimate_only_stops(monkeypatch, capsys):
    monkeypatch.chdir(ROOT)
    monkeypatch.setattr(sys, "path", list(sys.path))
    monkeypatch.delitem(sys.modules, "common", raising=False)
    monkeypatch.setattr(sys, "argv", ["deltanet_table.py", "--steps", "3", "--seeds", "1",
                                      "--hidden", "2", "--no-certify", "--estimate-only"])
    spec = importlib.util.spec_from_file_location("exp_deltanet_estimate",
                                                  ROOT / "experiments" / "deltanet_table.py")
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    saved = {}
    monkeypatch.setattr(script, "save", lambda name, payload, **_: saved.update({name: payload}))
    with pytest.raises(SystemExit) as stop:
        script.main()
    assert stop.value.code == 0 and saved == {}
    out = capsys.readouterr().out
    assert out.startswith("estimate: 6 cells (3 steps, lr 0.01, 1 seeds, last step")
    for row in ("deltanet:", "deltanet-neg:", "deltaproduct,n_h=2:"):
        assert f"  {row} " in out
