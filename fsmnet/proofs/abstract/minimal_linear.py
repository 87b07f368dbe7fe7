"""The minimal linear representation of a linear network, in exact rationals.

A linear network (per-symbol matrices A_x, start h0, readout W) computes the
score vector s(w) = W A_w h0 up to a positive factor (its normalization), and
its label is the first argmax of s(w).  It is a weighted automaton with
several outputs, so it has a minimal linear representation (Schützenberger
1961; Cardon and Crochemore 1980 give the reduction; Tzeng 1992 the
polynomial algorithm over the rationals), computed here in two passes, each a
closure of a subspace under the A_x, in exact Fraction echelon form:

1. **reachable**: R = span{A_w h0 : w} (forward closure).  With P (H × r) the
   reduced column echelon basis of R (P[pivots] = I), A_x P = P B_x and
   h0 = P b0, where B_x = (A_x P)[pivots] and b0 = h0[pivots].
2. **observable**: within R, the row space O = span{o B_u : o an observed
   row, u a word}, o ranging over the rows of W P.  With Q (d × r) its reduced
   row echelon basis (Q[:, qpivots] = I), Q B_x = A'_x Q and W P = W' Q, where
   A'_x = (Q B_x)[:, qpivots] and W' = (W P)[:, qpivots]; h0' = Q b0.

Then W' A'_w h0' = W' Q B_w b0 = W P B_w b0 = W A_w h0 for every word w: the
reduced network has the very same scores, so the same labels, and its
dimension d ≤ H is the rank of the Hankel matrix [W A_u A_v h0]_{u,v}.  The
quotient drops every direction that the readout never sees, whatever the
scale: the observed functionals are all rows of W (their differences, which
are all the argmax compares, lie in their span; observing only differences
could save one more dimension but would change the scores by a common term,
so it is not used).

The maps checked by :mod:`fsmnet.proofs.checker.reduction` are exactly the
identities above (A_x P = P B_x, h0 = P b0, Q B_x = A'_x Q, h0' = Q b0,
W P = W' Q).  Holding only for exact arithmetic, a reduction never backs a
``--float32`` claim: rounding puts mass on the dropped directions.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from math import gcd
from typing import Any

import numpy as np

Vec = list[Fraction]
Mat = list[list[Fraction]]
MAX_EXACT = 64  # larger nets are not reduced (exact closures of noisy weights grow fast)
REDUCE_SECONDS = 5.0  # budget of one exact reduction inside certify
PRIME = 33554393  # the largest prime below 2^25: products and sums of 64 fit in int64


class _Echelon:
    """A subspace of Q^n as a fully reduced echelon basis (each basis vector is 1 at
    its pivot and 0 at every other pivot)."""

    def __init__(self) -> None:
        self.rows: list[Vec] = []
        self.pivots: list[int] = []

    def add(self, v: Sequence[Fraction]) -> Vec | None:
        """Add ``v``; return the new basis vector, or None when v is in the span."""
        w = list(v)
        for row, c in zip(self.rows, self.pivots):
            f = w[c]
            if f:
                w = [a - f * b for a, b in zip(w, row)]
        lead = next((j for j, a in enumerate(w) if a), None)
        if lead is None:
            return None
        inv = 1 / w[lead]
        w = [a * inv for a in w]
        for i, row in enumerate(self.rows):  # clear the new pivot from the others
            f = row[lead]
            if f:
                self.rows[i] = [a - f * b for a, b in zip(row, w)]
        self.rows.append(w)
        self.pivots.append(lead)
        return w


class ReductionBudget(Exception):
    """The exact reduction ran past its time budget (noisy weights in many dimensions:
    the echelon entries are ratios of minors, thousands of digits long)."""


def _closure(start: Sequence[Vec], maps: Sequence[Callable[[Vec], Vec]],
             limit: int, deadline: float | None = None) -> _Echelon:
    """The smallest subspace containing ``start`` and closed under every map
    (breadth first: each new basis vector is pushed through every map once)."""
    space = _Echelon()
    queue = [v for v in start]
    while queue and len(space.rows) < limit:
        if deadline is not None and time.perf_counter() > deadline:
            raise ReductionBudget("the exact reduction ran out of time")
        new = space.add(queue.pop(0))
        if new is not None:
            queue.extend(f(new) for f in maps)
    # Order the basis by pivot: then P and Q are in (column / row) echelon form.
    order = sorted(range(len(space.pivots)), key=lambda i: space.pivots[i])
    space.rows = [space.rows[i] for i in order]
    space.pivots = [space.pivots[i] for i in order]
    return space


def _matvec(a: Mat, v: Vec) -> Vec:
    return [sum((x * y for x, y in zip(row, v) if x and y), Fraction(0)) for row in a]


def _vecmat(v: Vec, a: Mat) -> Vec:
    out = [Fraction(0)] * len(a[0])
    for x, row in zip(v, a):
        if x:
            out = [s + x * y for s, y in zip(out, row)]
    return out


def _left(m: Mat) -> Callable[[Vec], Vec]:
    return lambda v: _matvec(m, v)


def _right(m: Mat) -> Callable[[Vec], Vec]:
    return lambda y: _vecmat(y, m)


@dataclass(frozen=True)
class Reduction:
    """A linear representation and its minimal one, with the maps between them.

    ``reachable`` (H × r, ``reachable_pivots``: the rows where it is the
    identity), ``observable`` (d × r, ``observable_pivots``: the columns where
    it is the identity), and the reduced ``matrices`` (d × d per symbol),
    ``h0`` and ``readout`` (k × d).
    """

    reachable: Mat
    reachable_pivots: list[int]
    observable: Mat
    observable_pivots: list[int]
    matrices: list[Mat]
    h0: Vec
    readout: Mat

    @property
    def dim(self) -> int:
        return len(self.h0)

    @property
    def original_dim(self) -> int:
        return len(self.reachable)

    def projection(self) -> Mat:
        """T (d × H) with h' = T h on R: T = Q · (rows ``reachable_pivots`` of h)."""
        h = len(self.reachable)
        t = [[Fraction(0)] * h for _ in self.observable]
        for i, row in enumerate(self.observable):
            for j, piv in enumerate(self.reachable_pivots):
                t[i][piv] = row[j]
        return t

    def scores(self, word: Sequence[int]) -> Vec:
        """W' A'_w h0' (exact), the first symbol applied first."""
        h = list(self.h0)
        for a in word:
            h = _matvec(self.matrices[a], h)
        return _matvec(self.readout, h)


