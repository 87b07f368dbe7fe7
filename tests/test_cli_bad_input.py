"""Every bad input: exit code 2, one line on stderr, no traceback, no file left.

Each case is a command line run in a scratch directory that holds a
regular file ``afile``, a directory ``adir`` and a compiled ``net.safetensors``.  The
directory's contents are compared before and after: a refused command writes nothing.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from cli_scratch import listing, run_cli

import fsmnet

BAD = {
    # paths and values that fail deep inside a command (they must not end in a traceback)
    "output parent is a file": ["compile", "parity", "--arch", "bilinear-full",
                                "-o", "afile/x.safetensors"],
    "output is a directory": ["compile", "parity", "--arch", "bilinear-full", "-o", "adir"],
    "output directory missing": ["compile", "parity", "--arch", "bilinear-full",
                                 "-o", "nodir/x.safetensors"],
    "certificate parent is a file": ["verify", "parity", "net.safetensors",
                                     "--certificate", "afile/c.json"],
    "witness dir under a file": ["expressivity", "parity", "--witness-dir", "afile/w"],
    "plot under a file": ["hierarchy", "--plot", "afile/x.png", "--length", "0",
                          "--task", "parity", "--arch", "bilinear-full"],
    "binary certificate": ["check", "net.safetensors"],
    "negative run seed": ["run", "modadd:5", "--length", "100", "--seed", "-1"],
    # nonsense that must be refused, not run
    "max-states -1": ["verify", "parity", "net.safetensors", "--max-states", "-1"],
    "max-states 0": ["verify", "parity", "net.safetensors", "--max-states", "0"],
    "hierarchy length -1": ["hierarchy", "--length", "-1"],
    "negative search_seconds": ["compile", "parity", "--arch", "bilinear-cp", "-o",
                                "cp.safetensors", "--option", "search_seconds=-1"],
    "rank 0": ["compile", "parity", "--arch", "bilinear-cp", "-o", "cp.safetensors",
               "--option", "rank=0", "--option", "search=false"],
    "option of the wrong type": ["compile", "parity", "--arch", "bilinear-cp", "-o",
                                 "cp.safetensors", "--option", "search=3"],
    "negative fuzz seed": ["fuzz", "parity", "net.safetensors", "--seed", "-1"],
    # size and time guards
    "17 MB network": ["compile", "symmetric:6", "--arch", "bilinear-full",
                      "-o", "big.safetensors", "--max-bytes", "10000000"],
    "length 1e30": ["run", "modadd:5", "--length", "1e30"],
    "length nan": ["run", "modadd:5", "--length", "nan"],
    "S9 monoid": ["info", "symmetric:8,gens"],  # as S9 would; S8 builds faster
    # streams that cannot share standard output
    "certificate - with --json": ["verify", "parity", "net.safetensors",
                                  "--certificate", "-", "--json"],
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_input_is_one_line_and_exit_2(case: str, scratch: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    before = listing(scratch)
    code, _, err = run_cli(BAD[case], capsys)
    assert code == 2, (case, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1, (case, err)
    assert "Traceback" not in err and lines[0].startswith("fsmnet"), err
    assert listing(scratch) == before, case


def test_messages_name_the_value_and_the_flag(scratch: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    _, _, err = run_cli(BAD["17 MB network"], capsys)
    # W of 720 symbols x 720 states x 720 states, stored sparse: 720 x 720 non-zeros of
    # three int64 coordinates and one float64 value = 16 588 800 bytes (by hand; dense
    # it would be 2 985 984 000)
    assert "16588800 bytes" in err and "--max-bytes" in err
    _, _, err = run_cli(BAD["length 1e30"], capsys)
    assert "--max-length" in err and "1e+30" in err
    _, _, err = run_cli(BAD["S9 monoid"], capsys)
    assert "--max-cells" in err and "40320" in err  # 8! states, each its own label
    _, _, err = run_cli(BAD["negative search_seconds"], capsys)
    assert "search_seconds" in err and "-1" in err
    _, _, err = run_cli(BAD["output is a directory"], capsys)
    assert "adir" in err and "directory" in err


def test_limits_can_be_raised(scratch: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # The flag the refusal names really lets the work through.
    code, _, err = run_cli(["compile", "modadd:3", "--arch", "bilinear-full", "-o",
                            "m.safetensors", "--max-bytes", "10"], capsys)
    assert code == 2 and "--max-bytes" in err  # 3 x 3 x 3 x 8 = 216 bytes > 10
    assert run_cli(["compile", "modadd:3", "--arch", "bilinear-full", "-o",
                    "m.safetensors", "--max-bytes", "100000"], capsys)[0] == 0
    code, _, err = run_cli(["info", "modadd:5", "--max-cells", "10"], capsys)
    assert code == 2 and "--max-cells" in err  # 5 states x 5 elements = 25 > 10
    assert run_cli(["info", "modadd:5", "--max-cells", "25"], capsys)[0] == 0
    assert run_cli(["run", "parity", "--length", "200", "--max-length", "100"], capsys)[0] == 2
    assert run_cli(["run", "parity", "--length", "200", "--max-length", "200"], capsys)[0] == 0


def test_certificate_dash_goes_to_stdout(scratch: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    before = listing(scratch)
    code, out, err = run_cli(["verify", "parity", "net.safetensors", "--certificate", "-"],
                             capsys)
    assert code == 0 and "proved" in err
    cert = json.loads(out)  # stdout is exactly the certificate
    assert cert["format"] == "fsmnet-certificate"
    assert listing(scratch) == before  # no file named '-'
    (scratch / "c.json").write_text(out)
    assert run_cli(["check", "c.json", "--network", "net.safetensors"], capsys)[0] == 0


def _cli(args: list[str], cwd: Path, **kw: object) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "fsmnet", *args], cwd=cwd,
                          capture_output=True, timeout=120, check=False, **kw)  # type: ignore


def _stdin(monkeypatch: pytest.MonkeyPatch, data: bytes) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))


def test_spec_from_standard_input_json_and_yaml(scratch: Path, capsys: pytest.CaptureFixture[str],
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    spec = {"states": ["e", "o"], "input_symbols": ["a"],
            "transitions": {"e": {"a": "o"}, "o": {"a": "e"}},
            "initial_state": "e", "final_states": ["e"]}
    yaml_text = ("states: [e, o]\ninput_symbols: [a]\ntransitions: {e: {a: o}, o: {a: e}}\n"
                 "initial_state: e\nfinal_states: [e]\n")
    for text in (json.dumps(spec), yaml_text):
        _stdin(monkeypatch, text.encode())
        code, out, err = run_cli(["info", "-", "--json"], capsys)
        assert code == 0, err
        assert json.loads(out)["monoid"]["size"] == 2  # {1, a}: parity's C_2
    _stdin(monkeypatch, yaml_text.encode())
    code, _, err = run_cli(["compile", "-", "--arch", "bilinear-full", "-o", "p.safetensors"],
                           capsys)
    assert code == 0, err
    assert fsmnet.load_network(scratch / "p.safetensors").output_of(["a", "a"]) is True
    _stdin(monkeypatch, yaml_text.encode())  # read once, used for several cells
    code, out, err = run_cli(["hierarchy", "--task", "-", "--arch", "bilinear-full",
                              "--length", "10", "--json"], capsys)
    assert code == 0, err
    assert json.loads(out)["cells"][0]["verdict"] == "possible"
    _stdin(monkeypatch, b"states: [")
    code, _, err = run_cli(["info", "-"], capsys)
    assert code == 2 and len(err.strip().splitlines()) == 1 and "<stdin>" in err


def test_verify_certificate_piped_into_check(scratch: Path) -> None:
    cert = _cli(["verify", "parity", "net.safetensors", "--certificate", "-"], scratch)
    assert cert.returncode == 0, cert.stderr
    done = _cli(["check", "-"], scratch, input=cert.stdout)  # verify ... - | check -
    assert done.returncode == 0, done.stderr
    assert not (scratch / "-").exists()


def test_output_to_dev_stdout_streams_and_keeps_the_link(scratch: Path) -> None:
    # Run as root, a writer that renames a temporary file over its target would
    # replace the /dev/stdout link with a regular file.
    link = os.readlink("/dev/stdout") if os.path.islink("/dev/stdout") else None
    with open(scratch / "out.bin", "wb") as sink:
        done = subprocess.run([sys.executable, "-m", "fsmnet", "compile", "parity", "--arch",
                               "bilinear-full", "-o", "/dev/stdout"], cwd=scratch,
                              stdout=sink, stderr=subprocess.PIPE, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert (os.readlink("/dev/stdout") if os.path.islink("/dev/stdout") else None) == link
    net = fsmnet.load_network(scratch / "out.bin")  # stdout holds the network, nothing else
    assert net.arch == "bilinear-full" and b"bilinear-full network" in done.stderr
    done = _cli(["compile", "parity", "--arch", "bilinear-full", "-o", "-"], scratch)
    assert done.returncode == 0 and done.stdout.startswith((scratch / "out.bin").read_bytes()[:8])
    assert not (scratch / "-").exists()


def test_expressivity_exit_codes(scratch: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # modadd:3 is not expressible by a real-diagonal class (theorem 2: u has a 3-cycle).
    code, out, _ = run_cli(["expressivity", "modadd:3", "--arch", "bilinear-real-diag"],
                           capsys)
    assert code == 1 and "impossible" in out
    code, out, _ = run_cli(["expressivity", "modadd:3", "--arch", "bilinear-full"], capsys)
    assert code == 0 and "possible" in out  # one-hot bilinear expresses every DFA
    code, out, _ = run_cli(["expressivity", "modadd:3", "--arch", "bilinear-full", "--arch",
                            "bilinear-real-diag", "--json"], capsys)
    assert code == 1
    assert {r["verdict"] for r in json.loads(out)["results"]} == {"possible", "impossible"}


def test_expressivity_exit_code_rule() -> None:
    from fsmnet.cli.expressivity import exit_code

    assert exit_code(["possible", "possible"]) == 0
    assert exit_code(["possible", "unknown"]) == 3
    assert exit_code(["unknown", "impossible"]) == 1
    assert exit_code(["impossible"]) == 1
