"""Product cascades: one holonomy cascade per quotient, run side by side (format 3).

The holonomy cascade of a product of independent machines interleaves them:
its levels hold image sets of the product, and the coordinate tuples it
reaches multiply (the Sequences task with 3 tracks of 3 sets reaches more
than 15,000 of them for 64 states).  But when the automaton A is a
*subdirect product*, that is, it has state congruences π_1..π_m (partitions
compatible with every letter) whose meet is the identity, A embeds into the
product of its quotients A/π_i: the map q ↦ (class_1(q), ..., class_m(q)) is
injective and commutes with every letter.  So a cascade per quotient, each run
on the same input, determines the state of A, hence its output:

* each quotient gets its own holonomy cascade (:func:`holonomy_spec`), built
  by the same pipeline (:func:`cascade_units`, prefix-indexed), its units'
  controllers reading only the units of the same component;
* each component's last link sends a reached prefix straight to the
  quotient state it decodes to, so a component's final prefix is its class;
* the label is read from the tuple of classes through the joins of file
  format 3 (:mod:`fsmnet.nets.minmax_cascade`): one code per state of A.

Each component's exploration checks that its coordinates decode to the
quotient state reached in lockstep, and the class tuples are checked to be
distinct (the meet is the identity), so the network is right by
construction; the verifier proves it independently, one component at a time
(:mod:`fsmnet.proofs.cascade_components`), since the joint states of the
units are the product of the components' and need not be explored.
Congruences come from
:func:`fsmnet.constructions.congruences.congruences` (the bilinear-block
split's enumeration); when they give no proper factorization, nothing
changes.  When the product form is used instead of the plain cascade is a row
of the strategy table (:mod:`fsmnet.constructions.minmax_strategies`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from fsmnet.automata import Automaton
from fsmnet.constructions.congruences import Partition, congruences
from fsmnet.constructions.minmax_cascade import (
    CascadeSpec,
    CascadeUnits,
    cascade_units,
    unit_params,
)
from fsmnet.constructions.minmax_limits import LIMITS
from fsmnet.errors import FsmnetError, NotExpressible
from fsmnet.nets import Network
from fsmnet.nets.minmax_cascade import MAX_TABLE, SCALAR_KIND


def _meet(a: Sequence[int], b: Sequence[int]) -> tuple[int, ...]:
    seen: dict[tuple[int, int], int] = {}
    return tuple(seen.setdefault((x, y), len(seen)) for x, y in zip(a, b))


def factorization(automaton: Automaton, *, limit: int = LIMITS.congruence_limit,
                  max_steps: int = LIMITS.congruence_steps) -> list[Partition] | None:
    """Congruences whose meet is the identity, each coarser than the identity; None
    when the enumeration finds no such set of two or more.

    Greedy, coarsest first: a congruence joins the set when it refines the meet
    so far; then each one the others make redundant is dropped, coarsest first.
    The number of classes stands in for a quotient's cascade size.
    """
    n = automaton.n_states
    if n < 4:  # a proper factorization needs two quotients of >= 2 classes
        return None
    found, _ = congruences(np.asarray(automaton.delta), limit, max_steps=max_steps)
    chosen: list[Partition] = []
    meet: tuple[int, ...] = (0,) * n
    for part in sorted(found, key=lambda p: (max(p), p)):
        finer = _meet(meet, part)
        if max(finer) > max(meet):
            chosen.append(part)
            meet = finer
            if max(meet) + 1 == n:
                break
    if max(meet) + 1 != n:
        return None
    for part in list(chosen):
        rest = [p for p in chosen if p is not part]
        m: tuple[int, ...] = (0,) * n
        for p in rest:
            m = _meet(m, p)
        if rest and max(m) + 1 == n:
            chosen = rest
    return chosen if len(chosen) >= 2 else None


def quotient(automaton: Automaton, part: Partition) -> Automaton:
    """A/π with each class its own output (so the quotient is minimal as it is)."""
    assert automaton.initial is not None
    n_cls = max(part) + 1
    rep = [0] * n_cls
    for q in range(automaton.n_states - 1, -1, -1):
        rep[part[q]] = q
    delta = np.array([[part[int(row[rep[c]])] for c in range(n_cls)]
                      for row in np.asarray(automaton.delta)], dtype=np.int64)
    return Automaton(delta=delta, symbols=automaton.symbols,
                     states=[f"c{c}" for c in range(n_cls)],
                     initial=part[automaton.initial], outputs=list(range(n_cls)),
                     name=f"{automaton.name}/quotient")


def _reachable(automaton: Automaton) -> list[int]:
    assert automaton.initial is not None
    seen, stack = {automaton.initial}, [automaton.initial]
    while stack:
        q = stack.pop()
        for row in np.asarray(automaton.delta):
            if int(row[q]) not in seen:
                seen.add(int(row[q]))
                stack.append(int(row[q]))
    return sorted(seen)


def _class_links(comp: CascadeUnits) -> np.ndarray:
    """The last link of a component, sending each reached prefix straight to the
    quotient state it decodes to: the component's final prefix *is* its class.

    The exploration checked, for every reached coordinate tuple, that it decodes
    to the quotient state reached in lockstep, so this loses nothing; and it
    makes the joined readout range over the classes, not over the (many more)
    coordinate tuples: at most one code per state of the automaton.
    """
    assert comp.tab.states is not None
    classes = np.zeros(comp.rows[-1], dtype=np.int64)
    for full, state in comp.tab.states.items():
        classes[full] = state
    return classes[comp.links[-1]]


def _joint_codes(automaton: Automaton, parts: Sequence[Partition]
                 ) -> tuple[list[np.ndarray], np.ndarray]:
    """The joins and readout over the class tuples of the reachable states."""
    labels = automaton.output_ids
    states = _reachable(automaton)
    tuples = {tuple(part[q] for part in parts): q for q in states}
    if len(tuples) != len(states):
        raise FsmnetError("product cascade: two states have the same classes in every "
                          "congruence: their meet is not the identity")
    finals = [max(part) + 1 for part in parts]
    code = {tup: tup[0] for tup in tuples}
    width = finals[0]
    joins = []
    for c in range(1, len(parts)):
        if width * finals[c] > MAX_TABLE:
            raise NotExpressible(f"product cascade: join {c} would have "
                                 f"{width * finals[c]:,} entries")
        join = np.zeros((width, finals[c]), dtype=np.int64)
        ids: dict[tuple[int, int], int] = {}
        for tup in tuples:  # numbered as a trie over the components (unreached: 0)
            key = (code[tup], tup[c])
            code[tup] = ids.setdefault(key, len(ids))
            join[key] = code[tup]
        joins.append(join)
        width = len(ids)
    readout = np.zeros(width, dtype=np.int64)
    for tup, q in tuples.items():
        readout[code[tup]] = int(labels[q])
    return joins, readout


def product_network(automaton: Automaton, parts: Sequence[Partition], *,
                    arch: str = "minmax-cascade", max_steps: int | None = None) -> Network:
    """The product cascade of ``automaton`` over the congruences ``parts`` (their meet
    must be the identity): a holonomy cascade per quotient, side by side."""
    budget = LIMITS.max_steps if max_steps is None else max_steps
    comps: list[CascadeUnits] = []
    specs: list[CascadeSpec] = []
    for part in parts:
        q = quotient(automaton, part)
        specs.append(component_spec(q))
        comps.append(cascade_units(specs[-1], q, arch=arch, prefix_index=True,
                                   max_steps=budget, record_moves=True))
    joins, readout = _joint_codes(automaton, parts)
    # Units sorted by (level, component): a unit's level is its depth in its component.
    order = sorted(((lv, c) for c, comp in enumerate(comps) for lv in range(len(comp.sizes))))
    params: dict[str, np.ndarray] = {
        "unit_level": np.array([lv for lv, _ in order], dtype=np.int64),
        "unit_size": np.array([comps[c].sizes[lv] for lv, c in order], dtype=np.int64),
        "unit_kind": np.array([comps[c].kinds[lv] for lv, c in order], dtype=np.int64),
        "unit_component": np.array([c for _, c in order], dtype=np.int64),
        "readout": readout,
    }
    for u, (lv, c) in enumerate(order):
        params.update(unit_params(u, comps[c].tensors[lv]))
        last = lv == len(comps[c].sizes) - 1
        params[f"link{u}"] = _class_links(comps[c]) if last else comps[c].links[lv]
    for c, join in enumerate(joins, start=1):
        params[f"join{c}"] = join
    kinds = [comps[c].kinds[lv] for lv, c in order]
    sizes = [comps[c].sizes[lv] for lv, c in order]
    facts: dict[str, Any] = {
        "construction": "product",
        "levels": max(len(c.sizes) for c in comps),
        "units": len(order),
        "components": len(comps),
        "component_states": [max(p) + 1 for p in parts],
        "component_levels": [len(c.sizes) for c in comps],
        "unit_sizes": sizes,
        "unit_kinds": ["scalar" if kd == SCALAR_KIND else "matrix" for kd in kinds],
        "state_size": sum(1 if kd == SCALAR_KIND else k for k, kd in zip(sizes, kinds)),
        "reachable_coordinates": sum(len(c.tab.reached) for c in comps),
        "component_coordinates": [len(c.tab.reached) for c in comps],
        "prefix_indexed": True,
        "verified_product": True,
        "component_constructions": ["threshold" if "threshold_order" in s.facts
                                    else "holonomy" for s in specs],
        "holonomy_components": [s.facts.get("holonomy_components") for s in specs],
    }
    return Network(arch=arch, params=params, symbols=automaton.symbols,
                   labels=automaton.labels, options=facts, name=automaton.name)


def component_spec(quotient: Automaton) -> CascadeSpec:
    """A component's cascade: the threshold cascade when the quotient is an ordered
    chain (n − 1 binary units, no redundancy), else its holonomy cascade."""
    from fsmnet.constructions.minmax_holonomy import holonomy_spec
    from fsmnet.constructions.minmax_threshold import onehot_order_spec, threshold_spec

    return threshold_spec(quotient) or onehot_order_spec(quotient) or holonomy_spec(quotient)
