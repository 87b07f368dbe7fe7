"""Conversions: automata-lib and AALpy objects, regular expressions and Graphviz DOT.

automata-lib (``automata.fa``) is the reference library our spec format
borrows its field names from.  Its states may be any hashable value
(determinization produces frozensets of frozensets), so names are turned into
strings by a fixed rule that does not depend on set iteration order, and the
states are numbered in a fixed order: the initial state first, then the rest
in natural sort order of their names.
"""

from __future__ import annotations

import re
from collections.abc import Hashable, Iterable, Sequence
from typing import Any

import numpy as np

from fsmnet.automata.automaton import Automaton
from fsmnet.automata.spec import SINK_STATE
from fsmnet.errors import SpecError

__all__ = ["from_aalpy", "from_automata_lib", "from_regex", "to_aalpy", "to_automata_lib",
           "to_dot"]

# automata-lib's regex operators and blanks (automata.regex.parser.RESERVED_CHARACTERS,
# plus "-" which is a range inside [...]): such symbols cannot appear in a pattern.
_REGEX_RESERVED = frozenset("*|()?&+.^{}[] \t-,")


def from_automata_lib(obj: Any, *, name: str = "", description: str = "") -> Automaton:
    """Convert an automata-lib ``DFA`` or ``NFA`` into an :class:`Automaton`.

    An NFA is determinized (and minimized) with ``DFA.from_nfa``.  A partial
    DFA (``allow_partial=True``, including every determinized NFA) is
    completed with a rejecting sink state; automata-lib itself reads a
    missing transition as rejection, so the language is unchanged and no
    warning is given.

    Parameters
    ----------
    obj
        An ``automata.fa.dfa.DFA`` or ``automata.fa.nfa.NFA``.
    name, description
        Free text for the result.

    Raises
    ------
    SpecError
        For other objects, or symbols that are not strings.
    """
    from automata.fa.dfa import DFA
    from automata.fa.nfa import NFA

    src = f"<automata-lib {type(obj).__name__}>"
    if isinstance(obj, NFA):
        dfa = DFA.from_nfa(obj)  # bound to a name: automata-lib caches need a live object
    elif isinstance(obj, DFA):
        dfa = obj
    else:
        raise SpecError("expected an automata-lib DFA or NFA", source=src, field="spec",
                        value=type(obj).__name__)
    symbols = list(dfa.input_symbols)
    for s in symbols:
        if not isinstance(s, str) or not s:
            raise SpecError("input symbols must be non-empty strings", source=src,
                            field="input_symbols", value=s)
    symbols.sort()
    if not symbols:
        raise SpecError("the input alphabet is empty", source=src, field="input_symbols",
                        value=[])
    order = _state_order(dfa.states, dfa.initial_state)
    names = _state_names(order)
    index = {q: i for i, q in enumerate(order)}
    sym_index = {a: i for i, a in enumerate(symbols)}
    n = len(order)
    delta = np.full((len(symbols), n), n, dtype=np.int64)  # n = the sink, if needed
    for q, row in dfa.transitions.items():
        for a, target in row.items():
            delta[sym_index[a], index[q]] = index[target]
    outputs = [q in dfa.final_states for q in order]
    if (delta == n).any():
        sink, i = SINK_STATE, 0
        while sink in names:
            i += 1
            sink = f"{SINK_STATE}{i}"
        delta = np.concatenate([delta, np.full((len(symbols), 1), n, dtype=np.int64)], axis=1)
        names.append(sink)
        outputs.append(False)
    return Automaton(delta=delta, symbols=symbols, states=names, initial=0,
                     outputs=outputs, name=name, description=description)


