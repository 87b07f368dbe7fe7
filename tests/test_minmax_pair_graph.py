"""The pair-graph test for a product of quotients (fsmnet.constructions.minmax_pair_graph).

Independent oracle: the brute-force congruence enumeration of
``tests/congruence_oracle.py`` (every principal congruence, then every join, by
definition).  A semiautomaton is a product of proper quotients iff the meet of
all its non-trivial congruences is the identity; the pair graph must agree on
every machine drawn, and on products of two drawn machines (which are
reducible whenever both factors have two or more states and the product is
reachable enough to keep them apart).
"""

from __future__ import annotations

import numpy as np
from congruence_oracle import brute_force_congruences
from hypothesis import given
from hypothesis import strategies as st

import fsmnet
from fsmnet.automata import load
from fsmnet.constructions.minmax_limits import LIMITS
from fsmnet.constructions.minmax_pair_graph import pair_count, subdirectly_irreducible


def _reducible_by_definition(delta: np.ndarray) -> bool:
    n = delta.shape[1]
    found = brute_force_congruences(delta)
    if not found:
        return False
    return len({tuple(part[q] for part in found) for q in range(n)}) == n


@st.composite
def _machines(draw: st.DrawFn) -> np.ndarray:
    k = draw(st.integers(1, 3))
    if draw(st.booleans()):  # a direct product of two small machines
        n1, n2 = draw(st.integers(1, 3)), draw(st.integers(1, 3))
        d1 = [[draw(st.integers(0, n1 - 1)) for _ in range(n1)] for _ in range(k)]
        d2 = [[draw(st.integers(0, n2 - 1)) for _ in range(n2)] for _ in range(k)]
        return np.array([[d1[s][q // n2] * n2 + d2[s][q % n2] for q in range(n1 * n2)]
                         for s in range(k)])
    n = draw(st.integers(1, 7))
    return np.array([[draw(st.integers(0, n - 1)) for _ in range(n)] for _ in range(k)])


@given(_machines())
def test_the_pair_graph_agrees_with_the_brute_force_lattice(delta: np.ndarray) -> None:
    assert subdirectly_irreducible(delta, max_pairs=10**6) == (
        not _reducible_by_definition(delta))


def test_known_machines() -> None:
    # Three independent tracks: reducible.  A random 812-state machine: one sink
    # component in its pair graph, one atom, irreducible (the congruence search
    # spent its whole step budget to find nothing there).
    seq = load("sequences:3,tracks=3").minimal()
    assert subdirectly_irreducible(seq.delta, max_pairs=LIMITS.pair_graph_pairs) is False
    rnd = load("random:n=1000,k=2,seed=1").minimal()
    assert rnd.n_states == 812
    assert subdirectly_irreducible(rnd.delta, max_pairs=LIMITS.pair_graph_pairs) is True
    # Past the limit the graph is not built, and the caller's search decides.
    assert subdirectly_irreducible(rnd.delta, max_pairs=pair_count(812) - 1) is None


def test_the_product_row_says_why_it_was_skipped_and_the_network_is_proved() -> None:
    from fsmnet.proofs.verifier import verify

    a = load("random:n=20,k=2,seed=1").minimal()
    net = fsmnet.compile(a, "minmax-cascade", max_steps=2_000)
    assert "subdirectly irreducible" in net.options["strategies_skipped"]["product"]
    assert verify(a, net).verdict == "proved"
