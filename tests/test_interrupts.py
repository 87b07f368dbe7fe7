"""A Ctrl-C is never lost (fsmnet.interrupts).

The failure it fixes: SIGINT that landed while Numba compiled ran its
KeyboardInterrupt inside one of LLVM's ctypes callbacks, which printed "Exception
ignored" and dropped it; ``fsmnet run --length 1e10`` then went on.  These tests
drop a press the same way, through a real ctypes callback, so that they do not
depend on a compile being slow enough to be hit.  ``signal.raise_signal`` runs the
Python handler before it returns, so the handler runs inside the callback.
"""

from __future__ import annotations

import ctypes
import signal
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from cli_scratch import run_cli as cli

from fsmnet.interrupts import ctrl_c_latch, interruptible, is_disguised_interrupt

# The dropped exception is reported to sys.unraisablehook, which pytest turns into a
# warning: that report is the behaviour under test, not a fault of the test.
pytestmark = pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")

CALLBACK = ctypes.CFUNCTYPE(None)


def _press_inside_a_callback() -> Callable[[], None]:
    """A function that presses Ctrl-C inside a ctypes callback and returns normally,
    as llvmlite's object-cache hook does when the press lands in it."""
    calls: list[int] = []

    def body() -> None:
        calls.append(1)
        signal.raise_signal(signal.SIGINT)

    callback = CALLBACK(body)

    def run() -> None:
        callback()
        assert calls == [1]  # the callback ran, and the press inside it went nowhere

    return run


def test_without_the_latch_a_press_in_a_callback_is_lost() -> None:
    # The premise: with Python's default handler the KeyboardInterrupt is dropped.
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    _press_inside_a_callback()()  # returns: nothing was raised


def test_the_latch_raises_a_dropped_press_at_the_next_boundary() -> None:
    after: list[str] = []
    with pytest.raises(KeyboardInterrupt):
        with ctrl_c_latch():
            interruptible(_press_inside_a_callback())
            after.append("went on")  # pragma: no cover - the boundary must raise
    assert after == []
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # restored


def test_the_latch_raises_a_dropped_press_on_leaving_at_the_latest() -> None:
    after: list[str] = []
    with pytest.raises(KeyboardInterrupt):
        with ctrl_c_latch():
            _press_inside_a_callback()()  # no boundary inside
            after.append("went on")
    assert after == ["went on"]  # delayed to the end of the block, not lost


def test_a_press_is_raised_once() -> None:
    with pytest.raises(KeyboardInterrupt):
        with ctrl_c_latch():
            signal.raise_signal(signal.SIGINT)  # raised at once, the ordinary way
    with ctrl_c_latch():  # nothing left over from the press above
        assert interruptible(lambda: 7) == 7
    with pytest.raises(KeyboardInterrupt):
        with ctrl_c_latch():
            interruptible(_press_inside_a_callback())
    with ctrl_c_latch():
        pass  # the boundary took the press: leaving raises nothing


def test_nested_latches_share_the_outer_one() -> None:
    with pytest.raises(KeyboardInterrupt):
        with ctrl_c_latch():
            with ctrl_c_latch():
                pass
            _press_inside_a_callback()()
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_a_handler_of_the_callers_is_left_alone() -> None:
    presses: list[int] = []

    def mine(signum: int, frame: Any) -> None:
        presses.append(signum)

    previous = signal.signal(signal.SIGINT, mine)
    try:
        with ctrl_c_latch():
            assert signal.getsignal(signal.SIGINT) is mine
            signal.raise_signal(signal.SIGINT)
        assert presses == [signal.SIGINT]
    finally:
        signal.signal(signal.SIGINT, previous)


def test_a_systemerror_caused_by_an_interrupt_is_one() -> None:
    def kernel() -> None:  # what Numba's dispatcher raises when SIGINT lands in a kernel
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt as exc:
            raise SystemError("returned a result with an exception set") from exc

    with pytest.raises(SystemError) as info:
        kernel()
    assert is_disguised_interrupt(info.value)
    assert not is_disguised_interrupt(SystemError("other"))
    assert not is_disguised_interrupt(KeyboardInterrupt())


def test_the_command_line_exits_130_for_a_dropped_press(monkeypatch: pytest.MonkeyPatch,
                                                        scratch: Path,
                                                        capsys: pytest.CaptureFixture[str]
                                                        ) -> None:
    from fsmnet.gpu import checked

    press = _press_inside_a_callback()

    def run_checked(*args: Any, **kwargs: Any) -> checked.RunResult:
        press()  # a compile that swallowed the Ctrl-C, and then a whole result
        return checked.RunResult(length=10, backend="numpy", accuracy=1.0, seconds=0.1,
                                 symbols_per_second=100.0)

    monkeypatch.setattr(checked, "run_checked", run_checked)
    code, out, err = cli(["run", "parity", "--net", "net.safetensors", "--length", "10"],
                         capsys)
    assert code == 130 and "interrupted" in err and "internal" not in err
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_a_recorded_press_prints_no_exception_ignored_report(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # Python reports an exception a ctypes callback dropped through sys.unraisablehook
    # ("Exception ignored on calling ctypes callback function" and a traceback on
    # stderr).  Inside the latch a dropped Ctrl-C is recorded, not reported; anything
    # else still reaches the hook that was there.
    import sys

    reported: list[type[BaseException]] = []

    def hook(unraisable: Any) -> None:
        reported.append(type(unraisable.exc_value))

    monkeypatch.setattr(sys, "unraisablehook", hook)

    def fails() -> None:
        raise ValueError("a bug in a callback")

    with pytest.raises(KeyboardInterrupt):
        with ctrl_c_latch():
            _press_inside_a_callback()()
            CALLBACK(fails)()
    assert reported == [ValueError]
    assert sys.unraisablehook is hook  # restored on leaving
    _press_inside_a_callback()()  # outside a latch, the report is made as before
    assert reported == [ValueError, KeyboardInterrupt]
