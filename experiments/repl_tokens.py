"""Token-level next-token training of DeltaNet on REPL traces (arXiv 2602.14814's protocol).

Usage: python experiments/repl_tokens.py [--steps N] [--spacings 1,4] [--seeds 0,1]
       [--curriculum] [--quick]

Data: fsmnet.automata.repl_traces.generate(3 variables, swaps only, reveal
spacing s), split by repl_traces.tokenize into a fixed vocabulary of 13 tokens
(:func:`vocabulary`).  Model: fsmnet.train.token_deltanet.TokenDeltaNet, a
one-layer DeltaNet language model (embedding, causal convolution of width 4,
one delta-rule head, MLP readout) with β ≤ 1 ("deltanet", eigenvalues in
[0, 1]) or β ≤ 2 ("deltanet-neg", [−1, 1]).  Loss: cross-entropy of the next
token at every position (commands and revealed values alike).  Evaluation on
fresh traces of the training length and 10× longer: accuracy on the printed
values (the token after a print line's newline; chance 1/3) and over all
tokens, beside the all-token ceiling of a reader that knows the state (the
command tokens are random).  ``--curriculum`` raises the training length
from 10 lines to the training length over the first half of the steps.
A second table scores the window reader (:func:`window_reader`), which needs
no state tracking, on the same 10x traces.  Seeded, one CPU thread,
deterministic.  Every run is recorded, keyed by its settings, in
experiments/results/repl_tokens.json (written atomically); a Markdown table
of this invocation's runs is printed.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import string
import sys
import time
from typing import Any

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import RESULTS, save  # noqa: E402

from fsmnet.automata.repl_traces import generate, printed_targets, tokenize  # noqa: E402
from fsmnet.train.token_deltanet import TokenDeltaNet  # noqa: E402

N_VARS = 3
ARCHS = {"deltanet": 1.0, "deltanet-neg": 2.0}
EIGENVALUES = {"deltanet": "[0, 1]", "deltanet-neg": "[−1, 1]"}
BATCH = 32


def vocabulary(n_vars: int = N_VARS) -> tuple[str, ...]:
    """Every token a swaps-only trace over ``n_vars`` variables can hold, in a fixed order.

    The lines are the generator's line forms (initialization, one swap per pair,
    one print per variable, each value); tokens in order of first appearance.
    """
    names = string.ascii_lowercase[:n_vars]
    lines = [f">>> {', '.join(names)} = {', '.join(map(str, range(n_vars)))}"]
    lines += [f">>> {x}, {y} = {y}, {x}" for x, y in itertools.combinations(names, 2)]
    lines += [f">>> print({x})" for x in names] + [str(v) for v in range(n_vars)]
    return tuple(dict.fromkeys(tokenize("\n".join(lines))))


VOCAB = vocabulary()
INDEX = {t: i for i, t in enumerate(VOCAB)}


def value_positions(tokens: list[str]) -> list[int]:
    """Indices of the printed values: a value token follows ``)`` and a newline, since
    only a print line ends with ``)``."""
    return [i for i in range(2, len(tokens)) if tokens[i - 2] == ")" and tokens[i - 1] == "\n"]


def encode(n_lines: int, spacing: int, count: int, seed: int
           ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(ids, valid, is_value), each (count, T): token ids, real (not padding) tokens,
    and printed-value positions.  Traces of one length and spacing have one token
    count; padding (id 0, not valid) covers any other case."""
    rows = []
    for b in range(count):
        rows.append(tokenize(generate(N_VARS, n_lines, reveal_spacing=spacing,
                                      seed=seed * 1_000_003 + b)))
    width = max(map(len, rows))
    ids = np.zeros((count, width), dtype=np.int64)
    valid = np.zeros((count, width), dtype=bool)
    is_value = np.zeros((count, width), dtype=bool)
    for b, row in enumerate(rows):
        ids[b, :len(row)] = [INDEX[t] for t in row]
        valid[b, :len(row)] = True
        is_value[b, value_positions(row)] = True
    return ids, valid, is_value


