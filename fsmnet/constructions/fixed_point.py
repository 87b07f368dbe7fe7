"""fixed-point: compile an automaton into a fixed-point RNN, choosing among strategies.

A fixed-point transition A = (I + (Λ⁻¹ − I) Q)⁻¹ is invertible (the architecture:
:mod:`fsmnet.nets.fixed_point`; the constructions and their proofs:
docs/constructions-deltaproduct-fixedpoint.md).  Letters that permute the states
are therefore carried exactly, by a conjugated encoding A_σ = S R_σ S⁻¹ whose
fixed-point iteration is proved to converge (ρ(I − Λ_σ A_σ⁻¹) < 1, Schur-Cohn in
exact arithmetic); letters that merge states are carried *behaviourally*, by a
contraction that keeps every reachable state in a small region the readout
separates (proved by a box or cone invariant, not by the exact product).

The family's strategies, tried in the order of the table in
:mod:`fsmnet.constructions.fixed_point_strategies`:

* ``reset`` -- every letter a reset or the identity (the flip-flop):
  :mod:`~fsmnet.constructions.fixed_point_reset`;
* ``group-reset`` -- every letter a permutation or a reset:
  :mod:`~fsmnet.constructions.fixed_point_group_reset`;
* ``acyclic`` -- merges in a partially ordered automaton ("at least k",
  "contains ab"): :mod:`~fsmnet.constructions.fixed_point_acyclic`;
* ``split`` -- permutation automata above ``LIMITS.split_above`` coordinates, as
  two quotients side by side: :mod:`~fsmnet.constructions.fixed_point_split`;
* ``tuned`` -- permutation automata, S tuned jointly with Λ:
  :mod:`~fsmnet.constructions.fixed_point_tuning`;
* ``random-search`` -- the untuned fallback, a random unimodular S:
  :mod:`~fsmnet.constructions.fixed_point_search`.

Every limit of the family (sizes, seeds, steps) is in
:mod:`fsmnet.constructions.fixed_point_limits`.  Permutation groups above
``LIMITS.proof_size`` coordinates are built on request by
:func:`fsmnet.constructions.fixed_point_blocks.compile_fixed_point_blocks`
(an exactly block-diagonal encoding, proved block by block).
"""

from __future__ import annotations

from fsmnet.automata import Automaton
from fsmnet.constructions import fixed_point_strategies
from fsmnet.constructions.fixed_point_budget import StepBudget
from fsmnet.constructions.fixed_point_limits import LIMITS
from fsmnet.nets import Network

__all__ = ["compile_fixed_point"]


def compile_fixed_point(automaton: Automaton, *, seed: int = 0, attempts: int = 60,
                        sign_channel: bool | None = None,
                        tuning_steps: int | StepBudget = LIMITS.tuning_steps) -> Network:
    """Fixed-point network for a minimal automaton, by the first strategy that builds
    one; its options name the strategy (``strategy``) and why each one before it was
    skipped (``skipped``).

    Parameters
    ----------
    seed
        Seed of the tuning and of the random search for S.
    attempts
        Number of random unimodular S the untuned search tries before giving up.
    sign_channel
        Force (True) or forbid (False) the extra channel carrying sgn(σ) in the
        permutation encodings; by default it is added exactly when some letter is
        an odd permutation (without it, odd letters cannot converge:
        det(Λ A⁻¹) = det Λ · sgn σ < 0).
    tuning_steps
        Adam steps the radius tuning may spend in all (deterministic, unlike a
        clock; ``LIMITS.tuning_steps`` by default), or a shared
        :class:`~fsmnet.constructions.fixed_point_budget.StepBudget`.  When they
        run out the compile stops and says so.

    Raises
    ------
    NotExpressible
        When no strategy builds a network; the message gives each strategy's
        reason (not applicable, over its limit, or tried and failed).
    SpecError
        When ``tuning_steps`` is not a positive integer.
    """
    request = fixed_point_strategies.Request(automaton, seed=seed, attempts=attempts,
                                             sign_channel=sign_channel,
                                             budget=StepBudget.of(tuning_steps))
    return fixed_point_strategies.first_that_builds(request)
