"""Training benches (issue 12), baseline and fsmnet side by side in one process.

1. One training step (forward, backward, Adam) at batch 64, length 64, H = 64:
   the fast path (what ``fsmnet.train.loop.train`` runs: the module's ``loss``, on a
   CPU the fused dense recurrence of fsmnet.train.fused, the count-vector GEMM of
   fsmnet.train.commuting for the diagonal classes, the loss one autograd node of
   fsmnet.train.losses) against the step-by-step torch loop of the same module
   (``logits(fast=False)``: per step gather the matrices/diagonals, multiply, rescale;
   torch's cross-entropy), one Adam for both.  Best of N back-to-back runs each, the
   two taking turns twice; wall and CPU time.
2. A forward pass of a compiled network on 64 × 200 tokens: ``convert.to_torch(net)``
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
from fsmnet.train.loop import TrainConfig, step_loss, train  # noqa: E402

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


def timed(repeat: int, *calls: tuple[Any, ...], rounds: int = 2) -> list[tuple[float, float]]:
    """(best wall time, best CPU time of this thread) of each call.

    Each call runs ``repeat`` times back to back (warm, as steps of a training run
    are), the calls taking turns for ``rounds`` rounds so that a burst of load from
    other processes hits baseline and fast path alike.  On the shared cores the
    scheduler hands out ~4 ms slices: a 3 ms step often runs whole while a 100 ms loop
    is always preempted, so best *wall* times favour short calls; the thread's CPU
    time (torch runs on this thread at 1 intra-op thread) does not count the slices of
    other processes, and is the fair ratio under load.
    """
    wall: list[list[float]] = [[] for _ in calls]
    cpu: list[list[float]] = [[] for _ in calls]
    for _ in range(rounds):
        for w_acc, c_acc, (fn, *args) in zip(wall, cpu, calls):
            fn(*args)  # warm-up after the other call ran
            for _ in range(repeat):
                t0, c0 = time.perf_counter(), time.thread_time()
                fn(*args)
                c_acc.append(time.thread_time() - c0)
                w_acc.append(time.perf_counter() - t0)
    return [(min(w), min(c)) for w, c in zip(wall, cpu)]


def load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load {one:.2f} {five:.2f} {fifteen:.2f}"


def training_step(module: torch.nn.Module, opt: torch.optim.Optimizer, words: torch.Tensor,
                  labels: torch.Tensor, fast: bool) -> None:
    """One step as ``fsmnet.train.loop.train`` takes it (``fast``: the module's fused
    ``loss`` where it has one), or the step loop's logits with torch's cross-entropy."""
    if fast:
        loss = step_loss(module, words, labels)
    else:
        logits = module.logits(words, fast=False)
        loss = torch.nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]),
                                                 labels.reshape(-1))
    opt.zero_grad()
    loss.backward()
    opt.step()


def bench_step(arch: str, hidden: int, batch: int, length: int, repeat: int,
               chunked: bool) -> tuple[tuple[float, float], tuple[float, float], float | None]:
    """(step loop, fast path, chunked scan) seconds for one training step, the first two
    as (wall, CPU) pairs (:func:`timed`); the chunked
    column (``--chunked`` only: seconds per step on a CPU) is None except for the
    dense single-block classes."""
    from fsmnet.train import scan

    torch.manual_seed(0)
    module = convert.build(arch, 3, 3, hidden)
    opt = torch.optim.Adam(module.parameters(), lr=1e-3)
    words = torch.randint(0, 3, (batch, length))
    labels = torch.randint(0, 3, (batch, length + 1))
    loop, fast = timed(repeat, (training_step, module, opt, words, labels, False),
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


def bench_forward(spec: str, arch: str, repeat: int
                  ) -> tuple[int, tuple[float, float], tuple[float, float], tuple[float, float]]:
    """(H, old loop as called, old loop under no_grad, to_torch()) for 64 × 200 tokens,
    each as (wall, CPU) seconds."""
    net = fsmnet.compile(spec, arch)
    sem = net.semantics
    old = OldLinearLoop(sem.matrices_float(net), net.params["h0"], net.params["readout"])
    new = convert.to_torch(net)
    words = torch.tensor(np.random.default_rng(0).integers(0, len(net.symbols), (64, 200)))
    assert torch.equal(old(words), new(words))  # same labels, or the ratio means nothing

    def no_grad_old(w: torch.Tensor) -> None:
        with torch.no_grad():
            old(w)

    t_old, t_old_ng, t_new = timed(repeat, (old, words), (no_grad_old, words), (new, words))
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
        print("\n1. one training step, batch 64, length 64, H = 64 (minmax-dense: H = 16); "
              "best wall time, then best CPU time of the thread (the fair ratio under load)")
        print(f"{'arch':24s} {'step loop':>10s} {'fast path':>10s} {'ratio':>7s} "
              f"{'loop CPU':>9s} {'fast CPU':>9s} {'ratio':>7s}  chunked scan")
        for arch in [*LINEAR, "minmax-dense", "minmax-cascade"]:
            hidden = 16 if arch == "minmax-dense" else 64
            loop, fast, chunked = bench_step(arch, hidden, 64, 64, repeat, args.chunked)
            tail = "" if chunked is None else f"  {chunked * 1e3:.1f}ms {loop[0] / chunked:.2f}x"
            print(f"{arch:24s} {loop[0] * 1e3:8.1f}ms {fast[0] * 1e3:8.1f}ms "
                  f"{loop[0] / fast[0]:6.2f}x {loop[1] * 1e3:7.1f}ms {fast[1] * 1e3:7.1f}ms "
                  f"{loop[1] / fast[1]:6.2f}x{tail}", flush=True)
        print(load())

    if "2" in args.only:
        print("\n2. forward pass of a compiled network on 64 x 200 tokens: the old float64 "
              "module as called (autograd on) and under no_grad, against to_torch(); "
              "wall times, CPU-time ratios in brackets")
        print(f"{'network':34s} {'H':>3s} {'old, as called':>14s} {'no_grad':>8s} "
              f"{'to_torch()':>10s} {'ratio':>13s} {'vs no_grad':>13s}")
        for spec, arch in [("symmetric:4", "bilinear-full"), ("random:n=40,k=3,seed=1",
                                                              "bilinear-full"),
                           ("modadd:7", "bilinear-cp"), ("modadd:3", "bilinear-r2"),
                           ("symmetric:3", "deltaproduct"), ("symmetric:4", "deltaproduct")]:
            h, old, ng, new = bench_forward(spec, arch, repeat)
            print(f"{spec + ' ' + arch:34s} {h:3d} {old[0] * 1e3:12.1f}ms {ng[0] * 1e3:6.1f}ms "
                  f"{new[0] * 1e3:8.2f}ms {old[0] / new[0]:5.1f}x [{old[1] / new[1]:4.1f}x] "
                  f"{ng[0] / new[0]:5.1f}x [{ng[1] / new[1]:4.1f}x]", flush=True)
        print(load())

    if "3" in args.only:
        print("\n3. training throughput, H = 16, batch 64, lengths 2-10 (fast path, 1 thread)")
        # Warm-up: the first training in a process imports Numba and loads its kernels
        # (about 1.5 s), which would be charged to whichever architecture came first.
        train("modadd:3", TrainConfig(arch="bilinear-full", hidden=16, steps=2, batch=64,
                                      threads=1))
        for arch, spec in [("bilinear-full", "modadd:3"), ("bilinear-cp", "modadd:3"),
                           ("bilinear-block", "modadd:3"), ("bilinear-r2", "modadd:3"),
                           ("bilinear-real-diag", "modadd:3"),
                           ("bilinear-positive-diag", "modadd:3"),
                           ("deltaproduct", "symmetric:3"), ("deltanet", "parity"),
                           ("deltanet-neg", "parity"), ("fixed-point", "symmetric:3"),
                           ("minmax-dense", "flipflop"), ("minmax-cascade", "flipflop"),
                           ("lstm", "modadd:3")]:
            steps = 30 if args.quick else 300
            t0 = time.perf_counter()
            r = train(spec, TrainConfig(arch=arch, hidden=16, steps=steps, batch=64, threads=1))
            wall = time.perf_counter() - t0
            print(f"{arch:24s} {r.tokens / r.seconds:10.0f} tokens/s  ({spec}, {steps} steps, "
                  f"{wall:.1f} s)", flush=True)
            torch.set_num_threads(args.threads)
        print(load())


if __name__ == "__main__":
    main()