def minimal_representation(matrices: Any, h0: Any, readout: Any, *,
                           seconds: float | None = None) -> Reduction:
    """The minimal linear representation of (A_x, h0, W), all entries exact rationals;
    :class:`ReductionBudget` after about ``seconds`` (None: no limit).

    >>> from fractions import Fraction as F
    >>> # a 3-dimensional net whose last coordinate is never reached
    >>> a = [[[0, 1, 5], [1, 0, 5], [0, 0, 1]]]
    >>> red = minimal_representation(a, [1, 0, 0], [[1, 0, 0], [0, 1, 7]])
    >>> red.dim, red.scores([0, 0, 0]) == [F(0), F(1)]
    (2, True)
    """
    deadline = None if seconds is None else time.perf_counter() + seconds
    mats = [[[Fraction(x) for x in row] for row in m] for m in matrices]
    v0 = [Fraction(x) for x in h0]
    out = [[Fraction(x) for x in row] for row in readout]
    n = len(v0)
    reach = _closure([v0], [_left(m) for m in mats], n, deadline)
    r = len(reach.rows)
    if r == 0:  # h0 = 0: every score is 0, the zero-dimensional representation
        return Reduction([[] for _ in range(n)], [], [], [], [[] for _ in mats], [],
                         [[] for _ in out])
    p_cols = reach.rows  # column j of P is p_cols[j]
    piv = reach.pivots
    ap = [[_matvec(m, col) for col in p_cols] for m in mats]  # columns of A_x P
    b = [[[ap[a][j][piv[i]] for j in range(r)] for i in range(r)] for a in range(len(mats))]
    b0 = [v0[i] for i in piv]
    wp = [[sum((w[k] * p_cols[j][k] for k in range(n) if w[k]), Fraction(0))
           for j in range(r)] for w in out]
    obs = _closure(wp, [_right(m) for m in b], r, deadline)
    q, qp = obs.rows, obs.pivots
    reduced = [[[row[c] for c in qp] for row in (_vecmat(qi, bm) for qi in q)] for bm in b]
    h0r = [sum((x * y for x, y in zip(row, b0) if x and y), Fraction(0)) for row in q]
    readr = [[row[c] for c in qp] for row in wp]
    p_mat = [[p_cols[j][i] for j in range(r)] for i in range(n)]
    return Reduction(p_mat, list(piv), [list(row) for row in q], list(qp), reduced, h0r,
                     readr)


# ------------------------------------------------- a cheap test: is there anything to drop?
def _mod(x: Fraction) -> int:
    return x.numerator % PRIME * pow(x.denominator, -1, PRIME) % PRIME


