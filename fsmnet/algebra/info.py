"""The facts ``fsmnet info`` reports: sizes, syntactic-monoid properties, groups.

:func:`info` returns an :class:`InfoResult`, a plain dataclass whose JSON form
(``fsmnet info --json``) is the contract of docs/architecture.md, "JSON contracts"::

    {"name", "states", "minimal_states", "alphabet",
     "monoid": {"size", "commutative", "aperiodic",
                "groups": [{"name", "order", "exponent", "abelian", "solvable"}],
                "solvable"}}

``alphabet`` is the list of symbol names (in index order).  ``monoid`` is the
syntactic monoid: the transition monoid of the minimal automaton, identity
included (of the semiautomaton itself when there are no outputs).
``groups`` lists its non-trivial maximal subgroups up to isomorphism.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from fsmnet.algebra.groups import GroupFacts, describe_group
from fsmnet.algebra.monoid import TransitionMonoid

if TYPE_CHECKING:
    from sympy.combinatorics import PermutationGroup

    from fsmnet.automata.automaton import Automaton

__all__ = ["InfoResult", "MonoidInfo", "info", "monoid_info"]

# sympy's isomorphism test is used to merge two unnamed groups with equal
# facts only while it is cheap (it searches homomorphisms between them).
_ISOMORPHISM_ORDER = 200
_ISOMORPHISM_DEGREE = 64


@dataclass(frozen=True)
class MonoidInfo:
    """Properties of a (syntactic) monoid, as in ``info``'s ``monoid`` field.

    Attributes
    ----------
    size
        Number of elements, identity included.
    commutative
        All elements commute (for a syntactic monoid: the language only
        depends on the symbol counts).
    aperiodic
        Every maximal subgroup is trivial (for a syntactic monoid: the
        language is star-free).
    groups
        The non-trivial maximal subgroups, one per isomorphism class.
    solvable
        Every maximal subgroup is solvable.
    """

    size: int
    commutative: bool
    aperiodic: bool
    groups: tuple[GroupFacts, ...]
    solvable: bool


@dataclass(frozen=True)
class InfoResult:
    """What ``fsmnet info`` prints (see the module docs for the JSON form)."""

    name: str
    states: int
    minimal_states: int
    alphabet: tuple[str, ...]
    monoid: MonoidInfo


def info(automaton: Automaton, *, limit: int | None = None) -> InfoResult:
    """Sizes, syntactic-monoid facts and groups of an automaton.

    Parameters
    ----------
    automaton
        Any automaton or semiautomaton.
    limit
        Refuse (:class:`~fsmnet.algebra.monoid.MonoidTooLarge`) monoids with
        more elements than this.

    Examples
    --------
    >>> import numpy as np
    >>> from fsmnet.automata.automaton import Automaton
    >>> parity = Automaton(delta=np.array([[1, 0]]), symbols=("a",),
    ...                    initial=0, outputs=(True, False))
    >>> result = info(parity)
    >>> result.monoid.size, [g.name for g in result.monoid.groups]
    (2, ['C_2'])
    """
    minimal = automaton if automaton.is_semiautomaton else automaton.minimal()
    monoid = TransitionMonoid.from_automaton(minimal, limit=limit)  # = syntactic_monoid
    return InfoResult(
        name=automaton.name,
        states=automaton.n_states,
        minimal_states=minimal.n_states,
        alphabet=tuple(automaton.symbols),
        monoid=monoid_info(monoid),
    )


def monoid_info(monoid: TransitionMonoid) -> MonoidInfo:
    """The :class:`MonoidInfo` of a transition monoid."""
    distinct: list[tuple[GroupFacts, PermutationGroup]] = []
    for group in monoid.maximal_subgroups():
        facts = describe_group(group)
        if facts.order == 1:
            continue
        if not any(_isomorphic(facts, group, f, g) for f, g in distinct):
            distinct.append((facts, group))
    groups = tuple(sorted((f for f, _ in distinct), key=lambda f: (f.order, f.name)))
    return MonoidInfo(
        size=monoid.size,
        commutative=monoid.is_commutative,
        aperiodic=monoid.is_aperiodic,
        groups=groups,
        solvable=all(f.solvable for f in groups),
    )


def _isomorphic(fa: GroupFacts, ga: PermutationGroup, fb: GroupFacts,
                gb: PermutationGroup) -> bool:
    """Whether two groups are isomorphic, when we can tell cheaply and exactly.

    Different facts: not isomorphic.  A recognised name (anything but
    ``G_<order>``) identifies the group, so equal names: isomorphic.  Two
    unnamed groups with equal facts are compared with sympy's isomorphism
    test when they are small; otherwise they are kept apart, so a list may
    (rarely) show two isomorphic unnamed groups but never merges two
    different ones.
    """
    if fa != fb:
        return False
    if not fa.name.startswith("G_"):
        return True
    if fa.order > _ISOMORPHISM_ORDER or max(ga.degree, gb.degree) > _ISOMORPHISM_DEGREE:
        return False
    from sympy.combinatorics.homomorphisms import is_isomorphic

    return bool(is_isomorphic(ga, gb))
