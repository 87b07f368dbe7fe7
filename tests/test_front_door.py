"""The front door, round two: what a new user hit (Ctrl-C, output paths, wrong inputs,
leaked internal values, standard output shared, help texts, misspelt architectures).

Each test runs the command line (in process through :func:`fsmnet.cli.main`, or as
``python -m fsmnet`` where a signal or raw standard output is involved) in a scratch
directory holding a regular file ``afile``, a directory ``adir`` and a compiled
``net.safetensors``.
"""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from cli_scratch import listing
from cli_scratch import run_cli as cli

import fsmnet

# Under /proc nothing can be created, not even by root (for whom os.access says yes).
UNWRITABLE = "/proc/fsmnet-front-door.json"
needs_proc = pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="needs Linux /proc")


def noisy_parity() -> fsmnet.Network:
    net = fsmnet.compile("parity", "bilinear-full")
    rng = np.random.default_rng(0)
    return net.with_params(**{k: v + 1e-2 * rng.standard_normal(v.shape)
                              for k, v in net.params.items()})


def one_line_error(code: int, out: str, err: str) -> str:
    """Bad input: exit 2, nothing on stdout, one line on stderr; returns that line."""
    assert code == 2, (code, out, err)
    assert out == "", out
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


# ------------------------------------------------------------------ 1. Ctrl-C
def _start(args: list[str], cwd: Path) -> tuple[subprocess.Popen[str], queue.Queue[str]]:
    proc = subprocess.Popen([sys.executable, "-m", "fsmnet", *args], cwd=cwd, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    lines: queue.Queue[str] = queue.Queue()

    def pump(stream: Any) -> None:
        for line in stream:
            lines.put(line)

    for stream in (proc.stdout, proc.stderr):
        threading.Thread(target=pump, args=(stream,), daemon=True).start()
    return proc, lines


def _interrupt_after(proc: subprocess.Popen[str], lines: queue.Queue[str], marker: str,
                     bound: float = 60) -> tuple[int, str]:
    """Wait for a line holding ``marker`` (the long phase has begun), then a little
    more so the signal lands inside a kernel, send SIGINT, and wait for the exit
    (``bound`` seconds at most: a bound against a hang, not a measurement)."""
    seen = []
    try:
        while True:
            line = lines.get(timeout=120)  # a bound against a hang, not a measurement
            seen.append(line)
            if marker in line:
                break
        try:
            proc.wait(timeout=2)  # let the scan get going; it must not end by itself
        except subprocess.TimeoutExpired:
            pass
        assert proc.poll() is None, f"ended before the signal: {''.join(seen)}"
        proc.send_signal(signal.SIGINT)
        code = proc.wait(timeout=bound)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    while not lines.empty():
        seen.append(lines.get())
    return code, "".join(seen)


@pytest.fixture(scope="module")
def slow_net(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A noisy S4 network (hidden size 24): a 2^24-symbol piece, the old unit of work,
    takes about 10 s through its mat-vec kernel on 2 cores, 15 s in float32."""
    net = fsmnet.compile("symmetric:4", "bilinear-full")
    rng = np.random.default_rng(0)
    noisy = net.with_params(**{k: v + 1e-3 * rng.standard_normal(v.shape)
                               for k, v in net.params.items()})
    path = tmp_path_factory.mktemp("slow") / "s4.safetensors"
    noisy.save(path)
    return path


# float32 is slow-marked: the same interrupt handler as float64 (the default suite's
# representative), a second subprocess of a few seconds.
@pytest.mark.parametrize("float32", [False, pytest.param(True, marks=pytest.mark.slow)],
                         ids=["float64", "float32"])
def test_ctrl_c_stops_a_long_run_with_exit_130(float32: bool, slow_net: Path,
                                               tmp_path: Path) -> None:
    # Before: the Ctrl-C waited for the whole piece, then came back from the Numba
    # kernel as a SystemError (exit 4, "internal error").  The bound on the exit (in
    # _interrupt_after) is far above one slice (about 0.2 s) and below one old piece.
    # The signal goes after the warm-up ("scanning", at -vv): a JIT compile under load
    # can take longer than the bound, and a Ctrl-C inside one is test_interrupts.py's.
    proc, lines = _start(["run", "symmetric:4", "--net", str(slow_net), "--length", "1e10",
                          "--max-length", "1e12", "-vv"] + (["--float32"] if float32 else []),
                         tmp_path)
    code, text = _interrupt_after(proc, lines, "scanning", bound=8)
    assert code == 130, text
    assert "interrupted" in text and "internal error" not in text, text
    assert "accuracy" not in text  # no result was printed


@pytest.mark.slow  # the default suite interrupts training itself (test_front_door_more.py)
def test_ctrl_c_stops_the_long_check_of_train_and_leaves_no_network(scratch: Path) -> None:
    before = listing(scratch)
    proc, lines = _start(["train", "parity", "--arch", "bilinear-full", "--hidden", "4",
                          "--steps", "3", "--long-length", "1e10", "-o", "out.safetensors",
                          "-v"], scratch)
    code, text = _interrupt_after(proc, lines, "random symbols")
    assert code == 130, text
    assert "interrupted" in text and "internal error" not in text, text
    assert listing(scratch) == before  # no network, no temporary file


def test_slicing_a_piece_changes_no_result(monkeypatch: pytest.MonkeyPatch,
                                           tmp_path: Path) -> None:
    from fsmnet.gpu import checked

    path = tmp_path / "noisy.safetensors"
    noisy_parity().save(path)
    calls = []
    real_next = checked._Slices.next

    def whole(self: Any, remaining: int) -> int:
        return remaining

    def counted(self: Any, remaining: int) -> int:
        calls.append(remaining)
        return real_next(self, remaining)

    monkeypatch.setattr(checked._Slices, "next", whole)
    want = checked.run_checked("parity", length=600_000, net_path=str(path), seed=2)
    monkeypatch.setattr(checked._Slices, "next", counted)
    monkeypatch.setattr(checked, "SLICE_SECONDS", 0.0)  # every slice the smallest
    got = checked.run_checked("parity", length=600_000, net_path=str(path), seed=2)
    assert len(calls) >= 5  # the piece really was cut
    assert want.accuracy is not None and 0 < want.accuracy < 1  # a drifting network
    assert got.accuracy == want.accuracy and got.path == want.path


def test_a_ctrl_c_reported_as_systemerror_is_an_interrupt(monkeypatch: pytest.MonkeyPatch,
                                                          scratch: Path,
                                                          capsys: pytest.CaptureFixture[str]
                                                          ) -> None:
    from fsmnet.gpu import checked

    def kernel() -> None:  # what Numba's dispatcher raises when SIGINT lands in a kernel
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt as exc:
            raise SystemError("returned a result with an exception set") from exc

    with pytest.raises(KeyboardInterrupt):
        checked.interruptible(kernel)
    with pytest.raises(SystemError):  # a SystemError of another cause stays one
        checked.interruptible(lambda: (_ for _ in ()).throw(SystemError("other")))

    def run_checked(*args: Any, **kwargs: Any) -> None:
        kernel()

    monkeypatch.setattr(checked, "run_checked", run_checked)
    code, out, err = cli(["run", "parity", "--net", "net.safetensors", "--length", "10"],
                         capsys)
    assert code == 130 and out == "" and "interrupted" in err and "internal" not in err


# ------------------------------------------------------------------ 2. outputs first
@pytest.mark.parametrize("path", ["adir", "nodir/c.json", "afile/c.json",
                                  pytest.param(UNWRITABLE, marks=needs_proc)])
def test_certify_checks_the_certificate_path_before_the_proof(
        path: str, scratch: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = listing(scratch)
    line = one_line_error(*cli(["certify", "net.safetensors", "parity", "--certificate",
                                path], capsys))
    assert path in line and "cannot write here" in line
    assert listing(scratch) == before


@needs_proc
def test_verify_finds_an_unwritable_place_before_the_proof(
        scratch: Path, capsys: pytest.CaptureFixture[str]) -> None:
    line = one_line_error(*cli(["verify", "parity", "net.safetensors", "--certificate",
                                UNWRITABLE], capsys))
    assert "not writable" in line


@needs_proc
def test_check_output_tries_the_directory() -> None:
    from fsmnet.io import OutputError, check_output

    with pytest.raises(OutputError, match="not writable"):
        check_output(UNWRITABLE)


def _no_training(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    import fsmnet.train.loop

    calls: list[object] = []
    monkeypatch.setattr(fsmnet.train.loop, "train", lambda *a, **k: calls.append(a))
    return calls


@pytest.mark.parametrize("extra", [
    ["-o", "adir"], ["-o", "nodir/n.safetensors"],
    pytest.param(["-o", "n.safetensors", "--plot", "/proc/fsmnet-p.png"], marks=needs_proc),
    ["-o", "n.safetensors", "--plot", "nodir/p.png"],
    ["-o", "-", "--plot", "-"], ["-o", "-", "--json"],
])
def test_train_checks_every_output_before_training(
        extra: list[str], scratch: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    calls = _no_training(monkeypatch)
    before = listing(scratch)
    one_line_error(*cli(["train", "parity", "--arch", "bilinear-full", "--steps", "1",
                         *extra], capsys))
    assert calls == [] and listing(scratch) == before


def test_plot_without_matplotlib_says_how_to_install_it(
        scratch: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    calls = _no_training(monkeypatch)
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib fails
    line = one_line_error(*cli(["train", "parity", "--arch", "bilinear-full", "--steps", "1",
                                "-o", "n.safetensors", "--plot", "p.png"], capsys))
    assert "matplotlib" in line and "pip install matplotlib" in line
    assert calls == [] and not (scratch / "n.safetensors").exists()
    line = one_line_error(*cli(["hierarchy", "--plot", "h.png", "--task", "parity",
                                "--arch", "bilinear-full", "--length", "1"], capsys))
    assert "pip install" in line


def test_train_writes_the_network_after_its_checks(scratch: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = cli(["train", "parity", "--arch", "bilinear-full", "--hidden", "2",
                          "--steps", "2", "--long-length", "100", "-o", "n.safetensors"],
                         capsys)
    assert code == 0, err
    assert fsmnet.load_network(str(scratch / "n.safetensors")).arch == "bilinear-full"
    assert "wrote n.safetensors" in out


# ------------------------------------------------------------------ 3. wrong inputs
def test_check_of_a_spec_is_bad_input_not_an_invalid_certificate(
        scratch: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spec = {"states": ["e", "o"], "input_symbols": ["a"],
            "transitions": {"e": {"a": "o"}, "o": {"a": "e"}},
            "initial_state": "e", "final_states": ["e"]}
    (scratch / "spec.json").write_text(json.dumps(spec))
    line = one_line_error(*cli(["check", "spec.json"], capsys))
    assert "not a certificate" in line and "spec" in line
    (scratch / "list.json").write_text("[1, 2]")
    assert "not a certificate" in one_line_error(*cli(["check", "list.json"], capsys))
    # A certificate (it says so) with a false claim stays "invalid", exit 1.
    assert cli(["verify", "parity", "net.safetensors", "--certificate", "c.json"],
               capsys)[0] == 0
    cert = json.loads((scratch / "c.json").read_text())
    cert["automaton"]["outputs"] = cert["automaton"]["outputs"][::-1]
    (scratch / "bad.json").write_text(json.dumps(cert))
    code, out, _ = cli(["check", "bad.json"], capsys)
    assert code == 1 and out.startswith("invalid")


def test_a_directory_is_not_called_missing(scratch: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    line = one_line_error(*cli(["verify", "parity", "adir"], capsys))
    assert "adir" in line and "directory" in line and "no such" not in line
    assert "no such network file" in one_line_error(*cli(["verify", "parity", "nofile"],
                                                         capsys))


# ------------------------------------------------------------------ 4. no internal values
ODD = {"name": "odd", "states": ["e", "o"], "input_symbols": ["0", "1"],
       "transitions": {"e": {"0": "e", "1": "o"}, "o": {"0": "o", "1": "e"}},
       "initial_state": "e", "final_states": ["o"]}


def test_a_refutation_by_the_empty_word_reads_as_such(scratch: Path,
                                                      capsys: pytest.CaptureFixture[str]
                                                      ) -> None:
    # The network says parity's True on the empty word; odd says False.
    (scratch / "odd.json").write_text(json.dumps(ODD))
    code, out, _ = cli(["certify", "net.safetensors", "odd.json"], capsys)
    first = out.splitlines()[0]
    assert code == 1 and first.startswith("refuted by the empty word ("), out
    assert "None" not in out and "-1" not in out
    code, out, _ = cli(["certify", "net.safetensors", "odd.json", "--json"], capsys)
    result = json.loads(out)  # the documented contract (docs/certify.md)
    assert code == 1 and result["proved_length"] == -1 and result["domain"] is None
    assert result["counterexample"]["word"] == []


def test_verdict_lines() -> None:
    from fsmnet.cli.certify import verdict_line
    from fsmnet.proofs.abstract.certify import CertifyResult

    class Cex:
        word = ("0", "1", "1")

    refuted = CertifyResult("refuted", "abstract-search", counterexample=Cex(),
                            proved_length=2, domain=None, seconds=0.5)
    assert verdict_line(refuted) == "refuted by a word of length 3 (abstract-search; 0.50 s)"
    unknown = CertifyResult("unknown", "bounded", proved_length=12, domain="slice-box")
    assert verdict_line(unknown) == \
        "unknown (bounded; domain slice-box; proved up to length 12; 0.00 s)"
    proved = CertifyResult("proved", "exact-product", domain="exact-states")
    assert verdict_line(proved) == "proved (exact-product; domain exact-states; 0.00 s)"


# ------------------------------------------------------------------ 5. stdout is the file
def test_info_dot_dash_writes_only_the_picture(scratch: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = cli(["info", "flipflop", "--dot", "-"], capsys)
    assert code == 0
    assert out.startswith("digraph") and out.rstrip().endswith("}")
    assert "monoid size" not in out and "monoid size" in err  # the table went aside
    one_line_error(*cli(["info", "flipflop", "--dot", "-", "--json"], capsys))


def test_other_pictures_to_stdout_keep_it_clean(scratch: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = cli(["decompose", "flipflop", "--dot", "-"], capsys)
    assert code == 0 and out.startswith("digraph") and "level" in err
    code, out, err = cli(["compile", "parity", "--arch", "bilinear-full", "-o", "p.safetensors",
                          "--dot", "-"], capsys)
    assert code == 0 and out.startswith("digraph") and "hidden size" in err
    one_line_error(*cli(["compile", "parity", "--arch", "bilinear-full", "-o", "-",
                         "--dot", "-"], capsys))


def test_hierarchy_plot_to_stdout_is_a_png(scratch: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "fsmnet", "hierarchy", "--plot", "-",
                           "--task", "parity", "--arch", "bilinear-full", "--length", "1"],
                          cwd=scratch, capture_output=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(b"\x89PNG") and b"| task |" in done.stderr


# ------------------------------------------------------------------ 6. help texts
def test_every_train_option_says_what_it_does_and_its_default() -> None:
    from fsmnet.cli import build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    train = sub.choices["train"]  # type: ignore[index]
    actions = {a.dest: a for a in train._actions}
    for dest in ("steps", "batch", "lr", "seed", "eval_length", "long_length"):
        assert actions[dest].help and "%(default)s" in actions[dest].help, dest
    for dest in ("json", "spec"):
        assert actions[dest].help, dest
    text = train.format_help()
    assert "(default 1000)" in text and "(default 0.01)" in text and "(default 500)" in text


# ------------------------------------------------------------------ 7. did you mean
def test_misspelt_architectures_get_a_suggestion(scratch: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (["compile", "parity", "--arch", "bilinear-ful", "-o", "x.safetensors"],
                 ["train", "parity", "--arch", "bilinear-ful"],
                 ["expressivity", "parity", "--arch", "bilinear-ful"],
                 ["run", "parity", "--arch", "bilinear-ful", "--length", "10"]):
        line = one_line_error(*cli(argv, capsys))
        assert "did you mean 'bilinear-full'?" in line, argv
    with pytest.raises(fsmnet.SpecError, match="did you mean 'bilinear-full'"):
        fsmnet.compile("parity", arch="bilinear-ful")
    with pytest.raises(fsmnet.SpecError) as info:  # nothing close: no guess
        fsmnet.compile("parity", arch="zzz")
    assert "did you mean" not in str(info.value) and "bilinear-full" in str(info.value)
    from fsmnet.errors import NetworkFileError
    from fsmnet.nets.semantics import semantics_for

    with pytest.raises(NetworkFileError, match="did you mean 'minmax-dense'"):
        semantics_for("minmax-dens")


def test_a_family_with_a_comma_is_told_about_the_colon(capsys: pytest.CaptureFixture[str]
                                                       ) -> None:
    line = one_line_error(*cli(["info", "parity,gens"], capsys))
    assert "'parity' takes no parameters" in line and "did you mean 'parity'" not in line
    line = one_line_error(*cli(["info", "symmetric,3"], capsys))
    assert "did you mean 'symmetric:3'?" in line
