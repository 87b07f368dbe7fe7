"""Python-REPL-like traces of variable swaps, for state tracking by next-token prediction.

arXiv 2602.14814 turns permutation tracking into REPL transcripts: commands
move values between n variables and ``print`` lines reveal one of them.  Each
command line starts with the prompt ``>>>`` (docs/pfsa.md shows a trace):

* ``x, y = y, x`` swaps two variables; ``x = y`` copies (an assignment, which
  makes the state a map rather than a permutation);
* ``if coin(): x, y = y, x`` is a *hidden branch*: a fair coin nobody sees
  decides whether the swap happens (the PFSA-SR setting);
* ``print(x)`` is followed by the printed value, the only supervision.

:func:`generate` writes traces (reveal spacing, hidden-branch and assignment
probabilities, seed); :func:`tokenize` splits them into tokens for a language
model; for the deterministic case (no hidden branches) :func:`trace_automaton`
compiles the trace language into an :class:`~fsmnet.automata.Automaton` over
*lines* whose output after a ``print(x)`` line is the value printed next, and
:func:`line_symbols` encodes a trace for it.

>>> t = generate(3, 12, reveal_spacing=2, seed=1)
>>> len(t.splitlines())
12
>>> tokenize(">>> print(a)\\n2")
['>>>', 'print', '(', 'a', ')', '\\n', '2']
"""

from __future__ import annotations

import itertools
import random
import re
import string

import numpy as np

from fsmnet.automata.automaton import Automaton
from fsmnet.errors import SpecError

__all__ = ["NO_OUTPUT", "generate", "line_symbols", "printed_targets", "tokenize",
           "trace_automaton"]

NO_OUTPUT = "-"
"""The automaton's label on every line that is not a ``print``."""

_TOKEN = re.compile(r">>>|[A-Za-z_]\w*|\d+|[=,():]|\n")
_MAX_VARS = 6


def _names(n: int, source: str) -> str:
    if isinstance(n, bool) or not isinstance(n, int) or not 2 <= n <= _MAX_VARS:
        raise SpecError(f"the number of variables must be an integer in 2..{_MAX_VARS}",
                        source=source, field="n_vars", value=n)
    return string.ascii_lowercase[:n]


def generate(n_vars: int, n_lines: int, *, reveal_spacing: int = 3, hidden_prob: float = 0.0,
             assign_prob: float = 0.0, seed: int = 0) -> str:
    """A trace of exactly ``n_lines`` lines (the first initializes the variables).

    Every ``reveal_spacing`` commands a ``print`` of a random variable follows
    (two lines: the call and its value).  Each command is a hidden branch with
    probability ``hidden_prob``, else an assignment with probability
    ``assign_prob``, else a swap.  Deterministic for a given seed.
    """
    names = _names(n_vars, "<generate>")
    for field, value in (("hidden_prob", hidden_prob), ("assign_prob", assign_prob)):
        if not 0 <= value <= 1:
            raise SpecError("must be a probability in [0, 1]", source="<generate>",
                            field=field, value=value)
    if isinstance(reveal_spacing, bool) or not isinstance(reveal_spacing, int) \
            or reveal_spacing < 1:
        raise SpecError("must be a positive integer", source="<generate>",
                        field="reveal_spacing", value=reveal_spacing)
    rng = random.Random(seed)
    values = list(range(n_vars))
    lines = [f">>> {', '.join(names)} = {', '.join(map(str, values))}"]
    since = 0
    while len(lines) < n_lines:
        if since == reveal_spacing and len(lines) + 2 <= n_lines:
            x = rng.randrange(n_vars)
            lines += [f">>> print({names[x]})", str(values[x])]
            since = 0
            continue
        i, j = sorted(rng.sample(range(n_vars), 2))
        roll = rng.random()
        if roll < hidden_prob:
            lines.append(f">>> if coin(): {names[i]}, {names[j]} = {names[j]}, {names[i]}")
            if rng.random() < 0.5:
                values[i], values[j] = values[j], values[i]
        elif roll < hidden_prob + (1 - hidden_prob) * assign_prob:
            if rng.random() < 0.5:
                i, j = j, i
            lines.append(f">>> {names[i]} = {names[j]}")
            values[i] = values[j]
        else:
            lines.append(f">>> {names[i]}, {names[j]} = {names[j]}, {names[i]}")
            values[i], values[j] = values[j], values[i]
        since += 1
    return "\n".join(lines)


def tokenize(trace: str) -> list[str]:
    """Tokens of a trace: ``>>>``, names, integers, ``= , ( ) :`` and ``\\n``."""
    tokens = _TOKEN.findall(trace)
    if len("".join(tokens)) != len(trace.replace(" ", "")):
        bad = re.sub(_TOKEN, "", trace).strip()
        raise SpecError("unknown characters in the trace", source="<tokenize>",
                        value=bad[:20])
    return tokens


