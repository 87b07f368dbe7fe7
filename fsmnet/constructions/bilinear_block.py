"""bilinear-block: one bilinear block per direct-product factor (docs/constructions.md).

A right congruence of a semiautomaton (Q, Σ, δ) is a partition π of Q with
p ~ q ⇒ δ(p, σ) ~ δ(q, σ); the quotient Q/π is again a semiautomaton.  When
two congruences π1, π2 have π1 ∧ π2 = identity (every pair of classes meets
in at most one state) and |π1|·|π2| = n, the map q ↦ ([q]₁, [q]₂) is a
bijection that commutes with δ, so the machine *is* the direct product of its
two quotients.  The factors are split again recursively, and every factor
becomes one one-hot bilinear block; the output λ, a function of the tuple of
factor states, becomes the multilinear readout tensor
readout[c, i_0, ..., i_{m-1}] = 1 iff the state with coordinates (i_0, ...)
has the c-th label.  modadd:6 = mod 2 × mod 3 gives blocks of sizes 2 and 3.

Finding congruences: every congruence is a join of principal congruences
θ(p, q) (the least congruence merging p and q: merge, then keep merging the
images δ(p', σ), δ(q', σ) of merged pairs, with union-find).  We compute the
n(n-1)/2 principal congruences and close them under joins, breadth first,
stopping at ``max_congruences`` (then the search may miss a factorization,
and the network's options say ``"congruences": "truncated"``).  Machines with
more than ``max_states`` states are not searched at all.  Either way the
fallback is always correct: a single block, which is bilinear-full.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np

from fsmnet.automata import Automaton
from fsmnet.errors import SpecError
from fsmnet.nets import Network

Partition = tuple[int, ...]  # canonical class index per state (first-seen order)


def _canonical(labels: list[int]) -> Partition:
    seen: dict[int, int] = {}
    return tuple(seen.setdefault(x, len(seen)) for x in labels)


def _close(delta: np.ndarray, parent: list[int], pending: list[tuple[int, int]]) -> Partition:
    """Least congruence containing the union-find ``parent`` and the ``pending`` merges."""

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    while pending:
        p, q = pending.pop()
        rp, rq = find(p), find(q)
        if rp == rq:
            continue
        parent[rp] = rq
        # p ~ q now, so each symbol must send them to equivalent states.
        pending.extend((int(delta[s, p]), int(delta[s, q])) for s in range(delta.shape[0]))
    return _canonical([find(x) for x in range(len(parent))])


def principal_congruence(delta: np.ndarray, p: int, q: int) -> Partition:
    """θ(p, q): the least congruence in which p ~ q."""
    return _close(delta, list(range(delta.shape[1])), [(p, q)])


def join(delta: np.ndarray, a: Partition, b: Partition) -> Partition:
    """The least congruence coarser than both (it is closed automatically, but cheap to redo)."""
    n = len(a)
    first_a: dict[int, int] = {}
    first_b: dict[int, int] = {}
    pending = []
    for x in range(n):
        pending.append((x, first_a.setdefault(a[x], x)))
        pending.append((x, first_b.setdefault(b[x], x)))
    return _close(delta, list(range(n)), pending)


def congruences(delta: np.ndarray, limit: int) -> tuple[set[Partition], bool]:
    """All non-trivial congruences (neither identity nor universal), up to ``limit``.

    Returns the set and whether it is complete.
    """
    n = delta.shape[1]
    identity, universal = tuple(range(n)), (0,) * n
    found: set[Partition] = set()
    for p, q in combinations(range(n), 2):
        found.add(principal_congruence(delta, p, q))
    found.discard(universal)
    frontier = list(found)
    while frontier:
        new = []
        for a in frontier:
            for b in list(found):
                c = join(delta, a, b)
                if c != universal and c not in found:
                    if len(found) >= limit:
                        return found, False
                    found.add(c)
                    new.append(c)
        frontier = new
    found.discard(identity)
    return found, True


def quotient(delta: np.ndarray, part: Partition) -> np.ndarray:
    """δ on the classes of a congruence (well defined because it is a congruence)."""
    size = max(part) + 1
    out = np.zeros((delta.shape[0], size), dtype=np.int64)
    for q, c in enumerate(part):
        out[:, c] = [part[int(t)] for t in delta[:, q]]
    return out


def product_split(delta: np.ndarray, limit: int) -> tuple[tuple[Partition, Partition] | None, bool]:
    """Two congruences whose classes pair up to the states (a direct-product split).

    The most balanced split is preferred; recursion splits the factors further.
    """
    n = delta.shape[1]
    found, complete = congruences(delta, limit)
    by_size: dict[int, list[Partition]] = {}
    for part in found:
        by_size.setdefault(max(part) + 1, []).append(part)
    for b1 in sorted((b for b in by_size if n % b == 0 and 1 < b <= n // b),
                     key=lambda b: -b):
        for p1 in by_size[b1]:
            for p2 in by_size.get(n // b1, []):
                if len(set(zip(p1, p2))) == n:  # meet = identity, so pairs ↔ states
                    return (p1, p2), complete
    return None, complete


def factor_maps(delta: np.ndarray, limit: int, max_states: int) -> tuple[list[Partition], bool]:
    """Coordinate maps q ↦ class of each factor, for a full recursive product split."""
    n = delta.shape[1]
    if n < 4 or n > max_states:  # a product of two non-trivial factors needs n ≥ 4
        return [tuple(range(n))], n <= max_states
    split, complete = product_split(delta, limit)
    if split is None:
        return [tuple(range(n))], complete
    maps: list[Partition] = []
    for part in split:
        sub, sub_complete = factor_maps(quotient(delta, part), limit, max_states)
        complete = complete and sub_complete
        maps += [tuple(g[part[q]] for q in range(n)) for g in sub]
    return maps, complete


def compile_bilinear_block(automaton: Automaton, *, max_states: int = 64,
                           max_congruences: int = 2000) -> Network:
    """Block-diagonal bilinear network, one one-hot block per direct-product factor.

    Parameters
    ----------
    max_states
        Do not search for a product split above this many states (one block).
    max_congruences
        Stop enumerating congruences after this many (bounded work).

    The network's options record ``blocks`` (the block sizes) and
    ``congruences`` (``"complete"`` or ``"truncated"``).
    """
    for name, value in (("max_states", max_states), ("max_congruences", max_congruences)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise SpecError("must be a positive integer", source="<compile>",
                            field=f"options.{name}", value=value)
    delta = automaton.delta
    n, k = automaton.n_states, automaton.n_symbols
    maps, complete = factor_maps(delta, max_congruences, max_states)
    sizes = [max(g) + 1 for g in maps]
    params: dict[str, np.ndarray] = {}
    assert automaton.initial is not None
    for i, g in enumerate(maps):
        w = np.zeros((sizes[i], sizes[i], k), dtype=np.float64)
        for q in range(n):
            for s in range(k):
                w[g[int(delta[s, q])], g[q], s] = 1.0
        h0 = np.zeros(sizes[i], dtype=np.float64)
        h0[g[automaton.initial]] = 1.0
        params[f"W.{i}"], params[f"h0.{i}"] = w, h0
    readout = np.zeros((len(automaton.labels), *sizes), dtype=np.float64)
    for q in range(n):
        readout[(int(automaton.output_ids[q]), *(g[q] for g in maps))] = 1.0
    if int(readout.sum()) != n or readout.size != len(automaton.labels) * n:
        raise AssertionError("bilinear-block: the factor coordinates are not a bijection")
    params["readout"] = readout
    return Network(arch="bilinear-block", params=params, symbols=automaton.symbols,
                   labels=automaton.labels,
                   options={"construction": "direct-product", "blocks": sizes,
                            "congruences": "complete" if complete else "truncated",
                            "states": list(automaton.states)},
                   name=automaton.name)