def to_automata_lib(automaton: Automaton) -> Any:
    """The automata-lib ``DFA`` of an acceptor (same state and symbol names).

    Raises
    ------
    SpecError
        For a semiautomaton or a multi-class Moore machine: automata-lib DFAs
        only accept or reject, so there is no faithful image.
    """
    from automata.fa.dfa import DFA

    src = f"<automaton {automaton.name}>" if automaton.name else "<automaton>"
    if automaton.initial is None or automaton.outputs is None:
        raise SpecError("an automata-lib DFA needs an initial state and final states; "
                        "this is a semiautomaton", source=src, field="initial_state",
                        value=automaton.initial)
    if not automaton.is_acceptor:
        raise SpecError("an automata-lib DFA only accepts or rejects, but this Moore machine "
                        f"has {len(automaton.labels)} output labels; compare one label at a "
                        "time (outputs == label) instead", source=src, field="outputs",
                        value=list(automaton.labels))
    st, sy, d = automaton.states, automaton.symbols, automaton.delta
    return DFA(
        states=set(st),
        input_symbols=set(sy),
        transitions={q: {a: st[int(d[i, j])] for i, a in enumerate(sy)}
                     for j, q in enumerate(st)},
        initial_state=st[automaton.initial],
        final_states={q for q, o in zip(st, automaton.outputs) if o},
    )


def from_aalpy(obj: Any, *, name: str = "", description: str = "") -> Automaton:
    """Convert an AALpy ``Dfa`` or ``MooreMachine`` into an :class:`Automaton`.

    Input symbols become strings (``str`` of each, which must stay distinct),
    in natural sort order; states keep AALpy's order with the initial state
    first, named by ``str(state_id)`` (or ``q0, q1, ...`` when those clash).
    A DFA with missing transitions is completed with a rejecting sink; a
    Moore machine with one is refused, as no label for the sink would be
    faithful.  AALpy is imported only to recognise the object.

    Raises
    ------
    SpecError
        For other objects, clashing symbol names, unusable labels or a
        partial Moore machine.
    """
    from aalpy.automata import Dfa, MooreMachine

    src = f"<aalpy {type(obj).__name__}>"
    if not isinstance(obj, (Dfa, MooreMachine)):
        raise SpecError("expected an AALpy Dfa or MooreMachine", source=src, field="spec",
                        value=type(obj).__name__)
    order = [obj.initial_state] + [q for q in obj.states if q is not obj.initial_state]
    seen = {id(q) for q in order}
    for q in order:  # targets missing from obj.states are still states
        for target in q.transitions.values():
            if id(target) not in seen:
                seen.add(id(target))
                order.append(target)
    raw = {a for q in order for a in q.transitions}
    text = {str(a): a for a in raw}
    if len(text) != len(raw) or "" in text:
        raise SpecError("input symbols must have distinct, non-empty str() forms", source=src,
                        field="input_symbols", value=sorted(map(repr, raw)))
    if not text:
        raise SpecError("the input alphabet is empty", source=src, field="input_symbols",
                        value=[])
    symbols = sorted(text, key=_natural)
    index = {id(q): j for j, q in enumerate(order)}
    n = len(order)
    delta = np.full((len(symbols), n), n, dtype=np.int64)  # n = the sink, if needed
    for j, q in enumerate(order):
        for i, a in enumerate(symbols):
            target = q.transitions.get(text[a])
            if target is not None:
                delta[i, j] = index[id(target)]
    names = _state_names([q.state_id for q in order])
    dfa = isinstance(obj, Dfa)
    outputs: list[Any] = [bool(q.is_accepting) if dfa else q.output for q in order]
    if (delta == n).any():
        if not dfa:
            j = int(np.argwhere(delta == n)[0][1])
            raise SpecError("a Moore machine needs every transition", source=src,
                            field="transitions", value=names[j])
        sink, i = SINK_STATE, 0
        while sink in names:
            i += 1
            sink = f"{SINK_STATE}{i}"
        delta = np.concatenate([delta, np.full((len(symbols), 1), n, dtype=np.int64)], axis=1)
        names.append(sink)
        outputs.append(False)
    for lab in outputs:
        if isinstance(lab, np.generic):
            continue
        if not isinstance(lab, (bool, int, str)):
            raise SpecError("output labels must be bool, int or str", source=src,
                            field="outputs", value=lab)
    return Automaton(delta=delta, symbols=symbols, states=names, initial=0, outputs=outputs,
                     name=name, description=description)


