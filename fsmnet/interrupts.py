"""Ctrl-C that compiled code cannot lose.

Python runs a SIGINT handler between two bytecodes of the main thread, and the
:class:`KeyboardInterrupt` it raises goes wherever that bytecode is.  Two places in
fsmnet's compiled paths do not pass it on:

- LLVM calls back into Python while Numba compiles (llvmlite's object-cache hooks);
  an exception raised in a ctypes callback is printed ("Exception ignored on calling
  ctypes callback function") and dropped, so a Ctrl-C during a JIT compile was lost
  and a run of 10^10 symbols went on;
- Numba's dispatcher reports a KeyboardInterrupt raised just after a kernel returns
  as a ``SystemError`` ("returned a result with an exception set").

:func:`ctrl_c_latch` installs a handler that also *records* the press, and
:func:`interruptible` re-raises a recorded press at the next boundary between two
compiled calls.  A latch that ends with a press recorded and never raised raises it
then, so a Ctrl-C is never lost, only delayed to the end of the compiled call.

Standard library only: the command line installs the latch before anything heavy
is imported.
"""

from __future__ import annotations

import functools
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any, TypeVar

T = TypeVar("T")

_pressed = False


def _record_and_raise(signum: int, frame: FrameType | None) -> None:
    global _pressed
    _pressed = True
    raise KeyboardInterrupt


def _take_press() -> bool:
    """Whether a Ctrl-C was recorded and not yet raised; forgets it."""
    global _pressed
    pressed, _pressed = _pressed, False
    return pressed


@contextmanager
def ctrl_c_latch() -> Iterator[None]:
    """Record every Ctrl-C inside the block, so that one dropped by compiled code is
    raised at the next :func:`interruptible` boundary or, at the latest, on leaving
    the block.

    Only Python's default handler is replaced: a handler of the caller's (or SIG_IGN)
    is left alone, and off the main thread, where no handler can be set, the block
    runs as it is.  Nested latches share the outer one.
    """
    mine = (threading.current_thread() is threading.main_thread()
            and signal.getsignal(signal.SIGINT) is signal.default_int_handler)
    if not mine:
        yield
        return
    _take_press()
    hook = sys.unraisablehook
    signal.signal(signal.SIGINT, _record_and_raise)
    sys.unraisablehook = functools.partial(_quiet_about_presses, hook)
    try:
        yield
    except BaseException:
        _take_press()  # this exception (a KeyboardInterrupt or not) is what propagates
        raise
    finally:
        signal.signal(signal.SIGINT, signal.default_int_handler)
        sys.unraisablehook = hook
    if _take_press():
        raise KeyboardInterrupt


def _quiet_about_presses(hook: Callable[[Any], None], unraisable: Any) -> None:
    """``sys.unraisablehook`` inside a latch: a dropped Ctrl-C is recorded, so Python's
    "Exception ignored" report of it (a traceback on stderr) is not printed; any
    other unraisable exception goes to ``hook`` as before."""
    if isinstance(unraisable.exc_value, KeyboardInterrupt) and _pressed:
        return
    hook(unraisable)


def is_disguised_interrupt(exc: BaseException) -> bool:
    """Whether ``exc`` is a Ctrl-C that Numba's dispatcher reported as a SystemError."""
    return isinstance(exc, SystemError) and isinstance(exc.__cause__ or exc.__context__,
                                                       KeyboardInterrupt)


def interruptible(call: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """``call(*args, **kwargs)``, then a Ctrl-C that arrived inside it raised as
    :class:`KeyboardInterrupt`: one Numba's dispatcher turned into a SystemError, or
    one a ctypes callback dropped (recorded by :func:`ctrl_c_latch`)."""
    try:
        result = call(*args, **kwargs)
    except SystemError as exc:
        if is_disguised_interrupt(exc):
            _take_press()
            raise KeyboardInterrupt from None
        raise
    if _take_press():
        raise KeyboardInterrupt
    return result
