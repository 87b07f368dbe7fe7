"""Permutation groups: basic facts and a name for small groups.

The maximal subgroups of a transition monoid and the holonomy groups of a
Krohn-Rhodes decomposition are permutation groups.  This module builds them
from integer lists and summarizes each as :class:`GroupFacts` (name, order,
exponent, abelian, solvable), computed with :mod:`sympy.combinatorics`.

Names are a convenience for display; the facts are exact.  The names used:

``"1"``
    the trivial group;
``"C_n"``
    cyclic of order n;
``"C_a x C_b x ..."``
    a non-cyclic abelian group, by its invariant factors (a | b | ...),
    except ``"V_4"`` for the Klein four-group;
``"S_n"``, ``"A_n"``
    symmetric / alternating, whatever the action: when the group is the full
    symmetric (or alternating) group on the points it moves; when the order
    and cheap invariants leave no other choice (``S_3``, ``A_4``, ``S_4``,
    ``A_5``, ``S_5``; see ``_nonabelian_name``); and otherwise, for orders
    n! or n!/2 (n >= 5) of at most ``_TABLE_LIMIT`` elements, by finding
    generators that satisfy a presentation of S_n or A_n
    (:mod:`fsmnet.algebra.group_recognition`), so S_6 acting regularly on
    720 points is named ``S_6``;
``"D_n"``
    dihedral of order 2n (n >= 4; D_3 is named S_3);
``"Q_8"``
    the quaternion group;
``"G_<order>"``
    anything else.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache, reduce

import numpy as np
from sympy import factorint
from sympy.combinatorics import Permutation, PermutationGroup

from fsmnet.algebra.group_recognition import (
    factorial_degree,
    recognize_symmetric_or_alternating,
)
from fsmnet.errors import SpecError

__all__ = [
    "GroupFacts",
    "describe_group",
    "group_exponent",
    "group_from_permutations",
    "group_name",
    "group_order",
]

# Groups up to this order are enumerated element by element for the exponent;
# larger ones go through their Sylow subgroups, which are much smaller.
_ENUMERATE_LIMIT = 5000
# Above this degree, groups are analysed on a multiplication table of at most
# _TABLE_LIMIT elements (sympy's cost grows with the degree).
_SYMPY_DEGREE = 64
_TABLE_LIMIT = 12_000


@dataclass(frozen=True)
class GroupFacts:
    """Facts about one finite group (the ``groups`` entries of ``fsmnet info --json``).

    Attributes
    ----------
    name
        A short name (``"C_3"``, ``"S_5"``, ``"V_4"``, ``"G_48"``, ...); see the module docs.
    order
        Number of elements.
    exponent
        Least common multiple of the element orders.
    abelian, solvable
        As the words say (the trivial group is both).
    """

    name: str
    order: int
    exponent: int
    abelian: bool
    solvable: bool


def group_from_permutations(perms: Sequence[Sequence[int]], degree: int) -> PermutationGroup:
    """Build a sympy permutation group from permutations given as image lists.

    Parameters
    ----------
    perms
        Each entry is a list ``p`` with ``p[i]`` the image of point ``i``;
        an empty sequence gives the trivial group.
    degree
        Number of points; every list must have exactly this length.

    Raises
    ------
    SpecError
        If a list has the wrong length or is not a permutation of ``0..degree-1``.
    """
    if degree < 0:
        raise SpecError("degree must be >= 0", source="<permutations>", field="degree",
                        value=degree)
    size = max(degree, 1)  # sympy has no permutation of degree 0
    gens = []
    for i, p in enumerate(perms):
        images = [int(x) for x in p]
        if len(images) != degree or sorted(images) != list(range(degree)):
            raise SpecError(f"not a permutation of 0..{degree - 1}", source="<permutations>",
                            field=f"perms[{i}]", value=images)
        gens.append(Permutation(images, size=size))
    if not gens:
        gens = [Permutation(size - 1)]  # the identity on `size` points
    return PermutationGroup(gens)


def group_exponent(group: PermutationGroup) -> int:
    """The exponent of a finite permutation group (lcm of its element orders).

    Small groups are enumerated.  For larger ones we use that the exponent is
    the product over the primes p dividing the order of the exponent of a
    Sylow p-subgroup, and that the exponent of a p-group is its largest
    element order; Sylow subgroups are far smaller than the group.
    """
    order = int(group.order())
    if order <= _ENUMERATE_LIMIT:
        return reduce(math.lcm, (int(g.order()) for g in group.generate()), 1)
    exponent = 1
    for p in factorint(order):
        sylow = group.sylow_subgroup(int(p))
        exponent *= max(int(g.order()) for g in sylow.generate())
    return exponent


def describe_group(group: PermutationGroup) -> GroupFacts:
    """Summarize a permutation group as :class:`GroupFacts`.

    sympy's algorithms cost time in the *degree*: a regular action of S_7 on
    5,040 points takes minutes.  Groups of large degree but modest order
    (the word-problem automata) are therefore analysed on their
    multiplication table instead (:class:`_TableGroup`).

    Examples
    --------
    >>> from sympy.combinatorics.named_groups import SymmetricGroup
    >>> describe_group(SymmetricGroup(3))
    GroupFacts(name='S_3', order=6, exponent=6, abelian=False, solvable=True)
    """
    table = _table_of(group)
    if table is not None:
        return table.facts()
    order = int(group.order())
    return GroupFacts(
        name=group_name(group),
        order=order,
        exponent=group_exponent(group),
        abelian=bool(group.is_abelian),
        solvable=bool(group.is_solvable),
    )


def group_order(group: PermutationGroup) -> int:
    """The order of a permutation group (by its multiplication table when the degree is large)."""
    table = _table_of(group)
    return table.n if table is not None else int(group.order())


def _table_of(group: PermutationGroup) -> _TableGroup | None:
    if group.degree <= _SYMPY_DEGREE:
        return None
    return _cached_table(tuple(np.asarray(g.array_form, dtype=np.int64).tobytes()
                               for g in group.generators))


@lru_cache(maxsize=2)
def _cached_table(generators: tuple[bytes, ...]) -> _TableGroup | None:
    # group_order then describe_group on the same group build one table.
    return _TableGroup.from_permutations([np.frombuffer(g, dtype=np.int64) for g in generators])


def group_name(group: PermutationGroup) -> str:
    """A short name for a permutation group (see the module docs for the scheme)."""
    table = _table_of(group)
    if table is not None:
        return table.facts().name
    order = int(group.order())
    if order == 1:
        return "1"
    if group.is_abelian:
        return _abelian_name([int(q) for q in group.abelian_invariants()])
    k = len(_moved_points(group))
    # Faithful on its support: order k! forces the full symmetric group there,
    # and order k!/2 (an index-2 subgroup of S_k) forces A_k.
    if order == math.factorial(k):
        return f"S_{k}"
    if k >= 3 and 2 * order == math.factorial(k):
        return f"A_{k}"
    return _nonabelian_name(
        order,
        centre=lambda: int(group.center().order()),
        derived=lambda: _derived_orders(group),
        dihedral=lambda: bool(group.is_dihedral),
        presented=lambda: _presented_name(group, order),
    )


def _presented_name(group: PermutationGroup, order: int) -> str | None:
    # A non-natural action of small degree (S_7 on the 21 pairs): recognize
    # S_n/A_n on the multiplication table, when it is small enough.
    if order > _TABLE_LIMIT:
        return None
    table = _cached_table(tuple(np.asarray(g.array_form, dtype=np.int64).tobytes()
                                for g in group.generators))
    return None if table is None else table.presented_name()


def _derived_orders(group: PermutationGroup) -> tuple[int, int]:
    derived = group.derived_subgroup()
    return int(derived.order()), int(derived.derived_subgroup().order())


def _abelian_name(prime_powers: Sequence[int]) -> str:
    # Elementary divisors (prime powers) -> invariant factors d_1 | d_2 | ...,
    # a canonical name.
    powers: dict[int, list[int]] = {}
    for q in prime_powers:
        if q > 1:
            (p,) = factorint(q)
            powers.setdefault(int(p), []).append(int(q))
    length = max((len(v) for v in powers.values()), default=0)
    factors = [1] * length
    for v in powers.values():
        for i, q in enumerate(sorted(v, reverse=True)):
            factors[length - 1 - i] *= q
    if len(factors) == 1:
        return f"C_{factors[0]}"
    if factors == [2, 2]:
        return "V_4"
    return " x ".join(f"C_{f}" for f in factors)


def _nonabelian_name(order: int, *, centre: Callable[[], int],
                     derived: Callable[[], tuple[int, int]],
                     dihedral: Callable[[], bool],
                     presented: Callable[[], str | None]) -> str:
    """Name a non-abelian group from its order and invariants computed on demand.

    ``derived()`` gives (|G'|, |G''|).  The names that invariants fix:

    - order 6: S_3 is the only non-abelian group;
    - order 8: D_4 (dihedral) or Q_8 (not dihedral);
    - order 12, trivial centre: A_4 (D_6 and the dicyclic group have centre C_2);
    - order 24, trivial centre, |G'| = 12: S_4;
    - perfect of order 60, 360, 2520: A_5, A_6, A_7 (the only perfect groups
      of those orders);
    - order n! for n = 5, 7 with trivial centre and a perfect G' of order
      n!/2: S_n (G' = A_n, and conjugation embeds G into Aut(A_n) = S_n;
      n = 6 is excluded because Aut(A_6) is larger);
    - any other order n! or n!/2 (n >= 5): ``presented()`` searches for
      generators satisfying a presentation of S_n or A_n.
    """
    if order == 6:
        return "S_3"
    if order == 8:
        return "D_4" if dihedral() else "Q_8"
    alternating = {60: 5, 360: 6, 2520: 7}
    symmetric = {120: 5, 5040: 7}
    if order in (12, 24) and centre() == 1:
        if order == 12:
            return "A_4"
        if derived()[0] == 12:
            return "S_4"
    elif order in alternating:
        d1, _ = derived()
        if d1 == order:
            return f"A_{alternating[order]}"
    elif order in symmetric and centre() == 1:
        d1, d2 = derived()
        if 2 * d1 == order and d2 == d1:
            return f"S_{symmetric[order]}"
    if factorial_degree(order) is not None:
        name = presented()
        if name is not None:
            return name
    if order % 2 == 0 and order >= 6 and dihedral():
        return f"D_{order // 2}"
    return f"G_{order}"


def _moved_points(group: PermutationGroup) -> list[int]:
    moved: set[int] = set()
    for g in group.generators:
        moved.update(i for i, j in enumerate(g.array_form) if i != j)
    return sorted(moved)


class _TableGroup:
    """A finite group held as its multiplication table (elements numbered, 0 = identity).

    ``mult[i, j]`` is the element "i, then j".  Built from permutations of any
    degree by closing them under composition; all facts are then exact
    table look-ups, independent of the degree.
    """

    def __init__(self, mult: np.ndarray, gens: list[int]) -> None:
        self.mult = mult
        self.gens = gens
        self.n = mult.shape[0]
        ids = np.arange(self.n)
        self.inverse = np.argmax(mult == 0, axis=1)
        # Element orders by repeated multiplication, all elements at once.
        self.orders = np.zeros(self.n, dtype=np.int64)
        power, k = ids.copy(), 1
        while (self.orders == 0).any():
            self.orders[(power == 0) & (self.orders == 0)] = k
            power, k = mult[power, ids], k + 1

    @classmethod
    def from_permutations(cls, perms: list[np.ndarray]) -> _TableGroup | None:
        """Close the permutations into a group; ``None`` if it exceeds ``_TABLE_LIMIT``."""
        degree = len(perms[0])
        dtype = np.int16 if degree < 2**15 else np.int32  # shorter keys hash faster
        gens = [np.asarray(g, dtype=dtype) for g in perms]
        elems = [np.arange(degree, dtype=dtype)]
        index = {elems[0].tobytes(): 0}
        parent: list[tuple[int, int]] = [(-1, -1)]
        right: list[list[int]] = []  # right[i][a] = element "i, then generator a"
        i = 0
        while i < len(elems):  # breadth-first over the elements found so far
            row = []
            for a, g in enumerate(gens):
                x = g[elems[i]]
                key = x.tobytes()
                j = index.get(key)
                if j is None:
                    if len(elems) >= _TABLE_LIMIT:
                        return None
                    j = index[key] = len(elems)
                    elems.append(x)
                    parent.append((i, a))
                row.append(j)
            right.append(row)
            i += 1
        n = len(elems)
        table = np.array(right, dtype=np.int64)
        small = np.int16 if n < 2**15 else np.int32
        cols = [np.ascontiguousarray(table[:, a], dtype=small) for a in range(len(gens))]
        # Build the transpose row by row (contiguous): column j of the table
        # is column parent(j), then j's last letter.
        by_column = np.empty((n, n), dtype=small)
        by_column[0] = np.arange(n)
        for j in range(1, n):
            p, a = parent[j]
            by_column[j] = cols[a][by_column[p]]
        return cls(np.ascontiguousarray(by_column.T), [int(table[0, a]) for a in range(len(gens))])

    def closure(self, members: np.ndarray) -> np.ndarray:
        """The subgroup generated by some elements (a sorted array of ids)."""
        gens = np.unique(members)
        seen = np.zeros(self.n, dtype=bool)
        seen[0] = True
        frontier = np.array([0])
        while frontier.size:
            new = np.unique(self.mult[np.ix_(frontier, gens)])
            new = new[~seen[new]]
            seen[new] = True
            frontier = new
        return np.flatnonzero(seen)

    def derived(self, gens: np.ndarray) -> np.ndarray:
        """Generators of the commutator subgroup of the subgroup generated by ``gens``.

        H' is the normal closure in H of the commutators of H's generators:
        add conjugates by the generators until the subgroup stops growing.
        """
        m, inv = self.mult, self.inverse
        found = {int(m[m[inv[x], inv[y]], m[x, y]]) for x in gens for y in gens}
        members = self.closure(np.array(sorted(found)))
        while True:
            inside = np.zeros(self.n, dtype=bool)
            inside[members] = True
            conj = {int(m[m[inv[g], c], g]) for g in gens for c in found}
            new = {c for c in conj if not inside[c]}
            if not new:
                return np.array(sorted(found))
            found |= new
            members = self.closure(np.array(sorted(found)))

    def facts(self) -> GroupFacts:
        everything = np.arange(self.n)
        m = self.mult
        abelian = all(np.array_equal(m[:, g], m[g, :]) for g in self.gens)
        series = [everything]
        gens = np.array(self.gens)
        while series[-1].size > 1:
            gens = self.derived(gens)
            nxt = self.closure(gens)
            if nxt.size == series[-1].size:
                break
            series.append(nxt)
        solvable = series[-1].size == 1
        exponent = reduce(math.lcm, (int(o) for o in np.unique(self.orders)), 1)
        if self.n == 1:
            name = "1"
        elif abelian:
            name = _abelian_name(self._prime_powers())
        else:
            name = _nonabelian_name(self.n, centre=self._centre_order,
                                    derived=lambda: self._derived_orders(series),
                                    dihedral=self._is_dihedral,
                                    presented=self.presented_name)
        return GroupFacts(name=name, order=self.n, exponent=exponent, abelian=abelian,
                          solvable=solvable)

    def presented_name(self) -> str | None:
        """``S_n``/``A_n`` found by a presentation (:mod:`fsmnet.algebra.group_recognition`)."""
        return recognize_symmetric_or_alternating(self.mult, self.orders, self.inverse)

    @staticmethod
    def _derived_orders(series: list[np.ndarray]) -> tuple[int, int]:
        # `series` stops when it reaches a perfect group (or 1), so a missing
        # term equals the last one present.
        d1 = series[1] if len(series) > 1 else series[0]
        d2 = series[2] if len(series) > 2 else d1
        return int(d1.size), int(d2.size)

    def _centre_order(self) -> int:
        m = self.mult
        central = np.ones(self.n, dtype=bool)
        for g in self.gens:
            central &= m[:, g] == m[g, :]
        return int(central.sum())

    def _is_dihedral(self) -> bool:
        # Dihedral of order 2k (k >= 3): an element r of order k, and every
        # element outside <r> has order 2.
        k = self.n // 2
        for r in np.flatnonzero(self.orders == k):
            rotations = self.closure(np.array([r]))
            outside = np.setdiff1d(np.arange(self.n), rotations)
            if (self.orders[outside] == 2).all():
                return True
        return False

    def _prime_powers(self) -> list[int]:
        # In an abelian group with elementary divisors p^e_i, the elements
        # killed by p^k number p^(sum_i min(k, e_i)); read the e_i back.
        out: list[int] = []
        for p in factorint(self.n):
            p = int(p)
            logs, k = [0], 1
            while logs[-1] < factorint(self.n)[p]:
                count = int(np.count_nonzero(p**k % self.orders == 0))
                logs.append(round(math.log(count, p)))
                k += 1
            at_least = [logs[i] - logs[i - 1] for i in range(1, len(logs))]
            for e in range(1, len(at_least) + 1):
                exactly = at_least[e - 1] - (at_least[e] if e < len(at_least) else 0)
                out.extend([p**e] * exactly)
        return out