def to_aalpy(automaton: Automaton) -> Any:
    """The AALpy ``Dfa`` of an acceptor, or ``MooreMachine`` of a Moore machine.

    State ids are the state names and inputs the symbol names.

    Raises
    ------
    SpecError
        For a semiautomaton (AALpy machines have an initial state and outputs).
    """
    from aalpy.automata import Dfa, DfaState, MooreMachine, MooreState

    if automaton.is_semiautomaton:
        raise SpecError("an AALpy machine needs an initial state and outputs; this is a "
                        "semiautomaton", source=f"<automaton {automaton.name}>",
                        field="initial_state", value=automaton.initial)
    assert automaton.outputs is not None and automaton.initial is not None
    if automaton.is_acceptor:
        states: list[Any] = [DfaState(q, bool(o))
                             for q, o in zip(automaton.states, automaton.outputs)]
    else:
        states = [MooreState(q, o) for q, o in zip(automaton.states, automaton.outputs)]
    for j, state in enumerate(states):
        for i, a in enumerate(automaton.symbols):
            state.transitions[a] = states[int(automaton.delta[i, j])]
    kind = Dfa if automaton.is_acceptor else MooreMachine
    return kind(states[automaton.initial], states)


def from_regex(pattern: str, input_symbols: Iterable[str], *, name: str = "",
               description: str = "", source: str = "<regex>") -> Automaton:
    """The minimal acceptor of an automata-lib regular expression.

    Parameters
    ----------
    pattern
        automata-lib syntax: concatenation, ``|``, ``*``, ``+``, ``?``, ``()``,
        ``.`` (any symbol), ``&`` (intersection), ``^`` (shuffle),
        ``{m,n}``, ``[...]``.
    input_symbols
        One-character symbols, none of them a regex operator.  A set is
        sorted; a sequence keeps its order.
    name, description
        Free text for the result.
    source
        Shown in error messages (a spec file path when called from one).

    Returns
    -------
    Automaton
        Minimal and complete; states ``q0`` (initial), ``q1``, ... in
        breadth-first order over the symbols.

    Raises
    ------
    SpecError
        For a malformed pattern or unusable symbols.
    """
    from automata.base.exceptions import AutomatonException, RegexException
    from automata.fa.dfa import DFA
    from automata.fa.nfa import NFA

    if not isinstance(pattern, str):
        raise SpecError("the regex must be a string", source=source, field="regex",
                        value=pattern)
    raw = sorted(input_symbols) if isinstance(input_symbols, (set, frozenset)) \
        else list(input_symbols)
    if not raw:
        raise SpecError("the input alphabet is empty", source=source, field="input_symbols",
                        value=raw)
    seen: set[str] = set()
    for s in raw:
        if not isinstance(s, str) or len(s) != 1:
            raise SpecError("regex symbols must be one-character strings", source=source,
                            field="input_symbols", value=s)
        if s in _REGEX_RESERVED:
            raise SpecError("this symbol is a regex operator and cannot be a symbol",
                            source=source, field="input_symbols", value=s)
        if s in seen:
            raise SpecError("duplicate symbol name", source=source, field="input_symbols",
                            value=s)
        seen.add(s)
    try:
        nfa = NFA.from_regex(pattern, input_symbols=set(raw))
        dfa = DFA.from_nfa(nfa)
    except (AutomatonException, RegexException) as exc:
        raise SpecError(f"invalid regex: {exc}", source=source, field="regex",
                        value=pattern) from None
    machine = from_automata_lib(dfa).minimal()
    # Restore the caller's symbol order and rename states canonically.
    machine = machine.replace(delta=machine.delta[[machine.symbol_index(s) for s in raw]],
                              symbols=raw)
    bfs = _bfs_order(machine)
    pos = np.empty(len(bfs), dtype=np.int64)
    pos[bfs] = np.arange(len(bfs))
    assert machine.outputs is not None and machine.initial is not None
    return machine.replace(
        delta=pos[machine.delta[:, bfs]],
        states=[f"q{i}" for i in range(len(bfs))],
        initial=int(pos[machine.initial]),
        outputs=[machine.outputs[q] for q in bfs],
        name=name,
        description=description,
    )