def _rank_closure_mod(start: np.ndarray, maps: Sequence[np.ndarray], right: bool) -> int:
    """Dimension of the closure mod PRIME (v ↦ A v, or y ↦ y A when ``right``)."""
    n = start.shape[1]
    basis = np.zeros((0, n), dtype=np.int64)
    pivots: list[int] = []
    queue = list(start)
    while queue and len(pivots) < n:
        v = queue.pop(0) % PRIME
        if pivots:
            v = (v - (v[pivots] @ basis) % PRIME) % PRIME
        nz = np.flatnonzero(v)
        if not len(nz):
            continue
        c = int(nz[0])
        v = v * pow(int(v[c]), -1, PRIME) % PRIME
        basis = (basis - np.outer(basis[:, c], v) % PRIME) % PRIME
        basis = np.vstack([basis, v])
        pivots.append(c)
        queue.extend(((v @ m) if right else (m @ v)) % PRIME for m in maps)
    return len(pivots)


def surely_minimal(matrices: Any, h0: Any, readout: Any) -> bool:
    """True only if (A_x, h0, W) is provably minimal already (no exact work needed).

    Ranks mod a prime never exceed the ranks over Q, so full rank mod PRIME
    (reachable from h0 and observed by W, both of dimension H) proves that the
    representation is minimal.  False means "maybe not" (a denominator divisible
    by PRIME, or an unlucky prime): then run :func:`minimal_representation`.
    """
    try:
        mats = [np.array([[_mod(Fraction(x)) for x in row] for row in m], dtype=np.int64)
                for m in matrices]
        v0 = np.array([[_mod(Fraction(x)) for x in h0]], dtype=np.int64)
        w = np.array([[_mod(Fraction(x)) for x in row] for row in readout], dtype=np.int64)
    except ValueError:  # PRIME divides a denominator
        return False
    n = v0.shape[1]
    if n > 2048:  # the int64 sums would overflow
        return False
    return bool(_rank_closure_mod(v0, mats, False) == n and
                _rank_closure_mod(w, [m for m in mats], True) == n)


def reduce_network(net: Any) -> tuple[Reduction, Any] | None:
    """(the reduction, a network of the reduced dimension) for a linear network whose
    minimal representation is smaller, else None (already minimal, or not linear
    with rational weights).

    The exact work stops after REDUCE_SECONDS (then None: the search runs on the
    network itself).  The reduced network is a ``bilinear-full`` net with the float roundings of the
    reduced weights for the float search; its *exact* matrices and readout are
    seeded with the exact reduction, so the domains read exact weights.  Its h0
    is the positive integer multiple of h0' with coprime entries when those fit
    a float64 exactly (every state is normalized, so a positive factor changes no
    state and no label): then its exact start is normalize(h0') itself.

    Computed once per network (certify asks for it twice: before the reduced
    product and before the invariant search).
    """
    result: tuple[Reduction, Any] | None = net.cached("minimal_linear_reduction",
                                                      lambda: _reduce_network(net))
    return result


