"""Writing output files safely: atomically to regular files, streamed to anything else.

Every file fsmnet writes (networks, certificates, witnesses, pictures) goes
through this module, so that one set of rules holds everywhere:

* ``"-"`` means standard output: the bytes are written there, never to a file
  named ``-``.
* A new path, or an existing regular file, is written *atomically*: the data
  goes to a temporary file in the same directory, which then replaces the
  target with :func:`os.replace`.  A reader never sees half a file, and a
  failed write leaves nothing behind.  A symbolic link to a regular file is
  kept: its target is replaced, not the link.
* A character device or a FIFO (``/dev/null``, a terminal, a pipe, and
  ``/dev/stdout`` whatever it points to) is *streamed*: opened and written in
  place.  Renaming over it would replace the device node or the
  ``/dev/stdout`` link with a regular file (issue 15, run as root).
* Anything else (a directory, a block device, a socket, a dangling link, a
  path whose parent is missing or not a directory) is refused with an
  :class:`OutputError` naming the path, before anything is written.

This module sits just above :mod:`fsmnet.errors` (rank 1, a peer of
:mod:`fsmnet.archs`, so every library layer may use it) and imports only the
standard library and :mod:`fsmnet.errors`.

Examples
--------
>>> import os, tempfile
>>> folder = tempfile.mkdtemp()
>>> target = os.path.join(folder, "hello.txt")
>>> write_text(target, "hello\\n")
>>> open(target).read()
'hello\\n'
>>> sorted(os.listdir(folder))          # no temporary file is left behind
['hello.txt']
>>> check_output(os.path.join(folder, "missing", "x.txt"))  # doctest: +ELLIPSIS
Traceback (most recent call last):
    ...
fsmnet.io.OutputError: ...: cannot write here: the directory ... does not exist
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
import sys
import tempfile
from collections.abc import Iterator
from typing import Literal

from fsmnet.errors import FsmnetError

__all__ = ["STDIO", "OutputError", "check_output", "check_output_dir", "is_stdout", "make_dir",
           "output_path", "write_bytes", "write_text"]

STDIO = "-"
"""The path that means standard output (when writing) or standard input (when reading)."""

Mode = Literal["stdout", "atomic", "stream"]


class OutputError(FsmnetError, OSError):
    """An output path fsmnet refuses to write, or a write that failed; names the path."""


def _fail(path: str, why: str) -> OutputError:
    return OutputError(f"{path}: cannot write here: {why}")


def _dangerous_location(path: str) -> bool:
    # /dev and /proc hold device nodes and magic links (/dev/stdout -> /proc/self/fd/1):
    # even when one resolves to a regular file, it is the caller's open descriptor, so it
    # is written in place rather than renamed over.
    real = os.path.realpath(path)
    return any(p == root or p.startswith(root + os.sep)
               for p in (os.path.abspath(path), real) for root in ("/dev", "/proc"))


def check_output(path: str | os.PathLike[str]) -> Mode:
    """Decide how ``path`` would be written, or raise :class:`OutputError` first.

    Call it before long work, so that a bad ``-o`` is reported at once.

    Returns
    -------
    ``"stdout"`` for ``"-"``, ``"atomic"`` for a new path or a regular file,
    ``"stream"`` for a character device or a FIFO.
    """
    text = os.fspath(path)
    if text == STDIO:
        return "stdout"
    if not text:
        raise _fail("''", "the path is empty")
    try:
        info = os.stat(text)  # follows links: what would be written to
    except FileNotFoundError:
        if os.path.lexists(text):
            raise _fail(text, "it is a symbolic link to a missing file") from None
        parent = os.path.dirname(os.path.abspath(text))
        if not os.path.exists(parent):
            raise _fail(text, f"the directory {parent} does not exist") from None
        if not os.path.isdir(parent):
            raise _fail(text, f"{parent} is not a directory") from None
        if not os.access(parent, os.W_OK | os.X_OK):
            raise _fail(text, f"the directory {parent} is not writable") from None
        _probe(text, parent)
        return "atomic"
    except NotADirectoryError:
        raise _fail(text, "a parent of it is not a directory") from None
    except OSError as exc:
        raise _fail(text, exc.strerror or str(exc)) from None
    if stat.S_ISDIR(info.st_mode):
        raise _fail(text, "it is a directory; give a file name")
    if stat.S_ISCHR(info.st_mode) or stat.S_ISFIFO(info.st_mode):
        return "stream"
    if not stat.S_ISREG(info.st_mode):
        raise _fail(text, "it is not a regular file, a character device or a pipe")
    if _dangerous_location(text):
        return "stream"
    parent = os.path.dirname(os.path.realpath(text))
    if not os.access(parent, os.W_OK | os.X_OK):
        raise _fail(text, f"the directory {parent} is not writable")
    _probe(text, parent)
    return "atomic"


def _probe(path: str, folder: str) -> None:
    """Create and remove a temporary file in ``folder``, where the atomic write puts its
    own: os.access answers yes to root everywhere, also on /sys, /proc and read-only
    mounts, where only an attempt tells."""
    try:
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".fsmnet-probe-")
    except OSError as exc:
        raise _fail(path, f"the directory {folder} is not writable "
                          f"({exc.strerror or exc})") from None
    os.close(fd)
    _remove(tmp)


def is_stdout(path: str | os.PathLike[str]) -> bool:
    """Whether writing ``path`` writes to this process's standard output
    (``"-"``, or e.g. ``/dev/stdout``): then nothing else may be printed there."""
    text = os.fspath(path)
    if text == STDIO:
        return True
    try:
        target, out = os.stat(text), os.fstat(sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # no real stdout (e.g. captured)
        return False
    return (target.st_dev, target.st_ino) == (out.st_dev, out.st_ino)


def check_output_dir(path: str | os.PathLike[str]) -> None:
    """Raise :class:`OutputError` unless ``path`` is a directory or could be made one."""
    text = os.fspath(path)
    if text == STDIO or not text:
        raise _fail(text or "''", "a directory is needed here")
    probe = os.path.abspath(text)
    while not os.path.exists(probe):
        if os.path.lexists(probe):
            raise _fail(text, f"{probe} is a symbolic link to a missing file")
        probe = os.path.dirname(probe)
    if not os.path.isdir(probe):
        raise _fail(text, f"{probe} is not a directory")


def make_dir(path: str | os.PathLike[str]) -> None:
    """Create directory ``path`` (and missing parents); :class:`OutputError` if impossible."""
    check_output_dir(path)
    try:
        os.makedirs(os.fspath(path), exist_ok=True)
    except OSError as exc:
        raise _fail(os.fspath(path), exc.strerror or str(exc)) from None


def write_bytes(path: str | os.PathLike[str], data: bytes) -> None:
    """Write ``data`` to ``path`` under the rules of this module (``"-"``: stdout)."""
    text = os.fspath(path)
    mode = check_output(text)
    if mode == "stdout":
        _stdout_write(data)
    elif mode == "stream":
        _stream(text, data)
    else:
        with _atomic(text) as tmp, open(tmp, "wb") as handle:
            handle.write(data)


def write_text(path: str | os.PathLike[str], text: str) -> None:
    """Write UTF-8 ``text`` to ``path`` (see :func:`write_bytes`)."""
    write_bytes(path, text.encode("utf-8"))


@contextlib.contextmanager
def output_path(path: str | os.PathLike[str]) -> Iterator[str]:
    """A temporary path for writers that insist on a file name (matplotlib, ...).

    The caller writes to the yielded path; on a clean exit it becomes ``path``
    (renamed for a regular file, copied for ``"-"`` or a stream).  The yielded
    name keeps the suffix of ``path``, so writers that pick a format by suffix
    still do.  On an exception nothing is left behind.
    """
    text = os.fspath(path)
    mode = check_output(text)
    if mode == "atomic":
        with _atomic(text) as tmp:
            yield tmp
        return
    suffix = os.path.splitext(text)[1] if mode == "stream" else ""
    with tempfile.TemporaryDirectory(prefix="fsmnet-") as folder:
        tmp = os.path.join(folder, "output" + suffix)
        yield tmp
        with open(tmp, "rb") as handle:
            data = handle.read()
    if mode == "stdout":
        _stdout_write(data)
    else:
        _stream(text, data)


# ---------------------------------------------------------------- helpers
@contextlib.contextmanager
def _atomic(path: str) -> Iterator[str]:
    """Yield a temporary file next to ``path``'s real target; rename it over on success."""
    target = os.path.realpath(path)  # a link stays a link: its target is replaced
    folder, name = os.path.split(target)
    try:
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{name}.",
                                   suffix=".tmp" + os.path.splitext(name)[1])
    except OSError as exc:
        raise _fail(path, exc.strerror or str(exc)) from None
    os.close(fd)
    try:
        yield tmp
        _copy_mode(target, tmp)
        with open(tmp, "rb+") as handle:  # the data is on disk before the rename
            os.fsync(handle.fileno())
        os.replace(tmp, target)
    except OSError as exc:
        _remove(tmp)
        if isinstance(exc, FsmnetError):
            raise
        raise _fail(path, exc.strerror or str(exc)) from None
    except BaseException:
        _remove(tmp)
        raise


def _copy_mode(target: str, tmp: str) -> None:
    # mkstemp makes the file 0600; give it the mode an ordinary open() would have.
    if os.path.exists(target):
        shutil.copymode(target, tmp)
    else:
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)


def _remove(path: str) -> None:
    with contextlib.suppress(OSError):
        os.unlink(path)


def _stream(path: str, data: bytes) -> None:
    try:
        with open(path, "wb") as handle:
            handle.write(data)
    except OSError as exc:
        raise _fail(path, exc.strerror or str(exc)) from None


def _stdout_write(data: bytes) -> None:
    sys.stdout.flush()
    buffer = getattr(sys.stdout, "buffer", None)
    if buffer is not None:
        buffer.write(data)
        buffer.flush()
    else:  # a text-only stream (e.g. pytest's capture): text formats only
        sys.stdout.write(data.decode("utf-8", errors="replace"))
        sys.stdout.flush()
