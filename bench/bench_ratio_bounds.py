"""Chart-box bounds benchmark (``python bench/bench_ratio_bounds.py``; not a test).

Baseline: the same Dinkelbach iteration written with NumPy array operations
(all rows at once, as the search ran it before the compiled loop), kept here
as the reference.  Subjects: (1) one call on a 4 × 4 chart matrix, the size
of a small trained or compiled network; (2) ``certify --float32`` of the
compiled positive-diagonal ``atleast:3`` net with its readout scaled by 2⁻¹⁴⁰
(tests/test_adversarial_float32_archs.py), whose box searches fail and make
most of the run, with the baseline patched in for the same call in the same
process.  Prints both times and the ratio.
"""

from __future__ import annotations

import sys

import numpy as np

sys.path.insert(0, "bench")

from timing import best  # noqa: E402

import fsmnet  # noqa: E402
from fsmnet.proofs.abstract import ratio_bounds as kernels  # noqa: E402


def numpy_ratio_bounds(m: np.ndarray, p: int, lo: np.ndarray, hi: np.ndarray
                       ) -> tuple[np.ndarray, np.ndarray, float]:
    d = m[p]
    den_min = float(np.where(d >= 0, d * lo, d * hi).sum())
    out = []
    for sign in (1.0, -1.0):
        c = sign * m
        y = np.tile((lo + hi) / 2, (len(m), 1))
        lam = (c * y).sum(1) / (y @ d)
        for _ in range(kernels.STEPS):
            coef = c - lam[:, None] * d[None, :]
            y = np.where(coef >= 0, lo[None, :], hi[None, :])
            new = (c * y).sum(1) / (y @ d)
            if np.all(new >= lam - 1e-15 * (1 + np.abs(lam))):
                break
            lam = np.minimum(lam, new)
        out.append(sign * lam)
    return out[0], out[1], den_min


def one_call() -> None:
    rng = np.random.default_rng(0)
    m = rng.standard_normal((4, 4))
    m[0] = np.abs(m[0]) + 0.1
    lo, hi = np.ones(4), np.full(4, 2.0)
    kernels.ratio_bounds(m, 0, lo, hi)  # compile first
    n = 20_000
    base = best(3, lambda: [numpy_ratio_bounds(m, 0, lo, hi) for _ in range(n)]) / n
    mine = best(3, lambda: [kernels.ratio_bounds(m, 0, lo, hi) for _ in range(n)]) / n
    print(f"one 4x4 call: numpy {base * 1e6:.1f} us, compiled {mine * 1e6:.1f} us, "
          f"ratio {base / mine:.1f}x")


def certify_run() -> None:
    net = fsmnet.compile("atleast:3", "bilinear-positive-diag")
    net = net.with_params(readout=np.asarray(net.params["readout"]) * 2.0 ** -140)
    fsmnet.certify("atleast:3", net, float32=True)  # compile the kernels first
    mine = best(1, fsmnet.certify, "atleast:3", net, float32=True)
    compiled = kernels.ratio_bounds
    kernels.ratio_bounds = numpy_ratio_bounds
    try:
        base = best(1, fsmnet.certify, "atleast:3", net, float32=True)
    finally:
        kernels.ratio_bounds = compiled
    print(f"certify --float32 atleast:3 positive-diag (readout x 2^-140): numpy bounds "
          f"{base:.2f} s, compiled {mine:.2f} s, ratio {base / mine:.1f}x")


if __name__ == "__main__":
    one_call()
    certify_run()
