"""Honest partial results: the largest L such that every word of length ≤ L is correct.

Exact breadth-first exploration of (network state, automaton state) pairs by
length, in the exact reference semantics; pairs with equal exact states are
merged, so a length is finished when all of its *distinct* pairs have been
checked.  L is the last length finished within the budget with every pair
agreeing.  A disagreement gives a shortest counterexample instead (the caller
confirms it with the exact reference evaluator, independently of this code).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from fsmnet.automata import Automaton
from fsmnet.nets import Network
from fsmnet.nets.alignment import label_map
from fsmnet.proofs.product import freeze


@dataclass(frozen=True)
class Bounded:
    proved_length: int  # every word of length ≤ proved_length agrees (all, when closed)
    word: list[int] | None  # a shortest disagreeing word, if one was met
    pairs: int  # distinct pairs checked
    closed: bool = False  # no new pair at the last length: every length is checked


def bounded_exploration(net: Network, automaton: Automaton, *, max_pairs: int = 4000,
                        max_length: int = 10_000) -> Bounded:
    """Explore by length until ``max_pairs`` distinct pairs or ``max_length``."""
    sem = net.semantics
    to_auto = label_map(net, automaton)
    out = automaton.output_ids
    assert automaton.initial is not None
    h0 = sem.initial_state(net, True)
    seen = {(freeze(h0), automaton.initial)}
    level: list[tuple[Any, int, list[int]]] = [(h0, automaton.initial, [])]
    if to_auto[sem.readout(net, h0, True)] != out[automaton.initial]:
        return Bounded(-1, [], 1)
    length = 0
    while level and length < max_length:
        nxt: list[tuple[Any, int, list[int]]] = []
        for h, q, w in level:
            for a in range(automaton.n_symbols):
                h2 = sem.step(net, h, a, True)
                q2 = int(automaton.delta[a, q])
                key = (freeze(h2), q2)
                if key in seen:
                    continue
                seen.add(key)
                if to_auto[sem.readout(net, h2, True)] != out[q2]:
                    return Bounded(length, w + [a], len(seen))
                nxt.append((h2, q2, w + [a]))
                if len(seen) > max_pairs:
                    return Bounded(length, None, len(seen))
        level = nxt
        length += 1
    # Closed (no new pairs): every length agrees — the exact product closed.
    return Bounded(length, None, len(seen), closed=not level)
