"""Example budgets for Hypothesis tests, relative to the loaded profile.

The profiles themselves are registered in ``conftest.py``.  Most property tests
take the profile's ``max_examples``; one whose examples are expensive bounds its
count with ``examples(n)``: ``n`` under the ``default`` profile, scaled by the
loaded profile (ten times under ``thorough``)."""

from __future__ import annotations

from hypothesis import settings

DEFAULT_EXAMPLES = 50
"""``max_examples`` of the ``default`` profile."""

THOROUGH_FACTOR = 10
"""How many times more examples the ``thorough`` profile draws."""


def examples(n: int) -> int:
    """``n`` examples under the ``default`` profile, scaled with the loaded one."""
    return max(1, n * settings.default.max_examples // DEFAULT_EXAMPLES)