def _symbols(names: str) -> list[str]:
    pairs = list(itertools.combinations(names, 2))
    return (["init"] + [f"swap {x} {y}" for x, y in pairs]
            + [f"assign {x} {y}" for x, y in itertools.permutations(names, 2)]
            + [f"print {x}" for x in names] + [f"out {v}" for v in range(len(names))])


_LINE = [
    (re.compile(r">>> ([a-z](?:, [a-z])*) = (\d+(?:, \d+)*)$"), "init"),
    (re.compile(r">>> ([a-z]), ([a-z]) = ([a-z]), ([a-z])$"), "swap"),
    (re.compile(r">>> if coin\(\): ([a-z]), ([a-z]) = ([a-z]), ([a-z])$"), "hidden"),
    (re.compile(r">>> ([a-z]) = ([a-z])$"), "assign"),
    (re.compile(r">>> print\(([a-z])\)$"), "print"),
    (re.compile(r"(\d+)$"), "out"),
]


def line_symbols(trace: str, n_vars: int, *, hidden: bool = False) -> list[str]:
    """The automaton symbol of every line (SpecError for bad lines).

    A hidden branch is an error unless ``hidden`` is true; then it is the symbol
    ``pswap x y`` of :func:`fsmnet.automata.repl_pfsa.trace_pfsa`.
    """
    names = _names(n_vars, "<trace>")
    out = []
    for number, line in enumerate(trace.splitlines(), 1):
        found = next(((kind, hit.groups()) for pattern, kind in _LINE
                      if (hit := pattern.match(line))), None)
        if found is None:
            raise SpecError("not a trace line", source="<trace>", field=f"line {number}",
                            value=line)
        kind, g = found
        if kind == "hidden" and hidden and (g[0], g[1]) == (g[3], g[2]) and g[0] < g[1] \
                and {g[0], g[1]} <= set(names):
            out.append(f"pswap {g[0]} {g[1]}")
        elif kind == "hidden":
            raise SpecError("a hidden branch has no deterministic automaton (it is a "
                            "PFSA-SR: the coin is not observed)", source="<trace>",
                            field=f"line {number}", value=line)
        elif kind == "swap" and (g[0], g[1]) == (g[3], g[2]) and g[0] < g[1] \
                and {g[0], g[1]} <= set(names):
            out.append(f"swap {g[0]} {g[1]}")
        elif kind == "init" and g[0] == ", ".join(names) and \
                g[1] == ", ".join(map(str, range(n_vars))):
            out.append("init")
        elif kind == "assign" and g[0] != g[1] and {g[0], g[1]} <= set(names):
            out.append(f"assign {g[0]} {g[1]}")
        elif kind == "print" and g[0] in names:
            out.append(f"print {g[0]}")
        elif kind == "out" and int(g[0]) < n_vars:
            out.append(f"out {int(g[0])}")
        else:
            raise SpecError("a line this automaton does not read", source="<trace>",
                            field=f"line {number}", value=line)
    return out


def printed_targets(trace: str) -> list[tuple[int, str]]:
    """(index of a ``print`` line, the value printed on the next line) pairs."""
    lines = trace.splitlines()
    return [(i, lines[i + 1]) for i, line in enumerate(lines[:-1])
            if line.startswith(">>> print(")]


def trace_automaton(n_vars: int) -> Automaton:
    """The deterministic trace language as a Moore machine over lines.

    State: the variables' values and which variable a pending ``print`` names.
    The output after ``print x`` is the value of x (what the next line shows);
    after any other line it is :data:`NO_OUTPUT`.  ``init`` resets the values
    to 0..n-1, so traces may hold several sessions.  States are the reachable
    (values, pending) pairs: n^n · (n + 1) with assignments.
    """
    names = _names(n_vars, "<trace_automaton>")
    symbols = _symbols(names)
    start = (tuple(range(n_vars)), -1)
    index = {start: 0}
    order = [start]
    table: list[list[int]] = []
    k = 0
    while k < len(order):
        values, pending = order[k]
        row = []
        for sym in symbols:
            parts = sym.split()
            vals, pend = list(values), -1
            if parts[0] == "init":
                vals = list(range(n_vars))
            elif parts[0] == "swap":
                i, j = names.index(parts[1]), names.index(parts[2])
                vals[i], vals[j] = vals[j], vals[i]
            elif parts[0] == "assign":
                vals[names.index(parts[1])] = vals[names.index(parts[2])]
            elif parts[0] == "print":
                pend = names.index(parts[1])
            nxt = (tuple(vals), pend)
            if nxt not in index:
                index[nxt] = len(order)
                order.append(nxt)
            row.append(index[nxt])
        table.append(row)
        k += 1
    delta = np.array(table, dtype=np.int64).T
    outputs = [NO_OUTPUT if p < 0 else str(v[p]) for v, p in order]
    states = [f"{''.join(map(str, v))}{'' if p < 0 else '?' + names[p]}" for v, p in order]
    return Automaton(delta=delta, symbols=symbols, states=states, initial=0, outputs=outputs,
                     name=f"repl-trace:{n_vars}",
                     description=f"REPL traces over {n_vars} variables; output the value "
                                 "the next line prints")
