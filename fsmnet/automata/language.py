"""Language operations on acceptors: the set algebra automata-lib users expect.

Union, intersection, difference, symmetric difference and complement are
automata-lib's own (``DFA.union`` and friends, minimized), converted back to
an :class:`Automaton` with states renamed ``q0`` (initial), ``q1``, ... in
breadth-first order and the first operand's symbol order.  Two things
automata-lib does not offer are done here: the :func:`product` of two Moore
machines with any combination of their labels, and the *witness* of a failed
:func:`equivalence` or :func:`inclusion`, a shortest word found by
breadth-first search on the product.

Both operands must read the same alphabet (the same set of symbol names; the
order may differ).

>>> from fsmnet.automata import load
>>> from fsmnet.automata.language import complement, inclusion, intersection
>>> even, two = load("parity"), load("atleast:2")   # even number of 1s; at least two 1s
>>> both = intersection(even, two)
>>> both.n_states
3
>>> inclusion(both, even).holds
True
>>> result = inclusion(two, even)
>>> result.holds, result.witness              # three 1s: at least two, but odd
(False, ('1', '1', '1'))
>>> complement(even).accepts("1")
True
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from fsmnet.automata.automaton import Automaton, Label
from fsmnet.automata.minimize import distinguishing_word
from fsmnet.errors import SpecError

__all__ = [
    "Comparison",
    "complement",
    "difference",
    "equivalence",
    "inclusion",
    "intersection",
    "is_empty",
    "product",
    "shortest_word",
    "symmetric_difference",
    "union",
]


@dataclass(frozen=True)
class Comparison:
    """The answer to an equivalence or inclusion question.

    Attributes
    ----------
    holds
        True when the languages are equal (or the first is included).
    witness
        ``None`` when it holds; otherwise a shortest word (symbol names) on
        which it fails.
    left, right
        The outputs of the two automata on the witness (``None`` when it
        holds).
    """

    holds: bool
    witness: tuple[str, ...] | None = None
    left: Label | None = None
    right: Label | None = None

    def __bool__(self) -> bool:
        return self.holds


def union(a: Automaton, b: Automaton) -> Automaton:
    """The minimal acceptor of L(a) ∪ L(b)."""
    return _via_automata_lib("union", a, b)


def intersection(a: Automaton, b: Automaton) -> Automaton:
    """The minimal acceptor of L(a) ∩ L(b)."""
    return _via_automata_lib("intersection", a, b)


def difference(a: Automaton, b: Automaton) -> Automaton:
    """The minimal acceptor of L(a) \\ L(b)."""
    return _via_automata_lib("difference", a, b)


def symmetric_difference(a: Automaton, b: Automaton) -> Automaton:
    """The minimal acceptor of the words in exactly one of L(a), L(b)."""
    return _via_automata_lib("symmetric_difference", a, b)


def complement(a: Automaton) -> Automaton:
    """The minimal acceptor of Σ* \\ L(a)."""
    return _via_automata_lib("complement", a, None)


def product(a: Automaton, b: Automaton,
            combine: Callable[[Label, Label], Label] | None = None) -> Automaton:
    """The reachable product machine of two Moore machines (or semiautomata).

    States are the pairs ``(p,q)`` reachable from the pair of initial states,
    named ``"(p,q)"`` after the states' names, in breadth-first order; the
    symbols are ``a``'s, in its order.  The output of ``(p, q)`` is
    ``combine(a.output(p), b.output(q))``; by default the string
    ``"la,lb"``.  Two semiautomata (no initial state, no outputs) give the
    full product semiautomaton of all pairs.  Not minimized, so the pair
    structure stays visible.

    >>> from fsmnet.automata import load
    >>> p = product(load("parity"), load("atleast:2"), lambda x, y: x or y)
    >>> p.n_states, p.accepts(""), p.accepts("1")
    (4, True, False)
    >>> p.states[:2]
    ('(even,0)', '(odd,1)')
    """
    _same_alphabet(a, b)
    if a.is_semiautomaton != b.is_semiautomaton:
        raise SpecError("a product needs two machines or two semiautomata",
                        source="<product>", field="initial_state",
                        value=[a.is_semiautomaton, b.is_semiautomaton])
    to_b = np.array([b.symbol_index(s) for s in a.symbols], dtype=np.int64)
    if a.is_semiautomaton:
        pairs = [(p, q) for p in range(a.n_states) for q in range(b.n_states)]
    else:
        assert a.initial is not None and b.initial is not None
        pairs = _reachable_pairs(a, b, to_b, (a.initial, b.initial))
    index = {pq: i for i, pq in enumerate(pairs)}
    delta = np.empty((a.n_symbols, len(pairs)), dtype=np.int64)
    for j, (p, q) in enumerate(pairs):
        for i in range(a.n_symbols):
            delta[i, j] = index[(int(a.delta[i, p]), int(b.delta[to_b[i], q]))]
    states = [f"({a.states[p]},{b.states[q]})" for p, q in pairs]
    if len(set(states)) != len(states):  # names with commas can collide
        states = [f"({p},{q})" for p, q in pairs]
    name = f"product({a.name or 'a'},{b.name or 'b'})"
    if a.is_semiautomaton:
        return Automaton(delta=delta, symbols=a.symbols, states=states, initial=None,
                         outputs=None, name=name)
    join = combine if combine is not None else (lambda x, y: f"{x},{y}")
    outputs = [join(a.output(p), b.output(q)) for p, q in pairs]
    return Automaton(delta=delta, symbols=a.symbols, states=states, initial=0,
                     outputs=outputs, name=name)


def equivalence(a: Automaton, b: Automaton) -> Comparison:
    """Do ``a`` and ``b`` give the same output on every word?

    Works for Moore machines too (outputs compared with their types, so
    ``True`` differs from ``1``).  On failure the witness is a shortest word
    on which they differ, with both outputs.

    >>> from fsmnet.automata import load
    >>> equivalence(load("parity"), complement(complement(load("parity")))).holds
    True
    >>> equivalence(load("parity"), load("atleast:2"))   # the empty word tells them apart
    Comparison(holds=False, witness=(), left=True, right=False)
    """
    found = distinguishing_word(a, b)
    if found is None:
        return Comparison(True)
    word, left, right = found
    return Comparison(False, tuple(word), left, right)


def inclusion(a: Automaton, b: Automaton) -> Comparison:
    """Is L(a) ⊆ L(b)?  On failure, a shortest word accepted by ``a`` and
    rejected by ``b``."""
    _need_acceptor(a, "first")
    _need_acceptor(b, "second")
    _same_alphabet(a, b)
    to_b = np.array([b.symbol_index(s) for s in a.symbols], dtype=np.int64)
    assert a.initial is not None and b.initial is not None
    word = _bfs_word(a, b, to_b, lambda p, q: a.output(p) is True and b.output(q) is not True)
    if word is None:
        return Comparison(True)
    return Comparison(False, tuple(word), True, False)


def shortest_word(a: Automaton) -> tuple[str, ...] | None:
    """A shortest accepted word (the first in symbol order), or ``None``
    when L(a) is empty.

    >>> from fsmnet.automata import load
    >>> shortest_word(load("atleast:2"))
    ('1', '1')
    """
    _need_acceptor(a, "first")
    found = _bfs_word(a, a, np.arange(a.n_symbols), lambda p, _q: a.output(p) is True)
    return None if found is None else tuple(found)


def is_empty(a: Automaton) -> bool:
    """True when ``a`` accepts no word at all."""
    return shortest_word(a) is None


# ---------------------------------------------------------------- helpers
def _via_automata_lib(op: str, a: Automaton, b: Automaton | None) -> Automaton:
    from fsmnet.automata.convert import _bfs_order, from_automata_lib, to_automata_lib

    _need_acceptor(a, "first")
    if b is not None:
        _need_acceptor(b, "second")
        _same_alphabet(a, b)
    dfa_a = to_automata_lib(a)
    result = getattr(dfa_a, op)() if b is None else getattr(dfa_a, op)(to_automata_lib(b))
    machine = from_automata_lib(result)
    # Back to the first operand's symbol order, states renamed canonically
    # (automata-lib numbers them in its own order).
    machine = machine.replace(delta=machine.delta[[machine.symbol_index(s) for s in a.symbols]],
                              symbols=a.symbols)
    bfs = _bfs_order(machine)
    pos = np.empty(len(bfs), dtype=np.int64)
    pos[bfs] = np.arange(len(bfs))
    assert machine.outputs is not None and machine.initial is not None
    name = f"{op}({a.name or 'a'})" if b is None else f"{op}({a.name or 'a'},{b.name or 'b'})"
    return Automaton(delta=pos[machine.delta[:, bfs]], symbols=a.symbols,
                     states=[f"q{i}" for i in range(len(bfs))], initial=int(pos[machine.initial]),
                     outputs=[machine.outputs[q] for q in bfs], name=name)


def _reachable_pairs(a: Automaton, b: Automaton, to_b: np.ndarray,
                     start: tuple[int, int]) -> list[tuple[int, int]]:
    order, seen = [start], {start}
    for p, q in order:
        for i in range(a.n_symbols):
            nxt = (int(a.delta[i, p]), int(b.delta[to_b[i], q]))
            if nxt not in seen:
                seen.add(nxt)
                order.append(nxt)
    return order


def _bfs_word(a: Automaton, b: Automaton, to_b: np.ndarray,
              target: Callable[[int, int], bool]) -> list[str] | None:
    """Breadth-first search on the product: a shortest word reaching a pair
    where ``target`` holds (symbols tried in ``a``'s order)."""
    assert a.initial is not None and b.initial is not None
    start = (a.initial, b.initial)
    parent: dict[tuple[int, int], tuple[tuple[int, int], int] | None] = {start: None}
    queue = deque([start])
    while queue:
        node = queue.popleft()
        if target(*node):
            word: list[int] = []
            while (step := parent[node]) is not None:
                node, sym = step
                word.append(sym)
            return a.decode(reversed(word))
        p, q = node
        for i in range(a.n_symbols):
            nxt = (int(a.delta[i, p]), int(b.delta[to_b[i], q]))
            if nxt not in parent:
                parent[nxt] = (node, i)
                queue.append(nxt)
    return None


def _need_acceptor(m: Any, tag: str) -> None:
    if not isinstance(m, Automaton):
        raise SpecError("expected an Automaton (use fsmnet.load first)",
                        source=f"<{tag} operand>", field="spec", value=type(m).__name__)
    if m.is_semiautomaton or not m.is_acceptor:
        raise SpecError("language operations need an acceptor (outputs True/False)",
                        source=f"<{tag} operand {m.name}>" if m.name else f"<{tag} operand>",
                        field="outputs", value=list(m.labels))


def _same_alphabet(a: Automaton, b: Automaton) -> None:
    if set(a.symbols) != set(b.symbols):
        raise SpecError("the automata have different alphabets", source="<language>",
                        field="input_symbols",
                        value=sorted(set(a.symbols) ^ set(b.symbols)))
