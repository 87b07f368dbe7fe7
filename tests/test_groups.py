"""Tests of fsmnet.algebra.groups against published facts about small groups.

Sources for expected values: the orders of S_n (n!), A_n (n!/2), D_n (2n),
and the exponent of S_n being lcm(1..n) are textbook facts (e.g. Dummit &
Foote, *Abstract Algebra*, 3rd ed., §1.2-1.3, §3.5, §4.6); A_5 is simple
and non-abelian, hence not solvable (Dummit & Foote Thm 4.24).  The Klein
four-group is C_2 x C_2 and Q_8 has exponent 4 (Dummit & Foote §1.5, §2.5).
"""

from __future__ import annotations

import math

import pytest
from sympy.combinatorics import Permutation, PermutationGroup
from sympy.combinatorics.named_groups import (
    AbelianGroup,
    AlternatingGroup,
    CyclicGroup,
    DihedralGroup,
    SymmetricGroup,
)

from fsmnet.algebra.groups import (
    GroupFacts,
    describe_group,
    group_from_permutations,
    group_order,
)
from fsmnet.errors import SpecError

QUATERNION = PermutationGroup([Permutation(0, 1, 2, 3)(4, 5, 6, 7),
                               Permutation(0, 4, 2, 6)(1, 7, 3, 5)])


@pytest.mark.parametrize("n", [3, 4, 5, 6])
def test_symmetric_groups(n: int) -> None:
    facts = describe_group(SymmetricGroup(n))
    assert facts == GroupFacts(name=f"S_{n}", order=math.factorial(n),
                               exponent=math.lcm(*range(1, n + 1)), abelian=False,
                               solvable=n <= 4)  # S_n is solvable iff n <= 4


def test_s5_order_120_not_solvable() -> None:
    facts = describe_group(SymmetricGroup(5))
    assert (facts.order, facts.solvable) == (120, False)


def test_a5_order_60_simple_not_solvable() -> None:
    a5 = AlternatingGroup(5)
    facts = describe_group(a5)
    assert (facts.name, facts.order, facts.exponent, facts.solvable) == ("A_5", 60, 30, False)
    # Simple: its only normal subgroups are 1 and A_5 (derived subgroup = itself).
    assert a5.derived_subgroup().order() == 60


def test_dihedral_d4_order_8() -> None:
    facts = describe_group(DihedralGroup(4))
    assert (facts.name, facts.order, facts.exponent, facts.abelian) == ("D_4", 8, 4, False)


@pytest.mark.parametrize(
    ("group", "name", "order", "exponent"),
    [
        (CyclicGroup(1), "1", 1, 1),
        (CyclicGroup(7), "C_7", 7, 7),
        (AbelianGroup(2, 3), "C_6", 6, 6),  # C_2 x C_3 = C_6 (coprime orders)
        (AbelianGroup(2, 2), "V_4", 4, 2),
        (AbelianGroup(2, 4), "C_2 x C_4", 8, 4),
        (AbelianGroup(2, 2, 2), "C_2 x C_2 x C_2", 8, 2),
        (AbelianGroup(4, 6), "C_2 x C_12", 24, 12),  # C_4 x C_6 = C_2 x C_12
        (DihedralGroup(3), "S_3", 6, 6),  # D_3 = S_3
        (DihedralGroup(5), "D_5", 10, 10),
        (DihedralGroup(6), "D_6", 12, 6),
        (AlternatingGroup(4), "A_4", 12, 6),
        (QUATERNION, "Q_8", 8, 4),
    ],
)
def test_named_small_groups(group: PermutationGroup, name: str, order: int,
                            exponent: int) -> None:
    facts = describe_group(group)
    assert (facts.name, facts.order, facts.exponent) == (name, order, exponent)


def _regular(group: PermutationGroup) -> PermutationGroup:
    """The regular representation (degree = order), built by brute force."""
    elements = list(group.generate())
    index = {tuple(e.array_form): i for i, e in enumerate(elements)}
    return PermutationGroup([Permutation([index[tuple((e * g).array_form)] for e in elements])
                             for g in group.generators])


def _padded(group: PermutationGroup, degree: int) -> PermutationGroup:
    return PermutationGroup([Permutation(g.array_form + list(range(g.size, degree)))
                             for g in group.generators])


@pytest.mark.parametrize(
    "group",
    [SymmetricGroup(4), AlternatingGroup(5), DihedralGroup(6), AbelianGroup(2, 4),
     AbelianGroup(2, 2), QUATERNION, CyclicGroup(9)],
    ids=["S4", "A5", "D6", "C2xC4", "V4", "Q8", "C9"],
)
def test_large_degree_path_agrees_with_sympy(group: PermutationGroup) -> None:
    # Degree > 64 switches to the multiplication-table algorithms; the
    # natural action (sympy's algorithms) is the second opinion.
    expected = describe_group(group)
    padded = _padded(group, 70)
    assert describe_group(padded) == expected
    assert group_order(padded) == expected.order


def test_regular_representation_of_s5() -> None:
    facts = describe_group(_regular(SymmetricGroup(5)))
    assert facts == GroupFacts(name="S_5", order=120, exponent=60, abelian=False,
                               solvable=False)


def test_group_from_permutations() -> None:
    g = group_from_permutations([[1, 2, 0], [1, 0, 2]], 3)
    assert g.order() == 6
    assert group_from_permutations([], 4).order() == 1


@pytest.mark.parametrize("perm", [[0, 0, 1], [0, 1], [0, 1, 3]])
def test_group_from_permutations_rejects_non_permutations(perm: list[int]) -> None:
    with pytest.raises(SpecError, match=r"perms\[1\]"):
        group_from_permutations([[0, 1, 2], perm], 3)
