"""Scalar max-min recurrence on the CPU (``python bench/bench_scalar_scan.py``; not a test).

Baseline: ``scan.scalar_minmax_loop``, one Python step per symbol, what the trainable
MinMax cascade ran on the CPU at every length.  fsmnet: ``scan.scalar_minmax_scan``,
the log-depth doubling, which ``scalar_minmax_auto`` now takes on the CPU from
``SCALAR_SCAN_LENGTH`` symbols on.  Subject: one word of T symbols, 8 units (a
cascade layer), random gates.  Prints both times, the ratio, and whether the two give
the same values bit for bit (both only select among their inputs).
"""

from __future__ import annotations

import sys

import torch

sys.path.insert(0, "bench")

from timing import best  # noqa: E402

from fsmnet.train import scan  # noqa: E402


def main() -> None:
    torch.manual_seed(0)
    for length in (256, 1024, 10_000, 100_000):
        r, s = torch.rand(1, length, 8), 0.5 * torch.rand(1, length, 8)
        x0 = torch.full((8,), 0.5)
        repeat = 1 if length > 10_000 else 3
        base = best(repeat, scan.scalar_minmax_loop, r, s, x0)
        ours = best(repeat, scan.scalar_minmax_scan, r, s, x0)
        same = torch.equal(scan.scalar_minmax_loop(r, s, x0), scan.scalar_minmax_scan(r, s, x0))
        print(f"T = {length:>7}: loop {base:.4f} s, doubling {ours:.4f} s, "
              f"ratio {base / ours:.1f}x, same values: {same}", flush=True)


if __name__ == "__main__":
    main()
