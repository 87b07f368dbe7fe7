"""Training benches (issue 12), baseline and fsmnet side by side in one process.

1. One training step (forward, backward, Adam) at batch 64, length 64, H = 64:
   the fast path (``logits(fast=True)``; on a CPU: the fused dense recurrence of
   fsmnet.train.fused, the count-vector GEMM of fsmnet.train.commuting for the
   diagonal classes) against the step-by-step torch loop of the same module
   (``fast=False``: per step gather the matrices/diagonals, multiply, rescale).
   The two alternate, best of N each, so load from other processes hits both.
2. A forward pass of a compiled network on 64 × 200 tokens: ``Network.to_torch()``
   against the float64 module ``to_torch()`` returned before issue 12 (kept
   verbatim below as ``OldLinearLoop``), called as its users called it (autograd
   on) and under ``torch.no_grad()``.
3. Training throughput (tokens/s) of ``fsmnet.train.loop.train`` per
   architecture at the default training shape (H = 16, batch 64, lengths 2–10).

Run from the repository root: ``python bench/bench_train.py [--quick] [--only 12]``.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from typing import Any

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
    """What ``Network.to_torch()`` returned before issue 12, verbatim (the deleted
    ``fsmnet/nets/torch_linear.py:LinearRecurrenceModule``, ``git show 5112a4a^``):
    float64 parameters that require gradients, one einsum over gathered (B, H, H)
    matrices per step.  Its callers (the old tests/test_torch_export.py) called
    ``module(words)`` with autograd on, so the bench times it that way ("as
    called") and also under ``torch.no_grad()``."""

    def __init__(self, matrices: np.ndarray, h0: np.ndarray, readout: np.ndarray) -> None:
        super().__init__()
        self.A = torch.nn.Parameter(torch.tensor(np.asarray(matrices), dtype=torch.float64))
        self.h0 = torch.nn.Parameter(torch.tensor(np.asarray(h0), dtype=torch.float64))
        self.readout = torch.nn.Parameter(torch.tensor(np.asarray(readout), dtype=torch.float64))

    def scores(self, words: torch.Tensor) -> torch.Tensor:
        batch, length = words.shape
        h = self.h0.expand(batch, -1)
        out = [h @ self.readout.T]
        for t in range(length):
            h = torch.einsum("bij,bj->bi", self.A[words[:, t]], h)
            # Positive rescaling changes no argmax and keeps h in range.
            h = h / h.abs().amax(dim=1, keepdim=True).clamp_min(1e-300)
            out.append(h @ self.readout.T)
        return torch.stack(out, dim=1)

    def forward(self, words: torch.Tensor) -> torch.Tensor:
        return self.scores(words).argmax(dim=-1)


def interleaved(repeat: int, *calls: tuple[Any, ...]) -> list[float]:
    """Best wall time of each call, the calls alternating ``repeat`` times, so that a
    burst of load from other processes hits baseline and fast path alike."""
    times: list[list[float]] = [[] for _ in calls]
    for _ in range(repeat):
        for acc, (fn, *args) in zip(times, calls):
            t0 = time.perf_counter()
            fn(*args)
            acc.append(time.perf_counter() - t0)
    return [min(t) for t in times]


def load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load {one:.2f} {five:.2f} {fifteen:.2f}"


def training_step(module: torch.nn.Module, opt: torch.optim.Optimizer, words: torch.Tensor,
                  labels: torch.Tensor, fast: bool) -> None:
    logits = module.logits(words, fast=fast)
    loss = torch.nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]),
                                             labels.reshape(-1))
    opt.zero_grad()
    loss.backward()
    opt.step()


def bench_step(arch: str, hidden: int, batch: int, length: int, repeat: int,
               chunked: bool) -> tuple[float, float, float | None]:
    """(step loop, fast path, chunked scan) seconds for one training step; the chunked
    column (``--chunked`` only: seconds per step on a CPU) is None except for the
    dense single-block classes."""
    from fsmnet.train import scan

    torch.manual_seed(0)
    module = convert.build(arch, 3, 3, hidden)
    opt = torch.optim.Adam(module.parameters(), lr=1e-3)
    words = torch.randint(0, 3, (batch, length))
    labels = torch.randint(0, 3, (batch, length + 1))
    training_step(module, opt, words, labels, True)  # warm-up (allocator, first calls)
    loop, fast = interleaved(repeat, (training_step, module, opt, words, labels, False),
                             (training_step, module, opt, words, labels, True))
    slow = None
    if chunked and getattr(module, "diagonal", True) is False:
        auto = scan.dense_auto
        scan.dense_auto = scan.dense_scan  # what a GPU run takes
        try:
            slow = best(1, training_step, module, opt, words, labels, True)
        finally:
            scan.dense_auto = auto
    return loop, fast, slow


