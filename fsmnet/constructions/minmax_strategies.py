"""Which cascade the MinMax compilers build: an ordered table of strategies, one loop.

A :class:`Strategy` row names a construction, says when it applies (or why
not), builds it (or says why its form does not exist for this automaton),
names the limit of :mod:`fsmnet.constructions.minmax_limits` that bounds it,
and says whether its network is *taken* without building the rest.  Rows come
in stages.  :func:`choose` tries the rows of each stage in order; when some
network built in a stage is taken, the smallest of those (by parameters) is
the answer.  Otherwise, after the last stage, the smallest network built is
the answer (on equal sizes the lower ``rank``); if none was built, the
table's fallback row (``minmax-cascade``: one matrix unit over the states),
else the error of the plain holonomy cascade, the form every automaton has.

The order is the cost order: forms found without the holonomy decomposition
first (the threshold and one-hot order cascades reach n tuples, which no
cascade beats; the product and congruence-chain cascades), then the
decomposition, then the forms worth a look only once it failed or came out
large.  Why each row was not chosen is recorded, row by row, in the network's
options (``strategy``, ``strategies_skipped``) and in the error raised.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from fsmnet.algebra.holonomy.skeleton import DecompositionTooLarge
from fsmnet.automata import Automaton
from fsmnet.constructions.minmax_cascade import CascadeSpec, cascade_network
from fsmnet.constructions.minmax_limits import MinMaxLimits
from fsmnet.errors import FsmnetError, NotExpressible
from fsmnet.nets import Network

__all__ = ["CASCADE_TABLE", "SCALAR_TABLE", "Attempt", "Strategy", "best_cascade", "choose",
           "finish"]

MISSES: tuple[type[Exception], ...] = (DecompositionTooLarge, NotExpressible)
"""Errors that mean "this form does not fit its limits here": recorded, and the next row
is tried (:class:`~fsmnet.constructions.minmax_explore.CascadeTooLarge` included)."""


@dataclass
class Attempt:
    """One choice in progress: the automaton, the networks built, why the rest were not."""

    automaton: Automaton
    arch: str
    max_steps: int
    limits: MinMaxLimits
    spec: CascadeSpec | None = None
    """The plain holonomy spec, when the caller built it already."""
    spec_error: Exception | None = None
    """Why the caller could not build it (then the holonomy row fails with it)."""
    built: dict[str, Network] = field(default_factory=dict)
    skipped: dict[str, str] = field(default_factory=dict)
    failure: Exception | None = None
    tried: set[str] = field(default_factory=set)

    @property
    def n(self) -> int:
        return self.automaton.n_states

    def limit(self, name: str) -> str:
        return self.limits.describe(name)


@dataclass(frozen=True)
class Strategy:
    """One row of a table (see the module docs)."""

    name: str
    stage: int
    applies: Callable[[Attempt], str | None]
    """None when the row applies, else why not."""
    build: Callable[[Attempt], Network | str]
    """The network, or why this form does not exist for the automaton."""
    limit: str
    """The :class:`MinMaxLimits` field that bounds or gates the row."""
    takes: Callable[[Attempt, Network], bool]
    """Whether the network is taken without building the later stages."""
    misses: Callable[[Attempt], tuple[type[Exception], ...]] = lambda at: MISSES
    """Errors that mean "does not fit": recorded, then the next row."""
    rank: int = 9
    """Order among networks of equal size in the final comparison."""
    reports: bool = False
    """Its error is the one raised when nothing is built (the plain cascade's)."""
    fallback: bool = False
    """Tried only when no other row built a network."""


def _always(at: Attempt, net: Network | None = None) -> None:
    return None


def _taken(at: Attempt, net: Network) -> bool:
    return True


def _never(at: Attempt, net: Network) -> bool:
    return False


# ------------------------------------------------------------------ the builders
def _threshold(at: Attempt) -> Network | str:
    from fsmnet.constructions.minmax_threshold import threshold_spec

    spec = threshold_spec(at.automaton)
    if spec is None:
        return "no order along which every letter is a threshold map"
    return cascade_network(spec, at.automaton, arch=at.arch, max_steps=at.max_steps,
                           options={"construction": "threshold"})


def onehot_network(automaton: Automaton, *, arch: str, max_steps: int) -> Network | None:
    """The one-hot order cascade when the automaton is partially ordered, else None."""
    from fsmnet.constructions.minmax_threshold import onehot_order_spec

    spec = onehot_order_spec(automaton)
    if spec is None:
        return None
    return cascade_network(spec, automaton, arch=arch, max_steps=max_steps,
                           options={"construction": "one-hot order"})


def _onehot(at: Attempt) -> Network | str:
    net = onehot_network(at.automaton, arch=at.arch, max_steps=at.max_steps)
    return "not partially ordered (a cycle of non-constant letters)" if net is None else net


def _product(at: Attempt) -> Network | str:
    from fsmnet.constructions.minmax_pair_graph import subdirectly_irreducible
    from fsmnet.constructions.minmax_product import factorization, product_network

    if subdirectly_irreducible(at.automaton.delta, max_pairs=at.limits.pair_graph_pairs):
        return ("subdirectly irreducible (its congruence lattice has one atom, read off "
                "the pair graph): no product of quotients")
    parts = factorization(at.automaton, limit=at.limits.congruence_limit,
                          max_steps=at.limits.congruence_steps)
    if parts is None:
        return (f"no congruences with identity meet found (within "
                f"{at.limit('congruence_limit')}, {at.limit('congruence_steps')})")
    return product_network(at.automaton, parts, arch=at.arch, max_steps=at.max_steps)


def _chain(at: Attempt) -> Network | str:
    from fsmnet.constructions.minmax_chain import chain_spec

    spec = chain_spec(at.automaton, scalar=True)
    if spec is None:
        return "no chain of congruences with identity-or-reset levels"
    return cascade_network(spec, at.automaton, arch="minmax-scalar", max_steps=at.max_steps,
                           options={"construction": "congruence chain"})


def _holonomy(at: Attempt) -> Network | str:
    from fsmnet.constructions.minmax_holonomy import holonomy_spec

    if at.spec_error is not None:
        raise at.spec_error
    spec = at.spec
    if spec is None:
        spec = holonomy_spec(at.automaton, image_set_limit=at.limits.image_sets)
    levels = spec.facts.get("holonomy_components")
    if at.arch == "minmax-cascade" and levels and all(  # minmax-scalar checked it already
            c["group_order"] is None for level in levels for c in level):
        from fsmnet.constructions.minmax_counter_bound import refuse_if_counter

        # Trivial holonomy groups: every level is a scalar unit, so a counter chain
        # bounds the plain cascade's reach from below (2^k, the theorem in
        # docs/constructions-minmax.md); past the budget the exploration could only
        # run out of it.
        refuse_if_counter(at.automaton, max_steps=at.max_steps)
    return cascade_network(spec, at.automaton, arch=at.arch, max_steps=at.max_steps,
                           options={"construction": "holonomy"})


def _dense_unit(at: Attempt) -> Network | str:
    from fsmnet.constructions.minmax_dense_unit import dense_unit_network

    return dense_unit_network(at.automaton, why=str(at.failure))


# ------------------------------------------------------------ when rows apply
def _small_per_state(at: Attempt, net: Network) -> bool:
    return bool(net.options["reachable_coordinates"] <= at.limits.plain_is_small * at.n)


def _factor_first(at: Attempt) -> str | None:
    if at.n > at.limits.factor_first_max:
        return (f"{at.n} states, past {at.limit('factor_first_max')}: "
                f"looked for after the holonomy cascade")
    return None


def _factor_late(at: Attempt) -> str | None:
    if at.n <= at.limits.factor_first_max:
        return f"looked for before the holonomy cascade ({at.limit('factor_first_max')})"
    plain = at.built.get("holonomy")
    if plain is not None and _small_per_state(at, plain):
        return (f"the holonomy cascade reaches at most {at.limits.plain_is_small} "
                f"tuples per state ({at.limit('plain_is_small')})")
    return None


def _chain_applies(at: Attempt) -> str | None:
    if at.n <= at.limits.keep_dense_below:
        return f"{at.n} states, within {at.limit('keep_dense_below')}: the forms are compared"
    return _factor_first(at)


def _product_taken(at: Attempt, net: Network) -> bool:
    return at.n > at.limits.keep_dense_below and _small_per_state(at, net)


def _onehot_taken(at: Attempt, net: Network) -> bool:
    return at.n > at.limits.keep_dense_below


def _plain_taken(at: Attempt, net: Network) -> bool:
    # Small mixed-radix tables: every device kernel takes them.
    return not net.options["prefix_indexed"] and net.n_params <= at.limits.small_dense


def _holonomy_misses(at: Attempt) -> tuple[type[Exception], ...]:
    # For minmax-scalar a NotExpressible here is the class's answer (a level permutes).
    return MISSES if at.arch == "minmax-cascade" else (DecompositionTooLarge,)


def _dense_unit_applies(at: Attempt) -> str | None:
    return None if at.failure is not None else "no failure to fall back from"


# ------------------------------------------------------------------ the tables
THRESHOLD = Strategy("threshold", 1, _always, _threshold, "max_steps", _taken)
ONEHOT = Strategy("one-hot order", 2, _always, _onehot, "keep_dense_below", _onehot_taken,
                  rank=2)
PRODUCT = Strategy("product", 3, _factor_first, _product, "factor_first_max", _product_taken,
                   rank=1)
CHAIN = Strategy("congruence chain", 3, _chain_applies, _chain, "factor_first_max", _taken)
HOLONOMY = Strategy("holonomy", 4, _always, _holonomy, "image_sets", _plain_taken,
                    misses=_holonomy_misses, rank=0, reports=True)
LATE_PRODUCT = Strategy("product after holonomy", 5, _factor_late, _product,
                        "factor_first_max", _never, rank=1)
DENSE_UNIT = Strategy("dense unit", 6, _dense_unit_applies, _dense_unit, "max_steps", _never,
                      misses=lambda at: (), fallback=True)

CASCADE_TABLE: tuple[Strategy, ...] = (THRESHOLD, ONEHOT, PRODUCT, HOLONOMY, LATE_PRODUCT,
                                       DENSE_UNIT)
"""``minmax-cascade``: every form, then one matrix unit over the states."""

SCALAR_TABLE: tuple[Strategy, ...] = (THRESHOLD, ONEHOT, PRODUCT, CHAIN, HOLONOMY,
                                      LATE_PRODUCT)
"""``minmax-scalar``: no dense unit (a scalar step is idempotent: it carries no map)."""

BEFORE_HOLONOMY = HOLONOMY.stage - 1
"""The last stage that needs no holonomy decomposition."""


# ------------------------------------------------------------------- the loop
def _try(at: Attempt, row: Strategy) -> None:
    at.tried.add(row.name)
    why = row.applies(at)
    if why is not None:
        at.skipped[row.name] = why
        return
    try:
        result = row.build(at)
    except row.misses(at) as exc:
        at.skipped[row.name] = f"{type(exc).__name__}: {exc}"
        if row.reports:
            at.failure = exc
        return
    if isinstance(result, str):
        at.skipped[row.name] = result
    else:
        at.built[row.name] = result


def _chosen(at: Attempt, name: str) -> Network:
    net = at.built[name]
    skipped = dict(at.skipped)
    for other, loser in at.built.items():
        if other != name:
            skipped[other] = (f"built, {loser.n_params:,} parameters; "
                              f"{name} has {net.n_params:,}")
    return net.with_options(strategy=name, strategies_skipped=skipped)


def summary(at: Attempt) -> str:
    """Every row tried and why it was not chosen, for an error message."""
    return "; ".join(f"{name}: {why}" for name, why in at.skipped.items())


def choose(at: Attempt, table: Sequence[Strategy], *, last_stage: int | None = None
           ) -> Network | None:
    """Run the rows of ``table`` not yet tried, stage by stage (up to ``last_stage``).

    Returns the network chosen, or None when ``last_stage`` stopped the loop first.
    Raises the plain cascade's error, its message followed by every row's reason,
    when nothing is built and no fallback applies.
    """
    rows = [r for r in table if not r.fallback]
    for stage in sorted({r.stage for r in rows}):
        if last_stage is not None and stage > last_stage:
            return None
        for row in rows:
            if row.stage == stage and row.name not in at.tried:
                _try(at, row)
        taken = [r.name for r in rows
                 if r.stage == stage and r.name in at.built and r.takes(at, at.built[r.name])]
        if taken:
            return _chosen(at, min(taken, key=lambda nm: at.built[nm].n_params))
    if at.built:
        rank = {r.name: r.rank for r in table}
        return _chosen(at, min(at.built, key=lambda nm: (at.built[nm].n_params, rank[nm])))
    for row in table:
        if row.fallback and row.name not in at.tried:
            _try(at, row)
            if row.name in at.built:
                return _chosen(at, row.name)
    if at.failure is None:
        raise FsmnetError(f"{at.arch}: no strategy built a cascade and none failed "
                          f"({summary(at)})")
    at.failure.args = (f"{at.failure.args[0] if at.failure.args else at.failure} "
                       f"[strategies tried: {summary(at)}]", *at.failure.args[1:])
    raise at.failure


def finish(at: Attempt, table: Sequence[Strategy]) -> Network:
    """:func:`choose` over every row of ``table`` not yet tried."""
    net = choose(at, table)
    assert net is not None  # no last_stage: the loop ran to the end
    return net


def best_cascade(automaton: Automaton, *, arch: str, max_steps: int | None = None,
                 limits: MinMaxLimits | None = None) -> Network:
    """The cascade of ``arch`` for ``automaton``: :func:`choose` over its whole table
    (``limits``: :data:`fsmnet.constructions.minmax_limits.LIMITS` as it is now)."""
    from fsmnet.constructions import minmax_limits

    table = CASCADE_TABLE if arch == "minmax-cascade" else SCALAR_TABLE
    chosen = minmax_limits.LIMITS if limits is None else limits
    budget = chosen.max_steps if max_steps is None else max_steps
    return finish(Attempt(automaton, arch, budget, chosen), table)
