"""The runnable examples stay runnable (docs that drift are worse than none)."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_tour_runs_and_reports_proofs() -> None:
    out = subprocess.run([sys.executable, str(ROOT / "examples" / "tour.py")],
                         capture_output=True, text=True, timeout=300, check=True).stdout
    assert "bilinear-full: proved" in out and "minmax-cascade: proved" in out
    assert "broken net: refuted" in out
    assert "accuracy 1.0" in out
