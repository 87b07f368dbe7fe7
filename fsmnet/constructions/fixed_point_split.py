"""fixed-point for larger permutation automata: a subdirect split into quotients.

The tuned encoding (:mod:`fsmnet.constructions.fixed_point_tuning`) needs an exact
Schur-Cohn proof of ρ(M_σ) < 1 on the whole H × H matrix, which is only quick up
to ``LIMITS.proof_size`` coordinates, and its radius tuning rarely succeeds above
``LIMITS.split_above`` (docs/constructions-deltaproduct-fixedpoint.md).  A
permutation automaton whose states split as pairs of classes of two congruences
(``congruences.product_split``: A_5 = 5 × 12 classes, S_5 = 6 × 20) is instead run
as two smaller fixed-point networks side by side:

    Λ = (Λ₁, Λ₂),   Q = Q₁ ⊕ Q₂,   so A_σ = A₁,σ ⊕ A₂,σ and M_σ = M₁,σ ⊕ M₂,σ,

each quotient compiled (and its radius proved) on its own.  Each block's readout
R_i gives the one-hot vector of its class exactly, so with the readout row of
state q set to R₁[class₁(q)] ⊕ R₂[class₂(q)] the score of q is the number of
blocks whose class agrees with q's: 2 for the true state and at most 1 for any
other (the classes pair up to the states).  The argmax is therefore the state,
which is why the automaton's outputs must tell its states apart (a word problem;
a coarser output would need the maximum over a label's states, which is not
linear).  The network has finitely many states (the group's elements), so the
exact product proves it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from fsmnet.automata import Automaton
from fsmnet.constructions.fixed_point_limits import LIMITS
from fsmnet.errors import NotExpressible

if TYPE_CHECKING:
    from fsmnet.nets import Network

__all__ = ["compile_fixed_point_split"]


def _quotient(automaton: Automaton, part: tuple[int, ...]) -> Automaton:
    classes = max(part) + 1
    delta = np.zeros((automaton.n_symbols, classes), dtype=np.int64)
    for q, c in enumerate(part):
        delta[:, c] = [part[int(t)] for t in automaton.delta[:, q]]
    assert automaton.initial is not None
    return Automaton(delta=delta, symbols=automaton.symbols, initial=part[automaton.initial],
                     outputs=list(range(classes)),
                     name=f"{automaton.name or 'automaton'}/{classes} classes")


def compile_fixed_point_split(automaton: Automaton, *, seed: int = 0,
                              block_limit: int = LIMITS.split_block, **options: Any) -> Network:
    """The split above, for a minimal permutation automaton with one label per state;
    each quotient (classes + sign channel) must have at most ``block_limit``
    coordinates (never more than ``LIMITS.proof_size``).

    Raises
    ------
    NotExpressible
        When the outputs merge states, when no two congruences split the states,
        or when a quotient itself cannot be compiled (the message says which).
    """
    from fsmnet.constructions.congruences import product_split
    from fsmnet.constructions.fixed_point import compile_fixed_point
    from fsmnet.nets import Network

    n = automaton.n_states
    if len(set(automaton.output_ids.tolist())) != n:
        raise NotExpressible("fixed-point (split): the outputs must tell the states apart "
                             "(a linear readout of two blocks cannot take a maximum over "
                             "a label's states)")
    split, _ = product_split(automaton.delta, limit=LIMITS.split_congruences)
    if split is None:
        raise NotExpressible(f"fixed-point (split): no two congruences split the {n} states "
                             f"into pairs of classes")
    parts = list(split)
    # No recursion: each block's readout must be the one-hots of its classes.
    limit = min(block_limit, LIMITS.proof_size)
    for part in parts:
        if max(part) + 2 > limit:
            raise NotExpressible(f"fixed-point (split): the quotients have "
                                 f"{[max(p) + 1 for p in parts]} classes; with a sign channel "
                                 f"{max(part) + 2} coordinates are above the block limit "
                                 f"{limit}")
    blocks = [compile_fixed_point(_quotient(automaton, part), seed=seed, **options)
              for part in parts]
    sizes = [b.hidden_size for b in blocks]
    total = sum(sizes)
    k = automaton.n_symbols
    lam = np.concatenate([np.asarray(b.params["Lambda"]) for b in blocks], axis=1)
    q = np.zeros((k, total, total))
    readout = np.zeros((len(automaton.labels), total))
    exact_lam: list[list[str]] = [[] for _ in range(k)]
    exact_q = [[["0"] * total for _ in range(total)] for _ in range(k)]
    at = 0
    for part, block, size in zip(parts, blocks, sizes):
        sl = slice(at, at + size)
        q[:, sl, sl] = np.asarray(block.params["Q"])
        assert block.exact is not None
        for s in range(k):
            exact_lam[s] += block.exact["Lambda"][s]
            for i in range(size):
                exact_q[s][at + i][at:at + size] = block.exact["Q"][s][i]
        rows = np.asarray(block.params["readout"])  # row c: the one-hot of class c
        for state, c in enumerate(part):
            readout[automaton.output_ids[state], sl] += rows[c]
        at += size
    h0 = np.concatenate([np.asarray(b.params["h0"]) for b in blocks])
    radii = {sym: max(float(b.options["spectral_radius"][sym]) for b in blocks)
             for sym in automaton.symbols}
    return Network(
        arch="fixed-point",
        params={"Lambda": lam, "Q": q, "h0": h0, "readout": readout},
        symbols=automaton.symbols, labels=automaton.labels,
        options={"construction": "subdirect split", "quotients": [max(p) + 1 for p in parts],
                 "blocks": sizes, "seed": seed, "spectral_radius": radii,
                 "radius_proved_below_one": all(b.options.get("radius_proved_below_one")
                                                for b in blocks),
                 "block_options": [{key: b.options[key] for key in ("construction",
                                    "sign_channel", "iterations") if key in b.options}
                                   for b in blocks],
                 "states": list(automaton.states)},
        exact={"Lambda": exact_lam, "Q": exact_q}, name=automaton.name)
