"""The tuning limits of the MinMax construction family, in one place.

Every limit is a count (steps, states, entries, elements, sets), never a time,
so a choice of construction or a refusal is the same on any machine.  The
measurements that set them are in docs/performance.md ("MinMax construction
strategies: the limits and what set them"); the strategies that read them are
the table of :mod:`fsmnet.constructions.minmax_strategies`.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

__all__ = ["LIMITS", "MinMaxLimits"]


@dataclass(frozen=True)
class MinMaxLimits:
    """Counts that bound or steer the MinMax constructions (one frozen record)."""

    max_steps: int = 400_000
    """Most lifted steps (reached pairs × letters) a cascade's exploration takes
    before it gives up (option ``max_steps``)."""

    work_levels: int = 20
    """Levels up to which :attr:`max_steps` applies as it is; deeper cascades get
    ``max_steps · work_levels / levels`` steps, since a lifted step costs one
    action per level."""

    image_sets: int | None = 20_000
    """Most image sets (the holonomy orbit of the state set) the plain holonomy
    cascade is attempted with, counted before the decomposition, whose tiles cost
    grows with the square of this number; past it the cascade's reached tuples
    were beyond :attr:`max_steps` on every automaton measured.  None: not
    counted (only the decomposition's own orbit limit applies)."""

    pair_graph_pairs: int = 4_000_000
    """Most pairs of states the pair graph is built over to rule a product out at once
    (:mod:`fsmnet.constructions.minmax_pair_graph`; about 2,800 states); above, the
    congruence enumeration alone decides."""

    congruence_limit: int = 5_000
    """Most congruences enumerated when looking for a product factorization."""

    congruence_steps: int = 20_000_000
    """Union-find steps of that enumeration."""

    plain_is_small: int = 4
    """A product cascade whose components reach at most this many coordinate tuples
    per state is taken without building the plain holonomy cascade; a plain one
    reaching more per state makes the product worth looking for past
    :attr:`factor_first_max` states."""

    small_dense: int = 1 << 16
    """A plain cascade in mixed-radix form (file format 1) with at most this many
    parameters is kept: the CuPy and levelwise Numba kernels take only that form,
    and a product cannot be much smaller in absolute terms."""

    factor_first_max: int = 130
    """Up to this many states the product factorization is looked for before the
    plain holonomy decomposition (the congruence search is cheap there, and the
    plain decomposition of a product can run long before it stops); above, only
    when the plain cascade fails or reaches more than :attr:`plain_is_small`
    tuples per state."""

    keep_dense_below: int = 16
    """Up to this many states every form is built and the smallest kept (the plain
    cascade is cheap there, and its mixed-radix form runs on every device kernel);
    above, a one-hot order or product cascade is taken without the comparison."""

    quick_monoid_limit: int = 2_000
    """Transition-monoid elements of the short search for a periodic witness that
    runs before the holonomy decomposition (``minmax-scalar``)."""

    monoid_limit: int = 100_000
    """Transition-monoid elements enumerated for a periodic witness when the
    decomposition does not decide aperiodicity (``minmax-scalar``)."""

    def describe(self, name: str) -> str:
        """``"name = value"`` for a limit, as error messages name it."""
        if name not in {f.name for f in fields(self)}:
            raise KeyError(f"no MinMax limit named {name!r}")
        value = getattr(self, name)
        return f"{name} = {value:,}" if value is not None else f"{name} = None"


LIMITS = MinMaxLimits()
"""The defaults every MinMax construction uses."""
