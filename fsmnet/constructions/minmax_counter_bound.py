"""A lower bound for scalar MinMax cascades: a capped counter needs 2^k states.

A scalar MinMax unit steps by h ↦ max(min(h, r), s): a *clamp* of its value
to [s, r] (a constant when r < s), with (r, s) chosen from the input and the
units above.  Any cascade of such units that emulates an automaton containing
a **counter chain** of length k reaches at least 2^k distinct hidden states
(proof: docs/constructions-minmax.md, "Capped counters need 2^k states").

A counter chain is a pair of words x, y and distinct states q_0 … q_k of the
*minimal* automaton with

* x(q_i) = q_{i+1} and y(q_{i+1}) = q_i for i < k;
* x(q_k) is q_k or a sink, y(q_0) is q_0 or a sink (a sink: a state that x
  and y both fix, off the chain).

`counter:k` is one (x = u, y = d, no sink); `dyck:k` is one with its sink.
:func:`counter_chain` finds the longest chain over the letters and the words
of two letters; :func:`check_counter_chain` re-checks one from the automaton
alone (distinct states by a distinguishing-word search, not by trusting the
minimizer) and returns the first condition that fails.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

from fsmnet.automata import Automaton
from fsmnet.constructions.minmax_explore import CascadeTooLarge

__all__ = ["CounterBound", "CounterChain", "check_counter_chain", "counter_chain",
           "refuse_if_counter"]

_MAX_PAIR_WORK = 5_000_000
"""Most (x, y, state) visits of the chain search; past it only letters are tried."""


@dataclass(frozen=True)
class CounterChain:
    """Words ``up`` and ``down`` that run a capped counter over ``chain``."""

    up: tuple[str, ...]
    down: tuple[str, ...]
    chain: tuple[int, ...]
    sinks: tuple[int, ...]

    @property
    def k(self) -> int:
        return len(self.chain) - 1

    @property
    def hidden_states(self) -> int:
        """The fewest hidden states any scalar MinMax cascade for the automaton reaches."""
        return 2 ** self.k

    def describe(self, automaton: Automaton) -> str:
        names = automaton.states
        ends = (f"{names[self.chain[0]]} → {names[self.chain[1]]} → … → "
                f"{names[self.chain[-1]]}" if self.k >= 2 else
                " → ".join(names[q] for q in self.chain))
        sink = f"; sink: {', '.join(names[z] for z in self.sinks)}" if self.sinks else ""
        return (f"the words {' '.join(self.up)!r} / {' '.join(self.down)!r} run a capped "
                f"counter over {self.k + 1} states ({ends}{sink})")


class CounterBound(CascadeTooLarge):
    """minmax-scalar refused at once: a counter chain proves that every scalar cascade
    reaches more hidden states than the exploration budget allows (``chain`` says which)."""

    def __init__(self, message: str, chain: CounterChain) -> None:
        super().__init__(message)
        self.chain = chain


def refuse_if_counter(automaton: Automaton, *, max_steps: int) -> None:
    """Raise :class:`CounterBound` when a counter chain puts every scalar cascade past
    ``max_steps`` (reached hidden states × letters, the exploration's own measure)."""
    m = automaton.minimal()
    chain = _chain_of_minimal(m)
    if chain is None or chain.hidden_states * automaton.n_symbols <= max_steps:
        return
    # The refusal rests on the chain: re-check it from the automaton alone first.
    problem = check_counter_chain(m, chain)
    if problem is not None:
        raise AssertionError(f"counter_chain returned an invalid chain: {problem}")
    k = chain.k
    size = f"{2 ** k:,}" if k <= 40 else f"{float(2 ** k):.1e}"
    raise CounterBound(
        f"minmax-scalar: every scalar MinMax cascade for this automaton reaches at least "
        f"2^{k} = {size} hidden states, because {chain.describe(m)} "
        f"(docs/constructions-minmax.md, 'Capped counters need 2^k states'); that is past "
        f"the exploration budget of {max_steps:,} steps. minmax-cascade compiles it "
        f"(one matrix unit)", chain)


def _maps(automaton: Automaton, *, pairs: bool) -> list[tuple[tuple[str, ...], np.ndarray]]:
    delta = automaton.delta
    out: list[tuple[tuple[str, ...], np.ndarray]] = [
        ((s,), delta[a]) for a, s in enumerate(automaton.symbols)]
    if pairs:
        out += [((s, t), delta[b][delta[a]]) for (a, s), (b, t)
                in itertools.product(enumerate(automaton.symbols), repeat=2)]
    return out


def _longest(x: np.ndarray, y: np.ndarray) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The longest chain of (x, y) and its sinks (empty chain when none has 2 states)."""
    n = len(x)
    sink = (x == np.arange(n)) & (y == np.arange(n))
    best: tuple[tuple[int, ...], tuple[int, ...]] = ((), ())
    for q0 in range(n):
        if sink[q0] or not (y[q0] == q0 or sink[y[q0]]):
            continue
        chain, seen, q = [q0], {q0}, q0
        while True:
            nxt = int(x[q])
            if nxt == q or sink[nxt] or nxt in seen or y[nxt] != q:
                break
            chain.append(nxt)
            seen.add(nxt)
            q = nxt
        top = int(x[chain[-1]])
        if len(chain) > len(best[0]) and (top == chain[-1] or sink[top]):
            ends = {int(y[q0]), top} - set(chain)
            best = (tuple(chain), tuple(sorted(ends)))
    return best


def counter_chain(automaton: Automaton) -> CounterChain | None:
    """The longest counter chain (k ≥ 2) of ``automaton.minimal()``, or ``None``.

    Its states are those of the minimal automaton (the bound is about behaviours,
    so it is stated there).
    """
    return _chain_of_minimal(automaton.minimal())


def _chain_of_minimal(m: Automaton) -> CounterChain | None:
    work = (m.n_symbols + m.n_symbols ** 2) ** 2 * m.n_states
    maps = _maps(m, pairs=work <= _MAX_PAIR_WORK)
    best: CounterChain | None = None
    for (up, x), (down, y) in itertools.permutations(maps, 2):
        chain, sinks = _longest(x, y)
        if len(chain) >= 3 and (best is None or len(chain) > len(best.chain)):
            best = CounterChain(up=up, down=down, chain=chain, sinks=sinks)
    return best


def _word_map(a: Automaton, word: tuple[str, ...]) -> np.ndarray:
    f = np.arange(a.n_states)
    for s in word:
        f = a.delta[a.symbol_index(s)][f]
    return f


def _distinguishable(a: Automaton) -> np.ndarray:
    """Pairs of states some word tells apart by their outputs (Moore's fixpoint)."""
    out = a.output_ids
    diff = out[:, None] != out[None, :]
    while True:
        new = diff.copy()
        for s in range(a.n_symbols):
            d = a.delta[s]
            new |= diff[d[:, None], d[None, :]]
        if (new == diff).all():
            return diff
        diff = new


def check_counter_chain(automaton: Automaton, chain: CounterChain) -> str | None:
    """``None`` when ``chain`` is a counter chain of ``automaton``, else what fails."""
    n = automaton.n_states
    if automaton.outputs is None:
        return "the automaton has no outputs"
    if len(chain.chain) < 2 or any(not 0 <= q < n for q in (*chain.chain, *chain.sinks)):
        return f"the chain {list(chain.chain)} is not a list of states"
    if set(chain.chain) & set(chain.sinks) or len(set(chain.chain)) != len(chain.chain):
        return "the chain repeats a state or meets a sink"
    try:
        x, y = _word_map(automaton, chain.up), _word_map(automaton, chain.down)
    except Exception as exc:  # an unknown symbol: the witness does not fit this automaton
        return f"the words do not fit the automaton: {exc}"
    q = chain.chain
    for i in range(len(q) - 1):
        if x[q[i]] != q[i + 1] or y[q[i + 1]] != q[i]:
            return f"the words do not step between states {q[i]} and {q[i + 1]}"
    for z in chain.sinks:
        if x[z] != z or y[z] != z:
            return f"state {z} is not fixed by both words"
    if x[q[-1]] not in (q[-1], *chain.sinks) or y[q[0]] not in (q[0], *chain.sinks):
        return "an end of the chain leaves it for a state that is not a sink"
    diff = _distinguishable(automaton)
    for i, j in itertools.combinations((*q, *chain.sinks), 2):
        if not diff[i, j]:
            return f"states {i} and {j} have the same outputs on every word"
    if q[0] not in automaton.reachable_states():
        return f"state {q[0]} is not reachable from the initial state"
    return None

