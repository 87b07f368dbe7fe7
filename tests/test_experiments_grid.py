"""The tables' grid (experiments/common.py): a cell ends at its first perfect
validation, an interrupted table resumes from its per-cell records, and the hidden
size grows with the task.

Independent sources: the compiled parity network (exact, so perfect on every word
from the first step: a checkpoint a selection can never beat), counted training
runs (a reused record trains nothing; a changed budget or ``--force`` retrains
every cell), and the tasks' state counts by their definitions.
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
import time

import pytest
from experiment_scripts import ROOT, load_script

pytest.importorskip("torch")

import torch  # noqa: E402

import fsmnet  # noqa: E402
from fsmnet.train import convert  # noqa: E402

common = load_script("common.py", "exp_common_grid")


def _perfect_parity():
    # Readout scaled by 1000: every margin is huge, so a few steps of training
    # cannot move the compiled (exact) parity network off 100 %; its float32 loss is
    # exactly 0 from the first step, which is validated (a checkpoint at step 1).
    module = convert.from_network(fsmnet.compile("parity", "bilinear-real-diag"))
    with torch.no_grad():
        module.readout.mul_(1000.0)
    return module


@pytest.mark.parametrize("stop", [True, False])
def test_a_perfect_checkpoint_ends_the_cell_and_skips_later_rates(stop):
    protocol = common.Protocol(lrs=(0.1, 0.01), validate_every=10, validate_length=30,
                               validate_words=16, stop_at_perfect=stop)
    _, record = common.train_selected("parity", "bilinear-real-diag", 0, hidden=2, steps=30,
                                      protocol=protocol, start=_perfect_parity())
    assert record["selected"]["val"] == 1.0
    if stop:
        assert record["stopped"] == {
            "0.1": {"step": 1, "why": common.PERFECT},
            "0.01": {"step": 0, "why": "skipped: a perfect checkpoint"}}
        assert [(c["lr"], c["step"]) for c in record["checkpoints"]] == [(0.1, 1)]
    else:
        assert [(c["lr"], c["step"]) for c in record["checkpoints"]] == [
            (lr, s) for lr in (0.1, 0.01) for s in (1, 10, 20, 30)]


def test_stop_at_perfect_is_an_option_and_is_described():
    args = common.arguments(steps=100, hidden=4, argv=["--lrs", "0.1,0.01",
                                                        "--validate-every", "10",
                                                        "--stop-at-perfect"])
    protocol = common.protocol_of(args)
    assert protocol.stop_at_perfect
    assert "first perfect validation" in protocol.describe(100, 3)
    assert "perfect" not in common.protocol_of(
        common.arguments(steps=100, hidden=4, argv=[])).describe(100, 3)


@pytest.mark.parametrize("argv", [["--jobs", "0"], ["--jobs", "-2"]])
def test_jobs_below_one_are_refused(argv, capsys):
    with pytest.raises(SystemExit) as stop:
        common.arguments(steps=10, hidden=4, argv=argv)
    assert stop.value.code == 2
    assert "must be at least 1" in capsys.readouterr().err


def test_grow_hidden_rounds_the_state_count_up_to_a_multiple_of_eight():
    # States by the tasks' definitions: parity 2, modadd:m (sum mod m) m.
    for spec, states, floor, expected in (("parity", 2, 1, 8), ("modadd:3", 3, 4, 8),
                                          ("modadd:10", 10, 4, 16),
                                          ("modadd:17", 17, 32, 32)):
        assert len(common.task_automaton(spec).states) == states
        grown = common.arguments(steps=10, hidden=floor, argv=["--grow-hidden"])
        plain = common.arguments(steps=10, hidden=floor, argv=[])
        assert common.hidden_for(spec, grown) == expected
        assert common.hidden_for(spec, plain) == floor


@pytest.fixture
def counted(monkeypatch):
    """run_cell replaced by a counting stand-in: the grid's bookkeeping, not training."""
    calls = []

    def fake(**run):
        calls.append((run["spec"], run["arch"], run["seed"], run["steps"]))
        return {"spec": run["spec"], "arch": run["arch"], "seed": run["seed"],
                "acc_500": 0.5 + run["seed"] / 10, "steps": run["steps"]}

    monkeypatch.setattr(common, "run_cell", fake)
    monkeypatch.setattr(common, "print_estimate", lambda *a, **k: None)
    return calls


def _grid(tmp_path, counted, *extra):
    args = common.arguments(steps=20, hidden=4, argv=["--seeds", "2", "--no-certify",
                                                       "--out", str(tmp_path), *extra])
    return common.run_grid(["parity", "modadd:3"], [("bilinear-cp", {}),
                                                    ("deltanet", {})],
                           args, table="t", line=lambda cell: f"{cell['acc_500']}")


def test_an_interrupted_table_resumes_from_its_records(tmp_path, counted):
    first = _grid(tmp_path, counted)
    assert len(counted) == 8 and len(first) == 8
    records = sorted(p.name for p in tmp_path.glob("*.json"))
    assert len(records) == 8 and not list(tmp_path.glob("*.tmp"))
    # lose two records, as a run killed before their cells ended would
    (tmp_path / records[0]).unlink()
    (tmp_path / records[5]).unlink()
    counted.clear()
    second = _grid(tmp_path, counted)
    assert len(counted) == 2
    assert second == first  # same cells, in grid order
    counted.clear()
    assert _grid(tmp_path, counted) == first and counted == []


