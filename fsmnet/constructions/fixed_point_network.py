"""The conjugated encoding A_σ = S R_σ S⁻¹ shared by the fixed-point constructions:
the letters as simple matrices R_σ, the tuning over seeds, and the network.

R_σ is the letter on simple coordinates (a signed permutation with unit channels,
or a contraction in homogeneous coordinates); S is the tuned or random
conjugation that makes the fixed-point iteration converge.  Λ_σ is given per
letter, Q_σ = (Λ_σ⁻¹ − I)⁻¹(A_σ⁻¹ − I) follows, and the result is self-checked
exactly (the network's A_σ must be S R_σ S⁻¹ in Fractions).

A letter that is an odd permutation needs the sign channel (R_σ = P_σ ⊕ sgn σ):
det(Λ B) = det Λ · sgn σ must be positive when every eigenvalue of Λ B lies in
the disk |1 − z| < 1 (docs/constructions-deltaproduct-fixedpoint.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from fsmnet.automata import Automaton
from fsmnet.constructions.fixed_point_budget import StepBudget
from fsmnet.constructions.fixed_point_limits import LIMITS
from fsmnet.errors import NotExpressible
from fsmnet.nets import Network
from fsmnet.nets.fixed_point import exact_inverse, iterate_fixed_point


def tuning_seeds(size: int) -> int:
    """How many seeds the tuning tries for an encoding of ``size`` coordinates."""
    return LIMITS.tuning_seeds if size <= LIMITS.split_above else LIMITS.large_tuning_seeds


@dataclass(frozen=True)
class SignedLetters:
    """The letters of a permutation automaton as signed permutation matrices
    R_σ = P_σ, or P_σ ⊕ (sgn σ) with the sign channel."""

    reps: list[np.ndarray]
    sign_channel: bool

    @property
    def size(self) -> int:
        """The hidden size before any unit channel."""
        return int(self.reps[0].shape[0])


def permutation_matrices(automaton: Automaton) -> list[np.ndarray]:
    """P_σ per letter (column q has its 1 at δ(q)); NotExpressible, naming the letter
    and the two states, when some letter maps two states to one."""
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
                f"merge is carried only behaviourally (resets, permutations and resets, "
                f"or a partially ordered automaton)")
        p = np.zeros((n, n), dtype=np.int64)
        p[images, np.arange(n)] = 1
        out.append(p)
    return out


def signed_letters(automaton: Automaton, sign_channel: bool | None = None) -> SignedLetters:
    """The letters as R_σ; the sign channel is added exactly when some letter is odd,
    unless ``sign_channel`` forces (True) or forbids (False) it.

    Raises
    ------
    NotExpressible
        For a letter that merges states, or an odd letter without a sign channel.
    """
    perms = permutation_matrices(automaton)
    signs = [1 if round(np.linalg.det(p)) > 0 else -1 for p in perms]
    extra = any(sg < 0 for sg in signs) if sign_channel is None else sign_channel
    if not extra and any(sg < 0 for sg in signs):
        odd = automaton.symbols[signs.index(-1)]
        raise NotExpressible(f"fixed-point: letter {odd!r} is an odd permutation; without a "
                             f"sign channel det(Λ A⁻¹) < 0 for every Λ in (0,1)^H, so the "
                             f"iteration cannot converge (ρ ≥ 1)")
    return SignedLetters([signed(p, sg if extra else None) for p, sg in zip(perms, signs)],
                         extra)


def tune_over_seeds(reps: list[np.ndarray], seed: int,
                    budget: StepBudget | None = None) -> tuple[Any, int]:
    """(the tuned encoding or None, the seed that found it).  The tuning is a float
    search whose outcome depends on the seed and on torch's rounding: a few seeds are
    tried in order (deterministic; :func:`tuning_seeds`), while the
    :class:`~fsmnet.constructions.fixed_point_budget.StepBudget` ``budget`` lasts; the
    proof is exact whichever wins."""
    from fsmnet.constructions import fixed_point_tuning

    count = tuning_seeds(reps[0].shape[0])
    for tuning_seed in range(seed, seed + count):
        enc = fixed_point_tuning.tuned_encoding(reps, tuning_seed, budget)
        if enc is not None or (budget is not None and budget.spent):
            return enc, tuning_seed
    return None, seed + count - 1


def tuned_network(automaton: Automaton, letters: SignedLetters, seed: int,
                  budget: StepBudget) -> Network:
    """The network of the tuned encoding of ``letters`` (S tuned jointly with Λ, unit
    channels added where a block cannot converge alone).

    Raises
    ------
    NotExpressible
        When no seed finds a proved encoding, or the step budget runs out first.
    """
    enc, tuning_seed = tune_over_seeds(letters.reps, seed, budget)
    if enc is None:
        if budget.spent:
            raise NotExpressible(budget.refusal("fixed-point"))
        raise NotExpressible(f"fixed-point: no tuned conjugation has a proved spectral "
                             f"radius below 1 for every letter (seeds {seed}..{tuning_seed})")
    s = np.array(enc.s, dtype=object)
    s_inv = exact_inverse(np.array([[Fraction(int(x)) for x in row] for row in enc.s],
                                   dtype=object))
    reps = [with_units(r, enc.units) for r in letters.reps]
    return conjugated_network(automaton, s, s_inv, reps, enc.lambdas, enc.radii,
                              letters.sign_channel, seed,
                              tuned={"unit_channels": enc.units, "blocks": enc.blocks,
                                     "tuning_seed": tuning_seed})


def signed(p: np.ndarray, sign: int | None) -> np.ndarray:
    """P ⊕ (sign), or P alone when ``sign`` is None."""
    size = p.shape[0] + (sign is not None)
    r = np.zeros((size, size), dtype=np.int64)
    r[:p.shape[0], :p.shape[0]] = p
    if sign is not None:
        r[-1, -1] = sign
    return r


def with_units(r: np.ndarray, units: int) -> np.ndarray:
    """R ⊕ I_units: the tuned encoding's unit channels, fixed by every letter."""
    out = np.eye(r.shape[0] + units, dtype=np.int64)
    out[:r.shape[0], :r.shape[0]] = r
    return out


