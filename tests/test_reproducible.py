"""A compile is a function of its inputs and options.

Two separate interpreters with different hash seeds (so set and dict-of-set orders
differ) compile every registered architecture; the files must be byte-identical.
bilinear-cp runs with ``search=False`` here: its rank search is made deterministic
separately (fsmnet/constructions/bilinear_cp.py).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import fsmnet
from fsmnet import archs
from fsmnet.cli import main
from fsmnet.errors import NetworkFileError

# Candidate tasks, tried in order: the first that an architecture expresses is used.
# parity is a group language, flipflop star-free, atleast:2 commutative and aperiodic.
CANDIDATES = ["parity", "flipflop", "atleast:2", "modadd:3", "starfree"]

_SCRIPT = """
import json, os, sys
import fsmnet
from fsmnet import archs
from fsmnet.errors import NotExpressible
out, candidates = sys.argv[1], json.loads(sys.argv[2])
used = {}
for arch in archs.ids():
    options = {"search": False} if arch == "bilinear-cp" else {}
    for spec in candidates:
        try:
            net = fsmnet.compile(spec, arch, **options)
        except NotExpressible:
            continue
        net.save(os.path.join(out, arch + ".safetensors"))
        used[arch] = spec
        break
print(json.dumps(used))
"""


def _start(folder: Path, hash_seed: str) -> subprocess.Popen[str]:
    folder.mkdir()
    return subprocess.Popen([sys.executable, "-c", _SCRIPT, str(folder), json.dumps(CANDIDATES)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=dict(os.environ, PYTHONHASHSEED=hash_seed))


def _finish(proc: subprocess.Popen[str]) -> dict[str, str]:
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err[-2000:]
    return json.loads(out.strip().splitlines()[-1])


def test_every_architecture_compiles_to_identical_bytes(tmp_path: Path) -> None:
    # The two interpreters run side by side (they share nothing but the code).
    procs = [_start(tmp_path / "a", "1"), _start(tmp_path / "b", "2")]
    first, second = (_finish(proc) for proc in procs)
    assert first == second
    assert set(first) == set(archs.ids()), "an architecture expresses no candidate"
    for arch in first:
        a = (tmp_path / "a" / f"{arch}.safetensors").read_bytes()
        b = (tmp_path / "b" / f"{arch}.safetensors").read_bytes()
        assert a == b, arch


def _header(path: Path) -> dict:
    from safetensors import safe_open

    with safe_open(str(path), framework="numpy") as handle:
        return json.loads(handle.metadata()["fsmnet"])


def test_header_records_version_and_every_option(tmp_path: Path) -> None:
    path = tmp_path / "fp.safetensors"
    fsmnet.compile("parity", "fixed-point", attempts=70).save(path)
    header = _header(path)
    assert header["fsmnet_version"] == fsmnet.__version__
    # The given option and the defaults of compile_fixed_point's signature.
    assert header["options"]["compile_options"] == {"seed": 0, "attempts": 70,
                                                    "sign_channel": None,
                                                    "tuning_steps": 100_000}
    path = tmp_path / "r2.safetensors"
    fsmnet.compile("parity", "bilinear-r2", mu="1/8").save(path)
    assert _header(path)["options"]["compile_options"] == {"mu": "1/8"}


def test_cli_compiles_twice_to_the_same_file(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    for name in ("a", "b"):
        assert main(["compile", "modadd:5", "--arch", "bilinear-block", "-o",
                     str(tmp_path / f"{name}.safetensors")]) == 0
    capsys.readouterr()
    assert (tmp_path / "a.safetensors").read_bytes() == (tmp_path / "b.safetensors").read_bytes()


def test_files_without_the_version_still_load(tmp_path: Path) -> None:
    from safetensors.numpy import save_file

    net = fsmnet.compile("parity", "bilinear-full")
    old = {k: v for k, v in net.header().items() if k != "fsmnet_version"}
    save_file(dict(net.params), str(tmp_path / "old.safetensors"),
              metadata={"fsmnet": json.dumps(old)})
    back = fsmnet.load_network(tmp_path / "old.safetensors")
    assert back.output_of(["1", "1"]) is True  # parity: two 1s, even
    bad = {**old, "fsmnet_version": 3}
    save_file(dict(net.params), str(tmp_path / "bad.safetensors"),
              metadata={"fsmnet": json.dumps(bad)})
    with pytest.raises(NetworkFileError, match="fsmnet_version"):
        fsmnet.load_network(tmp_path / "bad.safetensors")


def test_run_json_reports_its_seed(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "modadd:5", "--length", "1000", "--seed", "7", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["seed"] == 7
