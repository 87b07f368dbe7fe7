"""mkdocs hooks (mkdocs.yml ``hooks:``): math is not a cross-reference; Sphinx roles.

1. Math in the pages is not a cross-reference.

mkdocs-autorefs reads every ``[text][id]`` as a link to an API object, so
formulas such as ``x[i][v]`` or ``R[σ][i, j]`` outside code spans become
"Could not find cross-reference target 'v'" warnings, which ``--strict``
turns into a failed build.  A real API reference is a dotted path
(``fsmnet.automata.Automaton``); only undotted targets are dropped, so a
broken link to an API object still fails the build.

2. The docstrings use Sphinx roles (``:class:`Automaton```), which the
Markdown renderer shows as ":class:" before the code; the role is dropped,
and so is the ``~`` that shortens a dotted name.
"""

from __future__ import annotations

import logging
import re
from typing import Any

_MATH = re.compile(r"Could not find cross-reference target '[^'.]*'$")
_ROLE = re.compile(r":(?:py:)?(?:class|func|meth|mod|attr|data|exc|obj|const):(<code>)~?")


class _NotMath(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return not _MATH.search(record.getMessage())


def on_config(config: Any, **_: Any) -> Any:
    # mkdocs counts warnings in handlers of its "mkdocs" logger (set up before
    # the config loads); a filter there sees every plugin's records.
    for handler in logging.getLogger("mkdocs").handlers:
        if not any(isinstance(f, _NotMath) for f in handler.filters):
            handler.addFilter(_NotMath())
    return config


def on_page_content(html: str, **_: Any) -> str:
    return _ROLE.sub(r"\1", html)
