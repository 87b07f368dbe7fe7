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

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from fsmnet.automata import Automaton
from fsmnet.errors import FsmnetError, NotExpressible
from fsmnet.nets import Network
from fsmnet.nets.minmax_cascade import MATRIX_KIND, MAX_TABLE, SCALAR_KIND, mixed_radix_strides

Prefix = tuple[int, ...]

Action = tuple[str, Any]
"""``("perm", permutation of 0..k-1)`` or ``("const", point)``."""


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

    def step(self, coords: tuple[int, ...], symbol: int) -> tuple[int, ...]:
        """The lift of ``symbol``: every level reads the coordinates above at t−1."""
        new = []
        for level, c in enumerate(coords):
            kind, arg = self.action(level, symbol, coords[:level])
            new.append(int(arg[c]) if kind == "perm" else int(arg))
        return tuple(new)


@dataclass(frozen=True)
class _Tabulated:
    actions: list[dict[tuple[int, Prefix], Action]]  # per level: (symbol, prefix) -> action
    reached: list[tuple[int, ...]]


def _explore(spec: CascadeSpec, automaton: Automaton) -> _Tabulated:
    """BFS of (coordinates, automaton state) pairs from (encode(q0), q0).

    Raises FsmnetError if a reachable tuple decodes to a state with a different
    output than the automaton's: the decomposition would then be wrong.
    """
    assert automaton.initial is not None
    n_levels = len(spec.sizes)
    actions: list[dict[tuple[int, Prefix], Action]] = [{} for _ in range(n_levels)]
    start = (spec.initial, automaton.initial)
    seen = {start}
    queue = deque([start])
    reached: list[tuple[int, ...]] = []
    labels = automaton.output_ids
    while queue:
        coords, q = queue.popleft()
        if labels[spec.decode(coords)] != labels[q]:
            raise FsmnetError(f"cascade coordinates {coords} decode to state "
                              f"{spec.decode(coords)} but the automaton is in {q} with "
                              f"another output: the decomposition is inconsistent")
        reached.append(coords)
        for sym in range(automaton.n_symbols):
            new = []
            for lv, c in enumerate(coords):
                key = (sym, coords[:lv])
                act = actions[lv].get(key)
                if act is None:  # many states share a prefix: ask once per prefix
                    act = actions[lv][key] = spec.action(lv, sym, coords[:lv])
                kind, arg = act
                new.append(int(arg[c]) if kind == "perm" else int(arg))
            pair = (tuple(new), int(automaton.delta[sym, q]))
            if pair not in seen:
                seen.add(pair)
                queue.append(pair)
    return _Tabulated(actions=actions, reached=reached)


def _is_identity(act: Action) -> bool:
    kind, arg = act
    return kind == "perm" and all(int(p) == i for i, p in enumerate(arg))