def ceiling(ids: np.ndarray, valid: np.ndarray) -> float:
    """Expected all-token accuracy of a reader that knows the generator and the state:
    it misses a swap's first name w.p. 1/3 (a is first in 2 of the 3 pairs), its second
    name w.p. 1/3 (a, then b or c) and a print's name w.p. 2/3; all else is determined."""
    lines_start = (ids == INDEX[">>>"]) & valid
    follows = np.roll(ids, -1, axis=1)
    prints = int((lines_start & (follows == INDEX["print"])).sum())
    inits = int(lines_start[:, 0].sum())
    swaps = int(lines_start.sum()) - prints - inits
    predicted = int(valid[:, 1:].sum())
    return 1.0 - (swaps * 2 / 3 + prints * 2 / 3) / predicted


def window_reader(trace: str, window: int) -> float:
    """Accuracy on the printed values of a reader that sees only the ``window`` lines
    before each print: of the value assignments possible at the window's start (all
    permutations, or the initial one where the window holds the first line) it keeps
    those that the window's swaps map onto its printed values, and guesses the value
    most of them give (ties: the smallest).  It never tracks beyond the window, so
    what it scores needs no state tracking, and it scores the same at every length."""
    lines = trace.splitlines()
    hits = total = 0
    for i, value in printed_targets(trace):
        start = max(0, i - window)
        states = [list(p) for p in itertools.permutations(range(N_VARS))]
        for j in range(start, i):
            line = lines[j]
            if j == 0:
                states = [list(range(N_VARS))]
            elif line.startswith(">>> print("):
                x, seen = string.ascii_lowercase.index(line[10]), int(lines[j + 1])
                states = [st for st in states if st[x] == seen]
            elif line.startswith(">>> "):
                x, y = string.ascii_lowercase.index(line[4]), string.ascii_lowercase.index(line[7])
                for st in states:
                    st[x], st[y] = st[y], st[x]
        x = string.ascii_lowercase.index(lines[i][10])
        counts = np.bincount([st[x] for st in states], minlength=N_VARS)
        hits += int(np.argmax(counts)) == int(value)
        total += 1
    return hits / total


def loss_of(model: TokenDeltaNet, ids: np.ndarray, valid: np.ndarray) -> torch.Tensor:
    x = torch.from_numpy(ids)
    target = x[:, 1:].masked_fill(~torch.from_numpy(valid[:, 1:]), -100)
    logits = model(x)[:, :-1]
    return torch.nn.functional.cross_entropy(logits.reshape(-1, len(VOCAB)),
                                             target.reshape(-1), ignore_index=-100)


def evaluate(model: TokenDeltaNet, n_lines: int, spacing: int, count: int, seed: int
             ) -> dict[str, Any]:
    """Value accuracy, all-token accuracy and its ceiling, and the value accuracy per
    tenth of the trace (by token position)."""
    ids, valid, is_value = encode(n_lines, spacing, count, seed)
    with torch.no_grad():
        pred = model(torch.from_numpy(ids))[:, :-1].argmax(-1).numpy()
    hit = pred == ids[:, 1:]
    values, real = is_value[:, 1:], valid[:, 1:]
    tenths = np.array_split(np.arange(hit.shape[1]), 10)
    return {"value_acc": float(hit[values].mean()), "token_acc": float(hit[real].mean()),
            "ceiling": ceiling(ids, valid), "n_values": int(values.sum()),
            "value_acc_by_tenth": [float(hit[:, c][values[:, c]].mean())
                                   if values[:, c].any() else None for c in tenths]}


def swap_betas(model: TokenDeltaNet, ids: np.ndarray) -> dict[str, float]:
    """β on the swap lines: quantiles of each line's largest β (a swap is an exact
    reflection only at β = 2) and the mean count of tokens with β > 1 per line."""
    with torch.no_grad():
        beta = model.gates(model.features(torch.from_numpy(ids)))[3].numpy()
    peaks, over = [], []
    for b in range(len(ids)):
        starts = np.flatnonzero(ids[b] == INDEX[">>>"])
        swap = ids[b][starts + 1] != INDEX["print"]
        swap[0] = False  # the initialization line
        peaks.append(np.maximum.reduceat(beta[b], starts)[swap])
        over.append(np.add.reduceat((beta[b] > 1).astype(np.int64), starts)[swap])
    top = np.concatenate(peaks)
    return {"max_beta_q05": float(np.quantile(top, 0.05)),
            "max_beta_median": float(np.median(top)),
            "max_beta_q95": float(np.quantile(top, 0.95)),
            "tokens_over_1": float(np.concatenate(over).mean())}


