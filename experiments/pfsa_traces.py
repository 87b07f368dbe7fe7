"""DeltaNet with eigenvalues in [0, 1] against [-1, 1] on REPL traces (arXiv 2602.14814).

Usage: python experiments/pfsa_traces.py [--steps N] [--quick]

Data: fsmnet.automata.repl_traces.generate(3 variables, swaps only, so the
state is a permutation of S_3), one symbol per line (trace_automaton's
alphabet).  Supervision is the printed value only: the loss is the
cross-entropy at the print lines, predicting the value on the next line
(next-token prediction of the revealed values).  Models: the training
harness's DeltaNet (fsmnet.train.convert.build "deltanet", β_max = 1,
eigenvalues in [0, 1]; "deltanet-neg", β_max = 2, eigenvalues in [-1, 1]),
hidden size 8, Adam, clipped gradients, seeded and deterministic on the CPU.
Evaluation: accuracy at the print lines of fresh traces of the training
length (40 lines) and 10x longer (400 lines), for two reveal spacings.
Prints a Markdown table (docs/experiments.md).
"""

from __future__ import annotations

import argparse
import time

import numpy as np


def _data(n_lines: int, spacing: int, count: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """(words, targets): targets[b, t] is the value printed after line t, or -1."""
    from fsmnet.automata.repl_traces import (
        generate,
        line_symbols,
        printed_targets,
        trace_automaton,
    )

    m = trace_automaton(3)
    index = {s: i for i, s in enumerate(m.symbols)}
    words = np.zeros((count, n_lines), dtype=np.int64)
    targets = np.full((count, n_lines), -1, dtype=np.int64)
    for b in range(count):
        trace = generate(3, n_lines, reveal_spacing=spacing, seed=seed * 1_000_003 + b)
        words[b] = [index[s] for s in line_symbols(trace, 3)]
        for i, value in printed_targets(trace):
            targets[b, i] = int(value)
    return words, targets


def _accuracy(module, words, targets) -> float:
    import torch

    with torch.no_grad():
        pred = module.logits(torch.tensor(words))[:, 1:].argmax(-1).numpy()
    mask = targets >= 0
    return float((pred[mask] == targets[mask]).mean())


def run(arch: str, spacing: int, steps: int, seed: int = 0,
        eval_traces: int = 256) -> dict[str, float]:
    import torch

    from fsmnet.train.convert import build

    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    torch.manual_seed(seed)
    module = build(arch, 16, 3, 8)
    opt = torch.optim.Adam(module.parameters(), lr=0.01)
    begin = time.perf_counter()
    for step in range(steps):
        words, targets = _data(40, spacing, 32, seed=10_000 * seed + step)
        logits = module.logits(torch.tensor(words))[:, 1:]
        y = torch.tensor(targets)
        loss = torch.nn.functional.cross_entropy(logits.reshape(-1, 3), y.reshape(-1),
                                                 ignore_index=-1)
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(module.parameters(), 1.0)
        opt.step()
    seconds = time.perf_counter() - begin
    short = _accuracy(module, *_data(40, spacing, eval_traces, seed=999_999))
    long = _accuracy(module, *_data(400, spacing, max(1, eval_traces // 4), seed=888_888))
    return {"acc40": short, "acc400": long, "seconds": seconds, "loss": float(loss.detach())}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=600)
    parser.add_argument("--quick", action="store_true", help="50 steps (a smoke test)")
    args = parser.parse_args()
    steps = 50 if args.quick else args.steps
    print(f"| model | eigenvalues | reveal spacing | acc. 40 lines | acc. 400 lines | "
          f"train s ({steps} steps) |")
    print("|---|---|---|---|---|---|")
    for spacing in (1, 4):
        for arch, eig in (("deltanet", "[0, 1]"), ("deltanet-neg", "[-1, 1]")):
            r = run(arch, spacing, steps)
            print(f"| {arch} | {eig} | {spacing} | {r['acc40']:.3f} | {r['acc400']:.3f} | "
                  f"{r['seconds']:.0f} |", flush=True)


if __name__ == "__main__":
    main()
