"""fixed-point for permutation automata, untuned: a random unimodular S and a
Fisher-Fuller Λ per letter, each letter's radius proved exactly.

The one-hot encoding A_σ = P_σ never converges (ρ(I − Λ P_σ⁻¹) ≥ 1 for every
diagonal Λ and every σ ≠ id), so the encoding is conjugated,

    A_σ = S R_σ S⁻¹    (R_σ = P_σ, or P_σ ⊕ sgn σ with the sign channel),

with S a random **unimodular integer** matrix (S⁻¹ is integral too) and, per
letter, a rational Λ_σ ∈ (0, 1)^H found from a chain of positive principal
minors of B_σ = A_σ⁻¹ and polished numerically.  Every letter's convergence
ρ(I − Λ_σ B_σ) < 1 is then **proved** exactly (Schur-Cohn on the rational
characteristic polynomial).  Proofs: docs/constructions-deltaproduct-fixedpoint.md.

The radii this search leaves are close to 1, and for some groups (A4) it finds
nothing: it is the last strategy, after the tuned conjugation
(:mod:`fsmnet.constructions.fixed_point_tuning`).  The small numeric helpers
(:func:`dyadic`, :func:`float_radius`) are shared with the tuning.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from fsmnet.automata import Automaton
from fsmnet.constructions.fixed_point_limits import LIMITS
from fsmnet.constructions.fixed_point_network import SignedLetters, conjugated_network
from fsmnet.errors import NotExpressible
from fsmnet.nets import Network
from fsmnet.nets.exact_linalg import int_det
from fsmnet.nets.fixed_point import charpoly, radius_below_one, schur_stable

__all__ = ["dyadic", "float_radius", "positive_minor_chain", "proved_stable", "random_search"]


def dyadic(x: float) -> Fraction:
    """x rounded to 20 significant bits, kept inside (0, 1): exact in float64."""
    e = 20 - int(np.floor(np.log2(x)))
    return min(max(Fraction(round(x * 2.0**e), 2**e), Fraction(1, 2**e)), 1 - Fraction(1, 2**20))


def float_radius(lam: np.ndarray, b: np.ndarray) -> float:
    """ρ(I − Λ b) in floats: what the searches minimize (a measurement, not a proof)."""
    m = np.eye(len(lam)) - lam[:, None] * b
    return float(np.max(np.abs(np.linalg.eigvals(m))))


def proved_stable(lam: list[Fraction], b: np.ndarray) -> bool:
    """Exact proof that ρ(I − Λ b) < 1 for an integer matrix ``b``.

    Small sizes use Faddeev-LeVerrier in Fractions (``charpoly``); larger ones
    sympy's integer polynomial (``radius_below_one``), a second implementation of
    the same exact claim that stays fast at n = 60 (A_5).
    """
    n = len(lam)
    if n <= LIMITS.exact_chain:
        m = [[Fraction(int(i == j)) - lam[i] * int(b[i, j]) for j in range(n)]
             for i in range(n)]
        return schur_stable(charpoly(np.array(m, dtype=object)))
    return radius_below_one(lam, b)


def positive_minor_chain(b: np.ndarray) -> list[int] | None:
    """An order i_1, i_2, ... of the coordinates whose nested principal minors of the
    integer matrix ``b`` are all positive, or None.

    Up to ``LIMITS.exact_chain`` coordinates: dynamic programming on subsets with
    exact integer determinants.  Above, 2^n subsets are out of reach (A_5 has 60
    states), so a greedy chain grows one coordinate at a time by the largest
    Schur complement b_jj − b_jI B_I⁻¹ b_Ij (the ratio of consecutive minors),
    in floats: the chain only seeds Λ, whose radius is then *proved* exactly.
    """
    n = b.shape[0]
    if n > LIMITS.exact_chain:
        return _greedy_chain(b)
    parent: dict[int, int] = {0: -1}
    for mask in range(1, 1 << n):
        idx = [i for i in range(n) if mask >> i & 1]
        last = next((i for i in idx if (mask ^ (1 << i)) in parent), None)
        if last is None:
            continue
        if int_det([[int(b[r, c]) for c in idx] for r in idx]) > 0:
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


def _letter_lambda(b: np.ndarray) -> tuple[list[Fraction], float] | None:
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
    best_u, best = np.log(init), float_radius(init, b)
    for t in (0.5, 0.25, 0.1, 0.03, 0.01, 1e-3):
        r = float_radius(init * t, b)
        if r < best:
            best_u, best = np.log(init * t), r
    lo, hi = np.log(1e-6), np.log(0.995)

    def objective(u: np.ndarray) -> float:
        return float_radius(np.exp(np.clip(u, lo, hi)), b)

    res = minimize(objective, best_u, method="Nelder-Mead",
                   options={"maxiter": 200 * n, "xatol": 1e-6, "fatol": 1e-9})
    candidates = [np.exp(np.clip(res.x, lo, hi)), np.exp(best_u)]
    for lam in candidates:
        exact = [dyadic(float(x)) for x in lam]
        if proved_stable(exact, b):
            return exact, float_radius(np.array([float(x) for x in exact]), b)
    return None


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


def random_search(automaton: Automaton, letters: SignedLetters, *, seed: int,
                  attempts: int) -> Network:
    """The first of ``attempts`` random unimodular S for which every letter gets a
    proved Λ, within ``LIMITS.search_letters`` letter searches in all.

    Raises
    ------
    NotExpressible
        When no attempt proves every letter (the message names the best attempt).
    """
    reps = letters.reps
    rng = np.random.default_rng(seed)
    best: tuple[int, float] = (-1, float("inf"))  # (letters proved, their worst radius)
    searches = tried = 0
    for _ in range(max(1, attempts)):
        if searches >= LIMITS.search_letters:
            break
        tried += 1
        s, s_inv = _unimodular(letters.size, rng)
        lambdas: list[list[Fraction]] = []
        radii: list[float] = []
        for r in reps:
            b = s @ r.T @ s_inv  # A⁻¹ = S R⁻¹ S⁻¹, R orthogonal, integral
            found = _letter_lambda(b)
            searches += 1
            if found is None:
                break
            lambdas.append(found[0])
            radii.append(found[1])
        if len(lambdas) == len(reps):
            return conjugated_network(automaton, s, s_inv, reps, lambdas, radii,
                                      letters.sign_channel, seed)
        score = (len(radii), max(radii, default=float("inf")))
        if score[0] > best[0] or (score[0] == best[0] and score[1] < best[1]):
            best = score
    raise NotExpressible(f"fixed-point: no conjugated encoding with a proved spectral radius "
                         f"< 1 for every letter was found in {tried} attempts (seed {seed}); "
                         f"best attempt: {best[0]} of {len(reps)} letters proved, worst radius "
                         f"among them {best[1]:.4g}")
