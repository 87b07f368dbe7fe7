"""Pictures from Graphviz DOT text: SVG through the ``dot`` program, DOT files, HTML.

Every DOT exporter of fsmnet (automata here, holonomy cascades in
:mod:`fsmnet.algebra.holonomy.dot`, networks in :mod:`fsmnet.nets.dot`)
returns plain DOT text, which needs nothing installed.  Turning it into SVG
needs the Graphviz ``dot`` program (Debian/Ubuntu: ``apt-get install
graphviz``); it is optional, and :func:`dot_to_svg` says so in one line when
it is missing.  Rich Jupyter display uses :func:`repr_svg` and
:func:`repr_html`, which fall back to text when ``dot`` is missing or the
picture would be too big to read.

>>> text = 'digraph g { a -> b; }'
>>> svg = dot_to_svg(text) if have_dot() else "<svg/>"
>>> svg.lstrip().startswith(("<?xml", "<svg", "<!DOCTYPE"))
True
"""

from __future__ import annotations

import html
import shutil
import subprocess
from typing import TYPE_CHECKING

from fsmnet.errors import BackendUnavailable

if TYPE_CHECKING:
    from fsmnet.automata.automaton import Automaton

__all__ = ["MAX_PICTURE_NODES", "automaton_html", "automaton_svg", "dot_to_svg", "have_dot",
           "repr_html", "repr_svg", "write_picture"]

MAX_PICTURE_NODES = 300
"""Beyond this many nodes a notebook shows text instead of a picture: Graphviz
takes seconds and the drawing is unreadable anyway."""

_MISSING = ("SVG needs the Graphviz 'dot' program, which is not installed "
            "(apt-get install graphviz, brew install graphviz, or conda install graphviz); "
            "the DOT text itself needs nothing")


def have_dot() -> bool:
    """True when the Graphviz ``dot`` program is on ``PATH``."""
    return shutil.which("dot") is not None


def dot_to_svg(dot: str, *, timeout: float = 60.0) -> str:
    """Render DOT text to an SVG document with Graphviz ``dot -Tsvg``.

    Raises
    ------
    BackendUnavailable
        When ``dot`` is not installed (the message says how to install it),
        fails on the text, or runs longer than ``timeout`` seconds.
    """
    exe = shutil.which("dot")
    if exe is None:
        raise BackendUnavailable(_MISSING)
    try:
        done = subprocess.run([exe, "-Tsvg"], input=dot.encode("utf-8"), capture_output=True,
                              timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        raise BackendUnavailable(f"Graphviz 'dot' ran past {timeout:g} s; "
                                 "write the DOT file and render it yourself") from None
    if done.returncode != 0:
        first = done.stderr.decode("utf-8", "replace").strip().splitlines()[:1]
        raise BackendUnavailable(f"Graphviz 'dot' failed: {first[0] if first else 'no message'}")
    return done.stdout.decode("utf-8")


def repr_svg(dot: str, n_nodes: int) -> str | None:
    """SVG for ``_repr_svg_``, or ``None`` (Jupyter then shows the next
    representation) without ``dot`` or beyond :data:`MAX_PICTURE_NODES`."""
    if n_nodes > MAX_PICTURE_NODES or not have_dot():
        return None
    try:
        return dot_to_svg(dot, timeout=20.0)
    except BackendUnavailable:
        return None


def repr_html(title: str, rows: list[tuple[str, str]], dot: str | None = None,
              n_nodes: int = 0, *, colour: str = "inherit") -> str:
    """A small HTML card: a title, a table of facts and, when ``dot`` can
    draw it, the picture; otherwise a note saying why there is none."""
    cells = "".join(f"<tr><th style='text-align:left'>{html.escape(k)}</th>"
                    f"<td style='text-align:left'>{html.escape(v)}</td></tr>" for k, v in rows)
    parts = [f"<div><b style='color:{html.escape(colour)}'>{html.escape(title)}</b>"
             f"<table>{cells}</table>"]
    if dot is not None:
        svg = repr_svg(dot, n_nodes)
        if svg is not None:
            # Drop the XML prolog: inline SVG inside HTML must start at <svg.
            parts.append(svg[svg.find("<svg"):])
        elif n_nodes > MAX_PICTURE_NODES:
            parts.append(f"<i>{n_nodes} nodes: too many to draw here; use to_dot()</i>")
        else:
            parts.append("<i>no picture: the Graphviz 'dot' program is not installed</i>")
    parts.append("</div>")
    return "".join(parts)


def automaton_svg(a: Automaton) -> str | None:
    """``Automaton._repr_svg_``: the state diagram, or None."""
    from fsmnet.automata.convert import to_dot

    return None if a.n_states > MAX_PICTURE_NODES else repr_svg(to_dot(a), a.n_states)


def automaton_html(a: Automaton) -> str:
    """``Automaton._repr_html_``: sizes, alphabet, labels and the state diagram."""
    from fsmnet.automata.convert import to_dot

    rows = [("states", str(a.n_states)), ("symbols", ", ".join(a.symbols)),
            ("labels", ", ".join(map(str, a.labels)) or "(semiautomaton)")]
    small = a.n_states <= MAX_PICTURE_NODES  # no DOT text for huge machines
    return repr_html(repr(a), rows, to_dot(a) if small else "", a.n_states)


def write_picture(path: str, dot: str) -> None:
    """Write a picture for ``--dot FILE``: SVG when the name ends in ``.svg``
    (needs Graphviz ``dot``), DOT text otherwise.  Written by
    :func:`fsmnet.io.write_text`: ``-`` is standard output, a regular file is
    replaced atomically, a device or pipe is streamed into.

    Raises
    ------
    fsmnet.io.OutputError
        For a path it may not write (checked before anything is drawn).
    BackendUnavailable
        For ``.svg`` without Graphviz.
    """
    from fsmnet.io import check_output, write_text

    check_output(path)
    write_text(path, dot_to_svg(dot) if path.lower().endswith(".svg") else dot)
