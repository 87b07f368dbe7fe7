"""Method ``belief-tracking``: a bilinear network carries the exact PFSA-SR belief.

The certificate lists a PFSA-SR (``kernel[a][q][q']`` = δ(q, a)(q'), the
reveal sets ``reveals[a]``, the initial state) and the network's exact
matrices ``matrices[a]`` (h_{wa} = matrices[a] · h_w), ``h0`` and
``readout``.  The checker verifies, in exact rationals:

1. every row of the kernel is a distribution (entries >= 0, sum 1), every
   reveal set is a non-empty set of states, the initial state is a state;
2. matrices[a] = α_a·M_a for one α_a > 0, where M_a[i][j] = kernel[a][j][i]
   if j is in reveals[a], else 0 (that is, M_a = T_a D_a);
3. h0 = c·e_{q0} with c > 0;
4. the readout is the identity and the labels are the state names.

These are the hypotheses of the scale-invariance lemma: with T_a
non-negative and column-stochastic, ‖T_a v‖₁ = ‖v‖₁ for v >= 0, so by
induction on |w|, h_w = c·α_w·P(w)·b_w (α_w the product of the α_a along
w) where b_w is the belief (mask by the
reveal, renormalize, transition) and P(w) the probability of the reveals;
when P(w) = 0, h_w = 0.  Any positive rescaling of h (the network's
normalization) keeps h/‖h‖₁ and the argmax.  Hence the normalized state is
the exact belief on every word of every length, and the readout is its first
most likely state.  The finite checks above are the whole certificate.

Method ``belief-decay`` (the negative results) lives in :mod:`.decay`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from .core import CertificateError, is_index
from .fields import Matrix, Vector, matrix, vector


@dataclass(frozen=True)
class Pfsa:
    """A PFSA-SR: ``kernel[a][q][q']`` = δ(q, a)(q'), the states ``reveals[a]`` that
    symbol a can come from, and the initial state."""

    states: tuple[str, ...]
    symbols: tuple[str, ...]
    kernel: tuple[Matrix, ...]
    reveals: tuple[frozenset[int], ...]
    initial: int

    @property
    def index(self) -> dict[str, int]:
        """Symbol name -> index."""
        return {s: i for i, s in enumerate(self.symbols)}


def read_pfsa(p: dict[str, Any]) -> Pfsa:
    """A certificate's PFSA, validated: distributions, non-empty reveal sets, a state."""
    states, symbols = tuple(p["states"]), tuple(p["symbols"])
    n, k = len(states), len(symbols)
    if n == 0 or k == 0 or len(set(states)) != n or len(set(symbols)) != k:
        raise CertificateError("pfsa: states and symbols must be non-empty and distinct")
    kernel = tuple(matrix(table) for table in p["kernel"])
    if len(kernel) != k or any(len(t) != n or any(len(r) != n for r in t) for t in kernel):
        raise CertificateError("pfsa.kernel is not |symbols| x |states| x |states|")
    for a, table in enumerate(kernel):
        for q, row in enumerate(table):
            if any(x < 0 for x in row) or sum(row) != 1:
                raise CertificateError(f"pfsa.kernel[{a}][{q}] is not a distribution")
    reveals = []
    for a, shown in enumerate(p["reveals"]):
        if not isinstance(shown, list) or not shown or not all(is_index(q, n) for q in shown):
            raise CertificateError(f"pfsa.reveals[{a}] is not a non-empty set of states")
        reveals.append(frozenset(shown))
    if len(reveals) != k:
        raise CertificateError("pfsa.reveals needs one set per symbol")
    q0 = p["initial"]
    if not is_index(q0, n):
        raise CertificateError("pfsa.initial is not a state")
    return Pfsa(states, symbols, kernel, tuple(reveals), q0)


def belief_matrix(kernel: Sequence[Matrix], reveals: Sequence[frozenset[int]], a: int
                  ) -> list[list[Fraction]]:
    """M_a = T_a D_a: entry (i, j) = δ(j, a)(i) when j is revealed-possible, else 0."""
    n = len(kernel[a])
    return [[kernel[a][j][i] if j in reveals[a] else Fraction(0) for j in range(n)]
            for i in range(n)]


@dataclass(frozen=True)
class BeliefCertificate:
    """A belief-tracking certificate, parsed: the PFSA and the network's exact model."""

    pfsa: Pfsa
    matrices: tuple[Matrix, ...]  # n × n, one per symbol
    h0: Vector
    readout: Matrix
    labels: list[Any]  # as listed (compared with the state names)


def parse_belief_tracking(cert: dict[str, Any]) -> BeliefCertificate:
    pfsa, net = read_pfsa(cert["pfsa"]), cert["network"]
    n = len(pfsa.states)
    mats = tuple(matrix(m) for m in net["matrices"])
    if len(mats) != len(pfsa.symbols):
        raise CertificateError("network.matrices needs one matrix per symbol")
    for a, m in enumerate(mats):
        if len(m) != n or any(len(row) != n for row in m):
            raise CertificateError(f"network.matrices[{a}] has the wrong shape")
    if not isinstance(cert.get("claim"), str):
        raise CertificateError("claim must be a string")
    return BeliefCertificate(pfsa, mats, vector(net["h0"]), matrix(net["readout"]),
                             net["labels"])


def _check_matrices(bc: BeliefCertificate) -> None:
    """2. matrices[a] = α_a·T_a D_a with α_a > 0, for every symbol a."""
    pfsa, n = bc.pfsa, len(bc.pfsa.states)
    for a, m in enumerate(bc.matrices):
        want = belief_matrix(pfsa.kernel, pfsa.reveals, a)
        pivot = next(((i, j) for i in range(n) for j in range(n) if want[i][j]), None)
        if pivot is None:
            raise CertificateError(f"network.matrices[{a}] has the wrong shape")
        alpha = m[pivot[0]][pivot[1]] / want[pivot[0]][pivot[1]]
        if not alpha > 0 or any(m[i][j] != alpha * want[i][j]
                                for i in range(n) for j in range(n)):
            raise CertificateError(f"network.matrices[{a}] is not a positive multiple of "
                                   f"T_a D_a (symbol {pfsa.symbols[a]!r})")


def check_belief_tracking(cert: dict[str, Any]) -> str:
    """Re-check a ``belief-tracking`` certificate; a one-line summary or CertificateError."""
    bc = parse_belief_tracking(cert)
    n, k, q0 = len(bc.pfsa.states), len(bc.pfsa.symbols), bc.pfsa.initial
    _check_matrices(bc)
    h0 = bc.h0
    if len(h0) != n or not h0[q0] > 0 or any(x for q, x in enumerate(h0) if q != q0):
        raise CertificateError("network.h0 is not a positive multiple of e_q0")
    if [list(row) for row in bc.readout] != [[Fraction(int(i == j)) for j in range(n)]
                                             for i in range(n)]:
        raise CertificateError("network.readout is not the identity")
    if bc.labels != cert["pfsa"]["states"]:
        raise CertificateError("network.labels are not the state names")
    return (f"valid: belief tracking for every word ({n} states, {k} symbols): "
            "W = alpha T D exactly, h0 = c e_q0, readout I; by scale invariance h/|h|_1 is the "
            "exact belief")
