"""The version of fsmnet (one place: the package, the CLI and network files read it)."""

__version__ = "0.1.0"
