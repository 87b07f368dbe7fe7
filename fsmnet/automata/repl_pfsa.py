"""REPL traces with hidden branches as a PFSA-SR: the belief of a reader of the trace.

With ``if coin(): x, y = y, x`` lines the trace language is no longer a
deterministic automaton: the reader cannot see the coin.  It is a PFSA-SR
(:class:`~fsmnet.automata.pfsa.PFSA`) over the same line symbols as
:func:`fsmnet.automata.repl_traces.trace_automaton`, plus ``pswap x y``:

* a state is (the variables' values, the variable a pending ``print`` names);
* ``pswap x y`` swaps x and y with probability 1/2 (the hidden branch);
* ``out v`` (the printed value) *reveals* that the pending variable holds v,
  then clears the pending print; every other line reveals nothing.

The belief after a prefix of a trace is then exactly what an ideal reader
knows, and its prediction at a ``print`` line (the most likely value of the
printed variable) is the Bayes-optimal next-token prediction.

>>> m = trace_pfsa(2)
>>> m.n_states, m.n_symbols
(12, 9)
"""

from __future__ import annotations

from fractions import Fraction

from fsmnet.automata.pfsa import PFSA, Vector
from fsmnet.automata.repl_traces import trace_automaton

__all__ = ["predicted_value", "trace_pfsa", "value_distribution"]


def _parse_state(name: str) -> tuple[tuple[int, ...], int]:
    digits, _, pending = name.partition("?")
    return tuple(int(c) for c in digits), -1 if not pending else ord(pending) - ord("a")


def trace_pfsa(n_vars: int) -> PFSA:
    """The trace language over n variables with hidden branches, as a PFSA-SR."""
    det = trace_automaton(n_vars)  # the deterministic lines, and the state names
    names = "abcdefgh"[:n_vars]
    hidden = [f"pswap {x} {y}" for i, x in enumerate(names) for y in names[i + 1:]]
    symbols = [*det.symbols, *hidden]
    states = list(det.states)
    index = {s: q for q, s in enumerate(states)}
    decoded = [_parse_state(s) for s in states]
    kernel: list[list[list[Fraction]]] = []
    reveals: list[list[int]] = []
    everything = list(range(len(states)))
    for a, sym in enumerate(symbols):
        table = []
        for q, (values, pending) in enumerate(decoded):
            row = [Fraction(0)] * len(states)
            if sym.startswith("pswap"):
                _, x, y = sym.split()
                i, j = names.index(x), names.index(y)
                swapped = list(values)
                swapped[i], swapped[j] = swapped[j], swapped[i]
                key = "".join(map(str, swapped)) + ("" if pending < 0 else "?" + names[pending])
                row[index[key]] += Fraction(1, 2)
                row[q] += Fraction(1, 2)
            else:
                row[int(det.delta[a, q])] = Fraction(1)
            table.append(row)
        kernel.append(table)
        if sym.startswith("out "):
            v = int(sym.split()[1])
            reveals.append([q for q, (values, p) in enumerate(decoded)
                            if p >= 0 and values[p] == v])
        else:
            reveals.append(everything)
    return PFSA(states=states, symbols=symbols, kernel=kernel, reveals=reveals, initial=0,
                name=f"repl-trace-hidden:{n_vars}",
                description=f"REPL traces over {n_vars} variables with hidden coin swaps")


def value_distribution(m: PFSA, belief: Vector) -> dict[int, Fraction]:
    """Distribution of the printed value, for a belief right after a ``print`` line."""
    dist: dict[int, Fraction] = {}
    for q, mass in enumerate(belief):
        if mass:
            values, pending = _parse_state(m.states[q])
            if pending >= 0:
                dist[values[pending]] = dist.get(values[pending], Fraction(0)) + mass
    return dist


def predicted_value(m: PFSA, belief: Vector) -> int:
    """The most likely printed value (the smallest on ties): the Bayes-optimal guess."""
    dist = value_distribution(m, belief)
    return max(sorted(dist), key=lambda v: dist[v])
