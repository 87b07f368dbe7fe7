"""Quantitative lower bounds from the impossibility theorems (docs/theory.md).

- :func:`diagonal_channels_lower_bound`: along p·u^(stride·k)·s, the readout
  difference of two classes c, c′ of an H-channel real-diagonal (stride 2) or
  positive-diagonal (stride 1) net is a sum of at most H exponentials in k
  with positive bases, so it changes sign at most H−1 times.  If the
  automaton's output restricted to {c, c′} alternates A times for k ≤ K, a
  net that is right up to that length needs H ≥ A + 1.
- :func:`scalar_cascade_levels_lower_bound`: a scalar MinMax cascade with L
  levels makes every output along p·u^k·s constant for k ≥ L, so it needs
  L ≥ the largest index of an element of the syntactic monoid (the index of
  x is the least i with x^i = x^(i+period)).
"""

from __future__ import annotations

from itertools import combinations

from fsmnet.automata import Automaton
from fsmnet.decide.witness import Witness, unsettled_powers_witness


def output_sequence(m: Automaton, witness: Witness, max_length: int) -> list[int]:
    """Output label ids of p·u^(stride·k)·s for all k whose word fits in max_length."""
    p, u, s = (m.encode(witness.words[k]) for k in ("p", "u", "s"))
    step = witness.stride * len(u)
    outs = []
    k = 0
    while len(p) + k * step + len(s) <= max_length:
        q = m.run(p)
        for _ in range(k * witness.stride):
            q = m.run(u, start=q)
        outs.append(int(m.output_ids[m.run(s, start=q)]))
        k += 1
    return outs


def alternations(sequence: list[int], pair: tuple[int, int]) -> int:
    """Changes between the two labels of ``pair`` in the sequence restricted to them."""
    kept = [x for x in sequence if x in pair]
    return sum(1 for a, b in zip(kept, kept[1:]) if a != b)


def diagonal_channels_lower_bound(automaton: Automaton, max_length: int, *,
                                  positive: bool) -> int:
    """Fewest channels a positive- (or real-) diagonal net needs to be right up to
    ``max_length``, by the sign-change theorem; 1 when no witness exists."""
    m = automaton.minimal()
    witness = unsettled_powers_witness(m, stride=1 if positive else 2)
    if witness is None:
        return 1
    seq = output_sequence(m, witness, max_length)
    labels = sorted(set(seq))
    best = max((alternations(seq, pair) for pair in combinations(labels, 2)), default=0)
    return best + 1


def scalar_cascade_levels_lower_bound(automaton: Automaton, *, limit: int = 1 << 20) -> int:
    """Largest index of an element of the syntactic monoid (levels needed by a scalar
    MinMax cascade, when the automaton is aperiodic)."""
    from fsmnet.algebra.monoid import syntactic_monoid

    monoid = syntactic_monoid(automaton, limit=limit)
    best = 0
    for element in monoid.elements():
        powers: dict[tuple[int, ...], int] = {}
        x = tuple(int(v) for v in element)
        current, i = x, 1
        while current not in powers:
            powers[current] = i
            current = tuple(x[c] for c in current)  # current·x: apply current, then x
            i += 1
        best = max(best, powers[current])
    return best
