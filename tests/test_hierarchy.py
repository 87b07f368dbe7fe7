"""``fsmnet hierarchy``: cells agree with expressivity and the long runs are checked."""

import json

from fsmnet.cli import main
from fsmnet.decide.hierarchy import build_hierarchy, to_markdown
from fsmnet.proofs.checker import check_certificate


def test_small_table_cells_and_runs() -> None:
    table = build_hierarchy([("parity", "parity"), ("flip-flop", "flipflop")],
                            ["bilinear-full", "bilinear-positive-diag", "minmax-scalar"],
                            length=2000)
    full = table.cell("parity", "bilinear-full")
    assert full.verdict == "possible" and full.run_accuracy == 1.0 and full.run_length == 2000
    # Parity is not star-free: both positive-diagonal and scalar MinMax are ruled out,
    # each with a witness the independent checker accepts.
    for arch in ("bilinear-positive-diag", "minmax-scalar"):
        cell = table.cell("parity", arch)
        assert cell.verdict == "impossible"
        assert check_certificate(cell.witness).startswith("valid")
    # The flip-flop is aperiodic (star-free): a scalar cascade tracks it.
    assert table.cell("flip-flop", "minmax-scalar").verdict == "possible"
    md = to_markdown(table)
    table_rows = [line for line in md.splitlines() if line.startswith("|")]
    assert len(table_rows) == 4 and "✗" in md and "✓" in md
    # Three ✓ cells ran (parity × full, flip-flop × full, flip-flop × minmax-scalar).
    assert "3 ✓ cells each ran 2,000 random symbols" in md and "3 of 3" in md


def test_cli_json(capsys) -> None:
    assert main(["hierarchy", "--task", "parity", "--arch", "bilinear-full",
                 "--length", "100", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["tasks"] == ["parity"] and out["archs"] == ["bilinear-full"]
    assert out["cells"][0]["verdict"] == "possible"
