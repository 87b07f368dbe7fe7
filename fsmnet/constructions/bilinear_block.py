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

Finding congruences (fsmnet/constructions/congruences.py): every congruence is
a join of principal congruences θ(p, q); for a permutation automaton θ(p, q)
= θ(pσ, qσ), so n − 1 closures give them all, and letters that are products
of other letters are dropped.  The enumeration stops at ``max_congruences``
congruences or ``max_steps`` union-find steps (then the search may miss a
factorization, and the network's options say ``"congruences": "truncated"``).
Machines with more than ``max_states`` states are not searched at all, nor
are machines whose number of states is prime (no two factors of sizes ≥ 2
multiply to it).  Either way the fallback is always correct: a single block,
which is bilinear-full.
"""

from __future__ import annotations

import numpy as np

from fsmnet.automata import Automaton
from fsmnet.constructions.congruences import Partition, product_split
from fsmnet.errors import SpecError
from fsmnet.nets import Network

# Options that count something are at least 1 (fsmnet.constructions.OPTION_MINIMUMS).
OPTION_MINIMUMS = {"max_steps": 1}


def quotient(delta: np.ndarray, part: Partition) -> np.ndarray:
    """δ on the classes of a congruence (well defined because it is a congruence)."""
    size = max(part) + 1
    out = np.zeros((delta.shape[0], size), dtype=np.int64)
    for q, c in enumerate(part):
        out[:, c] = [part[int(t)] for t in delta[:, q]]
    return out


def _prime(n: int) -> bool:
    return n >= 2 and all(n % d for d in range(2, int(n ** 0.5) + 1))


def factor_maps(delta: np.ndarray, limit: int, max_states: int,
                max_steps: int = 4_000_000) -> tuple[list[Partition], bool]:
    """Coordinate maps q ↦ class of each factor, for a full recursive product split."""
    n = delta.shape[1]
    if n < 4 or _prime(n):  # a split needs n = b1·b2 with b1, b2 ≥ 2: nothing to search
        return [tuple(range(n))], True
    if n > max_states:
        return [tuple(range(n))], False
    split, complete = product_split(delta, limit, max_steps=max_steps)
    if split is None:
        return [tuple(range(n))], complete
    maps: list[Partition] = []
    for part in split:
        sub, sub_complete = factor_maps(quotient(delta, part), limit, max_states, max_steps)
        complete = complete and sub_complete
        maps += [tuple(g[part[q]] for q in range(n)) for g in sub]
    return maps, complete


def compile_bilinear_block(automaton: Automaton, *, max_states: int = 2048,
                           max_congruences: int = 2000,
                           max_steps: int = 4_000_000) -> Network:
    """Block-diagonal bilinear network, one one-hot block per direct-product factor.

    Parameters
    ----------
    max_states
        Do not search for a product split above this many states (one block).
    max_congruences
        Stop enumerating congruences after this many (bounded work).
    max_steps
        Stop enumerating congruences after this many union-find steps (about a
        microsecond each; the default bounds the search to seconds).

    The network's options record ``blocks`` (the block sizes) and
    ``congruences`` (``"complete"`` or ``"truncated"``).
    """
    for name, value in (("max_states", max_states), ("max_congruences", max_congruences),
                        ("max_steps", max_steps)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise SpecError("must be a positive integer", source="<compile>",
                            field=f"options.{name}", value=value)
    delta = automaton.delta
    n, k = automaton.n_states, automaton.n_symbols
    maps, complete = factor_maps(delta, max_congruences, max_states, max_steps)
    sizes = [max(g) + 1 for g in maps]
    params: dict[str, np.ndarray] = {}
    assert automaton.initial is not None
    symbols = np.arange(k)[:, None]
    for i, g in enumerate(maps):
        coord = np.asarray(g, dtype=np.int64)
        w = np.zeros((sizes[i], sizes[i], k), dtype=np.float64)
        # w[g(δ(q, s)), g(q), s] = 1 for every state q and symbol s.
        w[coord[delta], coord[None, :], symbols] = 1.0
        h0 = np.zeros(sizes[i], dtype=np.float64)
        h0[g[automaton.initial]] = 1.0
        params[f"W.{i}"], params[f"h0.{i}"] = w, h0
    readout = np.zeros((len(automaton.labels), *sizes), dtype=np.float64)
    index = (np.asarray(automaton.output_ids, dtype=np.int64),
             *(np.asarray(g, dtype=np.int64) for g in maps))
    readout[index] = 1.0
    if int(readout.sum()) != n or readout.size != len(automaton.labels) * n:
        raise AssertionError("bilinear-block: the factor coordinates are not a bijection")
    params["readout"] = readout
    return Network(arch="bilinear-block", params=params, symbols=automaton.symbols,
                   labels=automaton.labels,
                   options={"construction": "direct-product", "blocks": sizes,
                            "congruences": "complete" if complete else "truncated",
                            "states": list(automaton.states)},
                   name=automaton.name)
