"""deltaproduct: exact one-hot construction from Householder products.

The construction and its proof: docs/constructions-deltaproduct-fixedpoint.md.

On the minimal automaton with n states and one-hot states (H = n):

* a **permutation** letter with c cycles is the product of n − c
  transpositions, each the reflection I − 2 k̂k̂ᵀ with k = e_i − e_j (β = 2);
  this count is optimal for any encoding where every state is a positive
  multiple of a one-hot vector;
* a **non-invertible** letter f is written f = π ∘ C, where C collapses each
  fiber K = f⁻¹(t) onto a representative r_K ∈ K and π is a permutation.  One
  state q is merged into r with two projections (β = 1): first along
  k = e_r − e_q (both e_r and e_q go to (e_r + e_q)/2), then along k = e_q
  (that goes to e_r/2).  Every one-hot state is mapped to a *positive
  multiple* of the right one-hot state, which no argmax readout can see.

Unused factors are padded with β = 0 and a zero key (the identity).  All keys
have entries in {−1, 0, 1} and β ∈ {0, 1, 2}, so the float tensors are exact.
The proofs, the sizes and the lower bound on n_h are in
docs/constructions-deltaproduct-fixedpoint.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from math import gcd

import numpy as np

from fsmnet.automata import Automaton
from fsmnet.constructions.bilinear_full import one_hot_coordinates
from fsmnet.nets import Network
from fsmnet.nets.sparse import compact, coo

Factor = tuple[dict[int, float], float]
"""One Householder factor: its key's non-zero entries ``{index: value}`` and β."""


def letter_period(images: np.ndarray) -> int:
    """Eventual period of a transformation (lcm of its functional-graph cycle lengths)."""
    n = len(images)
    period, seen = 1, [False] * n
    for start in range(n):
        # walk n steps to land on the cycle of this start's component
        q = start
        for _ in range(n):
            q = int(images[q])
        if seen[q]:
            continue
        length, p = 0, q
        while True:
            seen[p] = True
            p, length = int(images[p]), length + 1
            if p == q:
                break
        period = period * length // gcd(period, length)
    return period


def n_h_lower_bound(automaton: Automaton) -> int:
    """A lower bound on n_h for *any* DeltaProduct network (any H, encoding, readout).

    0 when the minimal automaton has one state; 2 when some letter's period in
    the minimal automaton is neither 1 nor 2 (with one factor, A = I − βk̂k̂ᵀ
    has eigenvalues 1 and 1 − β ∈ [−1, 1], so every output sequence along
    powers of a letter is eventually periodic with period 1 or 2); 1 otherwise.
    """
    minimal = automaton.minimal()
    if minimal.n_states == 1:
        return 0
    if any(letter_period(minimal.delta[s]) not in (1, 2) for s in range(minimal.n_symbols)):
        return 2
    return 1


def cycles(perm: list[int]) -> list[list[int]]:
    seen, out = [False] * len(perm), []
    for start in range(len(perm)):
        if seen[start]:
            continue
        cycle, q = [], start
        while not seen[q]:
            seen[q] = True
            cycle.append(q)
            q = perm[q]
        out.append(cycle)
    return out


def permutation_factors(perm: list[int], n: int) -> list[Factor]:
    """Reflections whose product (first factor applied first) is the permutation matrix.

    A cycle c0 → c1 → ... → c_{l−1} → c0 is (c0 c1), then (c0 c2), ...,
    then (c0 c_{l−1}): l − 1 transpositions, n − (number of cycles) in all.
    """
    factors: list[Factor] = []
    for cycle in cycles(perm):
        for other in cycle[1:]:
            factors.append(({cycle[0]: 1.0, other: -1.0}, 2.0))
    return factors


def collapse_permutation(images: Sequence[int] | np.ndarray
                         ) -> tuple[dict[int, list[int]], list[int]]:
    """The fibers of f keyed by their representatives, and the permutation π with
    f = π ∘ C (C merges each fiber onto its representative).

    π maps each representative r_K to f(K) and closes the remaining chains into
    cycles, which maximizes the number of cycles of π for the chosen representatives.
    Pure Python, so that a count of the factors needs no vectors.
    """
    n = len(images)
    fibers: dict[int, list[int]] = {}
    for q in range(n):
        fibers.setdefault(int(images[q]), []).append(q)
    partial: dict[int, int] = {}
    by_rep: dict[int, list[int]] = {}
    for target, fiber in fibers.items():
        # Keeping the target itself as representative makes it a fixed point of π.
        rep = target if target in fiber else fiber[0]
        partial[rep] = target
        by_rep[rep] = fiber
    perm = [-1] * n
    for rep, target in partial.items():
        perm[rep] = target
    image = set(partial.values())
    for start in range(n):
        if start in image:
            continue
        end = start  # follow the chain start -> ... until it leaves the domain
        while end in partial:
            end = partial[end]
        perm[end] = start
    return by_rep, perm


