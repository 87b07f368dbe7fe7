"""Method ``cascade-components``: a product MinMax cascade, one component at a time.

The model is a ``minmax-cascade`` model with ``components`` and ``joins``: a
unit reads only units of its own component (that is the model's semantics,
:func:`models._cascade_model`), so the units of component c, stepped alone,
follow the same trajectory as inside the whole network.  For each component
the certificate lists states of its units, pairs (state, automaton state) and
a transition per pair and symbol; this module re-derives every transition
from the model (pair 0 must be (h0 restricted to c, q0)), so each list is
closed under every symbol: every pair reachable is listed.  With S_c the
set of (final code of component c, q) over the listed pairs, every reachable
(network state, q) has, for each c, (final code, q) in S_c.  The label is
readout at the joined final codes, so checking every tuple of final codes
allowed by S_c, for every q, covers every reachable pair.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import product
from typing import Any

from .core import Automaton, CertificateError, _same_label, read_automaton
from .fields import PairTable, PairWords, read_pair_table
from .models import _cascade_model, _Model

MAX_TUPLES = 1_000_000

COMPONENT_WORDS = PairWords(
    "component {c}: every pair needs its row of transitions", "component {c}: bad pair {p!r}",
    "component {c}: every pair needs its row of transitions",
    "component {c}, pair {i}: one transition per symbol",
    "component {c}, pair {i}, symbol {a}: bad target {t!r}")


def _component_model(model: dict[str, Any], units: list[int], k: int) -> Any:
    """Component ``units`` of a product cascade model as a one-component model whose
    label is the component's final code."""
    links = model["links"]
    finals = _finals(model)
    c = model["components"][units[0]]
    sub = {"type": "minmax-cascade", "units": [model["units"][u] for u in units],
           "links": [links[u] for u in units], "readout": list(range(finals[c]))}
    return _cascade_model(sub, k, finals[c])


def _finals(model: dict[str, Any]) -> list[int]:
    joins = model["joins"]
    return [len(joins[0])] + [len(j[0]) for j in joins]


@dataclass(frozen=True)
class Exploration:
    """One component's listed product: its units, their model, states and pairs."""

    units: tuple[int, ...]
    model: _Model
    h0: list[Any]  # the whole network's h0 restricted to the component's units
    states: tuple[Any, ...]
    table: PairTable


@dataclass(frozen=True)
class ComponentsCertificate:
    """A cascade-components certificate, parsed."""

    automaton: Automaton
    labels: tuple[Any, ...]
    joins: tuple[Any, ...]
    readout: tuple[int, ...]  # label index per joined final code
    explorations: tuple[Exploration, ...]  # per component


def _read_exploration(model: dict[str, Any], whole: _Model, units: list[int], part: Any,
                      auto: Automaton, c: int) -> Exploration:
    sub = _component_model(model, units, auto.n_symbols)
    states = tuple(sub.state(h) for h in part["states"])
    table = read_pair_table(part["pairs"], part["transitions"], len(states), auto.n_states,
                            auto.n_symbols, COMPONENT_WORDS, {"c": c})
    return Exploration(tuple(units), sub, [whole.h0[u] for u in units], states, table)


def parse_components(cert: dict[str, Any]) -> ComponentsCertificate:
    auto, net = read_automaton(cert["automaton"]), cert["network"]
    model, labels = net["model"], tuple(net["labels"])
    if model.get("type") != "minmax-cascade" or not model.get("joins"):
        raise CertificateError("cascade-components needs a product cascade model "
                               "(components and joins)")
    whole = _cascade_model(model, auto.n_symbols, len(labels))  # validates it all
    comp = model["components"]
    chains = [[u for u in range(len(comp)) if comp[u] == c] for c in range(max(comp) + 1)]
    parts = cert["components"]
    if not isinstance(parts, list) or len(parts) != len(chains):
        raise CertificateError("one exploration per component is required")
    explorations = tuple(_read_exploration(model, whole, units, part, auto, c)
                         for c, (units, part) in enumerate(zip(chains, parts)))
    return ComponentsCertificate(auto, labels, tuple(model["joins"]), tuple(model["readout"]),
                                 explorations)


def _check_exploration(auto: Automaton, ex: Exploration, c: int) -> dict[int, set[int]]:
    """The component's listed pairs are closed under every symbol from (h0, q0); per
    automaton state, the component's final codes seen with it."""
    pairs = ex.table.pairs
    if ex.states[pairs[0][0]] != ex.h0 or pairs[0][1] != auto.initial:
        raise CertificateError(f"component {c}: pair 0 is not (h0, q0)")
    seen: dict[int, set[int]] = {}
    for p, ((hi, q), row) in enumerate(zip(pairs, ex.table.transitions)):
        h = ex.states[hi]
        seen.setdefault(q, set()).add(ex.model.label(h))
        for a, t in enumerate(row):
            th, tq = pairs[t]
            if tq != auto.delta[a][q]:
                raise CertificateError(f"component {c}, pair {p}, symbol {a}: "
                                       f"automaton target differs")
            if ex.states[th] != ex.model.step(h, a):
                raise CertificateError(f"component {c}, pair {p}, symbol {a}: "
                                       f"network target differs")
    return seen


def _check_tuples(cc: ComponentsCertificate, allowed: list[dict[int, set[int]]]) -> int:
    """Every tuple of final codes the explorations allow with an automaton state reads
    out that state's output; the number of tuples checked."""
    outputs, checks = cc.automaton.outputs, 0
    for q in sorted(allowed[0]):
        options = [sorted(seen.get(q, ())) for seen in allowed]
        if not all(options):
            raise CertificateError(f"automaton state {q} is reached in one component's "
                                   f"exploration but not in another's")
        for tup in product(*options):
            checks += 1
            if checks > MAX_TUPLES:
                raise CertificateError(f"more than {MAX_TUPLES:,} tuples to check")
            code = tup[0]
            for c, join in enumerate(cc.joins, start=1):
                code = join[code][tup[c]]
            got = cc.labels[cc.readout[code]]
            if not _same_label(got, outputs[q]):
                raise CertificateError(f"state {q}, final codes {list(tup)}: readout gives "
                                       f"{got!r}, automaton {outputs[q]!r}")
    return checks


def check_components(cert: dict[str, Any]) -> str:
    """Raise CertificateError unless the cascade-components claim holds; else a summary."""
    cc = parse_components(cert)
    allowed = [_check_exploration(cc.automaton, ex, c)
               for c, ex in enumerate(cc.explorations)]
    checks = _check_tuples(cc, allowed)
    n_pairs = sum(len(ex.table.pairs) for ex in cc.explorations)
    return (f"valid: {len(cc.explorations)} components, {n_pairs} pairs, {checks} tuples, "
            f"{cc.automaton.n_symbols} symbols, closed and consistent")
