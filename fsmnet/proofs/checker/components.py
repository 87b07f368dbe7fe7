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

from itertools import product
from typing import Any

from .core import CertificateError, _automaton_table, _same_label
from .models import _cascade_model

MAX_TUPLES = 1_000_000


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


def check_components(cert: dict[str, Any]) -> str:
    """Raise CertificateError unless the cascade-components claim holds; else a summary."""
    auto, net = cert["automaton"], cert["network"]
    delta, outputs, q0, _ = _automaton_table(auto)
    k, n = len(delta), len(outputs)
    model, labels = net["model"], net["labels"]
    if model.get("type") != "minmax-cascade" or not model.get("joins"):
        raise CertificateError("cascade-components needs a product cascade model "
                               "(components and joins)")
    whole = _cascade_model(model, k, len(labels))  # validates units, links, joins, readout
    comp = model["components"]
    chains = [[u for u in range(len(comp)) if comp[u] == c] for c in range(max(comp) + 1)]
    parts = cert["components"]
    if not isinstance(parts, list) or len(parts) != len(chains):
        raise CertificateError("one exploration per component is required")
    allowed: list[dict[int, set[int]]] = []
    n_pairs = 0
    for c, (units, part) in enumerate(zip(chains, parts)):
        sub = _component_model(model, units, k)
        states = [sub.state(h) for h in part["states"]]
        pairs, trans = part["pairs"], part["transitions"]
        if not pairs or len(trans) != len(pairs):
            raise CertificateError(f"component {c}: every pair needs its row of transitions")
        for p in pairs:
            if not (isinstance(p, list) and len(p) == 2 and isinstance(p[0], int)
                    and isinstance(p[1], int) and 0 <= p[0] < len(states) and 0 <= p[1] < n):
                raise CertificateError(f"component {c}: bad pair {p!r}")
        if states[pairs[0][0]] != [whole.h0[u] for u in units] or pairs[0][1] != q0:
            raise CertificateError(f"component {c}: pair 0 is not (h0, q0)")
        seen: dict[int, set[int]] = {}
        for p, ((hi, q), row) in enumerate(zip(pairs, trans)):
            h = states[hi]
            seen.setdefault(q, set()).add(sub.label(h))
            if not isinstance(row, list) or len(row) != k:
                raise CertificateError(f"component {c}, pair {p}: one transition per symbol")
            for a, t in enumerate(row):
                if not (isinstance(t, int) and 0 <= t < len(pairs)):
                    raise CertificateError(f"component {c}, pair {p}, symbol {a}: bad "
                                           f"target {t!r}")
                th, tq = pairs[t]
                if tq != delta[a][q]:
                    raise CertificateError(f"component {c}, pair {p}, symbol {a}: "
                                           f"automaton target differs")
                if states[th] != sub.step(h, a):
                    raise CertificateError(f"component {c}, pair {p}, symbol {a}: "
                                           f"network target differs")
        allowed.append(seen)
        n_pairs += len(pairs)
    joins, readout = model["joins"], model["readout"]
    checks = 0
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
            for c, join in enumerate(joins, start=1):
                code = join[code][tup[c]]
            got = labels[readout[code]]
            if not _same_label(got, outputs[q]):
                raise CertificateError(f"state {q}, final codes {list(tup)}: readout gives "
                                       f"{got!r}, automaton {outputs[q]!r}")
    return (f"valid: {len(chains)} components, {n_pairs} pairs, {checks} tuples, "
            f"{k} symbols, closed and consistent")