def collapse_factors(images: np.ndarray) -> tuple[list[Factor], list[int]]:
    """Projections merging each fiber onto a representative, and the permutation π
    of :func:`collapse_permutation`."""
    by_rep, perm = collapse_permutation(images)
    factors: list[Factor] = []
    for rep, fiber in by_rep.items():
        for q in fiber:
            if q == rep:
                continue
            factors += [({rep: 1.0, q: -1.0}, 1.0), ({q: 1.0}, 1.0)]
    return factors, perm


def letter_factors(images: np.ndarray) -> list[Factor]:
    """All Householder factors of one letter (collapses first, then the permutation)."""
    n = len(images)
    if len(set(int(x) for x in images)) == n:
        return permutation_factors([int(x) for x in images], n)
    collapses, perm = collapse_factors(images)
    return collapses + permutation_factors(perm, n)


def compile_deltaproduct(automaton: Automaton) -> Network:
    """DeltaProduct network on the (already minimal) automaton; H = |Q|, one-hot states.

    The options record ``n_h`` (factors per letter actually used: the maximum
    over letters), ``n_h_lower_bound`` (valid for every encoding, see
    :func:`n_h_lower_bound`), ``n_h_one_hot_optimal`` (true when every letter
    is a permutation: then n_h = max(n − cycles) is optimal for one-hot
    encodings) and ``non_invertible_letters``.
    """
    n, k = automaton.n_states, automaton.n_symbols
    per_letter = [letter_factors(automaton.delta[s]) for s in range(k)]
    n_h = max((len(f) for f in per_letter), default=0)
    _self_check(automaton, per_letter)
    coords = [(s, j, i, value) for s, factors in enumerate(per_letter)
              for j, (key, _) in enumerate(factors) for i, value in key.items()]
    keys = coo((k, n_h, n), np.array([c[:3] for c in coords], dtype=np.int64).T,
               np.array([c[3] for c in coords], dtype=np.float64))
    betas = np.zeros((k, n_h))
    for s, factors in enumerate(per_letter):
        betas[s, :len(factors)] = [beta for _, beta in factors]
    _, h0, readout = one_hot_coordinates(automaton)
    non_inv = [automaton.symbols[s] for s in range(k)
               if len(set(automaton.delta[s].tolist())) < n]
    return Network(
        arch="deltaproduct",
        params={"keys": compact(keys), "betas": betas, "h0": h0, "readout": compact(readout)},
        symbols=automaton.symbols, labels=automaton.labels,
        options={"construction": "one-hot householder", "n_h": n_h,
                 "n_h_lower_bound": n_h_lower_bound(automaton),
                 "n_h_one_hot_optimal": not non_inv,
                 "non_invertible_letters": non_inv,
                 "key_normalization": "l2", "states": list(automaton.states)},
        name=automaton.name)


def _self_check(automaton: Automaton, per_letter: Sequence[Sequence[Factor]]) -> None:
    """Every letter maps e_q to a positive multiple of e_{δ(q, σ)}, checked in Fractions.

    The product is the semantics' own exact one on sparse columns
    (:func:`fsmnet.nets.deltaproduct.householder_columns`): a factor with a
    two-entry key touches only the columns that meet it, about |Σ|·n_h small
    updates for permutation letters instead of dense n-vectors (too slow at 120 states).
    """
    from fsmnet.nets.deltaproduct import householder_columns

    for s, factors in enumerate(per_letter):
        columns = householder_columns(factors, automaton.n_states)
        assert columns is not None  # only the float64 check returns None
        for q, column in enumerate(columns):
            t = int(automaton.delta[s, q])
            if set(column) != {t} or column[t] <= 0:
                raise AssertionError(f"deltaproduct construction is wrong for letter "
                                     f"{automaton.symbols[s]!r}, state {q}")
