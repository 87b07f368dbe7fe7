"""Training benches (issue 12), baseline and fsmnet side by side in one process.

1. One training step (forward, backward, Adam) at batch 64, length 64, H = 64:
   the fast path (``logits(fast=True)``: chunked / log-space / doubling scans)
   against the step-by-step torch loop of the same module (``fast=False``).
2. A forward pass of a compiled network on 64 × 200 tokens: ``Network.to_torch()``
   (float32 modules of fsmnet.train) against the float64 per-step loop that
   ``to_torch()`` returned before (kept below as ``OldLinearLoop``, a copy of
   the deleted module's loop, so the baseline stays measurable).
3. Training throughput (tokens/s) of ``fsmnet.train.loop.train`` per
   architecture at the default training shape (H = 16, batch 64, lengths 2–10).

Run from the repository root: ``python bench/bench_train.py [--quick]``.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np
import torch

sys.path.insert(0, "bench")
from timing import best  # noqa: E402

import fsmnet  # noqa: E402
from fsmnet.train import convert  # noqa: E402
from fsmnet.train.loop import TrainConfig, train  # noqa: E402

LINEAR = ["bilinear-full", "bilinear-cp", "bilinear-block", "bilinear-r2", "bilinear-real-diag",
          "bilinear-positive-diag", "deltaproduct", "deltanet", "fixed-point"]


class OldLinearLoop(torch.nn.Module):
    """The float64 loop ``to_torch()`` returned before issue 12 (baseline copy)."""

    def __init__(self, matrices: np.ndarray, h0: np.ndarray, readout: np.ndarray) -> None:
        super().__init__()
        self.A = torch.nn.Parameter(torch.tensor(np.asarray(matrices), dtype=torch.float64))
        self.h0 = torch.nn.Parameter(torch.tensor(np.asarray(h0), dtype=torch.float64))
        self.readout = torch.nn.Parameter(torch.tensor(np.asarray(readout), dtype=torch.float64))

    def forward(self, words: torch.Tensor) -> torch.Tensor:
        batch, length = words.shape
        h = self.h0.expand(batch, -1)
        out = [h @ self.readout.T]
        for t in range(length):
            h = torch.einsum("bij,bj->bi", self.A[words[:, t]], h)
            h = h / h.abs().amax(dim=1, keepdim=True).clamp_min(1e-300)
            out.append(h @ self.readout.T)
        return torch.stack(out, dim=1).argmax(dim=-1)


def training_step(module: torch.nn.Module, opt: torch.optim.Optimizer, words: torch.Tensor,
                  labels: torch.Tensor, fast: bool) -> None:
    logits = module.logits(words, fast=fast)
    loss = torch.nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]),
                                             labels.reshape(-1))
    opt.zero_grad()
    loss.backward()
    opt.step()


def bench_step(arch: str, hidden: int, batch: int, length: int,
               repeat: int) -> tuple[float, float, float | None]:
    """(step loop, fast path, chunked scan) seconds for one training step; the chunked
    column is None where the fast path already is a scan (diagonal, max-min)."""
    from fsmnet.train import scan

    torch.manual_seed(0)
    module = convert.build(arch, 3, 3, hidden)
    opt = torch.optim.Adam(module.parameters(), lr=1e-3)
    words = torch.randint(0, 3, (batch, length))
    labels = torch.randint(0, 3, (batch, length + 1))
    fast = best(repeat, training_step, module, opt, words, labels, True)
    loop = best(repeat, training_step, module, opt, words, labels, False)
    chunked = None
    if getattr(module, "diagonal", True) is False or arch == "bilinear-block":
        auto = scan.dense_auto
        scan.dense_auto = scan.dense_scan  # what a GPU run takes
        try:
            chunked = best(repeat, training_step, module, opt, words, labels, True)
        finally:
            scan.dense_auto = auto
    return loop, fast, chunked


def bench_forward(spec: str, arch: str, repeat: int) -> tuple[int, float, float]:
    net = fsmnet.compile(spec, arch)
    sem = net.semantics
    old = OldLinearLoop(sem.matrices_float(net), net.params["h0"], net.params["readout"])
    new = net.to_torch()
    words = torch.tensor(np.random.default_rng(0).integers(0, len(net.symbols), (64, 200)))
    with torch.no_grad():
        assert torch.equal(old(words), new(words))  # same labels, or the ratio means nothing
        t_old = best(repeat, old, words)
        t_new = best(repeat, new, words)
    return net.hidden_size, t_old, t_new


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="fewer repeats")
    parser.add_argument("--threads", type=int, default=1,
                        help="torch threads (1: on 2 shared cores, 2 threads spin and thrash)")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    repeat = 2 if args.quick else 3
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads")

    print("\n1. one training step, batch 64, length 64, H = 64 (minmax-dense: H = 16)")
    print(f"{'arch':24s} {'step loop':>10s} {'fast path':>10s} {'ratio':>7s} "
          f"{'chunked scan':>12s} {'ratio':>7s}")
    for arch in [*LINEAR, "minmax-dense", "minmax-cascade"]:
        hidden = 16 if arch == "minmax-dense" else 64
        loop, fast, chunked = bench_step(arch, hidden, 64, 64, repeat)
        tail = "" if chunked is None else f" {chunked * 1e3:10.1f}ms {loop / chunked:6.2f}x"
        print(f"{arch:24s} {loop * 1e3:8.1f}ms {fast * 1e3:8.1f}ms {loop / fast:6.2f}x{tail}",
              flush=True)

    print("\n2. forward pass of a compiled network on 64 x 200 tokens")
    print(f"{'network':34s} {'H':>4s} {'old f64 loop':>12s} {'to_torch()':>10s} {'ratio':>7s}")
    for spec, arch in [("symmetric:4", "bilinear-full"), ("random:n=40,k=3,seed=1",
                                                          "bilinear-full"),
                       ("modadd:7", "bilinear-cp"), ("modadd:3", "bilinear-r2"),
                       ("symmetric:3", "deltaproduct")]:
        h, t_old, t_new = bench_forward(spec, arch, repeat)
        print(f"{spec + ' ' + arch:34s} {h:4d} {t_old * 1e3:10.1f}ms {t_new * 1e3:8.1f}ms "
              f"{t_old / t_new:6.1f}x", flush=True)

    print("\n3. training throughput, H = 16, batch 64, lengths 2-10 (fast path, 1 thread)")
    for arch, spec in [("bilinear-full", "modadd:3"), ("bilinear-cp", "modadd:3"),
                       ("bilinear-block", "modadd:3"), ("bilinear-r2", "modadd:3"),
                       ("bilinear-real-diag", "modadd:3"), ("bilinear-positive-diag", "modadd:3"),
                       ("deltaproduct", "symmetric:3"), ("deltanet", "parity"),
                       ("deltanet-neg", "parity"), ("fixed-point", "symmetric:3"),
                       ("minmax-dense", "flipflop"), ("minmax-cascade", "flipflop"),
                       ("lstm", "modadd:3")]:
        steps = 30 if args.quick else 60
        t0 = time.perf_counter()
        r = train(spec, TrainConfig(arch=arch, hidden=16, steps=steps, batch=64, threads=1))
        wall = time.perf_counter() - t0
        print(f"{arch:24s} {r.tokens / r.seconds:10.0f} tokens/s  ({spec}, {steps} steps, "
              f"{wall:.1f} s)", flush=True)
        torch.set_num_threads(args.threads)


if __name__ == "__main__":
    main()