def _integral(v: Vec) -> list[int] | None:
    """The positive multiple of ``v`` with coprime integer entries, or None when an
    entry would not be a float64 exactly (|x| ≥ 2^53)."""
    scale = 1
    for x in v:
        scale = scale * x.denominator // gcd(scale, x.denominator)
    ints = [int(x * scale) for x in v]
    common = gcd(*ints)
    ints = [i // common for i in ints] if common else ints
    return ints if all(abs(i) < 2**53 for i in ints) else None


def _reduce_network(net: Any) -> tuple[Reduction, Any] | None:
    from fsmnet.nets import Network
    from fsmnet.nets.linear import LinearRecurrence

    sem = net.semantics
    if not isinstance(sem, LinearRecurrence):
        return None
    mats, readout = sem.matrices(net, True), sem.readout_matrix(net, True)
    h0 = sem.initial_state(net, True)
    if len(h0) > MAX_EXACT:
        return None
    if not all(isinstance(x, (Fraction, int)) for x in [*np.ravel(mats), *np.ravel(readout)]):
        return None
    if surely_minimal(mats, h0, readout):
        return None
    try:
        red = minimal_representation(mats, h0, readout, seconds=REDUCE_SECONDS)
    except ReductionBudget:
        return None
    if red.dim >= len(h0) or red.dim == 0:
        return None
    w = np.array([[[float(red.matrices[a][i][j]) for a in range(len(red.matrices))]
                   for j in range(red.dim)] for i in range(red.dim)])
    small = Network(arch="bilinear-full", params={
        "W": w, "h0": np.array([float(x) for x in _integral(red.h0) or red.h0]),
        "readout": np.array([[float(x) for x in row] for row in red.readout])},
        symbols=net.symbols, labels=net.labels, name=f"{net.name} (reduced)")
    exact = np.empty((len(red.matrices), red.dim, red.dim), dtype=object)
    for a, m in enumerate(red.matrices):
        for i, row in enumerate(m):
            exact[a, i, :] = row
    small.cached("matrices_exact", lambda: exact)
    small.cached("readout_exact", lambda: np.array(red.readout, dtype=object))
    return red, small


def reduced_model(red: Reduction) -> dict[str, Any]:
    """The reduced system in the checker's ``linear`` model form."""
    from fsmnet.proofs.certificate_models import exact_qs

    return {"type": "linear", "matrices": exact_qs(np.array(red.matrices, dtype=object)),
            "h0": exact_qs(red.h0), "readout": exact_qs(np.array(red.readout, dtype=object))}


def reduction_record(red: Reduction) -> dict[str, Any]:
    """The certificate's ``reduction`` field (checked by checker.reduction)."""
    from fsmnet.proofs.certificate_models import exact_qs

    return {"reachable_basis": exact_qs(np.array(red.reachable, dtype=object)),
            "reachable_pivots": list(red.reachable_pivots),
            "observable_basis": exact_qs(np.array(red.observable, dtype=object)),
            "observable_pivots": list(red.observable_pivots),
            "model": reduced_model(red)}


def reduced_certificate(common: dict[str, Any], body: dict[str, Any], red: Reduction
                        ) -> dict[str, Any]:
    """A ``reduced-invariant`` certificate: the network's own model (in ``common``),
    the reduction, and the invariant ``body`` found for the reduced system (a box or
    zonotope invariant, or the closed exact product of :func:`reduced_product`)."""
    inner = {"method": common["method"], **body}
    return {**common, "method": "reduced-invariant", "domain": body["domain"],
            "rounding": body.get("rounding", "exact"),
            "reduction": reduction_record(red), "invariant": inner}


def _explores_exactly(red: Reduction, small: Any) -> bool:
    """Whether the exact run of ``small`` is the reduced system's: its exact start is
    normalize(h0') (the float h0 is h0' up to a positive factor); the exact matrices
    and readout are the reduction's by construction."""
    from fsmnet.nets.linear import normalize

    start = small.semantics.initial_state(small, True)
    return list(start) == list(normalize(np.array(red.h0, dtype=object)))


def reduced_product(net: Any, automaton: Any, found: tuple[Reduction, Any], *,
                    max_states: int, network_path: str | None = None
                    ) -> tuple[dict[str, Any] | None, list[int] | None, str]:
    """The exact product exploration (:mod:`fsmnet.proofs.product`) of the reduced
    network: (checked certificate, None, summary) when it closes, (None, word, why)
    when ``word`` reaches a pair whose outputs differ, else (None, None, why).

    The reduced system has the network's scores on every word, so its exact states
    may close where the network's never do (a contracting part the readout never
    sees), a closed product of it is a proof about the network, and a shortest
    disagreeing word of it is one of the network (the caller confirms it on the
    network).  The certificate is a ``reduced-invariant`` one whose ``invariant``
    is the ``exact-product`` proof about the reduced model; it is returned only once
    the independent checker accepts it.
    """
    from fsmnet.proofs.certificate import _common, build_certificate, network_model
    from fsmnet.proofs.checker import CertificateError, check_certificate
    from fsmnet.proofs.product import explore_product

    red, small = found
    if not _explores_exactly(red, small):
        return None, None, "the reduced h0 is no float64 vector up to a positive factor"
    # The one-hot fast path reads the float matrices: only when they are the exact ones.
    exact = small.semantics.matrices(small, True)
    fast = all(Fraction(float(x)) == x for x in np.ravel(exact))
    product = explore_product(small, automaton, max_states=max_states, fast_paths=fast)
    where = f"reduced H={red.original_dim} -> d={red.dim}"
    if product.status == "mismatch":
        return None, product.word, f"{where}: the reduced product meets a disagreement"
    if product.status != "closed":
        return None, None, (f"{where}: {len(product.states)} exact states, no closed "
                            f"product ({product.status})")
    proof = build_certificate(small, automaton, product)
    body = {"domain": "exact-states", "rounding": "exact",
            **{k: proof[k] for k in ("states", "pairs", "transitions")}}
    common = _common(net, automaton, "exact-product", network_model(net), network_path)
    cert = reduced_certificate(common, body, red)
    try:
        return cert, None, check_certificate(cert)
    except CertificateError as exc:  # never a proof unless the checker agrees
        return None, None, f"{where}: exact check failed: {exc}"
