"""fixed-point: the budget of Adam steps that one compile's radius tuning may spend.

The tuning (:mod:`fsmnet.constructions.fixed_point_tuning`) is a float search whose
success is not known in advance; a count of steps, shared by every block, seed and
quotient of one compile, bounds it the same way on every machine, however loaded
(the default count: ``LIMITS.tuning_steps``, :mod:`fsmnet.constructions.fixed_point_limits`).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass, field

from fsmnet.errors import SpecError

__all__ = ["OutOfTuningSteps", "StepBudget", "reporting"]

_REPORT_EVERY = 250
_PROGRESS: ContextVar[Callable[[int, int], None] | None] = ContextVar(
    "fixed_point_tuning_progress", default=None)


@contextlib.contextmanager
def reporting(callback: Callable[[int, int], None]) -> Iterator[None]:
    """Within the block, every budget calls ``callback(steps spent, total)`` every few
    hundred steps (``fsmnet compile`` draws its progress bar so).  A context, not an
    option, so that the network's recorded options stay the same."""
    token = _PROGRESS.set(callback)
    try:
        yield
    finally:
        _PROGRESS.reset(token)


@dataclass
class StepBudget:
    """The Adam steps left to one compile, shared by every tuning it runs."""

    total: int
    left: int = field(init=False)

    def __post_init__(self) -> None:
        self.left = self.total

    @property
    def spent(self) -> bool:
        return self.left <= 0

    def take(self) -> None:
        """Spend one step; :class:`OutOfTuningSteps` when none is left."""
        if self.left <= 0:
            raise OutOfTuningSteps
        self.left -= 1
        spent = self.total - self.left
        if spent % _REPORT_EVERY == 0:
            callback = _PROGRESS.get()
            if callback is not None:
                callback(spent, self.total)

    @classmethod
    def of(cls, value: object) -> StepBudget:
        """``value`` itself when it is a budget (shared with a caller), else a fresh
        budget of ``value`` steps, which must be a positive integer."""
        if isinstance(value, StepBudget):
            return value
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise SpecError("must be a positive integer", source="fixed-point",
                            field="tuning_steps", value=repr(value))
        return cls(total=value)

    def refusal(self, construction: str) -> str:
        """The NotExpressible message once the budget is spent."""
        return (f"{construction}: the radius tuning spent its {self.total:,} Adam steps "
                f"without a proved spectral radius < 1 for every letter; "
                f"--option tuning_steps=N (API: tuning_steps=N) allows more")


class OutOfTuningSteps(Exception):
    """The compile's :class:`StepBudget` ran out in the middle of a tuning."""
