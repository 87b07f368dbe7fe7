"""Proof method ``cascade-components``: a product cascade proved one component at a time.

A product cascade (file format 3, :mod:`fsmnet.nets.minmax_cascade`) runs C
components side by side; a unit's controller reads only units of its own
component.  So the states of component c after a word w depend on w alone,
not on the other components, and the joint network state is a tuple whose
reachable set may be the *product* of the components' (110,592 tuples for
Sequences(4) with 3 tracks), although each component reaches few.

The argument, for each component c separately: explore the pairs
(component-c units' state, automaton state) reached from (h0|c, q0), exactly
as :mod:`fsmnet.proofs.product` explores the whole network, and record
S_c = {(f_c(h), q)}, f_c the component's final prefix index.  By induction on
|w|, the pair (h_w|c, δ(q0, w)) is reached, so (f_c(h_w), q_w) ∈ S_c for every
c.  The label after w is readout[join(f_0, ..., f_{C−1})], a function of the
final prefixes only.  Hence if, for every automaton state q reached,
readout[join(f)] = λ(q) for every tuple f with (f_c, q) ∈ S_c for all c, the
network equals the automaton on every word.  This over-approximates the
reachable tuples, so a failure is *not* a counterexample: the verifier then
runs the whole-network exploration, which finds one or closes.  The
compiler makes each component's final prefix its quotient class, so there
is one tuple per state (:mod:`fsmnet.constructions.minmax_product`).

The certificate restates each component's pairs and transitions; the
stdlib checker (:mod:`fsmnet.proofs.checker.components`) re-derives them from
the full model's units of that component and redoes the tuple check.
"""

from __future__ import annotations

from collections import deque
from itertools import product
from typing import Any

import numpy as np

from fsmnet.automata import Automaton
from fsmnet.nets import Network
from fsmnet.nets.alignment import label_map

METHOD = "cascade-components"
MAX_TUPLES = 1_000_000
"""Most (automaton state, final prefix tuple) checks before the method gives up."""


def component_network(net: Network, c: int) -> Network:
    """Component c of a product cascade as a one-component cascade whose label is the
    component's final prefix index (labels 0..F_c−1)."""
    from fsmnet.nets.minmax_cascade import MinMaxCascade

    sem = net.semantics
    assert isinstance(sem, MinMaxCascade)
    lay = sem.layout(net)
    units = lay.members[c]
    p = net.params
    params: dict[str, np.ndarray] = {
        "unit_level": np.array([lay.levels[u] for u in units], dtype=np.int64),
        "unit_size": np.array([lay.sizes[u] for u in units], dtype=np.int64),
        "unit_kind": np.array([lay.kinds[u] for u in units], dtype=np.int64),
        "readout": np.arange(lay.finals[c], dtype=np.int64),
    }
    for i, u in enumerate(units):
        for name in ("r", "s", "R", "x0"):
            if f"unit{u}_{name}" in p:
                params[f"unit{i}_{name}"] = np.asarray(p[f"unit{u}_{name}"])
        params[f"link{i}"] = np.asarray(p[f"link{u}"])
    return Network(arch=net.arch, params=params, symbols=net.symbols,
                   labels=list(range(lay.finals[c])), name=f"{net.name}[component {c}]")


def _explore(sub: Network, automaton: Automaton, max_states: int
             ) -> tuple[list[Any], list[tuple[int, int]], list[list[int]], list[int]] | None:
    """(states, pairs, transitions, final prefix per state) of sub × automaton, or
    None past ``max_states`` states."""
    from fsmnet.proofs.cascade_model import cascade_model
    from fsmnet.proofs.product import freeze

    sem = sub.semantics
    model = cascade_model(sub)
    if model is None:  # NaN-free tensors are validated on load; keep the generic step
        model = {"initial": sem.initial_state(sub, True),
                 "step": lambda h, a: sem.step(sub, h, a, True),
                 "readout": lambda h: sem.readout(sub, h, True), "key": freeze,
                 "materialize": lambda h: h}
    assert automaton.initial is not None
    table = [[int(x) for x in row] for row in np.asarray(automaton.delta)]
    index: dict[Any, int] = {}
    states: list[Any] = []
    finals: list[int] = []

    def intern(h: Any) -> int:
        key = model["key"](h)
        i = index.get(key)
        if i is None:
            i = index[key] = len(states)
            states.append(h)
            finals.append(int(model["readout"](h)))
        return i

    pairs = [(intern(model["initial"]), automaton.initial)]
    pair_index = {pairs[0]: 0}
    transitions: list[list[int]] = []
    queue = deque([0])
    while queue:
        hi, q = pairs[queue.popleft()]
        row = []
        for a in range(len(table)):
            target = (intern(model["step"](states[hi], a)), table[a][q])
            if len(states) > max_states:
                return None
            t = pair_index.get(target)
            if t is None:
                t = pair_index[target] = len(pairs)
                pairs.append(target)
                queue.append(t)
            row.append(t)
        transitions.append(row)
    return [model["materialize"](h) for h in states], pairs, transitions, finals


