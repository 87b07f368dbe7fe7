"""Method ``cone-invariant``: an inductive cone per automaton state, with exact
non-negative multipliers for every inclusion.

The certificate is parsed into a :class:`ConeCertificate`; then, for a linear
model with K_q = cone(generators of q):

1. h0 = Σ λ g over K_q0 with λ ≥ 0, not all zero;
2. for every state q of a cone, symbol a and generator g of K_q: A_a g ≠ 0
   and A_a g = Σ μ g' over K_δ(q,a) with μ ≥ 0 (so every cone has a row for
   every symbol and generator, and the targets have cones);
3. every generator of K_q is read out as outputs[q] (a rival before the
   right label strictly below it, one after it at most equal).

By induction every reachable state is a non-negative combination, not all
zero, of its cone's generators, and the readout is linear: see
fsmnet/proofs/cones.py for the argument.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from types import MappingProxyType
from typing import Any

from .core import Automaton, CertificateError, _matvec, read_automaton
from .fields import Vector, label_indices, vector
from .linear_model import LinearModel, read_linear, require_fit


@dataclass(frozen=True)
class Inclusion:
    """A_symbol (generator of ``state``) = Σ multipliers · generators of the target cone."""

    state: int
    symbol: int
    generator: int
    multipliers: Vector


@dataclass(frozen=True)
class ConeCertificate:
    """A cone-invariant certificate, parsed."""

    automaton: Automaton
    labels: tuple[Any, ...]
    model: LinearModel
    cones: Mapping[int, tuple[Vector, ...]]  # automaton state -> generators
    rights: Mapping[int, int]  # automaton state of a cone -> its (first) network label
    initial_multipliers: Vector
    inclusions: tuple[Inclusion, ...]


def _rights(cones: Mapping[int, tuple[Vector, ...]], labels: tuple[Any, ...],
            automaton: Automaton) -> Mapping[int, int]:
    rights = {}
    for q, gens in cones.items():
        right = label_indices(labels, automaton.outputs[q])
        if not gens or not right:
            raise CertificateError(f"state {q}: no generators or no label")
        rights[q] = right[0]
    return MappingProxyType(rights)


def parse_cones(cert: dict[str, Any]) -> ConeCertificate:
    automaton = read_automaton(cert["automaton"])
    if cert["network"]["model"].get("type") != "linear":
        raise CertificateError("cone invariants are for linear models")
    model, labels = read_linear(cert["network"]["model"]), tuple(cert["network"]["labels"])
    require_fit(model, automaton.n_symbols, len(labels))
    cones = MappingProxyType({int(q): tuple(vector(g) for g in gs)
                              for q, gs in cert["cones"].items()})
    inclusions = tuple(Inclusion(row["state"], row["symbol"], row["generator"],
                                 vector(row["multipliers"])) for row in cert["inclusions"])
    return ConeCertificate(automaton, labels, model, cones, _rights(cones, labels, automaton),
                           vector(cert["initial_multipliers"]), inclusions)


def _combination(lam: Vector, gens: tuple[Vector, ...]) -> list[Fraction]:
    """Σ λ_j g_j, the multipliers one non-negative number per generator."""
    if len(lam) != len(gens) or any(x < 0 for x in lam):
        raise CertificateError("multipliers must be one non-negative number a generator")
    return [sum((c * g[i] for c, g in zip(lam, gens)), Fraction(0))
            for i in range(len(gens[0]))]


def _check_readout(cc: ConeCertificate) -> None:
    """Every generator of K_q is read out as outputs[q] (first argmax)."""
    for q, gens in cc.cones.items():
        r = cc.rights[q]
        for g in gens:
            scores = _matvec(cc.model.readout, g)
            if any(not (scores[r] > s if c < r else scores[r] >= s)
                   for c, s in enumerate(scores) if c != r):
                raise CertificateError(f"state {q}: a generator is read out wrongly")


def _check_inclusions(cc: ConeCertificate) -> set[tuple[int, int, int]]:
    """Each listed inclusion holds; the (state, symbol, generator) obligations met."""
    seen = set()
    for row in cc.inclusions:
        q, a, j = row.state, row.symbol, row.generator
        target = cc.automaton.delta[a][q]
        if target not in cc.cones:
            raise CertificateError(f"state {target} has no cone")
        image = _matvec(cc.model.matrices[a], cc.cones[q][j])
        if all(x == 0 for x in image):
            raise CertificateError(f"A_{a} maps a generator of state {q} to 0")
        if _combination(row.multipliers, cc.cones[target]) != image:
            raise CertificateError(f"state {q}, symbol {a}, generator {j}: not in the cone")
        seen.add((q, a, j))
    return seen


def check_cones(cert: dict[str, Any]) -> str:
    """Re-check a cone invariant; a one-line summary or CertificateError."""
    cc = parse_cones(cert)
    q0 = cc.automaton.initial
    if q0 not in cc.cones or not any(x != 0 for x in cc.initial_multipliers):
        raise CertificateError("h0 needs a non-zero combination in the initial cone")
    if _combination(cc.initial_multipliers, cc.cones[q0]) != list(cc.model.h0):
        raise CertificateError("h0 is not the stated combination")
    _check_readout(cc)
    seen = _check_inclusions(cc)
    needed = {(q, a, j) for q, gens in cc.cones.items() for a in range(cc.automaton.n_symbols)
              for j in range(len(gens))}
    if seen != needed:
        raise CertificateError("an inclusion obligation is missing")
    return (f"valid: cone invariant over {len(cc.cones)} states, "
            f"{sum(len(g) for g in cc.cones.values())} generators, {len(seen)} inclusions")
