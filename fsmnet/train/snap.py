"""Snapping: a trained network's weights moved to nearby simple values.

Candidates come from a table of strategies (:data:`STRATEGIES`): the structural
snaps of :mod:`fsmnet.train.snap_states` (exact states, for bilinear-full, bilinear-cp
and fixed-point), :mod:`fsmnet.train.snap_blocks` (exact states per block, for
bilinear-block), :mod:`fsmnet.train.snap_roots` (exact rotations, for bilinear-r2) and
:mod:`fsmnet.train.snap_householder` (exact reflections, for deltaproduct),
then the dyadic grids of this module, which any architecture takes.

A trained network's weights are arbitrary float32 values, so its exact states
never repeat and its float32 states may drift for a long time.  Rounded to a
grid of dyadics 2^-k with few bits, an identity letter becomes exactly the
identity and a sign flip exactly −1, and the network often becomes one whose
exact (or float32) states are finitely many: a compiled-like network that the
exact product proves at once.  A snap is only worth certifying if it still
computes the training labels, so every candidate is run first on a fixed
sample of training words in the float32 reference execution (what the
module's labels are, docs/formats.md, "The float32 reference step").

>>> import numpy as np
>>> snap_array(np.array([0.9991, -0.26, 0.0004, 2.37]), 2, units=True).tolist()
[1.0, -0.25, 0.0, 2.25]
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from fsmnet.automata import Automaton
from fsmnet.errors import FsmnetError
from fsmnet.nets import Network
from fsmnet.train.snap_blocks import block_snaps
from fsmnet.train.snap_householder import householder_snaps
from fsmnet.train.snap_roots import root_of_unity_snaps
from fsmnet.train.snap_states import state_snaps

BITS = tuple(range(2, 13))
"""The grids tried, coarsest first: 2^-2 … 2^-12."""

UNIT_TOLERANCE = 2.0**-6
"""Entries this close to 0, 1 or −1 become exactly that on every grid (``units``): an
identity or sign letter needs the exact value, the other weights can stay fine."""


@dataclass(frozen=True)
class Snap:
    """One candidate: how it was snapped (``header``, what the saved file records), the
    snapped network and its accuracy on the training sample."""

    header: dict[str, Any]
    network: Network
    accuracy: float


def snap_array(values: np.ndarray, bits: int, *, units: bool) -> np.ndarray:
    """``values`` rounded to the nearest multiple of 2^-bits (ties to even, numpy's
    rounding); with ``units`` entries within :data:`UNIT_TOLERANCE` of 0, ±1 become
    exactly those.  Every result is a dyadic with at most ``bits`` fraction bits, so
    a float32 value for any magnitude below 2^(24 - bits)."""
    scale = float(2**bits)
    out = np.round(np.asarray(values, dtype=np.float64) * scale) / scale
    if units:
        for target in (0.0, 1.0, -1.0):
            out = np.where(np.abs(values - target) <= UNIT_TOLERANCE, target, out)
    return out


def float32_accuracy(net: Network, words: Sequence[Sequence[int]],
                     labels: Sequence[np.ndarray]) -> float:
    """Fraction of positions (the empty prefix included) where the float32 reference
    execution's label index equals ``labels`` (the automaton's, in the network's
    label order); an overflow counts as wrong."""
    from fsmnet.nets.float32 import float32_trace

    right = total = 0
    for word, want in zip(words, labels):
        got = float32_trace(net, np.asarray(word, dtype=np.int64))
        right += int(np.sum(got == want))
        total += len(want)
    return right / max(1, total)


def dyadic_snaps(net: Network) -> Iterator[tuple[dict[str, Any], Network]]:
    """({"kind": "dyadic", "bits", "units"}, snapped network) for every grid, coarsest
    first, ``units`` first at each grid; a candidate equal to the one before, or one the
    network format rejects (a key snapped to zero, a gate to a bound), is skipped."""
    floats = {k: v for k, v in net.params.items() if v.dtype.kind == "f"}
    seen: list[dict[str, np.ndarray]] = []
    for bits in BITS:
        for units in (True, False):
            params = {k: snap_array(v, bits, units=units) for k, v in floats.items()}
            if any(all(np.array_equal(p[k], params[k]) for k in params) for p in seen):
                continue
            seen.append(params)
            try:
                yield {"kind": "dyadic", "bits": bits, "units": units}, net.with_params(**params)
            except (FsmnetError, ValueError, ArithmeticError, np.linalg.LinAlgError):
                continue


Candidates = Iterator[tuple[dict[str, Any], Network]]

STRATEGIES: tuple[Callable[[Network, Automaton, Sequence[Sequence[int]]], Candidates], ...] = (
    state_snaps,                      # bilinear-full, -cp, fixed-point: exact states
    block_snaps,                      # bilinear-block: exact states per block
    lambda net, automaton, words: root_of_unity_snaps(net),  # bilinear-r2: exact rotations
    lambda net, automaton, words: householder_snaps(net),    # deltaproduct: β in {0, 1, 2}
    lambda net, automaton, words: dyadic_snaps(net),         # every architecture
)
"""Tried in this order: the structural snaps first (each applies to its architecture
only and makes a group letter exact, which no grid can), then the dyadic grids."""


def candidates(net: Network, automaton: Automaton,
               words: Sequence[Sequence[int]]) -> Candidates:
    """Every strategy's candidates, in :data:`STRATEGIES` order."""
    for strategy in STRATEGIES:
        yield from strategy(net, automaton, words)