def train_lines(step: int, steps: int, lines: int, curriculum: bool) -> int:
    """The training length of ``step``: ``lines``, or with the curriculum a linear ramp
    from 10 lines to ``lines`` over the first half of the steps."""
    if not curriculum or lines <= 10:
        return lines
    return min(lines, 10 + (lines - 10) * 2 * step // max(1, steps))


def build(arch: str, args: argparse.Namespace, seed: int) -> TokenDeltaNet:
    torch.manual_seed(seed)
    return TokenDeltaNet(len(VOCAB), width=args.width, key=args.key, beta_max=ARCHS[arch])


def run(arch: str, spacing: int, seed: int, args: argparse.Namespace) -> dict[str, Any]:
    model = build(arch, args, seed)
    opt = torch.optim.Adam(model.parameters(), lr=args.lr)
    begin = time.perf_counter()
    losses = []
    for step in range(args.steps):
        lines = train_lines(step, args.steps, args.lines, args.curriculum)
        ids, valid, _ = encode(lines, spacing, BATCH, seed=10_000 * seed + step)
        loss = loss_of(model, ids, valid)
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        losses.append(float(loss.detach()))
    seconds = time.perf_counter() - begin
    model.eval()
    short = evaluate(model, args.lines, spacing, args.eval_traces, seed=999_999)
    long = evaluate(model, 10 * args.lines, spacing, max(1, args.eval_traces // 4), seed=888_888)
    betas = swap_betas(model, encode(args.lines, spacing, args.eval_traces, seed=999_999)[0])
    return {"arch": arch, "eigenvalues": EIGENVALUES[arch], "spacing": spacing, "seed": seed,
            "steps": args.steps, "lines": args.lines, "curriculum": args.curriculum,
            "width": args.width, "key": args.key, "lr": args.lr, "batch": BATCH,
            "train_seconds": round(seconds, 1), "final_loss": float(np.mean(losses[-50:])),
            "short": short, "long": long, "swap_betas": betas}


def estimate(args: argparse.Namespace, runs: list[tuple[str, int, int]]) -> float:
    """Seconds for all runs: 3 timed training steps per run's setting (after a warm-up
    step) scaled to the steps, plus one timed evaluation of each length."""
    total = 0.0
    for arch, spacing in sorted({(a, s) for a, s, _ in runs}):
        model = build(arch, args, 0)
        opt = torch.optim.Adam(model.parameters(), lr=args.lr)
        ids, valid, _ = encode(args.lines, spacing, BATCH, seed=0)
        times = []
        for _ in range(4):
            t0 = time.perf_counter()
            loss = loss_of(model, ids, valid)
            opt.zero_grad()
            loss.backward()
            opt.step()
            times.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        evaluate(model, args.lines, spacing, args.eval_traces, seed=1)
        evaluate(model, 10 * args.lines, spacing, max(1, args.eval_traces // 4), seed=1)
        evaluation = time.perf_counter() - t0
        count = sum(1 for a, s, _ in runs if (a, s) == (arch, spacing))
        # The curriculum's shorter traces cost less: about 3/4 of the steps' time.
        scale = 0.75 if args.curriculum else 1.0
        total += count * (scale * args.steps * float(np.mean(times[1:])) + evaluation)
    return total


def key_of(r: dict[str, Any]) -> str:
    return (f"{r['arch']},s={r['spacing']},steps={r['steps']},lines={r['lines']},"
            f"curriculum={r['curriculum']},width={r['width']},key={r['key']},lr={r['lr']},"
            f"seed={r['seed']}")


WINDOWS = (10, 20, 40)


def window_readers(args: argparse.Namespace, spacings: list[int]) -> dict[str, dict[str, float]]:
    """:func:`window_reader`'s accuracy on the 10x evaluation traces, per spacing and window."""
    out = {}
    for spacing in spacings:
        traces = [generate(N_VARS, 10 * args.lines, reveal_spacing=spacing,
                           seed=888_888 * 1_000_003 + b)
                  for b in range(max(1, args.eval_traces // 4))]
        out[str(spacing)] = {str(w): float(np.mean([window_reader(t, w) for t in traces]))
                             for w in WINDOWS}
    return out


def record(results: list[dict[str, Any]], readers: dict[str, Any], name: str) -> str:
    """Add this invocation's runs to the results file (replacing runs with the same key)."""
    path = os.path.join(RESULTS, f"{name}.json")
    old: dict[str, Any] = {}
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            old = json.load(f)
    runs = {**old.get("runs", {}), **{key_of(r): r for r in results}}
    readers = {**old.get("window_reader", {}), **readers}
    return save(name, {"experiment": "repl_tokens", "vocabulary": list(VOCAB),
                       "window_reader": readers, "runs": runs})


def _fmt(x: float | None) -> str:
    return "—" if x is None else f"{x:.3f}"


def table(results: list[dict[str, Any]]) -> str:
    head = ("| model | eigenvalues | spacing | steps | curriculum | seed | value acc. "
            "{L} lines | value acc. {L10} lines | token acc. {L} (ceiling) | token acc. "
            "{L10} (ceiling) | value acc. last tenth of {L10} | train s |")
    lines = [head.format(L=results[0]["lines"], L10=10 * results[0]["lines"]),
             "|" + "---|" * 12]
    for r in results:
        s, g = r["short"], r["long"]
        lines.append(f"| {r['arch']} | {r['eigenvalues']} | {r['spacing']} | {r['steps']} | "
                     f"{'yes' if r['curriculum'] else 'no'} | {r['seed']} | "
                     f"{s['value_acc']:.3f} | {g['value_acc']:.3f} | {s['token_acc']:.3f} "
                     f"({s['ceiling']:.3f}) | {g['token_acc']:.3f} ({g['ceiling']:.3f}) | "
                     f"{_fmt(g['value_acc_by_tenth'][-1])} | {r['train_seconds']:.0f} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=1500)
    parser.add_argument("--lr", type=float, default=3e-3)
    parser.add_argument("--width", type=int, default=32, help="embedding/convolution size")
    parser.add_argument("--key", type=int, default=8, help="DeltaNet key/value size")
    parser.add_argument("--lines", type=int, default=40, help="training length in lines")
    parser.add_argument("--spacings", default="1,4", help="reveal spacings, comma-separated")
    parser.add_argument("--archs", default="deltanet,deltanet-neg")
    parser.add_argument("--seeds", default="0", help="seeds, comma-separated")
    parser.add_argument("--curriculum", action="store_true",
                        help="training length ramps from 10 lines over the first half")
    parser.add_argument("--eval-traces", type=int, default=256,
                        help="evaluation traces at the training length (a quarter at 10x)")
    parser.add_argument("--name", default="repl_tokens", help="results file name")
    parser.add_argument("--quick", action="store_true", help="a smoke test (20 steps)")
    args = parser.parse_args(argv)
    if args.quick:
        args.steps, args.eval_traces, args.lines = 20, 16, 12
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    archs = args.archs.split(",")
    if unknown := set(archs) - set(ARCHS):
        parser.error(f"unknown archs {sorted(unknown)}; choose from {sorted(ARCHS)}")
    runs = [(a, int(s), seed) for s in args.spacings.split(",") for a in archs
            for seed in map(int, args.seeds.split(","))]
    print(f"estimated wall time: {estimate(args, runs):.0f} s for {len(runs)} runs of "
          f"{args.steps} steps (one thread)", file=sys.stderr, flush=True)
    results = []
    for arch, spacing, seed in runs:
        results.append(run(arch, spacing, seed, args))
        r = results[-1]
        print(f"{arch} s={spacing} seed={seed}: {r['short']['value_acc']:.3f} / "
              f"{r['long']['value_acc']:.3f} ({r['train_seconds']:.0f} s); swap lines' "
              f"β: {r['swap_betas']}",
              file=sys.stderr, flush=True)
    print(table(results))
    readers = window_readers(args, sorted({s for _, s, _ in runs}))
    print(f"\n| spacing | window reader, {10 * args.lines} lines: "
          + " | ".join(f"{w} lines" for w in WINDOWS) + " |\n|" + "---|" * (1 + len(WINDOWS)))
    for gap, accs in readers.items():
        print(f"| {gap} | " + " | ".join(f"{a:.3f}" for a in accs.values()) + " |")
    if not args.quick:  # a smoke test leaves the recorded runs alone
        path = record(results, readers, args.name)
        print(f"\nrecorded in {os.path.relpath(path)}", file=sys.stderr)


if __name__ == "__main__":
    main()
