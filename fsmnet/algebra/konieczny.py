"""Konieczny's algorithm (libsemigroups), run so that a Ctrl-C stops it at once.

libsemigroups holds the interpreter for the whole of one step of Konieczny's
algorithm, and one step (one D-class of 10^7 elements, say) can take minutes:
a Ctrl-C waits for it, and a predicate passed to ``run_until`` is not asked
during it either.  So the work runs in short slices here, and a monoid that is
not finished after :data:`IN_PROCESS_SECONDS` is computed again, from the start,
in a forked child process.  The parent blocks on a pipe, where a Ctrl-C
interrupts it at once; it then kills the child.  The child sends its result
back as JSON.  Where there is no ``fork`` (Windows) or the caller is not the
main thread (signals reach only the main thread), the slices go on in-process.

The result is a plain JSON-shaped dict (``size``, ``n_idempotents``, ``green``,
``d_classes``), which :mod:`fsmnet.algebra.monoid` turns into its dataclasses.
"""

from __future__ import annotations

import json
import os
import signal
import threading
import time
from collections.abc import Sequence
from typing import Any

from fsmnet.errors import FsmnetError

__all__ = ["IN_PROCESS_SECONDS", "TooManyElements", "konieczny_structure"]

# Konieczny runs about this long at a time, then returns to Python, where the
# limit is checked.
SLICE_SECONDS = 0.2

# Small monoids (nearly all of them) finish here, without the cost of a fork.
IN_PROCESS_SECONDS = 0.5

PR_SET_PDEATHSIG = 1  # <linux/prctl.h>


class TooManyElements(FsmnetError):
    """More elements than the limit; the caller words the message."""


def konieczny_structure(generators: Sequence[Sequence[int]], limit: int | None,
                        ) -> dict[str, Any]:
    """Size, idempotents, Green's counts and D-classes of the monoid ``generators``
    generate (each an image list; the caller includes the identity if it wants it).

    Raises :class:`TooManyElements` as soon as more than ``limit`` elements are found.
    """
    finished, result = _run(generators, limit, budget=IN_PROCESS_SECONDS)
    if finished:
        return result
    if not hasattr(os, "fork") or threading.current_thread() is not threading.main_thread():
        return _run(generators, limit, budget=None)[1]
    return _in_child(generators, limit)


def _run(generators: Sequence[Sequence[int]], limit: int | None,
         budget: float | None) -> tuple[bool, dict[str, Any]]:
    """Slices of Konieczny until it finishes (True, the structure) or ``budget``
    seconds have passed (False, {})."""
    from libsemigroups_pybind11 import Konieczny, ReportGuard, Transf

    _guard = ReportGuard(False)  # noqa: F841 - silences libsemigroups while alive
    k = Konieczny([Transf([int(v) for v in g]) for g in generators])
    stop = None if budget is None else time.monotonic() + budget
    while not k.finished():
        if stop is not None and time.monotonic() > stop:
            return False, {}
        deadline = time.monotonic() + SLICE_SECONDS
        k.run_until(lambda end=deadline: time.monotonic() > end
                    or (limit is not None and k.current_size() > limit))
        if limit is not None and k.current_size() > limit:
            raise TooManyElements(f"more than {limit} elements")
    return True, _describe(k)


def _describe(k: Any) -> dict[str, Any]:
    classes = []
    for d in k.D_classes():
        # Bound to a name: libsemigroups may return a view into a temporary.
        rep = d.rep()
        images = [int(v) for v in rep.images()]
        classes.append({"size": int(d.size()), "rank": len(set(images)),
                        "regular": bool(d.is_regular_D_class()),
                        "h_size": int(d.size_H_class()), "representative": images})
    green = {"D": int(k.number_of_D_classes()), "R": int(k.number_of_R_classes()),
             "L": int(k.number_of_L_classes()), "H": int(k.number_of_H_classes()),
             "regular_D": int(k.number_of_regular_D_classes())}
    return {"size": int(k.size()), "n_idempotents": int(k.number_of_idempotents()),
            "green": green, "d_classes": classes}


def _die_with(parent: int) -> None:
    """Ask Linux to kill this process when its parent dies (prctl PR_SET_PDEATHSIG):
    a parent killed outright (SIGKILL, an out-of-memory kill) then leaves no child
    computing for minutes.  Where prctl is missing the child only checks once."""
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL))
    except (OSError, AttributeError):  # not Linux
        pass
    if os.getppid() != parent:  # the parent died before the request took effect
        os._exit(1)


def _in_child(generators: Sequence[Sequence[int]], limit: int | None) -> dict[str, Any]:
    read_end, write_end = os.pipe()
    parent = os.getpid()
    pid = os.fork()
    if pid == 0:  # the child: compute, write one JSON document, leave without cleanup
        status = 1
        try:
            os.close(read_end)
            signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides
            _die_with(parent)
            try:
                payload: dict[str, Any] = {"structure": _run(generators, limit, None)[1]}
            except TooManyElements:
                payload = {"too_many": True}
            with os.fdopen(write_end, "wb") as pipe:
                pipe.write(json.dumps(payload).encode())
            status = 0
        finally:
            os._exit(status)
    os.close(write_end)
    try:
        with os.fdopen(read_end, "rb") as pipe:
            data = pipe.read()  # a Ctrl-C raises KeyboardInterrupt here (PEP 475)
    except BaseException:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        raise
    _, status = os.waitpid(pid, 0)
    if not data:
        raise FsmnetError("the monoid computation stopped without a result (its process "
                          f"ended with status {status}; out of memory?)")
    payload = json.loads(data)
    if payload.get("too_many"):
        raise TooManyElements(f"more than {limit} elements")
    return dict(payload["structure"])