def to_dot(automaton: Automaton) -> str:
    """Graphviz DOT text for an automaton.

    Accepting states are drawn as double circles; a multi-class Moore
    machine shows ``state / label`` in each node; the initial state gets an
    arrow from a point.  Parallel edges are merged into one edge labelled
    with all their symbols.  Names are quoted and escaped, so any string is
    safe.
    """
    lines = [f"digraph {_dot_quote(automaton.name or 'automaton')} {{",
             "  rankdir=LR;", '  node [shape=circle];']
    outputs = automaton.outputs
    acceptor = automaton.is_acceptor
    for j, q in enumerate(automaton.states):
        attrs = []
        if outputs is not None and not acceptor:
            attrs.append(f"label={_dot_quote(f'{q} / {outputs[j]}')}")
        else:
            attrs.append(f"label={_dot_quote(q)}")
        if acceptor and outputs is not None and outputs[j] is True:
            attrs.append("shape=doublecircle")
        lines.append(f"  s{j} [{', '.join(attrs)}];")
    if automaton.initial is not None:
        lines.append('  start [shape=point, label=""];')
        lines.append(f"  start -> s{automaton.initial};")
    edges: dict[tuple[int, int], list[str]] = {}
    for j in range(automaton.n_states):
        for i, a in enumerate(automaton.symbols):
            edges.setdefault((j, int(automaton.delta[i, j])), []).append(a)
    for (j, r), syms in edges.items():
        lines.append(f"  s{j} -> s{r} [label={_dot_quote(', '.join(syms))}];")
    lines.append("}")
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------- helpers
def _dot_quote(text: str) -> str:
    # In a DOT string only '"' needs a backslash, but Graphviz reads "\n",
    # "\l", "\N", ... inside labels as escapes, so a literal backslash is
    # doubled too; raw newlines become "\n" to keep one statement per line.
    body = (text.replace("\\", "\\\\").replace('"', '\\"')
            .replace("\r", "\\r").replace("\n", "\\n"))
    return f'"{body}"'


def _canonical(x: Hashable) -> str:
    """A string for an automata-lib state that does not depend on hash order."""
    if isinstance(x, str):
        return x
    if isinstance(x, (frozenset, set)):
        return "{" + ",".join(sorted(_canonical(e) for e in x)) + "}"
    if isinstance(x, tuple):
        return "(" + ",".join(_canonical(e) for e in x) + ")"
    return str(x)


def _natural(text: str) -> tuple[Any, ...]:
    # re.split with a group alternates text, digits, text, ...: the same
    # position always holds the same type, so tuples compare safely.
    parts = re.split(r"(\d+)", text)
    return tuple(int(p) if i % 2 else p for i, p in enumerate(parts))


def _state_order(states: Iterable[Hashable], initial: Hashable) -> list[Hashable]:
    rest = [q for q in states if q != initial]
    rest.sort(key=lambda q: (_natural(_canonical(q)), type(q).__name__, repr(q)))
    return [initial, *rest]


def _state_names(order: Sequence[Hashable]) -> list[str]:
    names = [_canonical(q) for q in order]
    if len(set(names)) == len(names) and all(names):
        return names
    # Distinct states with the same text (1 and "1"), or an empty name:
    # number them instead, in the same fixed order.
    return [f"q{i}" for i in range(len(order))]


def _bfs_order(machine: Automaton) -> list[int]:
    assert machine.initial is not None
    order, seen = [machine.initial], {machine.initial}
    for q in order:
        for i in range(machine.n_symbols):
            r = int(machine.delta[i, q])
            if r not in seen:
                seen.add(r)
                order.append(r)
    return order
