"""Method ``cone-invariant``: an inductive cone per automaton state, with exact
non-negative multipliers for every inclusion."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from .core import CertificateError, _automaton_table, _frac, _mat, _matvec, _same_label, _vec


def check_cones(cert: dict[str, Any]) -> str:
    """Re-check a cone invariant: K_q = cone(generators of q), for a linear model.

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
    delta, outputs, q0, _ = _automaton_table(cert["automaton"])
    model = cert["network"]["model"]
    if model.get("type") != "linear":
        raise CertificateError("cone invariants are for linear models")
    mats = [_mat(m) for m in model["matrices"]]
    readout = _mat(model["readout"])
    labels = cert["network"]["labels"]
    if len(mats) != len(delta) or len(readout) != len(labels):
        raise CertificateError("model and automaton sizes differ")
    cones = {int(q): [_vec(g) for g in gs] for q, gs in cert["cones"].items()}

    def combination(coeffs: Any, gens: list[list[Fraction]]) -> list[Fraction]:
        lam = _vec(coeffs)
        if len(lam) != len(gens) or any(x < 0 for x in lam):
            raise CertificateError("multipliers must be one non-negative number a generator")
        return [sum((c * g[i] for c, g in zip(lam, gens)), Fraction(0))
                for i in range(len(gens[0]))]

    if q0 not in cones or not any(_frac(x) != 0 for x in cert["initial_multipliers"]):
        raise CertificateError("h0 needs a non-zero combination in the initial cone")
    if combination(cert["initial_multipliers"], cones[q0]) != _vec(model["h0"]):
        raise CertificateError("h0 is not the stated combination")
    for q, gens in cones.items():
        right = [c for c, lab in enumerate(labels) if _same_label(lab, outputs[q])]
        if not gens or not right:
            raise CertificateError(f"state {q}: no generators or no label")
        for g in gens:
            scores = _matvec(readout, g)
            if any(not (scores[right[0]] > s if c < right[0] else scores[right[0]] >= s)
                   for c, s in enumerate(scores) if c != right[0]):
                raise CertificateError(f"state {q}: a generator is read out wrongly")
    seen = set()
    for row in cert["inclusions"]:
        q, a, j = row["state"], row["symbol"], row["generator"]
        target = delta[a][q]
        if target not in cones:
            raise CertificateError(f"state {target} has no cone")
        image = _matvec(mats[a], cones[q][j])
        if all(x == 0 for x in image):
            raise CertificateError(f"A_{a} maps a generator of state {q} to 0")
        if combination(row["multipliers"], cones[target]) != image:
            raise CertificateError(f"state {q}, symbol {a}, generator {j}: not in the cone")
        seen.add((q, a, j))
    needed = {(q, a, j) for q, gens in cones.items() for a in range(len(delta))
              for j in range(len(gens))}
    if seen != needed:
        raise CertificateError("an inclusion obligation is missing")
    return (f"valid: cone invariant over {len(cones)} states, "
            f"{sum(len(g) for g in cones.values())} generators, {len(seen)} inclusions")
