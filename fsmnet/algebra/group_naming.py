"""Names for finite groups from their order and cheap invariants.

:func:`abelian_name` names an abelian group by its invariant factors;
:func:`nonabelian_name` names a non-abelian one from invariants computed on
demand (centre, derived series, dihedral test, a presentation search).  Both
the sympy route and the multiplication-table route of
:mod:`fsmnet.algebra.groups` end here, so the two name a group alike.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from sympy import factorint

from fsmnet.algebra.group_recognition import factorial_degree

__all__ = ["GroupFacts", "abelian_name", "nonabelian_name"]


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


def abelian_name(prime_powers: Sequence[int]) -> str:
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


def nonabelian_name(order: int, *, centre: Callable[[], int],
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
