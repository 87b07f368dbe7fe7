"""Group names do not depend on the action.

Independent source of the expected names: each group is *built* from a
sympy named group (``SymmetricGroup(n)``, ``AlternatingGroup(n)``, direct
products), so its isomorphism type is known by construction; we then make it
act on something other than its natural points (its own elements, the
pairs or triples of points) and ask fsmnet to name it.  Negative controls
have the same order as S_n or A_n but a different isomorphism type
(A_6 x C_2 has a centre of order 2, S_6 has none), so they must not be
named S_n/A_n.
"""

from __future__ import annotations

import itertools

import pytest
from sympy.combinatorics import Permutation, PermutationGroup
from sympy.combinatorics.named_groups import AlternatingGroup, CyclicGroup, SymmetricGroup

from fsmnet.algebra.groups import describe_group, group_name


def regular(group: PermutationGroup) -> PermutationGroup:
    """The right-regular action of ``group`` on its own elements."""
    elements = list(group.generate())
    index = {g: i for i, g in enumerate(elements)}
    gens = [Permutation([index[x * g] for x in elements]) for g in group.generators]
    return PermutationGroup(gens)


def on_subsets(group: PermutationGroup, size: int) -> PermutationGroup:
    """The action of ``group`` on the ``size``-subsets of its points."""
    subsets = [frozenset(c) for c in itertools.combinations(range(group.degree), size)]
    index = {s: i for i, s in enumerate(subsets)}
    gens = [Permutation([index[frozenset(g(i) for i in s)] for s in subsets])
            for g in group.generators]
    return PermutationGroup(gens)


def test_s6_regular_on_720_points_is_s6() -> None:
    # S_6 acting regularly on its 720 elements: named S_6, not "G_720" after the degree.
    facts = describe_group(regular(SymmetricGroup(6)))
    assert (facts.name, facts.order, facts.exponent) == ("S_6", 720, 60)


def test_a6_regular_on_360_points_is_a6() -> None:
    assert group_name(regular(AlternatingGroup(6))) == "A_6"


@pytest.mark.parametrize(("group", "size", "name"), [
    (SymmetricGroup(7), 2, "S_7"),      # 21 pairs: degree <= 64, the sympy path
    (AlternatingGroup(7), 3, "A_7"),    # 35 triples
    (SymmetricGroup(6), 2, "S_6"),      # 15 pairs
    (AlternatingGroup(5), 2, "A_5"),    # 10 pairs (invariants suffice)
    (SymmetricGroup(5), 2, "S_5"),
])
def test_action_on_subsets(group: PermutationGroup, size: int, name: str) -> None:
    assert group_name(on_subsets(group, size)) == name


def test_same_order_other_type_is_not_misnamed() -> None:
    # A_6 x C_2 has order 720 = 6! but a centre of order 2 (S_6 has none).
    a6 = AlternatingGroup(6)
    c2 = CyclicGroup(2)
    product = a6 * c2  # sympy's direct product, on 6 + 2 points
    assert int(product.order()) == 720
    assert group_name(product) == "G_720"
    assert group_name(regular(product)) == "G_720"


def test_a5_times_c2_order_120_is_not_s5() -> None:
    product = AlternatingGroup(5) * CyclicGroup(2)
    assert group_name(regular(product)) == "G_120"


def test_natural_and_regular_names_agree() -> None:
    # The same group under two actions gets one name (regular S_5 is a
    # table of 120 elements; natural S_5 goes through sympy).
    for group in (SymmetricGroup(5), AlternatingGroup(5), SymmetricGroup(4)):
        assert group_name(regular(group)) == group_name(group)
