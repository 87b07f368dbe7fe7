"""Proofs for real- and positive-diagonal and R2 networks, whose exact states never close.

A diagonal network's matrices commute, so h_w = Π_a D_a^{n_a} h0 depends only
on the symbol counts n_a.  For a commutative automaton the output also depends
only on the counts, through thresholds and periods.  Split every count into
finitely many *count types* (an exact value, or a tail N_a + r + P_a·m); on a
tail every channel's multiplier satisfies λ^P = β^e for one rational base
β ∈ (0, 1], so each readout score is a polynomial in x = β^m ∈ (0, 1], and
"the right label wins for every m" follows from "it wins for every real x in
(0, 1]^tails".

That last step is proved by Bernstein coefficients checked in exact
arithmetic (rationals, or the cyclotomic field of the rotations), which the
independent checker re-verifies; Z3 (QF_NRA) is only a fallback, and a claim
proved by Z3 alone is reported as such (``rests_on_z3``).  The machinery is in
:mod:`fsmnet.proofs.count_certificate`; this module keeps the verifier's
historical entry point.
"""

from __future__ import annotations

from fsmnet.automata import Automaton
from fsmnet.nets import Network
from fsmnet.proofs.count_certificate import prove_counts


def prove_diagonal(net: Network, automaton: Automaton, *,
                   timeout_ms: int = 10_000) -> tuple[str, str]:
    """("proved" | "unknown", explanation) for a real/positive-diagonal or R2 network.

    ``automaton`` must be minimal and aligned with the network's alphabet.
    """
    from fsmnet import archs

    if "count-abstraction" not in archs.get(net.arch).proofs:
        return "unknown", f"count abstraction does not apply to {net.arch}"
    proof = prove_counts(net, automaton, z3_timeout_ms=timeout_ms)
    return proof.status, proof.explanation