_DESCRIPTIONS: dict[str, Callable[[dict[str, Any]], str]] = {
    "roots-of-unity": lambda h: f"roots of unity of order {h['order']}",
    "states": lambda h: f"{h['states']} exact states on 2^-{h['bits']}",
    "householder": lambda h: f"β to 0, 1, 2 within {h['tolerance']}, keys on 2^-{h['bits']}",
    "dyadic": lambda h: f"2^-{h['bits']}",
}


def describe(header: dict[str, Any]) -> str:
    """A snap's header in a few words, for progress lines."""
    return _DESCRIPTIONS[header.get("kind", "dyadic")](header)


def snaps(net: Network, automaton: Automaton, words: Sequence[Sequence[int]],
          at_least: float = 1.0) -> Iterator[Snap]:
    """The candidates whose float32 accuracy on ``words`` is at least ``at_least``,
    coarsest first.  ``automaton``'s labels must be the network's, in its order (true
    of a network trained by :mod:`fsmnet.train`)."""
    from fsmnet.train.data import label_traces

    if tuple(net.labels) != tuple(automaton.labels):
        raise FsmnetError("snapping needs the network's labels in the automaton's order")
    labels = [label_traces(automaton, np.asarray([w], dtype=np.int64))[0] for w in words]
    for header, snapped in candidates(net, automaton, words):
        try:
            acc = float32_accuracy(snapped, words, labels)
        except (FsmnetError, ValueError, ArithmeticError, np.linalg.LinAlgError):
            continue
        if acc >= at_least:
            yield Snap(header, snapped, acc)


def prove_snapped(automaton: Automaton, net: Network, words: Sequence[Sequence[int]],
                  certify: Callable[[Automaton, Network], tuple[Any, str | None]], limit: int
                  ) -> tuple[dict[str, Any] | None, Any, Network | None]:
    """Certify the first ``limit`` snaps that keep ``words`` right, coarsest first:
    (record, result, snapped network) of the first proved, else the record of the last
    one certified, None and None.  ``certify(automaton, net)`` gives (result, claim)."""
    record = None
    for tried, snap in enumerate(snaps(net, automaton, words)):
        if tried >= limit:
            break
        try:
            result, claim = certify(automaton, snap.network)
        except (FsmnetError, ValueError, ArithmeticError):
            continue
        record = {**snap.header, "verdict": result.verdict, "claim": claim}
        if result.verdict == "proved":
            return record, result, snap.network
    return record, None, None