def cascade_network(spec: CascadeSpec, automaton: Automaton, *, arch: str = "minmax-cascade",
                    options: dict[str, Any] | None = None,
                    prefix_index: bool | None = None) -> Network:
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
    """
    sizes = list(spec.sizes)
    initial = list(spec.initial)
    if not sizes:  # a one-state machine: zero levels; keep one constant unit
        sizes, initial = [1], [0]
        inner = spec
        spec = CascadeSpec(sizes=(1,), initial=(0,), action=lambda lv, a, c: ("const", 0),
                           decode=lambda c: inner.decode(()))
    n_sym = automaton.n_symbols
    tab = _explore(spec, automaton)
    index, rows, links = _prefix_codes(sizes, tab.reached, n_sym, prefix_index)
    domains = rows[:-1]
    if max(d * n_sym * k * k for d, k in zip(domains, sizes)) > MAX_TABLE:
        raise NotExpressible(f"{arch}: the cascade's tables would be too large "
                             f"(levels of {sizes} points, {domains} reached prefixes)")
    kinds = [SCALAR_KIND if all(act[0] == "const" or _is_identity(act)
                                for act in tab.actions[lv].values()) else MATRIX_KIND
             for lv in range(len(sizes))]
    if arch == "minmax-scalar" and MATRIX_KIND in kinds:
        level = kinds.index(MATRIX_KIND)
        raise NotExpressible(f"minmax-scalar: level {level} of the cascade permutes its "
                             f"points (a non-trivial holonomy group)")
    params: dict[str, np.ndarray] = {
        "unit_level": np.arange(len(sizes), dtype=np.int64),
        "unit_size": np.array(sizes, dtype=np.int64),
        "unit_kind": np.array(kinds, dtype=np.int64),
    }
    for lv, (k, d, kind) in enumerate(zip(sizes, domains, kinds)):
        coded = {(sym, index[lv][pre]): act for (sym, pre), act in tab.actions[lv].items()}
        params.update(_unit_tensors(lv, k, d, kind, n_sym, coded, initial[lv]))
    full = index[len(sizes)]
    readout = np.zeros(rows[-1], dtype=np.int64)
    for coords in tab.reached:
        readout[full[coords]] = automaton.output_ids[spec.decode(coords)]
    params["readout"] = readout
    for j, link in enumerate(links):
        params[f"link{j}"] = link
    facts = {
        "construction": "cascade",
        "levels": len(sizes),
        "units": len(sizes),
        "unit_sizes": sizes,
        "unit_kinds": ["scalar" if kd == SCALAR_KIND else "matrix" for kd in kinds],
        "state_size": sum(1 if kd == SCALAR_KIND else k for k, kd in zip(sizes, kinds)),
        "reachable_coordinates": len(tab.reached),
        "prefix_indexed": bool(links),
        "verified_product": True,
    }
    facts.update(spec.facts)
    facts.update(options or {})
    return Network(arch=arch, params=params, symbols=automaton.symbols,
                   labels=automaton.labels, options=facts, name=automaton.name)


def _prefix_codes(
    sizes: list[int], reached: list[tuple[int, ...]], n_sym: int, prefix_index: bool | None,
) -> tuple[list[dict[Prefix, int]], list[int], list[np.ndarray]]:
    """Codes of the reached prefixes of every length, the table rows per length,
    and the prefix links (empty: mixed radix).

    Mixed-radix codes are kept when every dense table fits (format 1, which
    every consumer reads); otherwise the reached prefixes of each length are
    numbered and chained by links (format 2), unreached entries sent to 0.
    """
    n = len(sizes)
    dense = [int(np.prod(sizes[:lv], dtype=np.float64)) for lv in range(n + 1)]
    fits = dense[n] <= MAX_TABLE and all(d * n_sym * k * k <= MAX_TABLE
                                         for d, k in zip(dense, sizes))
    if prefix_index is False and not fits:
        raise NotExpressible(f"mixed-radix cascade tables would be too large "
                             f"(levels of {sizes} points)")
    if not prefix_index and fits:
        index: list[dict[Prefix, int]] = []
        for lv in range(n + 1):
            strides = mixed_radix_strides(sizes[:lv])
            index.append({c[:lv]: int(np.dot(c[:lv], strides)) if lv else 0 for c in reached})
        return index, dense, []
    index = [{} for _ in range(n + 1)]
    for coords in reached:  # breadth-first order: small indices for early prefixes
        for lv in range(n + 1):
            index[lv].setdefault(coords[:lv], len(index[lv]))
    links = []
    for j in range(n):
        link = np.zeros((len(index[j]), sizes[j]), dtype=np.int64)
        for pre, i in index[j + 1].items():
            link[index[j][pre[:j]], pre[j]] = i
        links.append(link)
    return index, [len(x) for x in index], links


def _unit_tensors(lv: int, k: int, domain: int, kind: int, n_sym: int,
                  actions: dict[tuple[int, int], Action], start: int) -> dict[str, np.ndarray]:
    """Controller tables of one unit; unreached (symbol, code) entries are the identity."""
    if kind == SCALAR_KIND:
        r = np.full((n_sym, domain), float(k))  # identity: r >= k, s <= 1
        s = np.ones((n_sym, domain))
        for (sym, code), (act, arg) in actions.items():
            if act == "const":  # reset to value v = point + 1: r < s = v
                r[sym, code], s[sym, code] = 0.0, float(int(arg) + 1)
        return {f"unit{lv}_r": r, f"unit{lv}_s": s,
                f"unit{lv}_x0": np.array([float(start + 1)])}
    big_r = np.zeros((n_sym, domain, k, k))
    big_r[:, :, np.arange(k), np.arange(k)] = 1.0
    s = np.zeros((n_sym, domain, k))
    for (sym, code), (act, arg) in actions.items():
        big_r[sym, code] = 0.0
        if act == "const":  # all-bottom matrix, s = one-hot target
            s[sym, code, int(arg)] = 1.0
        else:  # permutation matrix: point p goes to arg[p]
            big_r[sym, code, [int(v) for v in arg], np.arange(k)] = 1.0
    x0 = np.zeros(k)
    x0[start] = 1.0
    return {f"unit{lv}_R": big_r, f"unit{lv}_s": s, f"unit{lv}_x0": x0}


# ---------------------------------------------------------------- aperiodicity
@dataclass(frozen=True)
class PeriodicWitness:
    """A word u that cycles a set of states: q·u^m = q with q·u ≠ q (m ≥ 2).

    With ``prefix`` reaching q from q0 and ``suffix`` telling q and q·u apart,
    the outputs along ``prefix · u^j · suffix`` repeat with period m and never
    settle, which no scalar MinMax cascade can do (docs/theory.md, theorem 4).
    """

    word: tuple[str, ...]
    state: str
    cycle: tuple[str, ...]
    period: int
    prefix: tuple[str, ...]
    suffix: tuple[str, ...]

    def as_dict(self) -> dict[str, Any]:
        return {"word": list(self.word), "state": self.state, "cycle": list(self.cycle),
                "period": self.period, "prefix": list(self.prefix),
                "suffix": list(self.suffix)}


class NotAperiodic(NotExpressible):
    """minmax-scalar refused: the automaton is not aperiodic; ``witness`` says why."""

    def __init__(self, message: str, witness: PeriodicWitness) -> None:
        super().__init__(message)
        self.witness = witness


def periodic_witness(automaton: Automaton, *, limit: int = 500_000) -> PeriodicWitness | None:
    """A shortest word u (shortlex BFS of the transition monoid) acting as a
    non-trivial cycle on some states, or ``None`` when the monoid is aperiodic.

    A transformation t lies in a non-trivial subgroup's cyclic part exactly when
    its functional graph has a cycle of length ≥ 2 (its powers then never
    settle); the monoid is aperiodic iff no element has one.
    """
    n = automaton.n_states
    gens = [tuple(int(v) for v in row) for row in automaton.delta]
    ident = tuple(range(n))
    parent: dict[tuple[int, ...], tuple[tuple[int, ...], int] | None] = {ident: None}
    queue = deque([ident])
    while queue:
        t = queue.popleft()
        cyc = _long_cycle(t)
        if cyc is not None:
            return _witness(automaton, _word(parent, t), cyc)
        for a, g in enumerate(gens):
            nt = tuple(g[x] for x in t)  # t first, then letter a
            if nt not in parent:
                if len(parent) >= limit:
                    raise NotExpressible(f"minmax-scalar: transition monoid larger than "
                                         f"{limit} elements; aperiodicity not decided")
                parent[nt] = (t, a)
                queue.append(nt)
    return None


def _long_cycle(t: tuple[int, ...]) -> list[int] | None:
    x = 0
    for q in range(len(t)):
        x = q
        for _ in range(len(t)):
            x = t[x]  # now on the cycle that q falls into
        if t[x] != x:
            cycle = [x]
            while t[cycle[-1]] != x:
                cycle.append(t[cycle[-1]])
            return cycle
    return None


def _word(parent: dict[tuple[int, ...], Any], t: tuple[int, ...]) -> list[int]:
    out: list[int] = []
    while parent[t] is not None:
        t, a = parent[t]
        out.append(a)
    return out[::-1]


def _witness(automaton: Automaton, word: list[int], cycle: list[int]) -> PeriodicWitness:
    from fsmnet.automata import distinguishing_word

    q = cycle[0]
    prefix = _path_to(automaton, q)
    found = distinguishing_word(automaton.replace(initial=q), automaton.replace(initial=cycle[1]))
    suffix = found[0] if found is not None else []
    names = automaton.states
    return PeriodicWitness(word=tuple(automaton.decode(word)), state=names[q],
                           cycle=tuple(names[c] for c in cycle), period=len(cycle),
                           prefix=tuple(automaton.decode(prefix)), suffix=tuple(suffix))


def _path_to(automaton: Automaton, target: int) -> list[int]:
    assert automaton.initial is not None
    back: dict[int, tuple[int, int] | None] = {automaton.initial: None}
    queue = deque([automaton.initial])
    while queue and target not in back:
        q = queue.popleft()
        for a in range(automaton.n_symbols):
            nq = int(automaton.delta[a, q])
            if nq not in back:
                back[nq] = (q, a)
                queue.append(nq)
    path: list[int] = []
    node = target
    while back[node] is not None:
        node, a = back[node]  # type: ignore[misc]
        path.append(a)
    return path[::-1]


# ----------------------------------------------------------------- entry points
_MONOID_LIMIT = 100_000
"""Transition-monoid elements enumerated to look for a periodic witness."""


def compile_minmax_cascade(automaton: Automaton) -> Network:
    """MinMax cascade from the holonomy decomposition of the (minimal) automaton.

    ``options`` reports levels, units, unit sizes and kinds, and the state size.
    """
    from fsmnet.constructions.minmax_holonomy import holonomy_spec

    return cascade_network(holonomy_spec(automaton), automaton, arch="minmax-cascade",
                           options={"construction": "holonomy"})


def compile_minmax_scalar(automaton: Automaton) -> Network:
    """Cascade of scalar MinMax units; exists iff the minimal automaton is aperiodic.

    Raises
    ------
    NotAperiodic
        (a :class:`NotExpressible`) with ``witness``: a word u and states it
        cycles, plus a prefix and suffix whose outputs along prefix·u^j·suffix
        never settle.
    """
    try:
        witness = periodic_witness(automaton, limit=_MONOID_LIMIT)
    except NotExpressible:
        # A monoid too large to enumerate: the holonomy decomposition decides
        # instead (all its groups are trivial iff the automaton is aperiodic),
        # and cascade_network refuses a level that permutes its points.
        witness = None
    if witness is not None:
        w = witness
        raise NotAperiodic(
            f"minmax-scalar: the automaton is not aperiodic: the word "
            f"{' '.join(w.word)!r} cycles the states {list(w.cycle)} (period {w.period}), so "
            f"the outputs along {' '.join(w.prefix)!r}·u^j·{' '.join(w.suffix)!r} never settle; "
            f"scalar MinMax units settle after one period per level", witness)
    from fsmnet.constructions.minmax_holonomy import holonomy_spec

    return cascade_network(holonomy_spec(automaton), automaton, arch="minmax-scalar",
                           options={"construction": "holonomy"})
