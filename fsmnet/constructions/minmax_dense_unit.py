"""A one-unit MinMax cascade over the states: the fallback of ``minmax-cascade``.

A matrix unit of k values steps by x ↦ (R ⊗ x) ⊕ s on one-hot max-min
vectors.  With R[f(p), p] = 1 (0 elsewhere) and s = 0, (R ⊗ e_p)_i =
R[i, p] = [f(p) = i], so the unit carries *any* map f of its points, not only
permutations and constants.  One unit whose points are the n states of the
minimal automaton, with R[σ] the transition map of σ, is therefore a cascade
of one level that runs the automaton exactly: the minmax-dense recipe
(docs/constructions-minmax.md) packaged in the cascade's file format.

It exists for the automata whose decompositions are too large to build: a
random machine's holonomy cascade reaches far more coordinate tuples than it
has states (docs/performance.md), while this unit has |Σ|·n² table entries and
reaches exactly n.  It says nothing of the automaton's structure (no levels, no
groups), so it is the fallback row of the strategy table
(:data:`~fsmnet.constructions.minmax_strategies.CASCADE_TABLE`), taken only
when no decomposition fits its limits, and the network's options say so
(``construction: "dense unit"``, ``fallback_reason``).  ``minmax-scalar`` cannot use
it: a scalar unit's step is idempotent, so it carries no such map.
"""

from __future__ import annotations

from typing import Any

from fsmnet.automata import Automaton
from fsmnet.constructions.minmax_cascade import CascadeSpec, cascade_network
from fsmnet.nets import Network

__all__ = ["dense_unit_network", "dense_unit_spec"]


def dense_unit_spec(automaton: Automaton) -> CascadeSpec:
    """One level whose points are the states; every letter acts by its transition map."""
    assert automaton.initial is not None
    maps = [tuple(int(v) for v in row) for row in automaton.delta]
    return CascadeSpec(sizes=(automaton.n_states,), initial=(int(automaton.initial),),
                       action=lambda level, symbol, above: ("map", maps[symbol]),
                       decode=lambda coords: coords[0])


def dense_unit_network(automaton: Automaton, *, why: str) -> Network:
    """The one-unit cascade of ``automaton`` (proved by the same product exploration
    as every cascade); ``why`` records why no decomposition was used.

    The exploration budget of the decompositions does not apply: this one visits
    exactly n pairs.  Its size is bounded by the table limit instead
    (:data:`fsmnet.nets.minmax_cascade.MAX_TABLE` entries of R, about 5,800
    states with two letters), past which it raises :class:`NotExpressible`.
    """
    options: dict[str, Any] = {"construction": "dense unit", "fallback_reason": why}
    steps = automaton.n_states * automaton.n_symbols + 1
    return cascade_network(dense_unit_spec(automaton), automaton, arch="minmax-cascade",
                           options=options, max_steps=steps, prefix_index=False)
