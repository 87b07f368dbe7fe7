"""minmax-cascade and minmax-scalar: MinMax units from a holonomy cascade.

The construction and its proof: docs/constructions-minmax.md.

The holonomy decomposition (:mod:`fsmnet.algebra.holonomy`) turns the minimal
automaton into levels of permutation-reset components.  Each *level* becomes
one MinMax unit whose k values are the level's points (all its slots side by
side: exactly one slot is meaningful for a given chain above, so one unit per
level loses nothing and keeps the controller domain small):

* every action the level ever performs is the identity or a constant (its
  holonomy groups are trivial) → a **scalar** unit, values 1..k:
  constant v → ``(r, s) = (0, v)`` (r < s = v), identity → ``(r, s) = (k, 1)``;
* some action is a non-identity permutation → a k-dimensional **matrix** unit
  on one-hot max-min vectors: permutation π → ``R[π(p), p] = 1``, ``s = 0``;
  constant v → ``R = 0`` (all bottom), ``s = e_v``.

The controller of level ℓ is the holonomy dependency function: its table is
indexed by (symbol, code of the coordinates of levels < ℓ, read at t−1).  It
is filled by a breadth-first search of the coordinate tuples that the cascade
reaches from the encoding of q0; entries never reached act as the identity.
The code is mixed-radix when the dense tables are small (file format 1);
otherwise it is the index of the *reached* prefix, chained through prefix
links (format 2, :mod:`fsmnet.nets.minmax_cascade`), so the tables grow with
the number of reachable coordinate tuples, not with the product of the level
sizes.  The same search runs the automaton alongside, so the compiled
network is *proved* equal to the automaton on every word (a finite product
exploration) before it is returned.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from fsmnet.automata import Automaton
from fsmnet.constructions.minmax_explore import (
    MAX_STEPS,
    Action,
    CascadeTooLarge,
    Tabulated,
    explore,
    prefix_codes,
)
from fsmnet.constructions.minmax_witness import (  # noqa: F401  (re-exported)
    NotAperiodic,
    PeriodicWitness,
    periodic_witness,
)
from fsmnet.errors import NotExpressible
from fsmnet.nets import Network
from fsmnet.nets.minmax_cascade import MATRIX_KIND, MAX_TABLE, SCALAR_KIND

Prefix = tuple[int, ...]


@dataclass(frozen=True)
class CascadeSpec:
    """A permutation-reset cascade over coordinates (the adapter to the holonomy API).

    Attributes
    ----------
    sizes
        Number of points of each level, top level first.
    initial
        Coordinates of the initial state.
    action
        ``action(level, symbol, coords_above)``: what ``symbol`` does at
        ``level`` given the coordinates of the levels above (before the update).
    decode
        Coordinate tuple -> automaton state index.
    facts
        JSON facts about the decomposition, copied into the network's options.
    """

    sizes: tuple[int, ...]
    initial: tuple[int, ...]
    action: Callable[[int, int, tuple[int, ...]], Action]
    decode: Callable[[tuple[int, ...]], int]
    facts: dict[str, Any] = field(default_factory=dict)
    lift: Callable[[int, tuple[int, ...]], Sequence[Action]] | None = None
    """Optional ``lift(symbol, coords)``: the actions at every level at once
    (same values as ``action``, but one call instead of one per level)."""

    def lift_function(self) -> Callable[[int, tuple[int, ...]], Sequence[Action]]:
        """``lift``, or one built from ``action`` (asked once per (level, symbol, prefix))."""
        if self.lift is not None:
            return self.lift
        cache: dict[tuple[int, int, tuple[int, ...]], Action] = {}
        action = self.action

        def lift(symbol: int, coords: tuple[int, ...]) -> list[Action]:
            out = []
            for lv in range(len(coords)):
                key = (lv, symbol, coords[:lv])
                act = cache.get(key)
                if act is None:
                    act = cache[key] = action(lv, symbol, coords[:lv])
                out.append(act)
            return out

        return lift

    def step(self, coords: tuple[int, ...], symbol: int) -> tuple[int, ...]:
        """The lift of ``symbol``: every level reads the coordinates above at t−1."""
        new = []
        for level, c in enumerate(coords):
            kind, arg = self.action(level, symbol, coords[:level])
            new.append(int(arg) if kind == "const" else int(arg[c]))
        return tuple(new)


def _is_identity(act: Action) -> bool:
    kind, arg = act
    return kind != "const" and all(int(p) == i for i, p in enumerate(arg))


@dataclass(frozen=True)
class CascadeUnits:
    """The units one cascade compiles to (before they are named in a network's params).

    ``tensors[lv]`` maps ``"r"``/``"R"``, ``"s"``, ``"x0"`` to level lv's arrays;
    ``index``, ``rows`` and ``links`` are :func:`prefix_codes`'s; ``tab`` the exploration.
    """

    sizes: list[int]
    kinds: list[int]
    tensors: list[dict[str, np.ndarray]]
    index: list[list[int]]
    rows: list[int]
    links: list[np.ndarray]
    tab: Tabulated


def cascade_units(spec: CascadeSpec, automaton: Automaton, *, arch: str,
                  prefix_index: bool | None = None, max_steps: int | None = None,
                  record_moves: bool = False) -> CascadeUnits:
    """Explore ``spec`` against ``automaton`` and build every level's unit tables.

    Raises :class:`CascadeTooLarge` past ``max_steps`` and :class:`NotExpressible`
    when a table is too large or (``arch="minmax-scalar"``) a level permutes.
    """
    sizes = list(spec.sizes)
    initial = list(spec.initial)
    if not sizes:  # a one-state machine: zero levels; keep one constant unit
        sizes, initial = [1], [0]
        inner = spec
        spec = CascadeSpec(sizes=(1,), initial=(0,), action=lambda lv, a, c: ("const", 0),
                           decode=lambda c: inner.decode(()))
    n_sym = automaton.n_symbols
    try:
        tab = explore(sizes, tuple(initial), spec.lift_function(), spec.decode, automaton,
                      max_steps=max_steps, record_moves=record_moves)
    except CascadeTooLarge as exc:
        chains = spec.facts.get("tile_chains")
        if chains is None:
            raise
        raise CascadeTooLarge(f"{exc} (the decomposition has {chains:,} tile chains, "
                              f"an upper bound on the codes it can reach)") from None
    index, rows, links = prefix_codes(sizes, tab, n_sym, prefix_index)
    domains = rows[:-1]
    kinds = [SCALAR_KIND if all(act[0] == "const" or _is_identity(act)
                                for act in tab.actions[lv].values()) else MATRIX_KIND
             for lv in range(len(sizes))]
    # A scalar unit's tables are (symbols, rows); a matrix unit's (symbols, rows, k, k).
    if max(d * n_sym * (1 if kd == SCALAR_KIND else k * k)
           for d, k, kd in zip(domains, sizes, kinds)) > MAX_TABLE:
        raise NotExpressible(f"{arch}: the cascade's tables would be too large "
                             f"(levels of {sizes} points, {domains} reached prefixes)")
    if arch == "minmax-scalar" and MATRIX_KIND in kinds:
        level = kinds.index(MATRIX_KIND)
        raise NotExpressible(f"minmax-scalar: level {level} of the cascade permutes its "
                             f"points (a non-trivial holonomy group)")
    tensors = []
    for lv, (k, d, kind) in enumerate(zip(sizes, domains, kinds)):
        coded = {(sym, index[lv][pre]): act for (sym, pre), act in tab.actions[lv].items()}
        tensors.append(_unit_tensors(k, d, kind, n_sym, coded, initial[lv]))
    return CascadeUnits(sizes=sizes, kinds=kinds, tensors=tensors, index=index, rows=rows,
                        links=links, tab=tab)


def unit_params(u: int, tensors: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """One unit's tensors under the names of unit u (``unit{u}_r`` ...)."""
    return {f"unit{u}_{name}": arr for name, arr in tensors.items()}


def cascade_network(spec: CascadeSpec, automaton: Automaton, *, arch: str = "minmax-cascade",
                    options: dict[str, Any] | None = None,
                    prefix_index: bool | None = None, max_steps: int | None = None) -> Network:
    """Compile a coordinate cascade that emulates ``automaton`` into MinMax units.

    Parameters
    ----------
    spec
        The cascade (levels, dependency functions, encoding, decoding).
    automaton
        The automaton it emulates (initial state and outputs needed).
    arch
        ``"minmax-cascade"``, or ``"minmax-scalar"`` (then every level must be
        identity-reset, else :class:`NotExpressible`).
    options
        Extra facts to record in the network's options.
    prefix_index
        Index the controller tables by reached prefixes (file format 2), or by
        mixed-radix codes (format 1); by default mixed radix when it fits.
    max_steps
        Budget of lifted steps of the exploration (reached pairs × letters;
        default :data:`fsmnet.constructions.minmax_explore.MAX_STEPS`), beyond
        which :class:`~fsmnet.constructions.minmax_explore.CascadeTooLarge` is raised.
    """
    built = cascade_units(spec, automaton, arch=arch, prefix_index=prefix_index,
                          max_steps=max_steps)
    sizes, kinds, tab = built.sizes, built.kinds, built.tab
    params: dict[str, np.ndarray] = {
        "unit_level": np.arange(len(sizes), dtype=np.int64),
        "unit_size": np.array(sizes, dtype=np.int64),
        "unit_kind": np.array(kinds, dtype=np.int64),
    }
    for lv, tensors in enumerate(built.tensors):
        params.update(unit_params(lv, tensors))
    full = built.index[len(sizes)]
    readout = np.zeros(built.rows[-1], dtype=np.int64)
    for pre, label in tab.outputs.items():
        readout[full[pre]] = label
    params["readout"] = readout
    for j, link in enumerate(built.links):
        params[f"link{j}"] = link
    facts = {
        "construction": "cascade",
        "levels": len(sizes),
        "units": len(sizes),
        "unit_sizes": sizes,
        "unit_kinds": ["scalar" if kd == SCALAR_KIND else "matrix" for kd in kinds],
        "state_size": sum(1 if kd == SCALAR_KIND else k for k, kd in zip(sizes, kinds)),
        "reachable_coordinates": len(tab.reached),
        "prefix_indexed": bool(built.links),
        "verified_product": True,
    }
    facts.update(spec.facts)
    facts.update(options or {})
    return Network(arch=arch, params=params, symbols=automaton.symbols,
                   labels=automaton.labels, options=facts, name=automaton.name)


def _unit_tensors(k: int, domain: int, kind: int, n_sym: int,
                  actions: dict[tuple[int, int], Action], start: int) -> dict[str, np.ndarray]:
    """Controller tables of one unit; unreached (symbol, code) entries are the identity."""
    if kind == SCALAR_KIND:
        r = np.full((n_sym, domain), float(k))  # identity: r >= k, s <= 1
        s = np.ones((n_sym, domain))
        for (sym, code), (act, arg) in actions.items():
            if act == "const":  # reset to value v = point + 1: r < s = v
                r[sym, code], s[sym, code] = 0.0, float(int(arg) + 1)
        return {"r": r, "s": s, "x0": np.array([float(start + 1)])}
    big_r = np.zeros((n_sym, domain, k, k))
    big_r[:, :, np.arange(k), np.arange(k)] = 1.0
    s = np.zeros((n_sym, domain, k))
    for (sym, code), (act, arg) in actions.items():
        big_r[sym, code] = 0.0
        if act == "const":  # all-bottom matrix, s = one-hot target
            s[sym, code, int(arg)] = 1.0
        else:  # permutation (or any map) matrix: point p goes to arg[p]
            big_r[sym, code, [int(v) for v in arg], np.arange(k)] = 1.0
    x0 = np.zeros(k)
    x0[start] = 1.0
    return {"R": big_r, "s": s, "x0": x0}


# ----------------------------------------------------------------- entry points
OPTION_MINIMUMS = {"max_steps": 1}


def compile_minmax_cascade(automaton: Automaton, *, max_steps: int = MAX_STEPS) -> Network:
    """MinMax cascade of the (minimal) automaton, chosen by the strategy table.

    The table (:data:`fsmnet.constructions.minmax_strategies.CASCADE_TABLE`) tries
    the threshold, one-hot order, product and plain holonomy cascades; ``options``
    reports levels, units, unit sizes and kinds, the state size, the ``strategy``
    chosen and why the others were not (``strategies_skipped``).  ``max_steps``
    bounds each cascade's exploration (reached pairs × letters).  When no
    decomposition fits (the orbit limit, ``max_steps``, the table size), the
    cascade is one matrix unit over the states
    (:mod:`fsmnet.constructions.minmax_dense_unit`; ``construction`` is
    ``"dense unit"`` and ``fallback_reason`` says why).
    """
    from fsmnet.constructions.minmax_strategies import best_cascade

    return best_cascade(automaton, arch="minmax-cascade", max_steps=max_steps)


def compile_minmax_scalar(automaton: Automaton, *, max_steps: int = MAX_STEPS) -> Network:
    """Cascade of scalar MinMax units; exists iff the minimal automaton is aperiodic.

    ``max_steps`` bounds the exploration of the cascade (reached pairs × letters).

    Raises
    ------
    CounterBound
        (a :class:`CascadeTooLarge`) when a counter chain proves that every scalar
        cascade reaches more than ``max_steps / |Σ|`` hidden states.
    NotAperiodic
        (a :class:`NotExpressible`) with ``witness``: a word u and states it
        cycles, plus a prefix and suffix whose outputs along prefix·u^j·suffix
        never settle.
    """
    from fsmnet.algebra.holonomy.skeleton import DecompositionTooLarge
    from fsmnet.constructions import minmax_limits
    from fsmnet.constructions.minmax_holonomy import holonomy_spec
    from fsmnet.constructions.minmax_strategies import (
        BEFORE_HOLONOMY,
        SCALAR_TABLE,
        Attempt,
        choose,
        finish,
    )

    # A short monoid search first: a periodic letter or short word shows up at
    # once (groups, counters).  Then the holonomy decomposition decides (all
    # its groups are trivial iff the monoid is aperiodic; a non-trivial
    # holonomy group divides the monoid), and the cascade needs it anyway;
    # the long search runs only for a witness when the answer is no, or when
    # the decomposition is too large to say.
    limits = minmax_limits.LIMITS
    try:
        witness = periodic_witness(automaton, limit=limits.quick_monoid_limit)
        decided = True
    except NotExpressible:
        witness, decided = None, False
    spec = None
    if witness is None:
        # A capped counter inside proves every scalar cascade exponential: say so
        # at once rather than after the exploration runs out of budget.
        from fsmnet.constructions.minmax_counter_bound import refuse_if_counter

        refuse_if_counter(automaton, max_steps=max_steps)
        # A cascade of scalar units found without the plain decomposition both
        # shows aperiodicity and is the network.
        attempt = Attempt(automaton, "minmax-scalar", max_steps, limits)
        chosen = choose(attempt, SCALAR_TABLE, last_stage=BEFORE_HOLONOMY)
        if chosen is not None:
            return chosen
        try:
            spec = holonomy_spec(automaton, image_set_limit=limits.image_sets)
        except DecompositionTooLarge as exc:  # HolonomyTooLarge included
            attempt.spec_error = exc
            if decided:  # aperiodic, but the plain cascade is beyond the orbit limit
                return finish(attempt, SCALAR_TABLE)
            spec = None
        if spec is not None and (decided or all(
                c["group_order"] is None for level in spec.facts["holonomy_components"]
                for c in level)):
            attempt.spec = spec
            return finish(attempt, SCALAR_TABLE)
        try:
            witness = periodic_witness(automaton, limit=limits.monoid_limit)
        except NotExpressible:
            witness = None
    if witness is not None:
        w = witness
        raise NotAperiodic(
            f"minmax-scalar: the automaton is not aperiodic: the word "
            f"{' '.join(w.word)!r} cycles the states {list(w.cycle)} (period {w.period}), so "
            f"the outputs along {' '.join(w.prefix)!r}·u^j·{' '.join(w.suffix)!r} never settle; "
            f"scalar MinMax units settle after one period per level", witness)
    if spec is None:
        # Aperiodicity not decided: a scalar cascade from the rows after the holonomy
        # one (a product) would still decide it, being exact and aperiodic.
        try:
            return finish(attempt, SCALAR_TABLE)
        except DecompositionTooLarge as exc:
            raise NotExpressible(f"minmax-scalar: the holonomy decomposition of this "
                                 f"{automaton.n_states}-state automaton is too large and "
                                 f"its transition monoid has more than "
                                 f"{limits.monoid_limit:,} elements: aperiodicity not "
                                 f"decided, no cascade built ({exc})") from None
    # Non-trivial holonomy groups but no witness within the monoid limit:
    # cascade_network refuses the first level that permutes its points.
    return cascade_network(spec, automaton, arch="minmax-scalar",
                           options={"construction": "holonomy"}, max_steps=max_steps)
