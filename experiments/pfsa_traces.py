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
Prints a Markdown table (docs/experiments.md).  ``--hidden P`` makes each
command a hidden coin swap with probability P and adds the ideal reader
(the exact PFSA-SR belief, fsmnet.automata.repl_pfsa) on the same traces.
"""

from __future__ import annotations

import argparse
import functools
import time

import numpy as np


@functools.lru_cache(maxsize=2)
def _alphabet(hidden: float) -> tuple[str, ...]:
    from fsmnet.automata.repl_pfsa import trace_pfsa
    from fsmnet.automata.repl_traces import trace_automaton

    # Cached: building the 108-state PFSA (exact kernel) per batch would dominate.
    return tuple(trace_pfsa(3).symbols if hidden else trace_automaton(3).symbols)


def _data(n_lines: int, spacing: int, count: int, seed: int, hidden: float = 0.0
          ) -> tuple[np.ndarray, np.ndarray]:
    """(words, targets): targets[b, t] is the value printed after line t, or -1."""
    from fsmnet.automata.repl_traces import generate, line_symbols, printed_targets

    index = {s: i for i, s in enumerate(_alphabet(hidden))}
    words = np.zeros((count, n_lines), dtype=np.int64)
    targets = np.full((count, n_lines), -1, dtype=np.int64)
    for b in range(count):
        trace = generate(3, n_lines, reveal_spacing=spacing, hidden_prob=hidden,
                         seed=seed * 1_000_003 + b)
        words[b] = [index[s] for s in line_symbols(trace, 3, hidden=hidden > 0)]
        for i, value in printed_targets(trace):
            targets[b, i] = int(value)
    return words, targets


def _accuracy(module, words, targets) -> float:
    import torch

    with torch.no_grad():
        pred = module.logits(torch.tensor(words))[:, 1:].argmax(-1).numpy()
    mask = targets >= 0
    return float((pred[mask] == targets[mask]).mean())


def ideal(spacing: int, hidden: float, n_lines: int, count: int, seed: int) -> float:
    """Accuracy of the exact belief's most likely value on the same evaluation traces."""
    from fsmnet.automata.repl_pfsa import predicted_value, trace_pfsa

    m = trace_pfsa(3)
    words, targets = _data(n_lines, spacing, count, seed, hidden)
    index = {s: i for i, s in enumerate(_alphabet(hidden))}
    remap = [m.symbols.index(s) for s in index]
    hits = total = 0
    for row, want in zip(words, targets):
        # The unnormalized belief (dyadic, so its integers stay small): by scale
        # invariance its most likely value is the belief's.
        b = m.initial_belief()
        for a, v in zip(row, want):
            b = m.unnormalized_step(b, remap[int(a)])
            if v >= 0:
                hits += predicted_value(m, b) == v
                total += 1
    return hits / total


def run(arch: str, spacing: int, steps: int, seed: int = 0,
        eval_traces: int = 256, hidden: float = 0.0) -> dict[str, float]:
    import torch

    from fsmnet.train.convert import build

    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    torch.manual_seed(seed)
    module = build(arch, len(_alphabet(hidden)), 3, 8)
    opt = torch.optim.Adam(module.parameters(), lr=0.01)
    begin = time.perf_counter()
    for step in range(steps):
        words, targets = _data(40, spacing, 32, seed=10_000 * seed + step, hidden=hidden)
        logits = module.logits(torch.tensor(words))[:, 1:]
        y = torch.tensor(targets)
        loss = torch.nn.functional.cross_entropy(logits.reshape(-1, 3), y.reshape(-1),
                                                 ignore_index=-1)
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(module.parameters(), 1.0)
        opt.step()
    seconds = time.perf_counter() - begin
    short = _accuracy(module, *_data(40, spacing, eval_traces, seed=999_999, hidden=hidden))
    long = _accuracy(module, *_data(400, spacing, max(1, eval_traces // 4), seed=888_888,
                                    hidden=hidden))
    return {"acc40": short, "acc400": long, "seconds": seconds, "loss": float(loss.detach())}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=600)
    parser.add_argument("--quick", action="store_true", help="50 steps (a smoke test)")
    parser.add_argument("--hidden", type=float, default=0.0,
                        help="probability of a hidden coin branch per command (default 0)")
    args = parser.parse_args()
    steps = 50 if args.quick else args.steps
    if args.hidden:
        _hidden_table(args.hidden, steps)
        return
    print(f"| model | eigenvalues | reveal spacing | acc. 40 lines | acc. 400 lines | "
          f"train s ({steps} steps) |")
    print("|---|---|---|---|---|---|")
    for spacing in (1, 4):
        for arch, eig in (("deltanet", "[0, 1]"), ("deltanet-neg", "[-1, 1]")):
            r = run(arch, spacing, steps)
            print(f"| {arch} | {eig} | {spacing} | {r['acc40']:.3f} | {r['acc400']:.3f} | "
                  f"{r['seconds']:.0f} |", flush=True)


def _hidden_table(hidden: float, steps: int) -> None:
    print(f"| model | eigenvalues | reveal spacing | acc. 40 lines | ideal reader 40 | "
          f"acc. 400 lines | ideal reader 400 | train s ({steps} steps) |")
    print("|---|---|---|---|---|---|---|---|")
    for spacing in (1, 3):
        best40 = ideal(spacing, hidden, 40, 128, 999_999)
        best400 = ideal(spacing, hidden, 400, 32, 888_888)
        for arch, eig in (("deltanet", "[0, 1]"), ("deltanet-neg", "[-1, 1]")):
            r = run(arch, spacing, steps, hidden=hidden, eval_traces=128)
            print(f"| {arch} | {eig} | {spacing} | {r['acc40']:.3f} | {best40:.3f} | "
                  f"{r['acc400']:.3f} | {best400:.3f} | {r['seconds']:.0f} |", flush=True)


if __name__ == "__main__":
    main()
