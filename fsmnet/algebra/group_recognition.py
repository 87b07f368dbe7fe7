"""Recognize S_k and A_k in any action, from a multiplication table.

A permutation group whose action is not the natural one (the regular action
of S_6 on 720 points, S_7 on the 21 pairs) has no "k! on k moved points"
shortcut.  We recognize it by a *presentation*: find elements of the group
that satisfy the defining relations of S_k (or A_k) and generate it.  If
elements satisfying the relations of a presentation of X generate G, then G
is a quotient of X; equal orders make G isomorphic to X.  So a name found
here is exact, whatever the action.

The presentations used (both classical):

- Coxeter (Moore 1897): S_k = < s_1..s_{k-1} | s_i^2, (s_i s_{i+1})^3,
  (s_i s_j)^2 for |i - j| >= 2 >;
- Carmichael (1923): A_k = < u_1..u_{k-2} | u_i^3, (u_i u_j)^2 for i != j >
  (u_i = (1 2 i+2)).

The search is a backtracking over candidate generators, one per level, each
filtered with whole-table numpy operations; it is bounded
(``_NODE_BUDGET``), so a group that is not S_k/A_k costs little.
"""

from __future__ import annotations

import numpy as np

__all__ = ["recognize_symmetric_or_alternating"]

# Backtracking nodes tried before giving up (a failed search is then named
# G_<order>, never wrongly).
_NODE_BUDGET = 20_000


def factorial_degree(order: int) -> tuple[int, bool] | None:
    """``(k, symmetric)`` if ``order`` is k! (symmetric) or k!/2 (alternating) with k >= 5."""
    k, f = 1, 1
    while f < 2 * order:
        k += 1
        f *= k
        if k >= 5 and f == order:
            return k, True
        if k >= 5 and f == 2 * order:
            return k, False
    return None


def recognize_symmetric_or_alternating(mult: np.ndarray, orders: np.ndarray,
                                       inverse: np.ndarray) -> str | None:
    """``"S_k"`` or ``"A_k"`` if the table's group is isomorphic to it (k >= 5), else ``None``.

    ``mult[i, j]`` is "i, then j" with 0 the identity; ``orders`` are the
    element orders and ``inverse`` the inverses.

    Examples
    --------
    >>> from sympy.combinatorics.named_groups import SymmetricGroup
    >>> els = list(SymmetricGroup(5).generate())
    >>> index = {tuple(g.array_form): i for i, g in enumerate(els)}
    >>> ident = index[tuple(range(5))]
    >>> els[0], els[ident] = els[ident], els[0]
    >>> index = {tuple(g.array_form): i for i, g in enumerate(els)}
    >>> mult = np.array([[index[tuple((a * b).array_form)] for b in els] for a in els])
    >>> orders = np.array([g.order() for g in els])
    >>> recognize_symmetric_or_alternating(mult, orders, np.argmax(mult == 0, axis=1))
    'S_5'
    """
    n = int(mult.shape[0])
    found = factorial_degree(n)
    if found is None:
        return None
    k, symmetric = found
    if symmetric:
        gens = _search(mult, orders, inverse, k - 1, gen_order=2, coxeter=True)
    else:
        gens = _search(mult, orders, inverse, k - 2, gen_order=3, coxeter=False)
    if gens is None or _closure_size(mult, gens) != n:
        return None
    return f"{'S' if symmetric else 'A'}_{k}"


def _search(mult: np.ndarray, orders: np.ndarray, inverse: np.ndarray, count: int, *,
            gen_order: int, coxeter: bool) -> list[int] | None:
    """Backtrack for ``count`` elements of order ``gen_order`` satisfying the relations.

    Coxeter: consecutive products have order 3, others order 2.
    Carmichael: every pairwise product has order 2.
    """
    candidates = np.flatnonzero(orders == gen_order)
    if candidates.size == 0:
        return None
    # The first generator may be taken up to conjugacy: one per class.
    firsts = _class_representatives(mult, inverse, candidates)
    budget = [_NODE_BUDGET]

    def extend(chosen: list[int]) -> list[int] | None:
        if len(chosen) == count:
            return chosen
        pool = candidates
        for i, g in enumerate(chosen):
            want = 3 if coxeter and i == len(chosen) - 1 else 2
            pool = pool[orders[mult[g, pool]] == want]
            if pool.size == 0:
                return None
        for x in pool:
            budget[0] -= 1
            if budget[0] < 0:
                return None
            if int(x) in chosen:
                continue
            got = extend([*chosen, int(x)])
            if got is not None:
                return got
        return None

    for first in firsts:
        got = extend([int(first)])
        if got is not None:
            return got
        if budget[0] < 0:
            return None
    return None


def _class_representatives(mult: np.ndarray, inverse: np.ndarray,
                           members: np.ndarray) -> list[int]:
    n = mult.shape[0]
    everything = np.arange(n)
    left = np.zeros(n, dtype=bool)
    left[members] = True
    reps: list[int] = []
    for x in members:
        if not left[x]:
            continue
        reps.append(int(x))
        # g^-1 x g for every g.
        left[mult[mult[inverse, x], everything]] = False
    return reps


def _closure_size(mult: np.ndarray, gens: list[int]) -> int:
    seen = np.zeros(mult.shape[0], dtype=bool)
    seen[0] = True
    frontier = np.array([0])
    g = np.array(gens)
    while frontier.size:
        new = np.unique(mult[np.ix_(frontier, g)])
        new = new[~seen[new]]
        seen[new] = True
        frontier = new
    return int(seen.sum())
