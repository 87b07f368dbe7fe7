"""Commutative group languages: one channel per character of the group.

When every letter of a commutative language's minimal automaton permutes the states
(every threshold t_a is 0), the letters generate an abelian group G, and G acts
regularly on the states: transitively, since every state is reachable, and freely,
since an abelian group acting faithfully and transitively fixes no point but with
the identity.  So the states are the group's elements (g ↔ g·q0), and the output
after a word w is f(g(w)) for the output f of the states.

A character χ of G is a homomorphism into the roots of unity.  The |G| characters
are orthogonal: 1[g = h] = (1/|G|) Σ_χ χ(h)^(−1) χ(g).  A channel per character
(multiplier χ(g_a) on letter a, initial value 1) and the readout coefficient
c_(χ,l) = (1/|G|) Σ_(h: f(h) = l) χ(h)^(−1) therefore give label l the score
Σ_χ c_(χ,l) χ(g) = 1[f(g) = l]: exactly 1 for the true label and 0 for the others,
with no contraction μ and no rounding in the exact header.

Cost: |G| channels (conjugate characters share one) and O(|G|²) integer work to
list the characters, where the count-type construction
(:mod:`fsmnet.constructions.commutative`) has Π_a p_a types: modular addition
m = 10 is 10 states against 12,500,000 types.

The characters are listed generator by generator.  With H the subgroup of the
letters so far and g the next letter, let k be the least k ≥ 1 with g^k ∈ H; then
H' = ∪_(i<k) g^i H, and each character χ of H extends to H' in exactly k ways,
χ'(g^i h) = c^i χ(h) with c^k = χ(g^k).  Values are kept as exponents of ζ_e, e
the exponent of G (the lcm of the letters' periods), so all of it is integer
arithmetic mod e.
"""

from __future__ import annotations

from collections import defaultdict
from fractions import Fraction

import numpy as np

from fsmnet.automata import Automaton

# A polynomial over the channels in the commutative construction's vocabulary:
# monomial (per letter (μ-exponent, ζ-exponent)) -> {(label, ζ-exponent): rational}.
Mono = tuple[tuple[int, int], ...]
Polys = dict[Mono, dict[tuple[int, int], Fraction]]


def character_table(machine: Automaton, exponent: int) -> np.ndarray:
    """(|G|, n_states) exponents x with χ(state g·q0) = ζ_e^x, one row per character.

    ``machine`` is minimal, commutative and its letters permute the states.
    """
    delta = np.asarray(machine.delta, dtype=np.int64)
    n = machine.n_states
    q0 = machine.initial
    assert q0 is not None
    members = [q0]  # the states of the subgroup H so far (h ↔ h·q0)
    in_h = np.zeros(n, dtype=bool)
    in_h[q0] = True
    chars = np.zeros((1, n), dtype=np.int64)  # defined on the members only
    for perm in delta:
        power, k = int(perm[q0]), 1
        while not in_h[power]:
            power, k = int(perm[power]), k + 1
        if k == 1:
            continue  # the letter lies in H already
        # Each character of H extends in k ways: c = ζ_e^y with k·y ≡ χ(g^k) (mod e).
        target = chars[:, power] % exponent
        assert np.all(target % k == 0), "χ(g^k) must have a k-th root of order | e"
        base = target // k
        steps = np.arange(k, dtype=np.int64) * (exponent // k)
        ys = (base[:, None] + steps[None, :]).reshape(-1)  # per (χ, j), χ-major
        extended = np.repeat(chars, k, axis=0)
        layer = np.asarray(members, dtype=np.int64)
        new_members = list(members)
        for i in range(1, k):
            layer = perm[layer]  # g^i h · q0 for every h in H
            extended[:, layer] = extended[:, np.asarray(members)] + i * ys[:, None]
            new_members.extend(int(q) for q in layer)
        chars = extended % exponent
        members = new_members
        in_h[np.asarray(members)] = True
    assert len(members) == n and chars.shape == (n, n), "the action must be regular"
    return chars


def character_polynomials(machine: Automaton, exponent: int) -> Polys:
    """The exact score polynomial: a monomial per character (its multiplier on each
    letter, no μ) with coefficient (1/|G|) Σ_(h: f(h) = l) χ(h)^(−1) for label l."""
    chars = character_table(machine, exponent)
    n = machine.n_states
    q0 = machine.initial
    assert q0 is not None
    delta = np.asarray(machine.delta, dtype=np.int64)
    out: Polys = {}
    for x in chars:
        mono = tuple((0, int(x[int(perm[q0])])) for perm in delta)
        coefs: dict[tuple[int, int], Fraction] = defaultdict(Fraction)
        for q in range(n):
            coefs[(int(machine.output_ids[q]), int(-x[q]) % exponent)] += Fraction(1, n)
        out[mono] = dict(coefs)
    return out

