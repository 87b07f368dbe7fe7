"""fixed-point: the construction strategies, as one ordered table.

:func:`fsmnet.constructions.fixed_point.compile_fixed_point` tries the entries of
:data:`STRATEGIES` in order (:func:`first_that_builds`).  Each entry says whether it
applies to the automaton (and why not), the limit above which it is skipped, and
how it builds the network; a strategy that applies but cannot build raises
NotExpressible and the next one is tried.  Why each strategy before the one that
built was skipped is kept in the network's options (``skipped``), and when none
builds, every reason is in the NotExpressible message.

The order is a preference: the behavioural constructions first (they need no
search and cover automata whose letters merge states), then the permutation
automata from the cheapest search to the most expensive.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property

from fsmnet.automata import Automaton
from fsmnet.constructions import (
    fixed_point_acyclic,
    fixed_point_group_reset,
    fixed_point_reset,
)
from fsmnet.constructions.fixed_point_budget import StepBudget
from fsmnet.constructions.fixed_point_limits import LIMITS
from fsmnet.constructions.fixed_point_network import (
    SignedLetters,
    signed_letters,
    tuned_network,
)
from fsmnet.errors import NotExpressible
from fsmnet.nets import Network

__all__ = ["STRATEGIES", "Limit", "Request", "Strategy", "first_that_builds"]


@dataclass
class Request:
    """One compile: the (minimal) automaton and the options every strategy may read
    (their defaults are those of ``compile_fixed_point``)."""

    automaton: Automaton
    seed: int
    attempts: int
    sign_channel: bool | None
    budget: StepBudget

    @cached_property
    def _letters(self) -> SignedLetters | str:
        # Computed once: four strategies share the permutation letters (or the reason
        # there are none).
        try:
            return signed_letters(self.automaton, self.sign_channel)
        except NotExpressible as exc:
            return str(exc)

    def not_permutations(self) -> str | None:
        """Why the letters are not usable as (signed) permutations, or None."""
        found = self._letters
        return found if isinstance(found, str) else None

    def letters(self) -> SignedLetters:
        """The letters as signed permutations (NotExpressible when they are not)."""
        found = self._letters
        if isinstance(found, str):
            raise NotExpressible(found)
        return found


@dataclass(frozen=True)
class Limit:
    """An upper bound on one count of a request, above which a strategy is skipped."""

    measure: Callable[[Request], int]
    bound: str
    """The field of :class:`~fsmnet.constructions.fixed_point_limits.FixedPointLimits`."""
    what: str
    """The count as the message names it, ``{}`` standing for its value."""
    why: str
    """Why the bound exists, and what to use beyond it."""

    def exceeded(self, request: Request) -> str | None:
        """Why the request is over the limit, or None when it is within."""
        most, value = getattr(LIMITS, self.bound), self.measure(request)
        if value <= most:
            return None
        return f"{self.what.format(value)} is above {most} (LIMITS.{self.bound}): {self.why}"


@dataclass(frozen=True)
class Strategy:
    """One entry of the table."""

    name: str
    applies: Callable[[Request], str | None]
    """None when the strategy applies to the request, else the reason it does not."""
    build: Callable[[Request], Network]
    """The network; NotExpressible when the strategy applies but finds none."""
    limit: Limit | None = None

    def why_not(self, request: Request) -> str | None:
        """Why the strategy is skipped (not applicable, or over its limit), or None."""
        reason = self.applies(request)
        if reason is None and self.limit is not None:
            reason = self.limit.exceeded(request)
        return reason


def first_that_builds(request: Request, table: Sequence[Strategy] | None = None) -> Network:
    """The network of the first strategy of ``table`` (default :data:`STRATEGIES`) that
    applies and builds, with ``strategy`` (its name) and ``skipped`` (why each earlier
    one did not) in its options.

    Raises
    ------
    NotExpressible
        When none builds; the message gives every strategy's reason.
    """
    skipped: dict[str, str] = {}
    for strategy in STRATEGIES if table is None else table:
        reason = strategy.why_not(request)
        if reason is None:
            try:
                net = strategy.build(request)
            except NotExpressible as exc:
                reason = f"tried: {exc}"
            else:
                return net.with_options(strategy=strategy.name, skipped=skipped)
        skipped[strategy.name] = _bare(reason)
    raise NotExpressible(refusal(request.automaton, skipped))


def refusal(automaton: Automaton, skipped: dict[str, str]) -> str:
    """The NotExpressible message: each reason once, after the strategies it stopped."""
    parts = [f"{', '.join(name for name, _ in group)}: {reason}"
             for reason, group in itertools.groupby(skipped.items(), key=lambda kv: kv[1])]
    name = f" {automaton.name!r}" if automaton.name else ""
    return f"fixed-point: no strategy builds the automaton{name}: " + "; ".join(parts)


def _bare(reason: str) -> str:
    """A reason without the ``fixed-point:`` its construction's message starts with (the
    refusal says it once)."""
    return re.sub(r"^(tried: )?fixed-point: ", r"\1", reason)


# ------------------------------------------------------------------ the entries
def _reset_applies(request: Request) -> str | None:
    return fixed_point_reset.why_not(request.automaton)


def _reset(request: Request) -> Network:
    return fixed_point_reset.compile_fixed_point_reset(request.automaton)


def _group_reset_applies(request: Request) -> str | None:
    return fixed_point_group_reset.why_not(request.automaton)


def _group_reset_size(request: Request) -> int:
    return fixed_point_group_reset.hidden_size(request.automaton)


def _group_reset(request: Request) -> Network:
    return fixed_point_group_reset.compile_fixed_point_group_reset(
        request.automaton, seed=request.seed, tuning_steps=request.budget)


def _acyclic_applies(request: Request) -> str | None:
    return fixed_point_acyclic.why_not(request.automaton)


def _states(request: Request) -> int:
    return request.automaton.n_states


def _acyclic(request: Request) -> Network:
    return fixed_point_acyclic.compile_fixed_point_acyclic(request.automaton)


def _hidden_size(request: Request) -> int:
    return request.letters().size


def _split_applies(request: Request) -> str | None:
    reason = request.not_permutations()
    if reason is None and _hidden_size(request) <= LIMITS.split_above:
        reason = (f"hidden size {_hidden_size(request)} is at most {LIMITS.split_above} "
                  f"(LIMITS.split_above), where the whole encoding tunes cheaply")
    return reason


def _split(request: Request) -> Network:
    from fsmnet.constructions.fixed_point_split import compile_fixed_point_split

    return compile_fixed_point_split(request.automaton, seed=request.seed,
                                     attempts=request.attempts,
                                     sign_channel=request.sign_channel,
                                     tuning_steps=request.budget)


def _tuned_applies(request: Request) -> str | None:
    return request.not_permutations()


def _tuned(request: Request) -> Network:
    return tuned_network(request.automaton, request.letters(), request.seed, request.budget)


def _search_applies(request: Request) -> str | None:
    reason = request.not_permutations()
    if reason is None and request.budget.spent:
        reason = ("the tuning spent the step budget, and the untuned search is only the "
                  "fallback of a tuning that ran its course")
    return reason


def _random_search(request: Request) -> Network:
    from fsmnet.constructions.fixed_point_search import random_search

    return random_search(request.automaton, request.letters(), seed=request.seed,
                         attempts=request.attempts)


_DENSE_PROOF = Limit(
    _hidden_size, "proof_size", "hidden size {}",
    "the exact Schur-Cohn proof of the radius on the whole matrix is too slow there; "
    "fsmnet.constructions.fixed_point_blocks.compile_fixed_point_blocks builds an exactly "
    "block-diagonal encoding instead, proved block by block")

STRATEGIES: tuple[Strategy, ...] = (
    # Every letter a reset or the identity: a contraction carries each reset.
    Strategy("reset", _reset_applies, _reset),
    # Permutations and resets: the permutations conjugated, the resets contracted.
    Strategy("group-reset", _group_reset_applies, _group_reset,
             Limit(_group_reset_size, "proof_size", "hidden size {}",
                   "the exact proof of the permutation letters' radius is too slow there")),
    # Merges in a partially ordered automaton: a faint copy of each state left.
    Strategy("acyclic", _acyclic_applies, _acyclic,
             Limit(_states, "acyclic_states", "{} states",
                   "the cone proof gets slow; fsmnet.constructions.fixed_point_acyclic."
                   "compile_fixed_point_acyclic builds it from the API")),
    # Larger permutation automata: two small quotients side by side tune far more
    # cheaply than the whole.
    Strategy("split", _split_applies, _split),
    # S tuned jointly with Λ (block-diagonalized, unit channels where a block needs them).
    Strategy("tuned", _tuned_applies, _tuned, _DENSE_PROOF),
    # The untuned fallback: random unimodular S, a Fisher-Fuller Λ per letter.
    Strategy("random-search", _search_applies, _random_search, _DENSE_PROOF),
)
