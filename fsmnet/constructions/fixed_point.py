"""fixed-point: exact construction for permutation automata.

The construction and its proof: docs/constructions-deltaproduct-fixedpoint.md.

A = (I + (Λ⁻¹ − I) Q)⁻¹ is invertible, so only automata whose letters all
permute the states of the minimal automaton can be compiled.  The one-hot
encoding A_σ = P_σ never converges (ρ(I − Λ P_σ⁻¹) ≥ 1 for every diagonal Λ
and every σ ≠ id), so the construction conjugates:

    A_σ = S R_σ S⁻¹,    R_σ = P_σ            (every letter even), or
                        R_σ = P_σ ⊕ (sgn σ)   (some letter odd: a sign channel),

with S a random **unimodular integer** matrix (S⁻¹ is integral too) and, per
letter, a rational Λ_σ ∈ (0, 1)^H found from a Fisher-Fuller chain of positive
principal minors of B_σ = A_σ⁻¹ and polished numerically.  Every letter's
convergence ρ(I − Λ_σ B_σ) < 1 is then **proved** exactly (Schur-Cohn on the
rational characteristic polynomial).  The sign channel exists because
det(Λ B) = det Λ · sgn σ must be positive when all eigenvalues of Λ B lie in
the disk |1 − z| < 1.  Proofs: docs/constructions-deltaproduct-fixedpoint.md.

That random search leaves radii of 1 − 10⁻⁶ (S3) or finds nothing (A4), so
the compiler first **tunes** S jointly with Λ
(:mod:`fsmnet.constructions.fixed_point_tuning`: block-diagonalize R, tune
each block, add unit channels where a block cannot converge alone), which
brings S3 and A4 below 0.9; the random search remains the fallback.  The
tuning spends at most ``tuning_steps`` Adam steps per compile (a count, so the
outcome does not depend on the machine's load).  Above 16 coordinates two
small quotients side by side are tried first
(:mod:`fsmnet.constructions.fixed_point_split`).  Above 32 coordinates the
dense exact proof is too slow, and
:mod:`fsmnet.constructions.fixed_point_blocks` builds an *exactly*
block-diagonal encoding instead, on request (``compile_fixed_point_blocks``; S5
by generators: H = 149, proved per block).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from fsmnet.automata import Automaton
from fsmnet.constructions.fixed_point_budget import TUNING_STEPS, StepBudget
from fsmnet.constructions.fixed_point_network import (
    LARGE_TUNING,
    conjugated_network,
    tune_over_seeds,
    with_units,
)
from fsmnet.errors import NotExpressible
from fsmnet.nets import Network
from fsmnet.nets.fixed_point import charpoly, exact_inverse, schur_stable


def _int_det(m: list[list[int]]) -> int:
    """Determinant of an integer matrix (Bareiss, exact)."""
    a = [row[:] for row in m]
    n, sign, prev = len(a), 1, 1
    for k in range(n - 1):
        if a[k][k] == 0:
            swap = next((r for r in range(k + 1, n) if a[r][k] != 0), None)
            if swap is None:
                return 0
            a[k], a[swap], sign = a[swap], a[k], -sign
        for i in range(k + 1, n):
            for j in range(k + 1, n):
                a[i][j] = (a[i][j] * a[k][k] - a[i][k] * a[k][j]) // prev
        prev = a[k][k]
    return sign * a[n - 1][n - 1] if n else 1


_PROOF_LIMIT = 32
"""Largest hidden size whose radius is proved: the exact Schur-Cohn proof grows too slow
beyond it (docs/performance.md, "Figures behind constants")."""
ACYCLIC_LIMIT = 16
"""Most states for the behavioural-merge construction by default: `fsmnet expressivity`
tries every class and must stay fast, and the cone proof's cost grows steeply with the
states."""

_SEARCH_BUDGET = 120
"""Letter searches (one Λ each) over all attempts: a deterministic work bound.  The
tests' families need at most 56 (shellgame:3); a search that needs many more does not
succeed anyway, so the bound stops it early."""
_EXACT_CHAIN = 8
"""Up to this size the chain search is exact and exhaustive (2^n subsets)."""


def positive_minor_chain(b: np.ndarray) -> list[int] | None:
    """An order i_1, i_2, ... of the coordinates whose nested principal minors of the
    integer matrix ``b`` are all positive, or None.

    Up to ``_EXACT_CHAIN`` coordinates: dynamic programming on subsets with exact
    integer determinants.  Above, 2^n subsets are out of reach (A_5 has 60
    states), so a greedy chain grows one coordinate at a time by the largest
    Schur complement b_jj − b_jI B_I⁻¹ b_Ij (the ratio of consecutive minors),
    in floats: the chain only seeds Λ, whose radius is then *proved* exactly.
    """
    n = b.shape[0]
    if n > _EXACT_CHAIN:
        return _greedy_chain(b)
    parent: dict[int, int] = {0: -1}
    for mask in range(1, 1 << n):
        idx = [i for i in range(n) if mask >> i & 1]
        last = next((i for i in idx if (mask ^ (1 << i)) in parent), None)
        if last is None:
            continue
        if _int_det([[int(b[r, c]) for c in idx] for r in idx]) > 0:
            parent[mask] = last
    full = (1 << n) - 1
    if full not in parent:
        return None
    order, mask = [], full
    while mask:
        order.append(parent[mask])
        mask ^= 1 << parent[mask]
    return order[::-1]


def _greedy_chain(b: np.ndarray) -> list[int] | None:
    m = np.asarray(b, dtype=np.float64)
    order: list[int] = []
    left = list(range(m.shape[0]))
    inv = np.zeros((0, 0))
    while left:
        if order:
            cols = m[np.ix_(order, left)]  # B_I,j for every candidate j
            rows = m[np.ix_(left, order)]
            schur = m[left, left] - np.einsum("ji,ik,kj->j", rows, inv, cols)
        else:
            schur = m[left, left].copy()
        best = int(np.argmax(schur))
        scale = max(1.0, float(np.max(np.abs(m))))
        if not schur[best] > 1e-9 * scale:
            return None
        order.append(left.pop(best))
        inv = np.asarray(np.linalg.inv(m[np.ix_(order, order)]), dtype=np.float64)
    return order


def _radius(lam: np.ndarray, b: np.ndarray) -> float:
    m = np.eye(len(lam)) - lam[:, None] * b
    return float(np.max(np.abs(np.linalg.eigvals(m))))


def _letter_lambda(b: np.ndarray, rng: np.random.Generator) -> tuple[list[Fraction], float] | None:
    """A rational Λ ∈ (0, 1)^H with a *proved* ρ(I − Λ b) < 1, and its float radius."""
    from scipy.optimize import minimize

    order = positive_minor_chain(b)
    if order is None:
        return None
    n = len(b)
    # Fisher-Fuller: widely separated scales along the chain make every
    # eigenvalue of Λ b close to a positive ratio of consecutive minors.
    init = np.empty(n)
    for rank, i in enumerate(order):
        init[i] = 0.25 ** rank
    best_u, best = np.log(init), _radius(init, b)
    for t in (0.5, 0.25, 0.1, 0.03, 0.01, 1e-3):
        r = _radius(init * t, b)
        if r < best:
            best_u, best = np.log(init * t), r
    lo, hi = np.log(1e-6), np.log(0.995)

    def objective(u: np.ndarray) -> float:
        return _radius(np.exp(np.clip(u, lo, hi)), b)

    res = minimize(objective, best_u, method="Nelder-Mead",
                   options={"maxiter": 200 * n, "xatol": 1e-6, "fatol": 1e-9})
    candidates = [np.exp(np.clip(res.x, lo, hi)), np.exp(best_u)]
    for lam in candidates:
        exact = [_dyadic(float(x)) for x in lam]
        if _proved_stable(exact, b):
            return exact, _radius(np.array([float(x) for x in exact]), b)
    return None


def _proved_stable(lam: list[Fraction], b: np.ndarray) -> bool:
    """Exact proof that ρ(I − Λ b) < 1 (Schur-Cohn on the rational characteristic polynomial).

    The polynomial comes from the integer matrix N = 2^E (I − Λ b) (λ dyadic,
    b integral): det(zI − M) = 2^(−En) det(2^E z I − N), so the coefficient of
    z^k is c_k(N) / 2^(E(n−k)).  sympy's characteristic polynomial over ZZ is
    O(n^3)-ish in integers, where Faddeev-LeVerrier in Fractions (``charpoly``)
    is O(n^4), too slow at n = 60 (A_5).  Small sizes keep ``charpoly``,
    a second implementation of the same exact claim.
    """
    n = len(lam)
    if n <= _EXACT_CHAIN:
        m = [[Fraction(int(i == j)) - lam[i] * int(b[i, j]) for j in range(n)]
             for i in range(n)]
        return schur_stable(charpoly(np.array(m, dtype=object)))
    from sympy import ZZ
    from sympy.polys.matrices import DomainMatrix

    e = max(x.denominator.bit_length() - 1 for x in lam)  # denominators are powers of 2
    scaled = [x.numerator << (e - (x.denominator.bit_length() - 1)) for x in lam]
    rows = [[ZZ((1 << e) * int(i == j) - scaled[i] * int(b[i, j])) for j in range(n)]
            for i in range(n)]
    top_first = DomainMatrix(rows, (n, n), ZZ).charpoly()  # c_n .. c_0
    # 2^(En) det(zI − M) has the integer coefficients c_k 2^(Ek).
    return _schur_stable_int([int(c) << (e * k) for k, c in enumerate(reversed(top_first))])


def _schur_stable_int(coeffs: list[int]) -> bool:
    """Schur-Cohn (as ``schur_stable``) on integer coefficients a_0..a_d, dividing
    each reduced polynomial by the gcd of its coefficients (a positive factor,
    same roots): in Fractions the digits double with every step."""
    from math import gcd

    a = list(coeffs)
    while len(a) > 1 and a[-1] == 0:
        a.pop()
    while len(a) > 1:
        d = len(a) - 1
        if abs(a[0]) >= abs(a[d]):
            return False
        a = [a[d] * a[i] - a[0] * a[d - i] for i in range(1, d + 1)]
        g = 0
        for x in a:
            g = gcd(g, x)
        if g > 1:
            a = [x // g for x in a]
    return True


def _dyadic(x: float) -> Fraction:
    """x rounded to 20 significant bits, kept inside (0, 1): exact in float64."""
    e = 20 - int(np.floor(np.log2(x)))
    return min(max(Fraction(round(x * 2.0**e), 2**e), Fraction(1, 2**e)), 1 - Fraction(1, 2**20))


def _unimodular(size: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """A random integer S with det ±1 and its integer inverse."""
    s = np.eye(size, dtype=np.int64)
    s_inv = np.eye(size, dtype=np.int64)
    for _ in range(3 * size if size > 1 else 0):
        i, j = rng.choice(size, 2, replace=False)
        c = int(rng.choice([-1, 1]))
        s[i] += c * s[j]            # S <- E S with E = I + c e_i e_jᵀ
        s_inv[:, j] -= c * s_inv[:, i]  # S⁻¹ <- S⁻¹ E⁻¹
    perm = rng.permutation(size)
    return s[perm], s_inv[:, perm]


def _merges(automaton: Automaton) -> bool:
    """Whether some letter maps two states to one."""
    return any(len(set(row.tolist())) < automaton.n_states for row in automaton.delta)


def _permutations(automaton: Automaton) -> list[np.ndarray]:
    n = automaton.n_states
    out = []
    for s in range(automaton.n_symbols):
        images = automaton.delta[s]
        if len(set(images.tolist())) < n:
            q1, q2 = [int(q) for q in np.flatnonzero(images == np.bincount(images).argmax())[:2]]
            raise NotExpressible(
                f"fixed-point: letter {automaton.symbols[s]!r} maps states "
                f"{automaton.states[q1]!r} and {automaton.states[q2]!r} of the minimal "
                f"automaton to the same state; A = (I + (Λ⁻¹ − I)Q)⁻¹ is invertible, so a "
                f"merge is carried only behaviourally: by resets (every letter a reset or a "
                f"permutation) or in a partially ordered automaton, and this one is neither")
        p = np.zeros((n, n), dtype=np.int64)
        p[images, np.arange(n)] = 1
        out.append(p)
    return out


def compile_fixed_point(automaton: Automaton, *, seed: int = 0, attempts: int = 60,
                        sign_channel: bool | None = None,
                        tuning_steps: int | StepBudget = TUNING_STEPS) -> Network:
    """Fixed-point network for a permutation automaton (already minimal).

    Parameters
    ----------
    seed
        Seed of the random search for S.
    attempts
        Number of random unimodular S to try before giving up.
    sign_channel
        Force (True) or forbid (False) the extra channel carrying sgn(σ);
        by default it is added exactly when some letter is an odd permutation
        (without it, odd letters cannot converge: see the module docstring).
    tuning_steps
        Adam steps the radius tuning may spend in all (deterministic, unlike a
        clock; :data:`~fsmnet.constructions.fixed_point_budget.TUNING_STEPS`).
        When they run out the compile stops and says so.

    S is first tuned jointly with Λ for a small radius
    (:func:`fsmnet.constructions.fixed_point_tuning.tuned_encoding`, which may add
    unit channels); the random unimodular search is the fallback.

    Raises
    ------
    NotExpressible
        For a non-permutation letter; for odd letters without a sign channel;
        or when no S in ``attempts`` tries gives a proved radius < 1 for every
        letter (the message names the best radius found).
    """
    from fsmnet.constructions import fixed_point_group_reset
    from fsmnet.constructions.fixed_point_acyclic import compile_fixed_point_acyclic, cycle_of
    from fsmnet.constructions.fixed_point_reset import compile_fixed_point_reset, letter_kinds

    budget = StepBudget.of(tuning_steps)
    kinds = letter_kinds(automaton)
    if kinds is not None and any(k is not None for k in kinds):  # resets: carried by contraction
        return compile_fixed_point_reset(automaton)
    if fixed_point_group_reset.applies(automaton):  # permutations conjugated, resets contracted
        return fixed_point_group_reset.compile_fixed_point_group_reset(automaton, seed=seed,
                                                                       tuning_steps=budget)
    if _merges(automaton) and cycle_of(automaton) is None:
        # Merges in a partially ordered automaton: a faint copy of each left state.
        if automaton.n_states > ACYCLIC_LIMIT:
            raise NotExpressible(
                f"fixed-point (behavioural merge): {automaton.n_states} states is above "
                f"{ACYCLIC_LIMIT}, where its cone proof gets slow (atleast:20: 11 s, "
                f"atleast:40: 51 s); fsmnet.constructions.fixed_point_acyclic."
                f"compile_fixed_point_acyclic builds it from the API")
        return compile_fixed_point_acyclic(automaton)
    perms = _permutations(automaton)
    n = automaton.n_states
    signs = [1 if round(np.linalg.det(p)) > 0 else -1 for p in perms]
    extra = any(s < 0 for s in signs) if sign_channel is None else sign_channel
    if not extra and any(s < 0 for s in signs):
        odd = automaton.symbols[signs.index(-1)]
        raise NotExpressible(f"fixed-point: letter {odd!r} is an odd permutation; without a "
                             f"sign channel det(Λ A⁻¹) < 0 for every Λ in (0,1)^H, so the "
                             f"iteration cannot converge (ρ ≥ 1)")
    size = n + int(extra)
    if size > _PROOF_LIMIT:
        from fsmnet.constructions.fixed_point_split import compile_fixed_point_split

        # Two quotients side by side, each proved on its own (A_5: 5 + 12 states).
        try:
            return compile_fixed_point_split(automaton, seed=seed, attempts=attempts,
                                             sign_channel=sign_channel, tuning_steps=budget)
        except NotExpressible as exc:
            why = str(exc)
        # Refused at once: callers such as `fsmnet expressivity` try every class and
        # must stay fast.  The exactly block-diagonal encoding is proved per block,
        # but costs minutes to build and verify at 120 states.
        raise NotExpressible(f"fixed-point: hidden size {size} is above {_PROOF_LIMIT}, where "
                             f"the exact Schur-Cohn proof of the radius takes hours, and "
                             f"{why}; fsmnet.constructions.fixed_point_blocks."
                             f"compile_fixed_point_blocks builds an exactly block-diagonal "
                             f"encoding instead (about a minute at 120 states)")
    reps = []
    for p, sg in zip(perms, signs):
        r = np.zeros((size, size), dtype=np.int64)
        r[:n, :n] = p
        if extra:
            r[n, n] = sg
        reps.append(r)
    if size > LARGE_TUNING:
        # Mid-sized groups: two small quotients side by side tune far more cheaply than
        # the whole (docs/performance.md, "Figures behind constants").
        from fsmnet.constructions.fixed_point_split import compile_fixed_point_split

        try:
            return compile_fixed_point_split(automaton, seed=seed, attempts=attempts,
                                             sign_channel=sign_channel, tuning_steps=budget)
        except NotExpressible:
            pass
    enc, tuning_seed = tune_over_seeds(reps, seed, budget)
    if enc is None and budget.spent:
        raise NotExpressible(budget.refusal("fixed-point"))
    if enc is not None:
        s_t = np.array(enc.s, dtype=object)
        s_t_inv = exact_inverse(np.array([[Fraction(int(x)) for x in row] for row in enc.s],
                                         dtype=object))
        reps_t = [with_units(r, enc.units) for r in reps]
        return conjugated_network(automaton, s_t, s_t_inv, reps_t, enc.lambdas, enc.radii,
                                  extra, seed, tuned={"unit_channels": enc.units,
                                                      "blocks": enc.blocks,
                                                      "tuning_seed": tuning_seed})
    rng = np.random.default_rng(seed)
    best: tuple[int, float] = (-1, float("inf"))  # (letters proved, their worst radius)
    searches = tried = 0
    for _ in range(max(1, attempts)):
        if searches >= _SEARCH_BUDGET:
            break
        tried += 1
        s, s_inv = _unimodular(size, rng)
        lambdas: list[list[Fraction]] = []
        radii: list[float] = []
        for r in reps:
            b = s @ r.T @ s_inv  # A⁻¹ = S R⁻¹ S⁻¹, R orthogonal, integral
            found = _letter_lambda(b, rng)
            searches += 1
            if found is None:
                break
            lambdas.append(found[0])
            radii.append(found[1])
        if len(lambdas) == len(reps):
            return conjugated_network(automaton, s, s_inv, reps, lambdas, radii, extra, seed)
        score = (len(radii), max(radii, default=float("inf")))
        if score[0] > best[0] or (score[0] == best[0] and score[1] < best[1]):
            best = score
    raise NotExpressible(f"fixed-point: no conjugated encoding with a proved spectral radius "
                         f"< 1 for every letter was found in {tried} attempts (seed {seed}); "
                         f"best attempt: {best[0]} of {len(reps)} letters proved, worst radius "
                         f"among them {best[1]:.4g}")