def test_a_changed_budget_or_force_retrains(tmp_path, counted):
    _grid(tmp_path, counted)
    counted.clear()
    cells = _grid(tmp_path, counted, "--steps", "30")
    assert len(counted) == 8 and {c["steps"] for c in cells} == {30}
    counted.clear()
    _grid(tmp_path, counted, "--steps", "30", "--force")
    assert len(counted) == 8
    counted.clear()
    _grid(tmp_path, counted, "--steps", "30", "--stop-at-perfect", "--lrs", "0.01,0.1",
          "--validate-every", "5")
    assert len(counted) == 8  # another protocol is another cell


def test_a_record_names_its_key(tmp_path, counted):
    _grid(tmp_path, counted)
    record = json.loads(next(tmp_path.glob("parity__bilinear-cp__s1.json")).read_text())
    assert record["key"]["spec"] == "parity" and record["key"]["seed"] == 1
    assert record["key"]["steps"] == 20 and record["key"]["hidden"] == 4
    assert record["cell"]["row"] == "bilinear-cp"
    # Where and when (experiments/provenance.py): the machine changes matmul-based rows.
    recorded = record["recorded"]
    assert recorded["date"].startswith(time.strftime("%Y-", time.gmtime()))
    assert recorded["logical_cores"] == os.cpu_count() and recorded["cpu"]
    assert recorded["torch"] == torch.__version__


def test_an_unreadable_record_stops_the_table_with_its_name(tmp_path, counted, capsys):
    _grid(tmp_path, counted)
    bad = tmp_path / "modadd_3__deltanet__s0.json"
    assert bad.exists()
    bad.write_text("{not json")
    capsys.readouterr()
    with pytest.raises(SystemExit) as stop:
        _grid(tmp_path, counted)
    assert stop.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "modadd_3__deltanet__s0.json: unreadable" in err[0]
    assert bad.read_text() == "{not json"  # nothing lost


@pytest.mark.slow
def test_two_jobs_give_the_cells_of_one(tmp_path, monkeypatch):
    # Real training in two worker processes against one in-process run: the same
    # figures, cell for cell (each cell is seeded and single-threaded).  A worker
    # imports the grid by module name, as the scripts do, so the grid is imported
    # that way here rather than loaded by path.
    monkeypatch.syspath_prepend(str(ROOT / "experiments"))
    monkeypatch.delitem(sys.modules, "common", raising=False)
    grid_module = importlib.import_module("common")

    def grid(out, jobs):
        args = grid_module.arguments(steps=10, hidden=4, argv=[
            "--seeds", "2", "--no-certify", "--eval-length", "30", "--out", str(out),
            "--jobs", str(jobs)])
        return grid_module.run_grid(["parity"], [("bilinear-cp", {})], args, table="t",
                                    line=lambda cell: "")

    one = grid(tmp_path / "one", 1)
    two = grid(tmp_path / "two", 2)
    assert len(one) == 2 and [c["seed"] for c in two] == [0, 1]
    strip = [{k: v for k, v in c.items() if k not in ("seconds", "network")} for c in one]
    assert strip == [{k: v for k, v in c.items() if k not in ("seconds", "network")}
                     for c in two]


def test_agreement_with_the_paper_counts_best_and_mean_within_the_band(monkeypatch):
    monkeypatch.chdir(ROOT)  # the script finds its helpers from the repository root
    monkeypatch.setattr(sys, "path", list(sys.path))
    table = load_script("seed000_table.py", "exp_seed000_agreement")
    # Figures worked by hand against the paper's (seed summary 000): parity full 1.00,
    # mod 3 real diagonal 0.00, mod 3 R2 0.00.  Exactly 0.05 away counts as within.
    assert table.within(0.95, "1.00") and table.within(1.0, "0.95")
    assert not table.within(0.944, "1.00") and table.within(0.054, "0.00")
    assert table.within(0.3, "—") is None
    cells = [{"spec": "modadd:2", "arch": "bilinear-full", "norm": v} for v in (1.0, 0.9)]
    cells += [{"spec": "modadd:3", "arch": "bilinear-real-diag", "norm": v}
              for v in (0.02, 0.04)]
    cells += [{"spec": "modadd:3", "arch": "bilinear-r2", "norm": v} for v in (0.3, 0.0)]
    tasks = [("modadd:2", ""), ("modadd:3", "")]
    archs = [("bilinear-full", ""), ("bilinear-real-diag", ""), ("bilinear-r2", ""),
             ("bilinear-cp", "")]
    # best: full 1.00 ✓, real diag 0.04 ✓, R2 0.30 ✗ -> 2 of 3 (CP has no cells);
    # mean: full 0.95 ✓, real diag 0.03 ✓, R2 0.15 ✗ -> 2.
    assert table.agreement(cells, tasks, archs) == (
        "within ±0.05 of the paper: 2 of 3 cells by the best seed, 2 by the mean")


def test_a_table_json_goes_beside_its_records_not_over_the_default(tmp_path, monkeypatch):
    """With --out DIR the table's JSON is DIR/NAME.json; without it, results/NAME.json
    (redirected here to a temporary folder, so the committed file is not touched)."""
    default = tmp_path / "results"
    monkeypatch.setattr(common, "RESULTS", str(default))
    run = tmp_path / "run"
    def saved(path):  # the payload, without the provenance every table gets
        data = json.loads(path.read_text())
        assert set(data.pop("recorded")) >= {"date", "cpu", "torch"}
        return data

    assert common.save("t", {"x": 1}, out=str(run)) == str(run / "t.json")
    assert saved(run / "t.json") == {"x": 1}
    assert not default.exists()
    assert common.save("t", {"x": 2}) == str(default / "t.json")
    assert saved(run / "t.json") == {"x": 1}
