"""fixed-point: tune the conjugation S jointly with Λ to make the iteration fast.

The fixed-point construction realizes A_σ = S R_σ S⁻¹ (R_σ a signed
permutation matrix, the automaton's letter).  The mixing matrix is forced,
Q_σ = (Λ_σ⁻¹ − I)⁻¹ (B_σ − I) with B_σ = A_σ⁻¹, so the only freedom is the
conjugation S (one for all letters: h lives in one basis) and a diagonal
Λ_σ ∈ (0, 1)^H per letter.  The iteration (FP) contracts with

    M_σ = I − Λ_σ B_σ = I − Λ_σ S R_σᵀ S⁻¹,

so its rate is ρ(M_σ) and (FP) needs about ln(tol)/ln ρ iterations.  Facts
that shape the search (docs/constructions-deltaproduct-fixedpoint.md, "Radius
tuning"):

* Λ = λI gives eigenvalues 1 − λω (ω the roots of unity of R_σ): |1 − λω| < 1
  iff Re ω > λ/2, so an involution (ω = −1) never converges with a scalar Λ;
  S must make Λ and B_σ far from commuting.
* ∏ eig(Λ_σ B_σ) = det Λ_σ, and every eigenvalue must lie in |1 − z| ≤ ρ, so
  det Λ_σ ≥ (1 − ρ)^H: a small radius needs every λ near 1, i.e. eigenvalues
  of B_σ moved by the small perturbation (I − Λ_σ) B_σ, which needs an
  ill-conditioned S.  The old Fisher-Fuller seed (λ spread as 1, ¼, ¼², …)
  makes det Λ tiny and the radius 1 − O(¼^H) by the same count.
* S = blockdiag(S_i) Vᵀ, with V an orthonormal basis of R-invariant
  subspaces, makes every B_σ block diagonal, so ρ(M_σ) is the largest block
  radius and each block is tuned on its own (a few coordinates, not H).  The
  subspaces are eigenspaces of a symmetric element Y = Σ_g R_g X R_gᵀ of the
  commutant (X random symmetric, g over the group the letters generate).
* A block whose det character is −1 on some letter never converges alone
  (det(Λ B) > 0 is necessary), nor one on which a letter acts as −I; such
  blocks are merged.  A block that still fails gets one *unit channel* (a
  coordinate every letter fixes), which the measurements showed to help
  (S3's 3-dimensional block sgn ⊗ P: radius ≥ 1 found alone, 0.85 with it).

The float S is then rounded to an integer matrix, each Λ_σ is polished for the
rounded B_σ and rounded to dyadic rationals, and ρ(M_σ) < 1 is **proved**
exactly (Schur-Cohn on the integer characteristic polynomial of
c(I − Λ_σ B_σ), c = 2^E |det S|).  Nothing in the result rests on floats.

>>> import numpy as np
>>> r = [np.array([[0, 1], [1, 0]]), np.eye(2, dtype=int)]   # C2 on 2 points
>>> [b.shape for b in invariant_blocks(r, np.random.default_rng(0))]
[(2, 1), (2, 1)]
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from fsmnet.constructions.fixed_point_budget import OutOfTuningSteps, StepBudget
from fsmnet.constructions.fixed_point_limits import LIMITS
from fsmnet.constructions.fixed_point_search import dyadic, float_radius
from fsmnet.nets.fixed_point import radius_below_one


@dataclass(frozen=True)
class TunedEncoding:
    """An exact encoding: A_σ = S R_σ S⁻¹ with R_σ extended by ``units`` unit channels."""

    s: list[list[int]]
    lambdas: list[list[Fraction]]
    radii: list[float]
    units: int
    blocks: list[int]


# ------------------------------------------------------------------ group and blocks
def signed_closure(reps: list[np.ndarray], limit: int
                   ) -> list[tuple[np.ndarray, np.ndarray]] | None:
    """Every product of the letters as signed permutations (p, s), g[p_j, j] = s_j,
    identity first; None above ``limit`` elements."""
    gens = []
    for r in reps:
        m = np.asarray(r, dtype=np.int64)
        p = np.argmax(np.abs(m), axis=0)
        gens.append((p, m[p, np.arange(m.shape[0])]))
    n = reps[0].shape[0]
    start = (np.arange(n), np.ones(n, dtype=np.int64))
    seen = {start[0].tobytes() + start[1].tobytes(): start}
    frontier = [start]
    while frontier:
        nxt = []
        for gp, gs in frontier:
            for rp, rs in gens:  # r·g: column j of g is s_j e_{p_j}, mapped by r
                h = (rp[gp], rs[gp] * gs)
                key = h[0].tobytes() + h[1].tobytes()
                if key not in seen:
                    seen[key] = h
                    nxt.append(h)
                    if len(seen) > limit:
                        return None
        frontier = nxt
    return list(seen.values())


def dense(g: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    """The matrix of a signed permutation (p, s)."""
    n = len(g[0])
    m = np.zeros((n, n), dtype=np.int64)
    m[g[0], np.arange(n)] = g[1]
    return m


def _closure(reps: list[np.ndarray], limit: int) -> list[np.ndarray] | None:
    """Every product of the letters (signed permutation matrices), or None above ``limit``."""
    group = signed_closure(reps, limit)
    return None if group is None else [dense(g) for g in group]


def invariant_blocks(reps: list[np.ndarray], rng: np.random.Generator) -> list[np.ndarray]:
    """Orthonormal bases (columns) of R-invariant subspaces that sum to R^H.

    Y = Σ_g R_g X R_gᵀ commutes with every R_g; for orthogonal R_g it is
    symmetric when X is, and its eigenspaces are invariant.  A random X
    separates the real irreducible components up to their multiplicity.
    """
    size = reps[0].shape[0]
    group = _closure([np.asarray(r, dtype=np.int64) for r in reps], LIMITS.group_elements)
    if group is None:
        return [np.eye(size)]
    x = rng.standard_normal((size, size))
    x = x + x.T
    y = sum(g @ x @ g.T for g in group) / len(group)
    values, vectors = np.linalg.eigh(y)
    tol = 1e-7 * max(1.0, float(np.max(np.abs(values))))
    blocks, start = [], 0
    for i in range(1, size + 1):
        if i == size or values[i] - values[i - 1] > tol:
            blocks.append(vectors[:, start:i])
            start = i
    return blocks


def _restrict(reps: list[np.ndarray], basis: np.ndarray) -> list[np.ndarray]:
    return [basis.T @ r @ basis for r in reps]


def _det_character(mats: list[np.ndarray]) -> tuple[int, ...]:
    return tuple(1 if np.linalg.det(m) > 0 else -1 for m in mats)


def _hopeless(mats: list[np.ndarray]) -> bool:
    """A block that cannot converge alone: det −1 or −I on some letter (module docstring)."""
    d = mats[0].shape[0]
    return any(np.linalg.det(m) < 0 or np.trace(m) < -d + 0.5 for m in mats)


def merge_blocks(reps: list[np.ndarray], blocks: list[np.ndarray]) -> list[np.ndarray]:
    """Merge blocks until none is hopeless: a block joins a partner with the same det
    character (so their dets multiply to +1), else the smallest other block."""
    blocks = sorted(blocks, key=lambda b: b.shape[1])
    while len(blocks) > 1:
        bad = [i for i, b in enumerate(blocks) if _hopeless(_restrict(reps, b))]
        if not bad:
            break
        i = bad[0]
        chars = [_det_character(_restrict(reps, b)) for b in blocks]
        partners = [j for j in range(len(blocks)) if j != i]
        same = [j for j in partners if chars[j] == chars[i] and chars[i] != (1,) * len(reps)]
        # a partner with the same character, whose union is not −I on any letter
        good = [j for j in same
                if not _hopeless(_restrict(reps, np.hstack([blocks[i], blocks[j]])))]
        j = (good or same or partners)[0]
        merged = np.hstack([blocks[i], blocks[j]])
        blocks = [b for k, b in enumerate(blocks) if k not in (i, j)] + [merged]
        blocks.sort(key=lambda b: b.shape[1])
    return blocks


# ------------------------------------------------------------------ numeric tuning
def tune_block(mats: list[np.ndarray], seed: int, steps: int | None = None,
               seeds: int | None = None, budget: StepBudget | None = None
               ) -> tuple[float, np.ndarray, np.ndarray]:
    """Minimize max_σ ρ(I − Λ_σ S mats_σᵀ S⁻¹) over S (d × d) and Λ (Adam on a
    smooth maximum of the eigenvalue moduli); return (radius, S, Λ per letter).
    ``steps`` and ``seeds`` default to ``LIMITS.trial_steps`` and ``LIMITS.trials``.

    Raises :class:`OutOfTuningSteps` when ``budget`` runs out."""
    import torch

    d, k = mats[0].shape[0], len(mats)
    if d == 1:  # B = ±1: M = 1 − λ, best λ → 1; an odd letter (B = −1) never converges
        ok = all(float(m[0, 0]) > 0 for m in mats)
        return (2.0**-20 if ok else float("inf")), np.eye(1), np.full((k, 1), 1 - 2.0**-20)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # tiny matrices: threads only contend (2 shared cores)
    try:
        return _adam(mats, seed, LIMITS.trial_steps if steps is None else steps,
                     LIMITS.trials if seeds is None else seeds, budget)
    finally:
        torch.set_num_threads(threads)


def _adam(mats: list[np.ndarray], seed: int, steps: int, seeds: int,
          budget: StepBudget | None) -> tuple[float, np.ndarray, np.ndarray]:
    import torch

    d, k = mats[0].shape[0], len(mats)
    b = torch.tensor(np.array([m.T for m in mats]), dtype=torch.float64)
    eye = torch.eye(d, dtype=torch.float64)
    best: tuple[float, np.ndarray, np.ndarray] = (float("inf"), np.eye(d), np.full((k, d), 0.5))
    for trial in range(seeds):
        gen = torch.Generator().manual_seed(seed * 1000 + trial)
        s = (eye + 0.7 * torch.randn(d, d, generator=gen, dtype=torch.float64)).requires_grad_(True)
        u = (1.0 + torch.randn(k, d, generator=gen, dtype=torch.float64)).requires_grad_(True)
        opt = torch.optim.Adam([s, u], lr=0.05)
        mark = float("inf")
        for it in range(steps):
            if budget is not None:
                budget.take()
            temp = 10.0 + 90.0 * it / steps  # sharpen the smooth maximum as it goes
            conj = s @ b @ torch.linalg.inv(s)
            lam = torch.sigmoid(u)
            mods = torch.linalg.eigvals(eye - lam[:, :, None] * conj).abs()
            worst = float(mods.max().detach())
            if worst < best[0]:
                best = (worst, s.detach().numpy().copy(), lam.detach().numpy().copy())
            per = torch.logsumexp(temp * mods, 1) / temp
            loss = torch.logsumexp(temp * per, 0) / temp + 1e-5 * torch.linalg.cond(s)
            opt.zero_grad()
            loss.backward()
            opt.step()
            if it % 250 == 249:  # stop a trial that has reached the target and stalls
                if best[0] < LIMITS.target_radius and best[0] > 0.98 * mark:
                    break
                mark = best[0]
        if best[0] < LIMITS.target_radius:
            break
    return best


# ------------------------------------------------------------------ exact encoding
def _polish(b: np.ndarray, lam0: np.ndarray) -> np.ndarray:
    """Nelder-Mead on log λ from ``lam0`` (the block solution, before rounding S)."""
    from scipy.optimize import minimize

    lo, hi = np.log(1e-6), np.log(1 - 2.0**-20)
    start = np.log(np.clip(lam0, 1e-6, 1 - 2.0**-20))
    res = minimize(lambda u: float_radius(np.exp(np.clip(u, lo, hi)), b), start,
                   method="Nelder-Mead",
                   options={"maxiter": 60 * len(lam0), "xatol": 1e-7, "fatol": 1e-10})
    best = np.exp(np.clip(res.x, lo, hi))
    return best if float_radius(best, b) <= float_radius(np.exp(start), b) else np.exp(start)


def exact_conjugates(s: np.ndarray, reps: list[np.ndarray]) -> tuple[list[list[list[int]]], int]:
    """(S R_σᵀ adj S · sign det S per letter, |det S|): B_σ = S R_σᵀ S⁻¹ = num / den."""
    from sympy import ZZ
    from sympy.polys.matrices import DomainMatrix

    n = s.shape[0]
    dm = DomainMatrix([[ZZ(int(x)) for x in row] for row in s], (n, n), ZZ)
    adj, det = dm.adj_det()
    sign = 1 if det > 0 else -1
    out = []
    for r in reps:
        rt = DomainMatrix([[ZZ(int(x)) for x in row] for row in np.asarray(r).T], (n, n), ZZ)
        num = (dm * rt * adj).to_Matrix().tolist()
        out.append([[sign * int(x) for x in row] for row in num])
    return out, abs(int(det))


def tuned_encoding(reps: list[np.ndarray], seed: int = 0,
                   budget: StepBudget | None = None) -> TunedEncoding | None:
    """A tuned exact encoding of the letters ``reps`` (signed permutation matrices), or
    None when some block does not converge even with ``LIMITS.unit_channels`` unit channels, or
    when ``budget`` runs out (``budget.spent`` then tells)."""
    try:
        return _tuned_encoding(reps, seed, budget)
    except OutOfTuningSteps:
        return None


def _tuned_encoding(reps: list[np.ndarray], seed: int,
                    budget: StepBudget | None) -> TunedEncoding | None:
    size, k, most = reps[0].shape[0], len(reps), LIMITS.unit_channels
    ext = [np.pad(np.asarray(r, dtype=np.float64), (0, most)) for r in reps]
    for r in ext:
        r[size:, size:] = np.eye(most)
    rng = np.random.default_rng(seed)
    blocks = [np.pad(b, ((0, most), (0, 0)))
              for b in merge_blocks([np.asarray(r, float) for r in reps],
                                    invariant_blocks(reps, rng))]
    units = 0
    solved: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
    while blocks:
        basis = blocks.pop(0)
        radius, s_i, lam_i = tune_block(_restrict(ext, basis), seed, budget=budget)
        # Adam on eigenvalue moduli is sensitive to rounding (torch's eigvals differ
        # between CPUs): a block that misses gets fresh starts before a unit channel.
        for retry in range(1, LIMITS.block_retries + 1):
            if radius < 1 - 1e-3:
                break
            radius, s_i, lam_i = min(
                (radius, s_i, lam_i), tune_block(_restrict(ext, basis), seed + 7919 * retry,
                                                 budget=budget),
                key=lambda t: t[0])
        if radius < 1 - 1e-3:
            solved.append((basis, s_i, lam_i))
        elif units < most:
            unit = np.zeros((size + most, 1))
            unit[size + units] = 1
            units += 1
            blocks.insert(0, np.hstack([basis, unit]))
        else:
            return None
    hidden = size + units
    v = np.hstack([b for b, _, _ in solved])[:hidden]
    s_float = _blockdiag([s for _, s, _ in solved]) @ v.T
    lam0 = np.hstack([lam for _, _, lam in solved])  # (k, hidden)
    full = [np.asarray(r[:hidden, :hidden]).round().astype(np.int64) for r in ext]
    for bits in (12, 16, 20):
        s_int = np.rint(s_float * (2.0**bits / np.max(np.abs(s_float)))).astype(np.int64)
        if round(abs(np.linalg.det(s_int.astype(float)))) == 0:
            continue
        nums, den = exact_conjugates(s_int, full)
        lambdas, radii = [], []
        for sym in range(k):
            b = np.array(nums[sym], dtype=np.float64) / float(den)
            exact = [dyadic(float(x)) for x in _polish(b, lam0[sym])]
            if not radius_below_one(exact, nums[sym], den):
                break
            lambdas.append(exact)
            radii.append(float_radius(np.array([float(x) for x in exact]), b))
        if len(lambdas) == k:
            return TunedEncoding(s=s_int.tolist(), lambdas=lambdas, radii=radii, units=units,
                                 blocks=[b.shape[1] for b, _, _ in solved])
    return None


def _blockdiag(mats: list[np.ndarray]) -> np.ndarray:
    n = sum(m.shape[0] for m in mats)
    out = np.zeros((n, n))
    at = 0
    for m in mats:
        d = m.shape[0]
        out[at:at + d, at:at + d] = m
        at += d
    return out