def bench_forward(spec: str, arch: str, repeat: int) -> tuple[int, float, float, float]:
    """(H, old loop as called, old loop under no_grad, to_torch()) for 64 × 200 tokens."""
    net = fsmnet.compile(spec, arch)
    sem = net.semantics
    old = OldLinearLoop(sem.matrices_float(net), net.params["h0"], net.params["readout"])
    new = net.to_torch()
    words = torch.tensor(np.random.default_rng(0).integers(0, len(net.symbols), (64, 200)))
    assert torch.equal(old(words), new(words))  # same labels, or the ratio means nothing

    def no_grad_old(w: torch.Tensor) -> None:
        with torch.no_grad():
            old(w)

    t_old, t_old_ng, t_new = interleaved(repeat, (old, words), (no_grad_old, words),
                                         (new, words))
    return net.hidden_size, t_old, t_old_ng, t_new


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="fewer repeats")
    parser.add_argument("--threads", type=int, default=1,
                        help="torch threads (1: on 2 shared cores, 2 threads spin and thrash)")
    parser.add_argument("--chunked", action="store_true",
                        help="also time the chunked scan (the GPU path) on the CPU: seconds")
    parser.add_argument("--only", default="123", help="sections to run, e.g. 12")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    repeat = 3 if args.quick else 5
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads, {load()}")

    if "1" in args.only:
        print("\n1. one training step, batch 64, length 64, H = 64 (minmax-dense: H = 16)")
        print(f"{'arch':24s} {'step loop':>10s} {'fast path':>10s} {'ratio':>7s} "
              f"{'chunked scan':>12s} {'ratio':>7s}")
        for arch in [*LINEAR, "minmax-dense", "minmax-cascade"]:
            hidden = 16 if arch == "minmax-dense" else 64
            loop, fast, chunked = bench_step(arch, hidden, 64, 64, repeat, args.chunked)
            tail = "" if chunked is None else f" {chunked * 1e3:10.1f}ms {loop / chunked:6.2f}x"
            print(f"{arch:24s} {loop * 1e3:8.1f}ms {fast * 1e3:8.1f}ms {loop / fast:6.2f}x"
                  f"{tail}", flush=True)
        print(load())

    if "2" in args.only:
        print("\n2. forward pass of a compiled network on 64 x 200 tokens: the old float64 "
              "loop as called (autograd on) and under no_grad, against to_torch()")
        print(f"{'network':34s} {'H':>4s} {'old, as called':>14s} {'no_grad':>9s} "
              f"{'to_torch()':>10s} {'ratio':>7s} {'vs no_grad':>10s}")
        for spec, arch in [("symmetric:4", "bilinear-full"), ("random:n=40,k=3,seed=1",
                                                              "bilinear-full"),
                           ("modadd:7", "bilinear-cp"), ("modadd:3", "bilinear-r2"),
                           ("symmetric:3", "deltaproduct"), ("symmetric:4", "deltaproduct")]:
            h, t_old, t_ng, t_new = bench_forward(spec, arch, repeat)
            print(f"{spec + ' ' + arch:34s} {h:4d} {t_old * 1e3:12.1f}ms {t_ng * 1e3:7.1f}ms "
                  f"{t_new * 1e3:8.2f}ms {t_old / t_new:6.1f}x {t_ng / t_new:9.1f}x", flush=True)
        print(load())

    if "3" in args.only:
        print("\n3. training throughput, H = 16, batch 64, lengths 2-10 (fast path, 1 thread)")
        for arch, spec in [("bilinear-full", "modadd:3"), ("bilinear-cp", "modadd:3"),
                           ("bilinear-block", "modadd:3"), ("bilinear-r2", "modadd:3"),
                           ("bilinear-real-diag", "modadd:3"),
                           ("bilinear-positive-diag", "modadd:3"),
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
        print(load())


if __name__ == "__main__":
    main()
