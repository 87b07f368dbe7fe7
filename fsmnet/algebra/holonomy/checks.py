"""Checks that a holonomy cascade is correct, as library functions.

Each returns a :class:`CheckResult` that says what was checked and, on
failure, the first few counterexamples in words (docs/holonomy.md, "What it computes"):

- :func:`check_action`: every valid code of every state ``x`` is mapped by
  the lift of every letter ``s`` to a valid code of ``x·s``; every
  permutation a level applies lies in its component's holonomy group.
- :func:`check_emulation`: the canonical code of ``x`` is mapped to a code of
  ``x·s`` (the cascade reproduces the transition table).
- :func:`check_groups_divide`: each holonomy group's order divides the order
  of some maximal subgroup of S (Krohn-Rhodes: holonomy groups divide S).
"""

from __future__ import annotations

from dataclasses import dataclass

from sympy.combinatorics import Permutation

from fsmnet.algebra.holonomy.cascade import Holonomy, LevelAction
from fsmnet.algebra.holonomy.chains import count_chains
from fsmnet.errors import SpecError

__all__ = ["CheckResult", "check_action", "check_emulation", "check_groups_divide",
           "maximal_subgroup_orders"]

_MAX_REPORTED = 10


@dataclass(frozen=True)
class CheckResult:
    """The outcome of one check.

    Attributes
    ----------
    name
        ``"action"``, ``"emulation"`` or ``"groups_divide"``.
    passed
        True only when the check was exhaustive and found nothing wrong.
    checked
        How many cases were examined.
    failures
        Up to ten descriptions of what went wrong (empty when passed).
    """

    name: str
    passed: bool
    checked: int
    failures: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return self.passed


def _action_ok(h: Holonomy, level: int, act: LevelAction, point: int,
               cache: dict) -> str | None:
    """Why a level action is not a permutation of the holonomy group or a constant, if so."""
    lv = h.levels[level - 1]
    if act.kind == "const":
        return None if 0 <= act.value < lv.n_points else "reset to a point out of range"  # type: ignore[operator]
    perm = act.value
    k = lv.component_of_point(point)
    key = (level, k, perm)  # membership depends on the component, not on the point
    if key in cache:
        return cache[key]
    comp = lv.components[k]
    why = None
    if sorted(perm) != list(range(lv.n_points)):  # type: ignore[arg-type]
        why = "not a permutation of the level's points"
    elif any(perm[i] != i for i in range(lv.n_points) if i not in comp.points):  # type: ignore[index]
        why = "moves points outside the current component"
    else:
        local = [perm[comp.offset + i] - comp.offset for i in range(comp.n_tiles)]  # type: ignore[index]
        if comp.group is None:
            if local != list(range(comp.n_tiles)):
                why = "non-identity permutation on a reset component"
        elif not comp.group.contains(Permutation(local, size=comp.n_tiles)):
            why = "permutation outside the component's holonomy group"
    cache[key] = why
    return why


def check_action(h: Holonomy, *, max_codes: int = 200_000) -> CheckResult:
    """Check the lift of every letter on every valid code of every state.

    Parameters
    ----------
    h
        The decomposition.
    max_codes
        Give up (``passed=False``, saying so) when the states have more valid
        codes than this in all.
    """
    failures: list[str] = []
    total = count_chains(h)  # counted, not listed: one state alone may have millions
    if total > max_codes:
        return CheckResult("action", False, total,
                           (f"not exhaustive: more than {max_codes} codes",))
    checked = 0
    cache: dict = {}
    codes = {}
    for x in range(h.n_states):
        codes[x] = h.all_codes(x)
        checked += len(codes[x])
        if checked > max_codes:
            return CheckResult("action", False, checked,
                               (f"not exhaustive: more than {max_codes} codes",))
    checked = 0
    for x in range(h.n_states):
        for code in codes[x]:
            for s, t in enumerate(h.generators):
                checked += 1
                lifted = h.lift(s)
                image = lifted.apply(code)
                for d in range(1, h.n_levels + 1):
                    why = _action_ok(h, d, lifted.level_action(d, code[: d - 1]),
                                     code[d - 1], cache)
                    if why is not None:
                        failures.append(f"letter {h.symbols[s]} at level {d} on {code}: {why}")
                if not h.is_valid(image):
                    failures.append(f"letter {h.symbols[s]}: {code} -> {image} is not a valid code")
                elif h.decode(image) != t[x]:
                    failures.append(f"letter {h.symbols[s]}: {code} (state {x}) -> {image} "
                                    f"decodes to {h.decode(image)}, expected {t[x]}")
                if len(failures) >= _MAX_REPORTED:
                    return CheckResult("action", False, checked, tuple(failures))
    return CheckResult("action", not failures, checked, tuple(failures))


def check_emulation(h: Holonomy) -> CheckResult:
    """Check that the cascade reproduces ``x·s`` for every state and letter."""
    failures: list[str] = []
    checked = 0
    for x in range(h.n_states):
        code = h.encode(x)
        for s, t in enumerate(h.generators):
            checked += 1
            try:
                got = h.decode(h.lift(s).apply(code))
            except SpecError as exc:
                failures.append(f"letter {h.symbols[s]} on state {x}: {exc}")
                continue
            if got != t[x]:
                failures.append(f"letter {h.symbols[s]} on state {x}: got {got}, expected {t[x]}")
    return CheckResult("emulation", not failures, checked, tuple(failures[:_MAX_REPORTED]))


def maximal_subgroup_orders(h: Holonomy) -> set[int]:
    """Orders of the maximal subgroups of S^1 (the group H-classes), via libsemigroups."""
    from libsemigroups_pybind11 import Konieczny, ReportGuard, Transf

    ReportGuard(False)
    # libsemigroups wants degree >= 2 for some element types; pad a fixed point.
    n = max(h.n_states, 2)
    gens = [Transf(list(t) + list(range(len(t), n))) for t in h.generators]
    k = Konieczny(gens)
    orders = {1}  # the identity of S^1
    for d in k.D_classes():
        if d.is_regular_D_class():
            orders.add(int(d.size_H_class()))
    return orders


def check_groups_divide(h: Holonomy) -> CheckResult:
    """Check that every holonomy group's order divides some maximal subgroup order of S."""
    orders = maximal_subgroup_orders(h)
    failures: list[str] = []
    checked = 0
    for lv in h.levels:
        for k, comp in enumerate(lv.components):
            checked += 1
            g = 1 if comp.group is None else int(comp.group.order())
            if not any(m % g == 0 for m in orders):
                failures.append(f"level {lv.level} component {k}: order {g} divides no "
                                f"maximal subgroup order {sorted(orders)}")
    return CheckResult("groups_divide", not failures, checked, tuple(failures[:_MAX_REPORTED]))
