"""Group word problems (C_n, D_n, S_n, A_n and direct products) and the shell game.

The word problem of a finite group G reads a word of group elements and
outputs their product.  It is the S5/A5 state-tracking benchmark of the
fixed-point RNN paper (arXiv 2503.10799, seed 002) and of the bilinear-RNN
and DeltaProduct line of work.  The permutations come from
:mod:`sympy.combinatorics`; this module only tabulates the Cayley graph.

Conventions (also in ``docs/families.md``):

- elements are permutations of ``0..d-1`` named in **cycle notation** with
  0-based points, fixed points omitted, identity ``"()"``; e.g. ``"(0 1 2)(3 4)"``;
- a word ``g1 g2 ... gk`` maps to the product "apply g1 first, then g2, ...",
  i.e. sympy's ``g1*g2*...*gk`` (``(p*q)(i) = q(p(i))``);
- states are ordered by one-line (array) notation, lexicographically, so the
  identity is state 0 and the initial state;
- a direct product G × H acts on the disjoint union of the points, H's
  points shifted by the degree of G (sympy's ``DirectProduct``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from fsmnet.automata.automaton import Automaton
from fsmnet.automata.families_common import check_size

GROUP_KINDS = ("cyclic", "dihedral", "symmetric", "alternating")
_SHORT = {"cyclic": "C", "dihedral": "D", "symmetric": "S", "alternating": "A"}


def group_title(factors: Sequence[tuple[str, int]]) -> str:
    """Conventional name of a product of named groups, e.g. ``"C_2 x S_3"``.

    ``D_n`` is the dihedral group of order 2n (symmetries of the n-gon).
    """
    return " x ".join(f"{_SHORT[kind]}_{n}" for kind, n in factors)


def named_group(kind: str, n: int) -> Any:
    """The sympy permutation group C_n, D_n (order 2n), S_n or A_n."""
    from sympy.combinatorics.named_groups import (
        AlternatingGroup,
        CyclicGroup,
        DihedralGroup,
        SymmetricGroup,
    )

    make = {"cyclic": CyclicGroup, "dihedral": DihedralGroup,
            "symmetric": SymmetricGroup, "alternating": AlternatingGroup}[kind]
    return make(n)


def product_group(factors: Sequence[tuple[str, int]]) -> Any:
    """The sympy group of a list of ``(kind, n)`` factors (their direct product)."""
    groups = [named_group(kind, n) for kind, n in factors]
    if len(groups) == 1:
        return groups[0]
    from sympy.combinatorics.group_constructs import DirectProduct

    return DirectProduct(*groups)


def cycle_name(perm: Sequence[int]) -> str:
    """Cycle notation of a permutation in array form, e.g. ``[1, 2, 0, 4, 3]`` →
    ``"(0 1 2)(3 4)"``; the identity is ``"()"``.

    Each cycle starts at its smallest point and cycles come in increasing
    order of that point: the same canonical form as sympy's ``cyclic_form``,
    which costs too much a call for the 40,320 elements of S_8.
    """
    seen = [False] * len(perm)
    parts: list[str] = []
    for start in range(len(perm)):
        if seen[start] or perm[start] == start:
            continue
        cycle = [start]
        seen[start] = True
        i = perm[start]
        while i != start:
            cycle.append(i)
            seen[i] = True
            i = perm[i]
        parts.append("(" + " ".join(map(str, cycle)) + ")")
    return "".join(parts) or "()"


def group_word_problem(*, factors: Sequence[tuple[str, int]], gens: bool,
                       spec: str) -> Automaton:
    """Word problem of C_n, D_n, S_n, A_n or a direct product of them.

    Reproduces the S5/A5 benchmark (fixed-point RNNs, arXiv 2503.10799;
    bilinear RNNs, arXiv 2505.21749): states are the group elements, the
    initial state is the identity, the output of a state is its name (so
    the output after a prefix is the product of the prefix), and the
    letters are

    - by default **every** element of the group (|G| letters), as in the
      papers' S5/A5 task;
    - with ``gens`` the generating set that sympy's constructor gives
      (e.g. ``(0 1 ... n-1)`` and ``(0 1)`` for S_n), so that large groups
      such as S_7 (5,040 states) stay small.

    The machine is minimal: distinct states have distinct outputs, and every
    element is reachable since the letters generate the group.
    """
    group = product_group(factors)
    order = int(group.order())
    degree = int(group.degree)
    title = group_title(factors)
    n_letters = len(group.generators) if gens else order
    check_size(n_letters, order, spec=spec,
               hint="" if gens else "add ',gens' to use a generating set as the alphabet")

    elements = np.array([_padded(g.array_form, degree) for g in group.generate()],
                        dtype=np.int64).reshape(order, degree)
    elements = elements[np.lexsort(elements.T[::-1])]  # lexicographic: identity first
    index_of = _indexer(elements)

    if gens:
        letters: list[np.ndarray] = []
        for g in group.generators:
            arr = np.array(_padded(g.array_form, degree), dtype=np.int64)
            if not any(np.array_equal(arr, x) for x in letters):
                letters.append(arr)
        letter_rows = np.array(letters, dtype=np.int64).reshape(len(letters), degree)
    else:
        letter_rows = elements

    delta = np.empty((len(letter_rows), order), dtype=np.int64)
    for a, letter in enumerate(letter_rows):
        # "state, then letter": i -> letter[state[i]], one gather for all states.
        delta[a] = index_of(letter[elements])
    names = [cycle_name(row) for row in elements.tolist()]
    symbols = names if not gens else [cycle_name(row) for row in letter_rows.tolist()]
    alphabet = (f"all {order} elements" if not gens
                else "generators " + ", ".join(symbols))
    return Automaton(delta=delta, symbols=symbols, states=names, initial=0,
                     outputs=names, name=spec,
                     description=f"word problem of {title} (order {order}); letters: {alphabet}")


def shellgame(*, n: int, spec: str) -> Automaton:
    """Shell game (state tracking from code, arXiv 2602.14814, seed 003).

    A ball lies under one of ``n`` cups, initially cup 0.  Each letter
    ``"(i j)"`` (i < j, all n(n-1)/2 pairs) swaps cups i and j; the output is
    the cup (an int) that hides the ball.  This is the action of S_n on one
    point, the fully observed variant of the paper's swap/print traces.
    Minimal (outputs are distinct, every cup is reachable).
    """
    pairs = [(i, j) for i in range(n) for j in range(i + 1, n)]
    check_size(len(pairs), n, spec=spec)
    q = np.arange(n, dtype=np.int64)
    delta = np.tile(q, (len(pairs), 1))
    for a, (i, j) in enumerate(pairs):
        delta[a, i], delta[a, j] = j, i
    return Automaton(delta=delta, symbols=[f"({i} {j})" for i, j in pairs],
                     states=[str(i) for i in range(n)], initial=0, outputs=list(range(n)),
                     name=spec,
                     description=f"ball under one of {n} cups, letters swap two cups; "
                                 "output the ball's cup")


def _padded(arr: Sequence[int], degree: int) -> list[int]:
    # sympy may store a permutation with fewer points than the group's degree.
    arr = list(arr)
    return arr + list(range(len(arr), degree))


def _indexer(elements: np.ndarray) -> Any:
    """Vectorized row -> index lookup for the rows of ``elements``.

    Rows are hashed with fixed random 64-bit weights (wrapping arithmetic),
    then found by binary search; every hit is compared row by row, so a hash
    collision can only raise, never give a wrong index.
    """
    weights = np.random.default_rng(20250521).integers(
        1, 2**63 - 1, size=elements.shape[1], dtype=np.int64).astype(np.uint64)

    def hashes(rows: np.ndarray) -> np.ndarray:
        return (rows.astype(np.uint64) * weights).sum(axis=1, dtype=np.uint64)

    own = hashes(elements)
    order = np.argsort(own, kind="stable")
    sorted_h = own[order]
    if np.any(sorted_h[1:] == sorted_h[:-1]):
        raise RuntimeError("hash collision between group elements")  # never seen

    def index_of(rows: np.ndarray) -> np.ndarray:
        h = hashes(rows)
        pos = np.minimum(np.searchsorted(sorted_h, h), len(sorted_h) - 1)
        idx = order[pos]
        if not np.array_equal(elements[idx], rows):
            raise RuntimeError("a product left the group: sympy elements are incomplete")
        return idx

    return index_of
