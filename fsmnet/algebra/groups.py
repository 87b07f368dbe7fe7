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
    ``A_5``, ``S_5``; see ``nonabelian_name``); and otherwise, for orders
    n! or n!/2 (n >= 5) of at most ``TABLE_LIMIT`` elements
    (:mod:`fsmnet.algebra.group_table`), by finding
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
from collections.abc import Sequence
from functools import lru_cache, reduce

import numpy as np
from sympy import factorint
from sympy.combinatorics import Permutation, PermutationGroup

from fsmnet.algebra.group_naming import GroupFacts, abelian_name, nonabelian_name
from fsmnet.algebra.group_table import TABLE_LIMIT, TableGroup
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
# Above this degree, groups are analysed on their multiplication table
# (fsmnet.algebra.group_table; sympy's cost grows with the degree).
_SYMPY_DEGREE = 64


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
    multiplication table instead (:class:`~fsmnet.algebra.group_table.TableGroup`).

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


def _table_of(group: PermutationGroup) -> TableGroup | None:
    if group.degree <= _SYMPY_DEGREE:
        return None
    return _cached_table(tuple(np.asarray(g.array_form, dtype=np.int64).tobytes()
                               for g in group.generators))


@lru_cache(maxsize=2)
def _cached_table(generators: tuple[bytes, ...]) -> TableGroup | None:
    # group_order then describe_group on the same group build one table.
    return TableGroup.from_permutations([np.frombuffer(g, dtype=np.int64) for g in generators])


def group_name(group: PermutationGroup) -> str:
    """A short name for a permutation group (see the module docs for the scheme)."""
    table = _table_of(group)
    if table is not None:
        return table.facts().name
    order = int(group.order())
    if order == 1:
        return "1"
    if group.is_abelian:
        return abelian_name([int(q) for q in group.abelian_invariants()])
    k = len(_moved_points(group))
    # Faithful on its support: order k! forces the full symmetric group there,
    # and order k!/2 (an index-2 subgroup of S_k) forces A_k.
    if order == math.factorial(k):
        return f"S_{k}"
    if k >= 3 and 2 * order == math.factorial(k):
        return f"A_{k}"
    return nonabelian_name(
        order,
        centre=lambda: int(group.center().order()),
        derived=lambda: _derived_orders(group),
        dihedral=lambda: bool(group.is_dihedral),
        presented=lambda: _presented_name(group, order),
    )


def _presented_name(group: PermutationGroup, order: int) -> str | None:
    # A non-natural action of small degree (S_7 on the 21 pairs): recognize
    # S_n/A_n on the multiplication table, when it is small enough.
    if order > TABLE_LIMIT:
        return None
    table = _cached_table(tuple(np.asarray(g.array_form, dtype=np.int64).tobytes()
                                for g in group.generators))
    return None if table is None else table.presented_name()


def _derived_orders(group: PermutationGroup) -> tuple[int, int]:
    derived = group.derived_subgroup()
    return int(derived.order()), int(derived.derived_subgroup().order())


def _moved_points(group: PermutationGroup) -> list[int]:
    moved: set[int] = set()
    for g in group.generators:
        moved.update(i for i, j in enumerate(g.array_form) if i != j)
    return sorted(moved)
