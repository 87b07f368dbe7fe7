"""A rehearsal of bench/gpu_check.sh on the CUDA emulator.

A session lent a GPU has 15 minutes of device time for one run of that script;
this test makes sure the script, its GPU tests and its benchmarks run to the
end and record correct results (figures on the emulator mean nothing), so the
device time is not spent on a typo.

It is a slow test (it re-runs tests/test_gpu_kernels.py, which the
default suite already runs on the emulator, and the GPU benchmarks); run it
before a session with a device and after editing bench/gpu_check.sh:
``python -m pytest -m slow tests/test_gpu_check_script.py``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from xml.etree import ElementTree

import pytest
from emulated_cupy import PACKAGE, needs_gxx

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.slow
@needs_gxx
def test_gpu_check_runs_to_the_end_on_the_emulator(tmp_path: Path):
    # The emulator stands in for CuPy; device_image/ hides what the GPU image lacks.
    path = f"{PACKAGE.parent}:{PACKAGE.parent / 'device_image'}"
    env = dict(os.environ, OUT=str(tmp_path), PYTHON=sys.executable, PYTHONPATH=path,
               GPU_CHECK_LENGTH="20000", GPU_CHECK_MAX_EXP="4")
    done = subprocess.run(["bash", str(ROOT / "bench" / "gpu_check.sh")], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    stages = json.loads((tmp_path / "gpu_check.json").read_text())["stages"]
    logs = {name: (tmp_path / f"{name}.log").read_text()[-2000:] for name in stages}
    for name in ("imports", "pytest_gpu", "bench_gpu", "scaling_gpu"):
        assert stages[name]["ok"], logs[name]
    suite = ElementTree.parse(tmp_path / "pytest_gpu.xml").getroot().find("testsuite")
    assert suite is not None
    counts = {k: int(suite.get(k, "0")) for k in ("tests", "failures", "errors", "skipped")}
    assert counts["tests"] >= 25 and counts["failures"] == counts["errors"] == 0
    assert counts["skipped"] == 0, logs["pytest_gpu"]
    bench = json.loads((tmp_path / "bench_gpu.json").read_text())
    assert bench.pop("emulated") is True and bench.pop("device")
    assert len(bench) == 5
    for name, row in bench.items():
        assert "error" not in row, (name, row)
        checks = [row] if "state_matches_numba" in row else [row["auto"], row["direct"]]
        assert all(r["state_matches_numba"] for r in checks), (name, row)
    scaling = json.loads((tmp_path / "scaling_gpu.json").read_text())
    assert [r["length"] for r in scaling] == [10**3, 10**4] and all(
        r["backend"] == "cupy" for r in scaling)
