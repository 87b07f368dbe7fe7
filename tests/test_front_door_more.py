"""The front door, round two, the rest: size guards before long algebra, Ctrl-C inside it,
help texts and their examples.

A SIGINT test per long phase, each showing exit 130 and no file left: the scan and
train's long-length check in tests/test_front_door.py; training, the monoid (Konieczny,
and Froidure-Pin over 64 states) and the holonomy decomposition here.

Commands run in process through :func:`fsmnet.cli.main`, or as ``python -m fsmnet`` where
a signal is involved (the helpers of ``tests/test_front_door.py``).
"""

from __future__ import annotations

import queue
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.test_front_door import _interrupt_after, _start, cli, listing, one_line_error


def _no_enumeration(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Record every start of the monoid's enumeration (Konieczny or Froidure-Pin)."""
    from fsmnet.algebra.monoid import TransitionMonoid

    started: list[str] = []
    for name in ("_konieczny_structure", "_froidure_pin"):
        real = getattr(TransitionMonoid, name)

        def record(self: object, real: object = real, name: str = name) -> object:
            started.append(name)
            return real(self)  # type: ignore[operator]

        monkeypatch.setattr(TransitionMonoid, name, record)
    return started


@pytest.mark.parametrize("spec", ["random:n=20,k=3,seed=1",
                                  "random:n=20,k=3,seed=1,classes=state",
                                  "random:n=20,k=3,seed=1,classes=5",
                                  "random:n=30,k=2,seed=0"])
def test_info_of_a_large_random_monoid_is_refused_before_any_enumeration(
        spec: str, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    # The acceptor has two output labels but 18 minimal states; its monoid's D-class of
    # rank 3 alone has tens of millions of elements (size_lower_bound), far above the
    # 200e6 / 18 the default --max-cells allows.
    started = _no_enumeration(monkeypatch)
    line = one_line_error(*cli(["info", spec], capsys))
    assert started == []  # refused on the bound, not at the limit of an enumeration
    assert "a lower bound: one D-class of rank" in line, line
    assert "above --max-cells 2e+08" in line and "raise --max-cells (e.g. --max-cells 1e" in line
    line = one_line_error(*cli(["info", spec, "--max-cells", "1e15", "--max-size", "1e6"],
                               capsys))
    assert started == [] and "more than 1000000 (--max-size)" in line, line


@pytest.mark.parametrize("flag, value", [("--max-cells", "90000"), ("--max-size", "1e4")])
def test_info_stops_an_enumeration_the_bound_let_through_at_the_limit(
        flag: str, value: str, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    # random:n=10,k=3,seed=1: 9 minimal states, a monoid of 58883 elements (libsemigroups),
    # a bound of 5439: 90000 cells allow 10000 elements, so Konieczny starts and stops there.
    started = _no_enumeration(monkeypatch)
    line = one_line_error(*cli(["info", "random:n=10,k=3,seed=1", flag, value], capsys))
    assert started == ["_konieczny_structure"]
    assert f"more than 10,000 elements, the most {flag}" in line, line
    assert "on 9 or more states" in line and f"raise {flag}" in line
    code, out, _ = cli(["info", "random:n=10,k=3,seed=1"], capsys)
    assert code == 0 and "monoid size     58883" in out


@pytest.mark.slow  # the default suite interrupts the monoid above 64 states (below)
def test_ctrl_c_stops_the_monoid_of_info_and_writes_no_picture(tmp_path: Path) -> None:
    before = listing(tmp_path)
    proc, lines = _start(["info", "random:n=20,k=3,seed=1", "--max-cells", "1e13",
                          "--max-size", "1e12", "--dot", "m.dot", "-v"], tmp_path)
    code, text = _interrupt_after(proc, lines, "computing the monoid", bound=30)
    assert code == 130, text
    assert "interrupted" in text and "internal error" not in text, text
    assert "monoid size" not in text
    assert listing(tmp_path) == before  # no picture



def test_ctrl_c_stops_the_monoid_of_more_than_64_states(tmp_path: Path) -> None:
    # 70 minimal states: over Konieczny's degree, so Froidure-Pin lists the elements,
    # for minutes here.  The bound on the exit is a few of its 0.2 s slices.
    before = listing(tmp_path)
    proc, lines = _start(["info", "random:n=80,k=2,seed=0,classes=state", "--max-cells",
                          "1e13", "--max-size", "1e12", "--dot", "m.dot", "-v"], tmp_path)
    code, text = _interrupt_after(proc, lines, "computing the monoid of 70 states", bound=8)
    assert code == 130, text
    assert "interrupted" in text and "internal error" not in text, text
    assert "monoid size" not in text
    assert listing(tmp_path) == before  # no picture


def _disjoint_cycles(lengths: list[int], degree: int) -> list[list[int]]:
    """One generator per length: a cycle on its own points, every other point fixed."""
    gens, start = [], 0
    for n in lengths:
        images = list(range(degree))
        images[start:start + n] = list(range(start + 1, start + n)) + [start]
        gens.append(images)
        start += n
    return gens


def test_froidure_pin_in_slices_lists_the_same_monoid(monkeypatch: pytest.MonkeyPatch) -> None:
    from libsemigroups_pybind11 import FroidurePin

    from fsmnet.algebra import monoid
    from fsmnet.algebra.monoid import MonoidTooLarge, TransitionMonoid

    # Disjoint cycles of coprime lengths on 70 points (Froidure-Pin's side of 64) generate
    # their direct product, C_5 x C_7 x C_9 x C_11: 3465 elements.
    gens = _disjoint_cycles([5, 7, 9, 11], 70)
    slices: list[int] = []
    real = FroidurePin.run_until

    def counted(self: object, stop: object) -> object:
        slices.append(1)
        return real(self, stop)

    monkeypatch.setattr(FroidurePin, "run_until", counted)
    monkeypatch.setattr(monoid, "_SLICE_SECONDS", 0.0)  # every slice the smallest
    m = TransitionMonoid(generators=gens)
    assert m.size == 5 * 7 * 9 * 11 and len(m.elements()) == m.size
    assert len(slices) >= 2  # the enumeration really was cut
    with pytest.raises(MonoidTooLarge, match="more than 1000 elements"):
        _ = TransitionMonoid(generators=gens, limit=1000).size


def _start_on_a_terminal(args: list[str], cwd: Path) -> tuple[Any, queue.Queue[str]]:
    """``_start`` with standard error on a pseudo-terminal, where fsmnet draws its progress
    bars; a bar redraws itself after a carriage return, so each piece between two line
    ends or carriage returns is one "line" of the queue (a piece cut by a read shows
    again whole in the next redraw)."""
    import fcntl
    import os
    import pty
    import re
    import struct
    import subprocess
    import sys
    import termios
    import threading

    master, slave = pty.openpty()
    # A terminal of no width gets empty bars: give it 100 columns.
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))
    proc = subprocess.Popen([sys.executable, "-m", "fsmnet", *args], cwd=cwd, text=True,
                            stdout=subprocess.PIPE, stderr=slave)
    os.close(slave)
    lines: queue.Queue[str] = queue.Queue()

    def pump_terminal() -> None:
        while True:
            try:
                chunk = os.read(master, 4096)
            except OSError:  # the child closed its side
                break
            if not chunk:
                break
            for piece in re.split(r"[\r\n]+", chunk.decode(errors="replace")):
                if piece:
                    lines.put(piece + "\n")
        os.close(master)

    def pump_stdout() -> None:
        for line in proc.stdout:  # type: ignore[union-attr]
            lines.put(line)

    for pump in (pump_terminal, pump_stdout):
        threading.Thread(target=pump, daemon=True).start()
    return proc, lines


def test_ctrl_c_stops_training_and_leaves_no_network(tmp_path: Path) -> None:
    # The bar's loss appears once steps have run: the signal lands in the training loop,
    # not in an import.  A million steps would take hours.
    before = listing(tmp_path)
    proc, lines = _start_on_a_terminal(["train", "parity", "--arch", "bilinear-full",
                                        "--hidden", "4", "--steps", "1000000", "-o",
                                        "out.safetensors"], tmp_path)
    code, text = _interrupt_after(proc, lines, "loss=", bound=30)
    assert code == 130, text
    assert "interrupted" in text and "internal error" not in text, text
    assert "trained bilinear-full" not in text
    assert listing(tmp_path) == before  # no network, no temporary file


def test_decompose_refuses_too_many_states_before_any_work(
        capsys: pytest.CaptureFixture[str]) -> None:
    line = one_line_error(*cli(["decompose", "symmetric:8,gens"], capsys))
    assert "40320 states" in line and "--max-states 10000" in line
    assert "raise --max-states (e.g. --max-states 40320)" in line, line
    code, out, _ = cli(["decompose", "symmetric:3", "--max-states", "6"], capsys)
    assert code == 0 and "6 states" in out
    one_line_error(*cli(["decompose", "symmetric:3", "--max-states", "5"], capsys))


@pytest.mark.slow  # the same interrupt handling as the monoid's, in the default suite
def test_ctrl_c_stops_the_holonomy_decomposition_and_writes_no_picture(
        tmp_path: Path) -> None:
    before = listing(tmp_path)
    proc, lines = _start(["decompose", "symmetric:8,gens", "--max-states", "100000",
                          "--dot", "h.dot", "-v"], tmp_path)
    code, text = _interrupt_after(proc, lines, "decomposing", bound=30)
    assert code == 130, text
    assert "interrupted" in text and "internal error" not in text, text
    assert "level" not in text
    assert listing(tmp_path) == before


# ------------------------------------------------------------------ size limits
@given(st.integers(min_value=1, max_value=10**30))
def test_a_size_limit_in_digits_is_that_integer(n: int) -> None:
    from fsmnet.cli.common import size_limit

    assert size_limit(str(n)) == n  # expected: the integer itself
    assert size_limit(f"{n:_}") == n  # with Python's digit separators


@given(st.integers(min_value=1, max_value=999), st.integers(min_value=0, max_value=27))
def test_a_size_limit_in_scientific_notation_is_exact(mantissa: int, exponent: int) -> None:
    from fsmnet.cli.common import size_limit

    # Expected: Python's exact integer arithmetic (a float would make 1e23 a different
    # number, 99999999999999991611392).
    assert size_limit(f"{mantissa}e{exponent}") == mantissa * 10**exponent
    assert size_limit(f"{mantissa}E+{exponent}") == mantissa * 10**exponent


def test_max_cells_takes_scientific_notation(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = cli(["info", "parity", "--max-cells", "1e12", "--max-size", "2.5e3"],
                       capsys)
    assert code == 0 and "monoid size     2" in out  # parity's syntactic monoid is C_2
    code, out, _ = cli(["decompose", "flipflop", "--max-states", "1e1"], capsys)
    assert code == 0 and "2 states" in out


@pytest.mark.parametrize("value", ["0", "-3", "1.5", "1e-3", "nan", "inf", "abc", "",
                                   "1e31", "1e999999999"])
@pytest.mark.parametrize("argv", [["info", "parity", "--max-cells"],
                                  ["info", "parity", "--max-size"],
                                  ["decompose", "flipflop", "--max-states"]],
                         ids=["max-cells", "max-size", "max-states"])
def test_a_bad_size_limit_is_one_line_naming_it(argv: list[str], value: str,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    line = one_line_error(*cli([*argv, value], capsys))
    assert f"argument {argv[-1]}:" in line and repr(value) in line, line


def test_an_alphabet_mismatch_says_which_side_has_which_symbols(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    import fsmnet

    monkeypatch.chdir(tmp_path)
    fsmnet.compile("parity", "bilinear-full").save(tmp_path / "net.safetensors")
    line = one_line_error(*cli(["verify", "modadd:3", "net.safetensors"], capsys))
    assert "SPEC has symbols ['2'] that NET lacks" in line, line
    assert "NET has" not in line  # parity's {0, 1} is inside modadd:3's {0, 1, 2}
    line = one_line_error(*cli(["verify", "starfree", "net.safetensors"], capsys))
    assert ("SPEC has symbols ['a', 'b'] that NET lacks; "
            "NET has symbols ['0', '1'] that SPEC lacks") in line, line


@pytest.mark.parametrize("argv", [
    ["train", "pcups:3", "--arch", "bilinear-full", "--steps", "1"],
    ["hierarchy", "--task", "pcups:3", "--arch", "bilinear-full", "--length", "1"],
    ["decompose", "pcups:3"],
], ids=["train", "hierarchy", "decompose"])
def test_a_pfsa_spec_where_none_is_taken_is_named_as_such(
        argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    line = one_line_error(*cli(argv, capsys))
    assert "PFSA-SR" in line and "does not support" in line, line
    assert "unknown family" not in line and "info, compile" in line


def test_training_an_architecture_proved_unable_warns_and_still_trains(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    argv = ["--arch", "bilinear-real-diag", "--hidden", "2", "--steps", "2",
            "--long-length", "10"]
    code, out, err = cli(["train", "flipflop", *argv], capsys)
    assert code == 0 and "trained bilinear-real-diag" in out
    warnings = [line for line in err.splitlines() if "warning" in line]
    assert len(warnings) == 1 and "cannot express" in warnings[0], err
    assert "theorem 1" in warnings[0]
    code, out, err = cli(["train", "parity", *argv], capsys)  # expressible: no warning
    assert code == 0 and "cannot express" not in err


# ------------------------------------------------------------------ help texts
def test_the_top_level_help_lists_every_exit_code_main_returns() -> None:
    from fsmnet import cli as front

    epilog = front.build_parser().epilog or ""
    text = " ".join(epilog.split())
    codes = {front.EXIT_OK: "0 success", front.EXIT_REFUTED: "1 refuted",
             front.EXIT_BAD_INPUT: "2 bad input", front.EXIT_UNKNOWN: "3 unknown",
             front.EXIT_INTERNAL: "4 internal error",
             front.EXIT_INTERRUPTED: "130 interrupted"}
    for code, words in codes.items():  # the codes main() returns (fsmnet/cli/__init__.py)
        assert words in text, (code, text)


def test_check_help_has_examples_the_sweep_runs() -> None:
    lines = _help_examples()["check"]
    assert ["check", "cert.json", "--network", "net.safetensors"] in lines
    assert "check" in _FAST  # run by the default suite


def test_the_hierarchy_examples_are_small_tables_the_sweep_runs() -> None:
    lines = _help_examples()["hierarchy"]
    assert lines and "hierarchy" in _FAST
    for argv in lines:  # a few named cells, not the whole table of minutes
        assert "--task" in argv and "--arch" in argv, argv


# ------------------------------------------------------------------ help examples
_OUTPUT_FLAGS = {"-o", "--certificate", "--plot", "--witness-dir", "--dot"}
_FILE_SUFFIXES = (".yaml", ".yml", ".json", ".safetensors")
# Commands whose examples finish in a few seconds each: the default suite runs these.
_FAST = ("fsmnet", "info", "decompose", "compile", "verify", "certify", "check",
         "hierarchy")


def _help_examples() -> dict[str, list[list[str]]]:
    """The ``fsmnet ...`` lines under ``examples:`` in each command's --help (and
    ``fsmnet --help``), as argument lists, trailing remarks dropped."""
    import re
    import shlex

    from fsmnet.cli import build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    found: dict[str, list[list[str]]] = {}
    for name, command in [("fsmnet", parser), *sub.choices.items()]:  # type: ignore[union-attr]
        lines, inside = [], False
        for line in (command.epilog or "").splitlines():
            if line.strip().lower() == "examples:":
                inside = True
            elif inside and not line.startswith("  "):
                inside = False
            elif inside and line.strip().startswith("fsmnet "):
                text = re.split(r"\s{2,}|\s#", line.strip())[0]  # a remark follows
                lines.append(shlex.split(text)[1:])
        found[name] = lines
    return found


def _run_examples(name: str, tmp_path: Path) -> list[str]:
    """Run a command's examples in order in ``tmp_path``; those that read a file no
    earlier line wrote are skipped.  Returns what ran."""
    import subprocess
    import sys

    if name == "certify":  # its examples certify a parity network the user has at hand
        import fsmnet

        fsmnet.compile("parity", "bilinear-full").save(tmp_path / "net.safetensors")
    ran = []
    for argv in _help_examples()[name]:
        inputs = [a for prev, a in zip([""] + argv, argv)
                  if a.endswith(_FILE_SUFFIXES) and prev not in _OUTPUT_FLAGS]
        if any(not (tmp_path / a).exists() for a in inputs):
            continue
        done = subprocess.run([sys.executable, "-m", "fsmnet", *argv], cwd=tmp_path,
                              capture_output=True, text=True,
                              timeout=300)  # a bound against a hang, not a measurement
        assert done.returncode in (0, 1, 3), (argv, done.returncode, done.stderr)
        assert "Traceback" not in done.stderr, (argv, done.stderr)  # 1 is also a crash's
        ran.append(" ".join(argv))
    return ran


@pytest.mark.parametrize("name", _FAST)
def test_the_fast_help_examples_run(name: str, tmp_path: Path) -> None:
    assert _run_examples(name, tmp_path), f"no example of {name} could run"


@pytest.mark.slow
@pytest.mark.parametrize("name", [n for n, lines in _help_examples().items()
                                  if lines and n not in _FAST])
def test_the_other_help_examples_run(name: str, tmp_path: Path) -> None:
    assert _run_examples(name, tmp_path), f"no example of {name} could run"
