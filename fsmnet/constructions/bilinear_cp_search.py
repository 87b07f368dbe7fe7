"""The bounded rank search of bilinear-cp: CP factors with entries in {-1, 0, 1}, by Z3.

:func:`lower_rank` lowers a decomposition's rank one step at a time: each tried rank
R is a fresh Boolean problem (:class:`TernaryProblem`: W = Σ_{r<R} U ⊗ Z ⊗ V,
every factor entry two Booleans) in its own Z3 context, with a fixed seed and a
resource limit (Z3's machine-independent step counter), so the rank found
depends only on the automaton, the options and the Z3 version.  UNSAT rules
out {-1, 0, 1} factors only, and without symmetry breaking it is reached on tiny
cases alone; the search is not even encoded above :data:`SEARCH_MAX_CELLS`.
The construction that calls it: :mod:`fsmnet.constructions.bilinear_cp`.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

import numpy as np

from fsmnet.nets.sparse import SparseTensor

if TYPE_CHECKING:
    from fsmnet.constructions.bilinear_cp import Terms

# n²·|Σ|·R above which the Z3 search is not even encoded (the encoding alone
# would take seconds and the solver would time out anyway).
SEARCH_MAX_CELLS = 2_000
# Z3 resource units per tried rank: a count, so the search gives the same answer on
# any machine; modadd:3's rank 5 is found after ~1e6 units (its rank 4 is still open
# after 2e7), so this leaves a margin and stays in the order of a second.
DEFAULT_SEARCH_RLIMIT = 5_000_000
SEARCH_SEED = 0


class TernaryProblem:
    """W = Σ_{r<R} U[:, r] ⊗ Z[:, r] ⊗ V[:, r] with entries in {-1, 0, 1}, for Z3.

    Each entry is two Booleans (+1, -1, never both).  One fresh encoding per
    rank did better in a few trials than one incremental encoding with a
    cardinality bound, and the direct three-factor product better than sharing
    the U·Z products across symbols.
    """

    def __init__(self, w: np.ndarray, rank: int) -> None:
        import z3

        self.z3 = z3
        n, _, k = w.shape
        self.rank = rank
        # A fresh context: term ids (and so Z3's heuristics) do not depend on
        # whatever else this process asked Z3 before.
        ctx = z3.Context()

        def tern(prefix: str, rows: int) -> list[list[tuple[Any, Any]]]:
            return [[(z3.Bool(f"{prefix}{a}_{r}+", ctx), z3.Bool(f"{prefix}{a}_{r}-", ctx))
                     for r in range(rank)] for a in range(rows)]

        self.grids = (tern("u", n), tern("z", n), tern("v", k))
        uu, zz, vv = self.grids
        solver = z3.Solver(ctx=ctx)
        for grid in self.grids:
            for row in grid:
                for p, q in row:
                    solver.add(z3.Not(z3.And(p, q)))  # an entry is +1, -1 or 0
        for i in range(n):
            for j in range(n):
                for s in range(k):
                    lits = []
                    for r in range(rank):
                        (up, un), (zp, zn), (vp, vn) = uu[i][r], zz[j][r], vv[s][r]
                        # +1 with an even number of -1 factors, -1 with an odd one.
                        lits += [(z3.Or(z3.And(up, zp, vp), z3.And(up, zn, vn),
                                        z3.And(un, zp, vn), z3.And(un, zn, vp)), 1),
                                 (z3.Or(z3.And(un, zp, vp), z3.And(up, zn, vp),
                                        z3.And(up, zp, vn), z3.And(un, zn, vn)), -1)]
                    solver.add(z3.PbEq(lits, int(w[i, j, s])))
        self.solver = solver

    def solve(self, rlimit: int, timeout_s: float | None = None) -> Terms | str:
        """A decomposition with at most R nonzero terms, or ``"unsat"``/``"unknown"``.

        ``rlimit`` bounds Z3's deterministic resource counter; ``timeout_s`` is
        an optional wall-clock guard on top (None: none).
        """
        z3 = self.z3
        self.solver.set("random_seed", SEARCH_SEED)
        self.solver.set("rlimit", int(rlimit))
        if timeout_s is not None:
            self.solver.set("timeout", max(1, int(timeout_s * 1000)))
        verdict = self.solver.check()
        model = self.solver.model() if verdict == z3.sat else None
        if model is None:
            return "unsat" if verdict == z3.unsat else "unknown"

        def value(pair: tuple[Any, Any]) -> int:
            return int(z3.is_true(model.eval(pair[0], model_completion=True))) - int(
                z3.is_true(model.eval(pair[1], model_completion=True)))

        u, z, v = (np.array([[value(c) for c in row] for row in grid], dtype=np.int64)
                   for grid in self.grids)
        keep = [r for r in range(self.rank)
                if u[:, r].any() and v[:, r].any() and z[:, r].any()]
        return u[:, keep], v[:, keep], z[:, keep]


def lower_rank(w: SparseTensor, start: Terms, floor: int, rlimit: int,
            seconds: float | None) -> tuple[Terms, str]:
    """Lower the rank of ``start`` towards ``floor``, ``rlimit`` Z3 units per rank
    (and, when ``seconds`` is given, within that wall-clock guard, encoding included).
    W is made dense only for a problem small enough to encode."""
    deadline = None if seconds is None else time.monotonic() + seconds
    n, _, k = w.shape
    best = start
    while best[0].shape[1] > floor:
        target = best[0].shape[1] - 1
        if n * n * k * target > SEARCH_MAX_CELLS:
            return best, f"too large to search (n²·|Σ|·R = {n * n * k * target})"
        if deadline is not None and deadline - time.monotonic() <= 0:
            return best, f"time guard spent before trying rank {target} (not reproducible)"
        problem = TernaryProblem(w.to_dense().astype(np.int64), target)
        left = None if deadline is None else deadline - time.monotonic()
        found = problem.solve(rlimit, left) if left is None or left > 0 else "unknown"
        if isinstance(found, str):
            return best, (f"no {{-1,0,1}} decomposition of rank {target} (Z3 UNSAT)"
                          if found == "unsat" else
                          f"Z3 gave up at rank {target} (rlimit {rlimit}"
                          f"{'' if seconds is None else f', time guard {seconds} s'})")
        best = found
    return best, "reached the flattening lower bound"
