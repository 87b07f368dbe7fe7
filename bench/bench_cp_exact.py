"""Exact CP matrices benchmark (``python bench/bench_cp_exact.py``; not a test).

Baseline: U diag(V[s]) Zᵀ over Python Fractions (every factor made a Fraction, the
object-array product), what ``CPBilinear.matrices_exact`` computed for trained
(non-integer) factors.  fsmnet: the same product on integers over one power of two
per factor (``fsmnet.nets.bilinear._dyadic_cp_matrices``).  Subject: random float64
factors of a trained-size net, hidden H = rank, S symbols: the matrices the float32
reference execution rounds, built once per validation of a training checkpoint.
Prints both times and the ratio, and checks that the two give the same Fractions.
"""

from __future__ import annotations

import sys

import numpy as np

sys.path.insert(0, "bench")

from timing import best  # noqa: E402

from fsmnet.nets.bilinear import _dyadic_cp_matrices  # noqa: E402
from fsmnet.nets.linear import to_fractions  # noqa: E402


def fraction_matrices(u: np.ndarray, v: np.ndarray, z: np.ndarray) -> np.ndarray:
    uf, vf, zf = (to_fractions(t) for t in (u, v, z))
    return np.array([(uf * vf[s]).dot(zf.T) for s in range(vf.shape[0])], dtype=object)


def main() -> None:
    for hidden, symbols in ((16, 5), (32, 10), (56, 50)):
        rng = np.random.default_rng(hidden)
        u, v, z = (rng.standard_normal(shape) for shape in
                   ((hidden, hidden), (symbols, hidden), (hidden, hidden)))
        repeat = 1 if hidden > 32 else 3
        base = best(repeat, fraction_matrices, u, v, z)
        ours = best(repeat, _dyadic_cp_matrices, u, v, z)
        same = bool(np.all(fraction_matrices(u, v, z) == _dyadic_cp_matrices(u, v, z)))
        print(f"H = rank = {hidden}, {symbols} symbols: Fractions {base:.3f} s, "
              f"scaled integers {ours:.3f} s, ratio {base / ours:.1f}x, same: {same}")


if __name__ == "__main__":
    main()
