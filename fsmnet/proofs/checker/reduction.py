"""Method ``reduced-invariant``: an invariant proof about a smaller linear system
whose scores are provably those of the network.

The certificate's ``network.model`` is the network's own linear model (A_x,
h0, W; H coordinates); ``reduction`` gives

* ``reachable_basis`` P (H × r) with ``reachable_pivots`` (P is the identity
  on those rows, so its columns are independent),
* ``observable_basis`` Q (d × r) with ``observable_pivots`` (Q is the
  identity on those columns),
* ``model``: the reduced linear model (A'_x, h0', W'; d coordinates).

Checked here, in Fractions, with B_x = (A_x P)[reachable_pivots] and
b0 = h0[reachable_pivots]:

1. A_x P = P B_x for every symbol and h0 = P b0 (the span of P is invariant
   and holds h0, so A_w h0 = P B_w b0 for every word w);
2. Q B_x = A'_x Q for every symbol and h0' = Q b0;
3. W P = W' Q.

Then W A_w h0 = W P B_w b0 = W' Q B_w b0 = W' A'_w Q b0 = W' A'_w h0' for
every word: equal score vectors, so equal first-argmax labels (the network's
normalization is a positive factor, which changes no argmax).  ``invariant``
then holds the fields proper to a ``box-invariant``, ``zonotope-invariant``
or ``exact-product`` certificate about the reduced model (its ``method`` and
what that method reads beyond the common fields: :data:`.schema.INVARIANT`),
checked by that method's own module with the visible automaton, network and
claim.  The visible ``domain`` names the inner method (:data:`INNER`):
``exact-states`` is a closed product of the reduced model's exact states, so
a proof for every length about the reduced model, hence about the network.
Nothing in ``invariant`` replaces a visible field; ``domain`` and ``rounding``
may be restated there, equal to the visible ones.
Exact arithmetic only: a float32 run puts rounding mass on the dropped
directions, so the rounding model must be ``exact``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from .core import CertificateError, is_index
from .fields import Matrix, matrix
from .invariants import check_invariants
from .linear_model import LinearModel, read_linear
from .product import check_product
from .schema import RESTATED
from .zonotope import check_zonotopes


@dataclass(frozen=True)
class Reduction:
    """A reduction, parsed: the network's model (H coordinates), the reduced one (d),
    P (H × r, the identity on its reachable pivots' rows) and Q (d × r, the identity on
    its observable pivots' columns)."""

    model: LinearModel
    reduced: LinearModel
    reachable_basis: Matrix
    reachable_pivots: tuple[int, ...]
    observable_basis: Matrix


def _mul(a: Sequence[Sequence[Fraction]], b: Sequence[Sequence[Fraction]]
         ) -> list[list[Fraction]]:
    if any(len(row) != len(b) for row in a):
        raise CertificateError("reduction: matrix sizes differ")
    cols = len(b[0]) if b else 0
    out = []
    for row in a:
        acc = [Fraction(0)] * cols
        for k, x in enumerate(row):
            if x:
                acc = [s + x * y for s, y in zip(acc, b[k])]
        out.append(acc)
    return out


def _identity(n: int) -> list[list[Fraction]]:
    return [[Fraction(int(i == j)) for j in range(n)] for i in range(n)]


def _pivots(p: Any, n: int, count: int, what: str) -> tuple[int, ...]:
    if not (isinstance(p, list) and len(p) == count and len(set(p)) == count and
            all(is_index(i, n) for i in p)):
        raise CertificateError(f"reduction: bad {what}")
    return tuple(p)


def _require_sizes(big: LinearModel, small: LinearModel, p: Matrix, q: Matrix) -> None:
    n, d = big.dim, small.dim
    r = len(p[0]) if p else 0
    if len(p) != n or any(len(row) != r for row in p) or len(q) != d or \
            any(len(row) != r for row in q) or d == 0 or r == 0:
        raise CertificateError("reduction: basis sizes do not fit the models")
    if len(small.matrices) != len(big.matrices) or len(small.readout) != len(big.readout) or \
            any(len(row) != d for m in small.matrices for row in m) or \
            any(len(row) != d for row in small.readout) or \
            any(len(row) != n for m in big.matrices for row in m):
        raise CertificateError("reduction: model sizes differ")


def parse_reduction(model: dict[str, Any], red: dict[str, Any]) -> Reduction:
    if model.get("type") != "linear" or red["model"].get("type") != "linear":
        raise CertificateError("a reduction relates linear models")
    big, small = read_linear(model), read_linear(red["model"])
    p, q = matrix(red["reachable_basis"]), matrix(red["observable_basis"])
    _require_sizes(big, small, p, q)
    r = len(p[0])
    piv = _pivots(red["reachable_pivots"], big.dim, r, "reachable_pivots")
    qpiv = _pivots(red["observable_pivots"], r, small.dim, "observable_pivots")
    if [list(p[i]) for i in piv] != _identity(r):
        raise CertificateError("reduction: reachable_basis is not the identity on its pivots")
    if [[row[c] for c in qpiv] for row in q] != _identity(small.dim):
        raise CertificateError("reduction: observable_basis is not the identity on its pivots")
    return Reduction(big, small, p, piv, q)


def check_reduction(model: dict[str, Any], red: dict[str, Any]) -> tuple[int, int]:
    """Check that ``red["model"]`` has the scores of ``model`` on every word; return
    (H, d) or raise CertificateError."""
    rd = parse_reduction(model, red)
    p, q, piv = rd.reachable_basis, rd.observable_basis, rd.reachable_pivots
    b0 = [rd.model.h0[i] for i in piv]
    if [sum((x * y for x, y in zip(row, b0)), Fraction(0)) for row in p] != list(rd.model.h0):
        raise CertificateError("reduction: h0 is not in the reachable span")
    for a, (am, am2) in enumerate(zip(rd.model.matrices, rd.reduced.matrices)):
        ap = _mul(am, p)
        b = [ap[i] for i in piv]
        if ap != _mul(p, b):
            raise CertificateError(f"reduction: symbol {a} leaves the reachable span")
        if _mul(q, b) != _mul(am2, q):
            raise CertificateError(f"reduction: symbol {a}: the reduced matrix does not "
                                   "commute with the observable basis")
    qb0 = [sum((x * y for x, y in zip(row, b0)), Fraction(0)) for row in q]
    if qb0 != list(rd.reduced.h0):
        raise CertificateError("reduction: the reduced h0 is not the image of h0")
    if _mul(rd.model.readout, p) != _mul(rd.reduced.readout, q):
        raise CertificateError("reduction: the reduced readout differs on the reachable span")
    return rd.model.dim, rd.reduced.dim


def _product(cert: dict[str, Any]) -> str:
    """The exact-product check about the reduced model, with a summary."""
    check_product(cert)
    return (f"valid: exact product of the reduced model, {len(cert['pairs'])} pairs, "
            f"{len(cert['states'])} states, closed and consistent")


# The inner methods a reduction feeds, by the certificate's (visible) domain.
INNER = {"slice-box": ("box-invariant", check_invariants),
         "chart-box": ("box-invariant", check_invariants),
         "zonotope": ("zonotope-invariant", check_zonotopes),
         "exact-states": ("exact-product", _product)}


def _inner_certificate(cert: dict[str, Any]) -> dict[str, Any]:
    """The certificate of the inner method about the reduced model: the visible fields,
    the inner method, and the invariant's own fields.  Nothing in ``invariant`` may
    override a visible field: the schema (:data:`.schema.INVARIANT`) admits only the
    inner method's own fields there, and those of :data:`.schema.RESTATED` must equal
    the visible ones."""
    inv, domain = cert["invariant"], cert["domain"]
    if domain not in INNER:
        raise CertificateError(f"reduced-invariant: unsupported domain {domain!r}")
    if inv["method"] != INNER[domain][0]:
        raise CertificateError(f"invariant.method: a {domain} invariant is checked by "
                               f"{INNER[domain][0]}, not {inv['method']!r}")
    for key in RESTATED:
        if key in inv and inv[key] != cert[key]:
            raise CertificateError(f"invariant.{key} {inv[key]!r} differs from the "
                                   f"certificate's {key} {cert[key]!r}")
    own = {k: v for k, v in inv.items() if k != "method" and k not in RESTATED}
    inner = {k: v for k, v in cert.items() if k not in ("reduction", "invariant")}
    clash = sorted(set(own) & set(inner))
    if clash:  # the schema keeps them apart; this is the rule itself, stated once more
        raise CertificateError(f"invariant may not restate {', '.join(clash)}")
    return {**inner, **own, "method": inv["method"],
            "network": {**cert["network"], "model": cert["reduction"]["model"]}}


def check_reduced(cert: dict[str, Any]) -> str:
    """Re-check a ``reduced-invariant`` certificate; a one-line summary or CertificateError."""
    n, d = check_reduction(cert["network"]["model"], cert["reduction"])
    inner = _inner_certificate(cert)
    if inner["rounding"] != "exact":
        raise CertificateError("a reduction holds for exact arithmetic only")
    summary = INNER[cert["domain"]][1](inner)
    return f"valid: reduction H={n} -> d={d} checked; {summary.removeprefix('valid: ')}"
