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
    symmetric / alternating, recognised when the group is the full symmetric
    (or alternating) group on the points it moves, and in a few other
    cases where the order and cheap invariants leave no other choice
    (``S_3``, ``A_4``, ``S_4``, ``A_5``, ``S_5``; see ``_name_by_invariants``);
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
from dataclasses import dataclass
from functools import reduce

from sympy import factorint
from sympy.combinatorics import Permutation, PermutationGroup

from fsmnet.errors import SpecError

__all__ = [
    "GroupFacts",
    "describe_group",
    "group_exponent",
    "group_from_permutations",
    "group_name",
]

# Groups up to this order are enumerated element by element for the exponent;
# larger ones go through their Sylow subgroups, which are much smaller.
_ENUMERATE_LIMIT = 5000


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

    Examples
    --------
    >>> from sympy.combinatorics.named_groups import SymmetricGroup
    >>> describe_group(SymmetricGroup(3))
    GroupFacts(name='S_3', order=6, exponent=6, abelian=False, solvable=True)
    """
    order = int(group.order())
    abelian = bool(group.is_abelian)
    solvable = bool(group.is_solvable)
    return GroupFacts(
        name=group_name(group),
        order=order,
        exponent=group_exponent(group),
        abelian=abelian,
        solvable=solvable,
    )


def group_name(group: PermutationGroup) -> str:
    """A short name for a permutation group (see the module docs for the scheme)."""
    order = int(group.order())
    if order == 1:
        return "1"
    if group.is_abelian:
        return _abelian_name(group)
    support = _moved_points(group)
    k = len(support)
    # Faithful on its support: order k! forces the full symmetric group there,
    # and order k!/2 (an index-2 subgroup of S_k) forces A_k.
    if order == math.factorial(k):
        return f"S_{k}"
    if k >= 3 and 2 * order == math.factorial(k):
        return f"A_{k}"
    by_invariants = _name_by_invariants(group, order)
    if by_invariants is not None:
        return by_invariants
    if group.is_dihedral:
        return f"D_{order // 2}"
    return f"G_{order}"


def _abelian_name(group: PermutationGroup) -> str:
    # sympy returns the prime-power (elementary divisor) invariants; combine
    # them into invariant factors d_1 | d_2 | ... for a canonical name.
    powers: dict[int, list[int]] = {}
    for q in group.abelian_invariants():
        q = int(q)
        (p,) = factorint(q)
        powers.setdefault(int(p), []).append(q)
    length = max((len(v) for v in powers.values()), default=0)
    factors = [1] * length
    for v in powers.values():
        for i, q in enumerate(sorted(v, reverse=True)):
            factors[length - 1 - i] *= q
    factors = [f for f in factors if f > 1]
    if len(factors) == 1:
        return f"C_{factors[0]}"
    if factors == [2, 2]:
        return "V_4"
    return " x ".join(f"C_{f}" for f in factors)


def _name_by_invariants(group: PermutationGroup, order: int) -> str | None:
    """Names of non-abelian groups fixed by their order and cheap invariants.

    - order 6: the only non-abelian group is S_3;
    - order 8: D_4 (dihedral) or Q_8 (not dihedral);
    - order 12 with trivial centre: A_4 (D_6 and the dicyclic group have a
      centre of order 2);
    - order 24 with trivial centre and derived subgroup of order 12: S_4;
    - order 60, perfect: A_5 (the only perfect group of order 60);
    - order 120 with trivial centre and a perfect derived subgroup of order
      60: S_5 (conjugation embeds it into Aut(A_5) = S_5).
    """
    if order == 6:
        return "S_3"
    if order == 8:
        return "D_4" if group.is_dihedral else "Q_8"
    if order not in (12, 24, 60, 120):
        return None
    centre = int(group.center().order())
    derived = group.derived_subgroup()
    d_order = int(derived.order())
    if order == 12 and centre == 1:
        return "A_4"
    if order == 24 and centre == 1 and d_order == 12:
        return "S_4"
    if order == 60 and d_order == 60:
        return "A_5"
    if order == 120 and centre == 1 and d_order == 60 and int(
            derived.derived_subgroup().order()) == 60:
        return "S_5"
    return None


def _moved_points(group: PermutationGroup) -> list[int]:
    moved: set[int] = set()
    for g in group.generators:
        moved.update(i for i, j in enumerate(g.array_form) if i != j)
    return sorted(moved)
