"""fixed-point at large H: an *exactly* block-diagonal tuned encoding.

Above ``LIMITS.proof_size`` coordinates the exact Schur-Cohn proof on the full
rounded S of :mod:`fsmnet.constructions.fixed_point_tuning` is too slow.  Here the
invariant subspaces are rational, so

    S = blockdiag(S_i) W⁻¹,    W⁻¹ R_σ W = blockdiag(ρ_i(σ))   (exactly),

every B_σ = S R_σᵀ... is block diagonal exactly, M_σ = I − Λ_σ B_σ is block
diagonal, and ρ(M_σ) < 1 is proved block by block (a few coordinates each).

Rational copies of each irreducible component (docs/constructions-deltaproduct-
fixedpoint.md, "Large H"):

* χ, the integer character of a float block (invariant_blocks), gives the
  integer matrix E_χ = Σ_g χ(g⁻¹) R_g, a multiple of the central idempotent of
  its isotypic component.
* For a subgroup K with a small fixed space in ρ_χ (ideally 1-dimensional:
  Young subgroups for S_n), X = E_χ Σ_{k∈K} R_k has rank-r image in ρ_χ, so
  the spin of a column X e_j under the group is r copies of ρ_χ or nothing.
* Spinning every copy by the *same* group elements g_1..g_d makes every copy's
  block matrix identical (the copies are images of one cyclic module), so each
  block type is tuned and proved once.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING

import numpy as np

from fsmnet.constructions.fixed_point_limits import LIMITS
from fsmnet.constructions.fixed_point_tuning import dense, invariant_blocks, signed_closure

if TYPE_CHECKING:
    from fsmnet.automata import Automaton
    from fsmnet.nets import Network

@dataclass(frozen=True)
class ExactBlocks:
    """W (integer columns, grouped) and the exact block matrices of every letter."""

    w: np.ndarray                      # (H, H) integer, columns grouped by block
    sizes: list[int]                   # block sizes, in column order
    mats: list[list[np.ndarray]]       # mats[block][letter]: ρ_block(σ), Fraction (d, d)


def _float_rank(cols: list[np.ndarray]) -> int:
    if not cols:
        return 0
    m = np.array(cols, dtype=np.float64)
    return int(np.linalg.matrix_rank(m, tol=1e-8 * max(1.0, float(np.max(np.abs(m))))))


Signed = tuple[np.ndarray, np.ndarray]


def _key(g: Signed) -> bytes:
    return g[0].tobytes() + g[1].tobytes()


def _subgroup(group: list[Signed], index: dict[bytes, int], gens: list[int]) -> list[int]:
    members = {0}
    frontier = [0]
    while frontier:
        nxt = []
        for i in frontier:
            hp, hs = group[i]
            for j in gens:
                gp, gs = group[j]
                k = index[_key((gp[hp], gs[hp] * hs))]
                if k not in members:
                    members.add(k)
                    nxt.append(k)
        frontier = nxt
    return sorted(members)


def _best_subgroup(rho: list[np.ndarray], group: list[Signed], index: dict[bytes, int],
                   rng: np.random.Generator) -> list[int]:
    """A subgroup K minimizing rank ρ(Σ_K k) ≥ 1: trivial, cyclic, then 2-generated.
    (Young subgroups give rank 1 for every irreducible of S_n.)"""
    best, best_rank = [0], rho[0].shape[0]
    trials: list[list[int]] = [[g] for g in range(len(group))]
    pairs = rng.integers(0, len(group), (min(400, len(group) ** 2), 2))
    trials += [[int(a), int(b)] for a, b in pairs]
    for gens in trials:
        members = _subgroup(group, index, gens)
        rank = int(np.linalg.matrix_rank(sum(rho[k] for k in members), tol=1e-6))
        if 1 <= rank < best_rank:
            best, best_rank = members, rank
            if rank == 1:
                break
    return best


def exact_blocks(reps: list[np.ndarray], rng: np.random.Generator) -> ExactBlocks | None:
    """Rational invariant subspaces with identical block matrices per component, or None
    (group too large, or a character that is not integral)."""
    size = reps[0].shape[0]
    signed = signed_closure(reps, LIMITS.group_elements)
    if signed is None:
        return None
    index = {_key(g): i for i, g in enumerate(signed)}
    group = [dense(g) for g in signed]
    by_char: dict[tuple[int, ...], list[np.ndarray]] = {}
    for b in invariant_blocks(reps, rng):
        traces = np.array([np.trace(b.T @ g @ b) for g in group])
        chi = np.rint(traces)
        if np.max(np.abs(traces - chi)) > 1e-6:
            return None  # an irrational character: its Galois conjugates are not handled
        by_char.setdefault(tuple(int(x) for x in chi), []).append(b)
    inv = [index[_key((np.argsort(p), s[np.argsort(p)]))] for p, s in signed]
    columns: list[np.ndarray] = []
    sizes: list[int] = []
    for chi, blocks in by_char.items():
        total = sum(b.shape[1] for b in blocks)
        e = np.sum([chi[inv[i]] * g for i, g in enumerate(group)], axis=0)
        rho = [blocks[0].T @ g @ blocks[0] for g in group]
        k = _best_subgroup(rho, signed, index, rng)
        x = e @ np.sum([group[i] for i in k], axis=0)
        template: list[int] | None = None
        mine: list[np.ndarray] = []
        for j in range(size):
            v = x[:, j]
            if not np.any(v) or _float_rank(mine + [v]) == len(mine):
                continue
            if template is None:  # the group elements that spin v to a basis of its copy
                template = []
                spun: list[np.ndarray] = []
                for gi, g in enumerate(group):
                    if _float_rank(spun + [g @ v]) > len(spun):
                        spun.append(g @ v)
                        template.append(gi)
            copy = [group[gi] @ v for gi in template]
            if _float_rank(mine + copy) < len(mine) + len(copy):
                continue
            mine += copy
            columns += copy
            sizes.append(len(copy))
            if len(mine) == total:
                break
        if len(mine) != total:
            return None
    w = np.array(columns, dtype=np.int64).T
    mats = _block_matrices(w, sizes, reps)
    return None if mats is None else ExactBlocks(w=w, sizes=sizes, mats=mats)


def _block_matrices(w: np.ndarray, sizes: list[int],
                    reps: list[np.ndarray]) -> list[list[np.ndarray]] | None:
    """ρ_c(σ) with R_σ W_c = W_c ρ_c(σ), checked exactly; None if some span is not
    invariant or W is singular (the float decisions above are only heuristics)."""
    from sympy import ZZ
    from sympy.polys.matrices import DomainMatrix

    from fsmnet.nets.fixed_point import exact_inverse

    n = w.shape[0]
    if DomainMatrix([[ZZ(int(x)) for x in row] for row in w], (n, n), ZZ).det() == 0:
        return None
    out, at = [], 0
    for d in sizes:
        wc = w[:, at:at + d]
        at += d
        rows = _independent_rows(wc)
        top_inv = exact_inverse(np.array([[Fraction(int(x)) for x in wc[r]] for r in rows],
                                         dtype=object))
        per_letter = []
        for r in reps:
            img = np.asarray(r, dtype=np.int64) @ wc
            rho = top_inv.dot(np.array([[Fraction(int(x)) for x in img[i]] for i in rows],
                                       dtype=object))
            if not np.array_equal(wc.astype(object).dot(rho), img.astype(object)):
                return None
            per_letter.append(rho)
        out.append(per_letter)
    return out


def _independent_rows(wc: np.ndarray) -> list[int]:
    rows: list[int] = []
    for i in range(wc.shape[0]):
        if _float_rank([wc[j] for j in rows] + [wc[i]]) > len(rows):
            rows.append(i)
            if len(rows) == wc.shape[1]:
                break
    return rows


# ------------------------------------------------------------------ block types and tuning
@dataclass(frozen=True)
class BlockType:
    """Copies merged into one block, plus extra channels ("det" follows det ρ(σ), "unit" is
    fixed), with the tuned exact S_i and Λ per letter."""

    copies: int
    channels: tuple[str, ...]
    mats: list[np.ndarray]            # per letter, Fraction (d, d), channels included
    s: list[list[int]]
    lambdas: list[list[Fraction]]
    radii: list[float]


def _with_channels(mats: list[np.ndarray], copies: int, channels: tuple[str, ...]
                   ) -> list[np.ndarray]:
    out = []
    for m in mats:
        d = m.shape[0]
        det = 1 if np.linalg.det(np.array(m, dtype=np.float64)) > 0 else -1
        size = copies * d + len(channels)
        big = np.array([[Fraction(0)] * size for _ in range(size)], dtype=object)
        for c in range(copies):
            big[c * d:(c + 1) * d, c * d:(c + 1) * d] = m
        for i, ch in enumerate(channels):
            big[copies * d + i, copies * d + i] = Fraction(det if ch == "det" else 1)
        out.append(big)
    return out


OPTIONS: tuple[tuple[int, tuple[str, ...]], ...] = (
    (1, ()), (1, ("det",)), (1, ("det", "unit")), (2, ()), (1, ("unit",)),
    (1, ("det", "unit", "unit")), (2, ("unit",)))
"""(copies per block, extra channels), tried in this order for each component."""


def tune_type(mats: list[np.ndarray], count: int, seed: int) -> BlockType | None:
    """The option of ``OPTIONS`` with the smallest tuned radius (the first one below
    ``LIMITS.target_radius`` ends the search) whose block is then proved exactly."""
    from fsmnet.constructions.fixed_point_tuning import _hopeless, tune_block

    found: list[tuple[float, int, tuple[str, ...], list[np.ndarray], np.ndarray,
                      np.ndarray]] = []
    for copies, channels in OPTIONS:
        if count % copies:
            continue
        big = _with_channels(mats, copies, channels)
        floats = [np.array(m, dtype=np.float64) for m in big]
        if _hopeless(floats) or floats[0].shape[0] > LIMITS.exact_block:
            continue
        radius, s_f, lam = tune_block([np.linalg.inv(m).T for m in floats], seed)
        if radius < 1 - 1e-3:
            found.append((radius, copies, channels, big, s_f, lam))
            if radius < LIMITS.target_radius:
                break
    for _, copies, channels, big, s_f, lam in sorted(found, key=lambda f: f[0]):
        exact = _exact_block(big, s_f, lam)
        if exact is not None:
            return BlockType(copies, channels, big, *exact)
    return None


def _exact_block(mats: list[np.ndarray], s_f: np.ndarray, lam0: np.ndarray
                 ) -> tuple[list[list[int]], list[list[Fraction]], list[float]] | None:
    from math import lcm

    from fsmnet.constructions.fixed_point_search import dyadic, float_radius
    from fsmnet.constructions.fixed_point_tuning import _polish
    from fsmnet.nets.fixed_point import exact_inverse, radius_below_one

    for bits in (12, 16, 20):
        s_int = np.rint(s_f * (2.0**bits / np.max(np.abs(s_f)))).astype(np.int64)
        if abs(np.linalg.det(s_int.astype(np.float64))) < 0.5:
            continue
        s_q = np.array([[Fraction(int(x)) for x in row] for row in s_int], dtype=object)
        s_inv = exact_inverse(s_q)
        lambdas, radii = [], []
        for sym, m in enumerate(mats):
            b = s_q.dot(exact_inverse(m)).dot(s_inv)
            den = lcm(*(x.denominator for x in b.ravel()))
            num = [[int(x * den) for x in row] for row in b]
            bf = np.array(num, dtype=np.float64) / den
            exact = [dyadic(float(x)) for x in _polish(bf, lam0[sym])]
            if not radius_below_one(exact, num, den):
                break
            lambdas.append(exact)
            radii.append(float_radius(np.array([float(x) for x in exact]), bf))
        if len(lambdas) == len(mats):
            return s_int.tolist(), lambdas, radii
    return None


# ------------------------------------------------------------------ the network
def compile_fixed_point_blocks(automaton: Automaton, *, seed: int = 0) -> Network:
    """Fixed-point network of a permutation automaton with an exactly block-diagonal
    tuned encoding, at any hidden size (the group must have at most
    ``LIMITS.group_elements`` elements and integral characters).

    Raises
    ------
    NotExpressible
        For a non-permutation letter, or when no such encoding is found.
    """
    from fsmnet.constructions.fixed_point_network import signed_letters
    from fsmnet.errors import NotExpressible

    letters = signed_letters(automaton)
    net = compile_exact_blocks(automaton, letters.reps, letters.sign_channel, seed)
    if net is None:
        raise NotExpressible("fixed-point: no exactly block-diagonal encoding was found (a "
                             f"group above {LIMITS.group_elements} elements, a character "
                             "that is not integral, or a component that no option tunes "
                             "below 1)")
    return net


def compile_exact_blocks(automaton: Automaton, reps: list[np.ndarray], extra: bool,
                         seed: int) -> Network | None:
    """The fixed-point network of an exactly block-diagonal tuned encoding, or None."""
    from fsmnet.nets import Network
    from fsmnet.nets.fixed_point import FIXED_POINT, exact_inverse, iterate_fixed_point

    rng = np.random.default_rng(seed)
    eb = exact_blocks(reps, rng)
    if eb is None:
        return None
    types: dict[tuple[str, ...], list[int]] = {}
    for c, mats in enumerate(eb.mats):
        types.setdefault(tuple(str(x) for m in mats for x in m.ravel()), []).append(c)
    chosen = {}
    for key, copies in types.items():
        bt = tune_type(eb.mats[copies[0]], len(copies), seed)
        if bt is None:
            return None
        chosen[key] = bt
    n0, k = eb.w.shape[0], len(reps)
    starts = np.cumsum([0] + eb.sizes)
    hidden = n0 + sum(len(chosen[key].channels) * len(c) // chosen[key].copies
                      for key, c in types.items())
    w = np.zeros((hidden, hidden), dtype=np.int64)
    layout: list[BlockType] = []
    col, chan = 0, n0
    for key, copies in types.items():
        bt = chosen[key]
        for g in range(0, len(copies), bt.copies):
            for c in copies[g:g + bt.copies]:
                d = eb.sizes[c]
                w[:n0, col:col + d] = eb.w[:, starts[c]:starts[c] + d]
                col += d
            for _ in bt.channels:
                w[chan, col] = 1
                chan, col = chan + 1, col + 1
            layout.append(bt)
    # exact B_σ = blockdiag(S_i ρ_i(σ)⁻¹ S_i⁻¹), Λ_σ, Q_σ
    lam = [[Fraction(0)] * hidden for _ in range(k)]
    b_net = [np.array([[Fraction(0)] * hidden for _ in range(hidden)], dtype=object)
             for _ in range(k)]
    s_inv_blocks, at = [], 0
    for bt in layout:
        d = len(bt.s)
        s_q = np.array([[Fraction(x) for x in row] for row in bt.s], dtype=object)
        s_inv = exact_inverse(s_q)
        s_inv_blocks.append(s_inv)
        for sym in range(k):
            b_net[sym][at:at + d, at:at + d] = s_q.dot(exact_inverse(bt.mats[sym])).dot(s_inv)
            lam[sym][at:at + d] = bt.lambdas[sym]
        at += d
    q_exact = []
    for sym in range(k):
        ratio = [x / (1 - x) for x in lam[sym]]
        q_exact.append([[ratio[i] * (b_net[sym][i, j] - int(i == j)) for j in range(hidden)]
                        for i in range(hidden)])
    h0_exact, readout_exact = _ends(automaton, w, layout, s_inv_blocks, extra, n0)
    to_f = np.vectorize(float, otypes=[np.float64])
    net = Network(
        arch="fixed-point",
        params={"Lambda": to_f(np.array(lam, dtype=object)),
                "Q": to_f(np.array(q_exact, dtype=object)),
                "h0": to_f(h0_exact), "readout": to_f(readout_exact)},
        symbols=automaton.symbols, labels=automaton.labels,
        options={"construction": "tuned exact blocks", "seed": seed, "sign_channel": extra,
                 "blocks": [len(bt.s) for bt in layout],
                 "channels": [list(bt.channels) for bt in layout],
                 "W": w.tolist(), "block_S": [bt.s for bt in layout],
                 "spectral_radius": {automaton.symbols[s]: max(bt.radii[s] for bt in layout)
                                     for s in range(k)},
                 "radius_proved_below_one": True, "states": list(automaton.states)},
        exact={"Lambda": [[str(x) for x in row] for row in lam],
               "Q": [[[str(x) for x in row] for row in m] for m in q_exact]},
        name=automaton.name)
    inv = FIXED_POINT.inverse_matrices(net, exact=True)
    for sym in range(k):  # exact self-check: A⁻¹ = I + (Λ⁻¹ − I)Q is the block B_σ
        if not np.array_equal(inv[sym], b_net[sym]):
            raise AssertionError("fixed-point exact blocks: A⁻¹ is not blockdiag(B_i)")
    iterations: dict[str, int | None] = {}
    for sym in range(k):
        try:
            iterations[automaton.symbols[sym]] = iterate_fixed_point(
                net, sym, net.params["h0"], tol=1e-9, max_iter=20_000)[1]
        except RuntimeError:
            iterations[automaton.symbols[sym]] = None
    return Network(arch="fixed-point", params=net.params, symbols=net.symbols,
                   labels=net.labels, options=dict(net.options, iterations=iterations),
                   exact=net.exact, name=net.name)


def _ends(automaton: Automaton, w: np.ndarray, layout: list[BlockType],
          s_inv_blocks: list[np.ndarray], extra: bool, n0: int
          ) -> tuple[np.ndarray, np.ndarray]:
    """h0 = blockdiag(S_i) W⁻¹ base and readout = onehot W blockdiag(S_i⁻¹), exactly."""
    from sympy import QQ
    from sympy.polys.matrices import DomainMatrix

    hidden, n = w.shape[0], automaton.n_states
    base = [0] * hidden
    assert automaton.initial is not None
    base[automaton.initial] = 1
    for i in range(n, hidden):  # sign channel and extra channels start at 1
        base[i] = 1
    dm = DomainMatrix([[QQ(int(x)) for x in row] for row in w], (hidden, hidden), QQ)
    rhs = DomainMatrix([[QQ(x)] for x in base], (hidden, 1), QQ)
    y = [Fraction(int(v.numerator), int(v.denominator))
         for v in dm.lu_solve(rhs).to_Matrix()]
    onehot = np.zeros((len(automaton.labels), hidden), dtype=np.int64)
    onehot[automaton.output_ids, np.arange(n)] = 1
    left = (onehot @ w).astype(object)
    h0, readout, at = [], np.zeros((len(automaton.labels), hidden), dtype=object), 0
    for bt, s_inv in zip(layout, s_inv_blocks):
        d = len(bt.s)
        s_q = np.array([[Fraction(x) for x in row] for row in bt.s], dtype=object)
        h0 += list(s_q.dot(np.array(y[at:at + d], dtype=object)))
        readout[:, at:at + d] = left[:, at:at + d].dot(s_inv)
        at += d
    return np.array(h0, dtype=object), readout
