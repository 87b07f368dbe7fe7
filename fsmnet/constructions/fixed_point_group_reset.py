"""Fixed-point networks for automata whose letters permute the states or reset them:
permutations conjugated for convergence, resets carried by a contraction.

Each letter of such an automaton is a permutation of the states or a constant
map (parity with a reset letter, a mod-m counter that can be cleared, a shell
game with a "put the ball under cup 0" letter).  Neither earlier construction
covers them: the conjugated permutations need every letter invertible, and the
behavioural reset (:mod:`fsmnet.constructions.fixed_point_reset`) needs every
other letter to be the identity.  Both ideas combine, in homogeneous
coordinates x = (one-hot part, sign channel, c) with c constant 1:

    permutation g:  R_g = P_g ⊕ (sgn g) ⊕ 1,
    reset to r:     R_r = [[εI, 0, e_r], [0, 1, 0], [0, 0, 1]]  (x' = εx + e_r c),

and the network is A_σ = S R_σ S⁻¹ with S tuned for the permutation letters
(:func:`fsmnet.constructions.fixed_point_tuning.tuned_encoding`).

*Why the labels stay right.*  On the one-hot part every entry stays ≥ 0, a
permutation keeps the total m, and a reset makes it 1 + εm; so m ≤ 1/(1 − ε)
on every word, and after the last reset the true state's entry is ≥ 1 while
all others sum to at most ε/(1 − ε) = 1/7 (ε = 1/8).  The readout (the outputs
on the one-hot part, in x-coordinates) therefore picks the automaton's label.
Before any reset the state is exact (S R_w S⁻¹ h0).

*Why the iteration converges.*  Permutation letters: the tuned Λ, proved by
Schur–Cohn.  A reset: Λ = εI gives M = I − εB = S (I − εR_r⁻¹) S⁻¹, whose
spectrum is 0 (on the one-hot part) and 1 − ε (elsewhere), for any S; the
compiler proves it exactly all the same.

*The proof* is a box per automaton state in the coordinates x = S⁻¹h (the
chart :mod:`fsmnet.proofs.abstract.recorded_basis` builds from the recorded
S), found by ``fsmnet verify`` and re-checked in Fractions by the certificate
checker.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from fsmnet.automata import Automaton
from fsmnet.constructions.fixed_point_budget import StepBudget
from fsmnet.constructions.fixed_point_limits import LIMITS
from fsmnet.errors import NotExpressible, SpecError
from fsmnet.nets import Network

EPSILON = Fraction(1, 8)


def letter_actions(automaton: Automaton) -> list[tuple[str, np.ndarray | int]] | None:
    """Per letter ``("perm", P)`` (P the permutation matrix, column q has its 1 at
    δ(q)) or ``("reset", r)``; None when some letter is neither."""
    n = automaton.n_states
    out: list[tuple[str, np.ndarray | int]] = []
    for row in automaton.delta:
        images = [int(t) for t in row]
        if len(set(images)) == n:
            p = np.zeros((n, n), dtype=np.int64)
            p[images, np.arange(n)] = 1
            out.append(("perm", p))
        elif len(set(images)) == 1 and n > 1:
            out.append(("reset", images[0]))
        else:
            return None
    return out


def why_not(automaton: Automaton) -> str | None:
    """Why the construction does not apply, or None when it does: every letter must be
    a permutation or a reset, with at least one reset and one permutation other than
    the identity (the other cases have their own constructions)."""
    actions = letter_actions(automaton)
    if actions is None:
        n = automaton.n_states
        bad = next(s for s, row in enumerate(automaton.delta) if 1 < len(set(row.tolist())) < n)
        return (f"letter {automaton.symbols[bad]!r} neither permutes the states nor maps "
                f"them all to one state")
    if not any(kind == "reset" for kind, _ in actions):
        return "no letter is a reset"
    eye = np.eye(automaton.n_states, dtype=np.int64)
    if not any(kind == "perm" and not np.array_equal(p, eye) for kind, p in actions):
        return "no letter permutes the states (beyond the identity)"
    return None


def applies(automaton: Automaton) -> bool:
    """Whether the construction applies (:func:`why_not` says why not)."""
    return why_not(automaton) is None


def _sign_channel(actions: list[tuple[str, np.ndarray | int]]) -> bool:
    """Whether some permutation letter is odd (then R_g carries sgn g)."""
    return any(kind == "perm" and round(np.linalg.det(p)) < 0 for kind, p in actions)


def _actions(automaton: Automaton) -> list[tuple[str, np.ndarray | int]]:
    actions = letter_actions(automaton)
    if actions is None:
        raise NotExpressible("fixed-point (permutations and resets): every letter must "
                             "permute the states or map them all to one state")
    return actions


def hidden_size(automaton: Automaton) -> int:
    """Coordinates before any unit channel: the one-hot part, the sign channel when
    some letter is odd, and the homogeneous coordinate c."""
    return automaton.n_states + int(_sign_channel(_actions(automaton))) + 1


def compile_fixed_point_group_reset(automaton: Automaton, *, seed: int = 0,
                                    epsilon: Fraction = EPSILON,
                                    tuning_steps: int | StepBudget = LIMITS.tuning_steps
                                    ) -> Network:
    """The construction above, for a minimal automaton whose letters are permutations
    or resets.

    Raises
    ------
    NotExpressible
        When some letter is neither, or when no tuned conjugation of the permutation
        letters has a proved spectral radius below 1 (the message says which).
    SpecError
        When ``epsilon`` is not in (0, 1/2), or ``tuning_steps`` (an int, or a
        shared :class:`~fsmnet.constructions.fixed_point_budget.StepBudget`) is not
        positive.
    """
    from fsmnet.constructions.fixed_point_network import (
        conjugated_network,
        signed,
        tune_over_seeds,
        tuning_seeds,
        with_units,
    )
    from fsmnet.nets.fixed_point import converges_exactly, exact_inverse

    actions = _actions(automaton)
    eps = Fraction(epsilon)
    if not 0 < eps < Fraction(1, 2):
        raise SpecError("epsilon must lie in (0, 1/2), so that the true state outweighs "
                        "the rest", source="fixed-point", field="epsilon", value=str(eps))
    n = automaton.n_states
    signs = [round(np.linalg.det(p)) if kind == "perm" else 1 for kind, p in actions]
    extra = _sign_channel(actions)
    size0 = hidden_size(automaton)
    homog = size0 - 1
    if size0 > LIMITS.proof_size:  # refused at once: `fsmnet expressivity` tries every class
        raise NotExpressible(f"fixed-point (permutations and resets): hidden size {size0} "
                             f"is above {LIMITS.proof_size}, where the exact proof of the "
                             f"permutation letters' radius is too slow")
    # R_g = P_g ⊕ (sgn g) ⊕ 1: the homogeneous coordinate c is one more fixed channel.
    perm_reps = [with_units(signed(p, sg if extra else None), 1)
                 for (_, p), sg in zip(actions, signs) if isinstance(p, np.ndarray)]
    budget = StepBudget.of(tuning_steps)
    enc, tuning_seed = tune_over_seeds(perm_reps, seed, budget)
    if enc is None and budget.spent:
        raise NotExpressible(budget.refusal("fixed-point (permutations and resets)"))
    if enc is None:
        raise NotExpressible(f"fixed-point (permutations and resets): no tuned conjugation "
                             f"of the {len(perm_reps)} permutation letters has a proved "
                             f"spectral radius below 1 (seeds {seed}.."
                             f"{seed + tuning_seeds(size0) - 1})")
    size = size0 + enc.units
    reps: list[np.ndarray] = []
    lambdas: list[list[Fraction]] = []
    radii: list[float] = []
    perm_index = 0
    for kind, p in actions:
        if kind == "perm":
            reps.append(with_units(perm_reps[perm_index], enc.units))
            lambdas.append(list(enc.lambdas[perm_index]))
            radii.append(enc.radii[perm_index])
            perm_index += 1
        else:
            r = np.array([[Fraction(int(i == j)) for j in range(size)] for i in range(size)],
                         dtype=object)
            for i in range(n):
                r[i, i] = eps
            r[int(p), homog] = Fraction(1)  # type: ignore[call-overload]
            reps.append(r)
            lambdas.append([eps] * size)
            radii.append(float(1 - eps))
    s = np.array(enc.s, dtype=object)
    s_inv = exact_inverse(np.array([[Fraction(int(x)) for x in row] for row in enc.s],
                                   dtype=object))
    net = conjugated_network(automaton, s, s_inv, reps, lambdas, radii, extra, seed,
                             tuned={"unit_channels": enc.units, "blocks": enc.blocks,
                                    "tuning_seed": tuning_seed, "epsilon": str(eps),
                                    "homogeneous_coordinate": homog},
                             construction="permutations and resets")
    # The tuning proved the permutation letters; the resets' radius 1 − ε is proved here.
    for sym, (kind, _) in enumerate(actions):
        if kind == "reset" and not converges_exactly(net, sym):
            raise AssertionError(f"fixed-point (permutations and resets): letter "
                                 f"{automaton.symbols[sym]!r} is not proved to converge")
    return net
