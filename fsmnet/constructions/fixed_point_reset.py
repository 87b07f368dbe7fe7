"""Fixed-point networks for automata whose letters reset or do nothing: a reset carried
*behaviourally* by a contraction.

A fixed-point transition A = (I + (Λ⁻¹ − I)Q)⁻¹ is invertible, so it cannot
merge two states exactly.  But an affine map can merge them up to a small
box: in homogeneous coordinates h = (x, c) (c, the last coordinate, stays
constant),

    reset to r:  x' = ε x + e_r c,  c' = c        (A = [[εI, e_r], [0, 1]], invertible),
    identity:    x' = x,            c' = c.

After a reset to r, x = e_r + ε·(what was there), and what was there is at
most 1/(1 − ε) in every entry, so every state after a reset to r lies in a
small box around e_r, which the readout (the automaton's outputs on the x
coordinates) separates for ε = 1/8.  The network has infinitely many
reachable states, so the exact product never closes; the proof is a box
invariant (:mod:`fsmnet.proofs.abstract`), one set per automaton state
(``fsmnet verify`` falls back to it, and ``--certificate`` writes it).

The fixed-point iteration converges fast: with Λ = ε on the x coordinates and
1/2 on c, Q = (Λ⁻¹ − I)⁻¹ (A⁻¹ − I), and the error matrix M = (I − Λ)(I − Q)
of a reset is [[0, e_r], [0, 1/2]] (spectral radius 1/2); for the identity,
Q = 0 and M = I − Λ (radius 1 − ε).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from fsmnet.automata import Automaton
from fsmnet.errors import NotExpressible
from fsmnet.nets import Network

EPSILON = Fraction(1, 8)


def letter_kinds(automaton: Automaton) -> list[int | None] | None:
    """Per letter: the reset target r (a constant map), None for the identity;
    None overall when some letter is neither."""
    kinds: list[int | None] = []
    for row in automaton.delta:
        if all(int(t) == i for i, t in enumerate(row)):
            kinds.append(None)
        elif len(set(row.tolist())) == 1:
            kinds.append(int(row[0]))
        else:
            return None
    return kinds


def why_not(automaton: Automaton) -> str | None:
    """Why the construction does not apply, or None when it does: every letter a
    reset or the identity, and at least one reset."""
    kinds = letter_kinds(automaton)
    if kinds is None:
        bad = next(s for s, row in enumerate(automaton.delta)
                   if len(set(row.tolist())) > 1 and any(int(t) != i for i, t in enumerate(row)))
        return f"letter {automaton.symbols[bad]!r} is neither a reset nor the identity"
    if all(k is None for k in kinds):
        return "no letter is a reset"
    return None


def compile_fixed_point_reset(automaton: Automaton, *, epsilon: Fraction = EPSILON
                              ) -> Network:
    """The construction above, for a minimal automaton whose letters are resets or
    the identity (flip-flop, set/reset latches).

    Raises
    ------
    NotExpressible
        When some letter is neither a constant map nor the identity.
    """
    kinds = letter_kinds(automaton)
    if kinds is None or all(k is None for k in kinds):
        raise NotExpressible(f"fixed-point (behavioural reset): {why_not(automaton)}; every "
                             f"letter must be a reset (constant map) or the identity")
    n = automaton.n_states
    size = n + 1
    eps = Fraction(epsilon)
    lam_exact, q_exact = [], []
    for r in kinds:
        if r is None:  # identity: A⁻¹ = I, Q = 0
            lam = [Fraction(1, 2)] * size
            q = [[Fraction(0)] * size for _ in range(size)]
        else:  # A⁻¹ = [[I/ε, −e_r/ε], [0, 1]]
            lam = [eps] * n + [Fraction(1, 2)]
            inv = [[Fraction(int(i == j)) / eps if i < n and j < n else Fraction(0)
                    for j in range(size)] for i in range(size)]
            inv[r][n] = -1 / eps
            inv[n][n] = Fraction(1)
            q = [[(lam[i] / (1 - lam[i])) * (inv[i][j] - int(i == j)) for j in range(size)]
                 for i in range(size)]
        lam_exact.append(lam)
        q_exact.append(q)
    return rational_network(automaton, lam_exact, q_exact, size,
                            {"construction": "behavioural reset", "epsilon": str(eps)},
                            unit=True)


def rational_network(automaton: Automaton, lam_exact: list[list[Fraction]],
                     q_exact: list[list[list[Fraction]]], size: int,
                     options: dict[str, object], *, unit: bool = False) -> Network:
    """The fixed-point network of rational Λ and Q, started at the one-hot of the
    initial state (plus the constant coordinate ``size - 1`` at 1 when ``unit``) and
    read out by the automaton's outputs on the first n coordinates."""
    n = automaton.n_states
    to_f = np.vectorize(float, otypes=[np.float64])
    h0 = np.zeros(size)
    assert automaton.initial is not None
    h0[automaton.initial] = 1.0
    if unit:
        h0[size - 1] = 1.0
    readout = np.zeros((len(automaton.labels), size))
    readout[automaton.output_ids, np.arange(n)] = 1.0
    return Network(
        arch="fixed-point",
        params={"Lambda": to_f(np.array(lam_exact, dtype=object)),
                "Q": to_f(np.array(q_exact, dtype=object)), "h0": h0, "readout": readout},
        symbols=automaton.symbols, labels=automaton.labels,
        options={**options, "states": list(automaton.states)},
        exact={"Lambda": [[str(x) for x in row] for row in lam_exact],
               "Q": [[[str(x) for x in row] for row in m] for m in q_exact]},
        name=automaton.name)