def prove_components(net: Network, automaton: Automaton, *, max_states: int = 20_000
                     ) -> dict[str, Any] | None:
    """The per-component explorations of a product cascade if they prove it (see the
    module docs), else None (not a product cascade, a budget, or a tuple check
    failed: then only the whole-network exploration can say)."""
    from fsmnet.nets.minmax_cascade import MinMaxCascade

    sem = net.semantics
    if not isinstance(sem, MinMaxCascade) or not sem.layout(net).product:
        return None
    lay = sem.layout(net)
    parts = []
    for c in range(lay.n_components):
        sub = component_network(net, c)
        found = _explore(sub, automaton, max_states)
        if found is None:
            return None
        parts.append((sub, *found))
    to_auto = label_map(net, automaton)
    out_ids = automaton.output_ids
    readout = np.asarray(net.params["readout"])
    joins = lay.joins
    per_state: list[dict[int, set[int]]] = []
    for _, _, pairs, _, finals in parts:
        seen: dict[int, set[int]] = {}
        for hi, q in pairs:
            seen.setdefault(q, set()).add(finals[hi])
        per_state.append(seen)
    checks = 0
    for q in per_state[0]:
        options = [sorted(seen.get(q, ())) for seen in per_state]
        for tup in product(*options):
            checks += 1
            if checks > MAX_TUPLES:
                return None
            code = tup[0]
            for c, join in enumerate(joins, start=1):
                code = int(join[code, tup[c]])
            if to_auto[int(readout[code])] != out_ids[q]:
                return None
    return {"method": METHOD, "components": [
        {"states": states, "pairs": pairs, "transitions": trans, "network": sub}
        for sub, states, pairs, trans, _ in parts],
        "pairs": sum(len(p[2]) for p in parts), "tuples": checks}


def components_certificate(net: Network, automaton: Automaton, proof: dict[str, Any], *,
                           network_path: str | None = None) -> dict[str, Any]:
    """The JSON certificate of :func:`prove_components` (method ``cascade-components``)."""
    from fsmnet.proofs.certificate import _common
    from fsmnet.proofs.certificate_models import certificate_form

    form = certificate_form(net)
    cert = _common(net, automaton, METHOD, form.model(net), network_path)
    cert["components"] = [
        {"states": [form.state(part["network"], h) for h in part["states"]],
         "pairs": [list(p) for p in part["pairs"]], "transitions": part["transitions"]}
        for part in proof["components"]]
    return cert


def verify_components(net: Network, automaton: Automaton, *, max_states: int,
                      certificate: str | None = None,
                      network_path: str | None = None) -> dict[str, Any] | None:
    """What :func:`fsmnet.proofs.verifier.verify` runs first: the details of a
    ``cascade-components`` proof (its certificate written when asked), or None."""
    proof = prove_components(net, automaton, max_states=max_states)
    if proof is None:
        return None
    details: dict[str, Any] = {
        "pairs": proof["pairs"],
        "network_states": sum(len(part["states"]) for part in proof["components"]),
        "components": len(proof["components"]), "tuples_checked": proof["tuples"]}
    if certificate is not None:
        from fsmnet.proofs.certificate import write_certificate

        write_certificate(components_certificate(net, automaton, proof,
                                                 network_path=network_path), certificate)
        details["certificate"] = certificate
    return details
