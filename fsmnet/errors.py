"""Typed errors of fsmnet.

Every error that bad user input can cause derives from :class:`FsmnetError`,
so the command line can turn it into one readable line and exit code 2.
"""

from __future__ import annotations


class FsmnetError(Exception):
    """Base class of every error fsmnet raises on purpose."""


class SpecError(FsmnetError, ValueError):
    """A malformed automaton specification.

    Parameters
    ----------
    message
        What is wrong, in words.
    source
        The file (or ``"<dict>"``, ``"<family>"``) the spec came from.
    field
        The field of the spec that is wrong, e.g. ``"transitions.q0.a"``.
    value
        The offending value (shown with ``repr``).
    """

    def __init__(
        self,
        message: str,
        *,
        source: str = "<spec>",
        field: str | None = None,
        value: object = None,
    ) -> None:
        self.source = source
        self.field = field
        self.value = value
        where = source if field is None else f"{source}: field '{field}'"
        shown = "" if value is None else f" (value: {value!r:.80})"
        super().__init__(f"{where}: {message}{shown}")


class NotExpressible(FsmnetError):
    """An architecture cannot express the given automaton; the message says why."""


class NetworkFileError(FsmnetError, ValueError):
    """A network file that is missing, corrupted, or of an unknown format."""


class BackendUnavailable(FsmnetError, RuntimeError):
    """A requested evaluation backend (e.g. CuPy) cannot run on this machine."""