def _rep_inverse(r: np.ndarray) -> np.ndarray:
    """R⁻¹: Rᵀ for a signed permutation (orthogonal), else the exact inverse (the
    contractions of fsmnet.constructions.fixed_point_group_reset)."""
    if r.dtype != object and np.array_equal(r @ r.T, np.eye(r.shape[0], dtype=r.dtype)):
        return r.T
    return exact_inverse(np.array([[Fraction(x) for x in row] for row in r], dtype=object))


def conjugated_network(automaton: Automaton, s: np.ndarray, s_inv: np.ndarray,
                       reps: list[np.ndarray], lambdas: list[list[Fraction]],
                       radii: list[float], extra: bool, seed: int,
                       tuned: dict[str, object] | None = None,
                       construction: str = "tuned conjugation") -> Network:
    """The network of A_σ = S R_σ S⁻¹ (S integral; S⁻¹ integral or, tuned, rational;
    R_σ a signed permutation, or any invertible rational matrix)."""
    n, size = automaton.n_states, s.shape[0]
    lam_exact, q_exact = [], []
    for r, lam in zip(reps, lambdas):
        b = s @ _rep_inverse(r) @ s_inv
        ratio = [x / (1 - x) for x in lam]  # (Λ⁻¹ − I)⁻¹
        q_exact.append([[ratio[i] * (Fraction(b[i, j]) - int(i == j)) for j in range(size)]
                        for i in range(size)])
        lam_exact.append(lam)
    to_f = np.vectorize(float, otypes=[np.float64])
    lam_arr = to_f(np.array(lam_exact, dtype=object))
    q_arr = to_f(np.array(q_exact, dtype=object).reshape(len(reps), size, size))
    base = np.zeros(size, dtype=np.int64)
    assert automaton.initial is not None
    base[automaton.initial] = 1
    base[n:] = 1  # the sign channel and the unit channels start at 1
    h0 = np.array([float(x) for x in s @ base], dtype=np.float64)
    onehot = np.zeros((len(automaton.labels), size), dtype=np.int64)
    onehot[automaton.output_ids, np.arange(n)] = 1
    readout = np.vectorize(float, otypes=[np.float64])(onehot @ s_inv)
    kind = {"construction": "conjugated permutation"} if tuned is None else dict(
        tuned, construction=construction)
    net = Network(
        arch="fixed-point",
        params={"Lambda": lam_arr, "Q": q_arr, "h0": h0, "readout": readout},
        symbols=automaton.symbols, labels=automaton.labels,
        options={**kind, "seed": seed,
                 "sign_channel": extra, "S": [[int(x) for x in row] for row in s],
                 "spectral_radius": dict(zip(automaton.symbols, radii)),
                 "radius_proved_below_one": True, "states": list(automaton.states)},
        exact={"Lambda": [[str(x) for x in row] for row in lam_exact],
               "Q": [[[str(x) for x in row] for row in m] for m in q_exact]},
        name=automaton.name)
    # Exact self-check: the fixed points are exactly S R_σ S⁻¹.
    exact = net.semantics.matrices_exact(net)  # type: ignore[attr-defined]
    for sym, r in enumerate(reps):
        want = s @ r @ s_inv
        if any(exact[sym][i, j] != want[i, j] for i in range(size) for j in range(size)):
            raise AssertionError("fixed-point construction: A is not S R S⁻¹")
    iterations: dict[str, int | None] = {}
    for sym in range(len(reps)):
        try:
            iterations[automaton.symbols[sym]] = iterate_fixed_point(
                net, sym, h0, tol=1e-9, max_iter=20_000)[1]
        except RuntimeError:  # proved convergent, but too slow to measure here
            iterations[automaton.symbols[sym]] = None
    options = dict(net.options, iterations=iterations)
    return Network(arch="fixed-point", params=net.params, symbols=net.symbols,
                   labels=net.labels, options=options, exact=net.exact, name=net.name)
