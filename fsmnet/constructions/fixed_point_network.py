"""The network of a conjugated encoding, A_σ = S R_σ S⁻¹, shared by the fixed-point
constructions (:mod:`fsmnet.constructions.fixed_point` for permutation automata,
:mod:`fsmnet.constructions.fixed_point_group_reset` for permutations and resets).

R_σ is the letter on simple coordinates (a signed permutation with unit channels,
or a contraction in homogeneous coordinates); S is the tuned or random
conjugation that makes the fixed-point iteration converge.  Λ_σ is given per
letter, Q_σ = (Λ_σ⁻¹ − I)⁻¹(A_σ⁻¹ − I) follows, and the result is self-checked
exactly (the network's A_σ must be S R_σ S⁻¹ in Fractions).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np

from fsmnet.automata import Automaton
from fsmnet.constructions.fixed_point_budget import StepBudget
from fsmnet.nets import Network
from fsmnet.nets.fixed_point import exact_inverse, iterate_fixed_point

TUNING_SEEDS = 6
"""Seeds the tuned encoding tries, in order, before the untuned search."""
LARGE_TUNING = 16
"""Above this many coordinates only :data:`LARGE_TUNING_SEEDS` seeds are tried."""
LARGE_TUNING_SEEDS = 2
"""Mid-sized groups succeed on an early seed or not at all (docs/performance.md,
"Fixed-point networks for permutation-reset automata"), so later seeds only cost
time.  Such groups try two quotients first (fsmnet.constructions.fixed_point_split)."""


def tuning_seeds(size: int) -> int:
    """How many seeds the tuning tries for an encoding of ``size`` coordinates."""
    return TUNING_SEEDS if size <= LARGE_TUNING else LARGE_TUNING_SEEDS


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
