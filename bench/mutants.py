"""Mutation campaign for the verifier (``python bench/mutants.py``; not a test).

For every architecture in ``fsmnet.constructions.CONSTRUCTIONS`` and every family
below where compilation succeeds, the compiled network is mutated: one entry
of a weight tensor, of the readout, or of the initial state is set to another
value.  Each mutant is verified (``fsmnet.proofs.verifier.verify``) and the
verdict is checked independently:

* ``refuted``: the counterexample is re-run with the exact reference
  evaluator and must disagree with the automaton;
* ``proved``: brute force over **all** words up to length L (8 for 2 or 3
  letters, 7 for 4, 6 for the 6-letter symmetric:3) with the exact semantics
  must find no difference, and the proof certificate (where the architecture has one) must pass the
  independent checker.  A proved mutant that brute force separates is a
  SOUNDNESS BUG;
* ``unknown``: brute force tells whether a short difference was missed.

Prints a table per architecture; ``--markdown`` / ``--png`` write
docs/soundness.md's table and bar chart.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from typing import Any

import numpy as np

FAMILIES = ("parity", "modcount:3", "modadd:4", "symmetric:3", "flipflop", "latch:3",
            "starfree", "random:n=5,k=2,seed=1")
VALUES = (0.0, 1.0, 0.5, -1.0, 2.0, 3.0, 1e-9)
STRUCTURAL = ("unit_level", "unit_size", "unit_kind")  # change the shapes, not weights
WORD_BUDGET = 60_000  # nodes of the word tree per brute-force check
MAX_STATES = 150  # exact states per product exploration: irrational-angle mutants
# (floats of cos/sin taken exactly) never close, and their rationals grow with depth


def kind_of(name: str) -> str | None:
    """Which part of the network a tensor is: weight, readout or initial (None: skip)."""
    if name in STRUCTURAL:
        return None
    if name == "readout":
        return "readout"
    if name in ("h0", "x0") or name.startswith("h0.") or name.endswith("_x0"):
        return "initial"
    return "weight"


def brute_force_length(n_symbols: int, cap: int = 8) -> int:
    """The largest L <= cap whose word tree (all words up to length L) fits the budget."""
    length = 0
    while length < cap and sum(n_symbols ** i for i in range(length + 2)) <= WORD_BUDGET:
        length += 1
    return length


def first_difference(net: Any, automaton: Any, max_len: int) -> list[int] | None:
    """A word of length <= max_len on which the exact network and the automaton differ.

    Depth-first over the tree of all words, one exact step per node (the same
    steps as the reference evaluator, without any merging of states).
    """
    sem = net.semantics
    labels, delta = net.labels, automaton.delta

    def differs(h: Any, q: int) -> bool:
        got, want = labels[sem.readout(net, h, True)], automaton.output(q)
        return type(got) is not type(want) or got != want

    def search(h: Any, q: int, word: list[int]) -> list[int] | None:
        if differs(h, q):
            return word
        if len(word) == max_len:
            return None
        for a in range(automaton.n_symbols):
            found = search(sem.step(net, h, a, True), int(delta[a, q]), word + [a])
            if found is not None:
                return found
        return None

    return search(sem.initial_state(net, True), automaton.initial, [])


def mutants(net: Any, rng: np.random.Generator, per_kind: int) -> list[tuple[str, str, Any]]:
    """Up to ``per_kind`` single-entry mutants per kind: (kind, description, network)."""
    by_kind: dict[str, list[str]] = {}
    for name in sorted(net.params):
        kind = kind_of(name)
        if kind is not None:
            by_kind.setdefault(kind, []).append(name)
    out = []
    for kind, names in sorted(by_kind.items()):
        for _ in range(per_kind):
            name = names[int(rng.integers(len(names)))]
            arr = np.array(net.params[name])
            idx = tuple(int(rng.integers(d)) for d in arr.shape)
            old = arr[idx]
            if np.issubdtype(arr.dtype, np.integer):  # a cascade's readout table
                choices = [c for c in range(len(net.labels)) if c != old]
            else:
                choices = [v for v in VALUES if v != old]
            if not choices:
                continue
            new = choices[int(rng.integers(len(choices)))]
            arr[idx] = new
            try:
                mutant = net.with_params(**{name: arr})
            except Exception as exc:  # noqa: BLE001 - an invalid mutant is counted, not fatal
                out.append((kind, f"{name}{list(idx)}={new} invalid: {exc}", None))
                continue
            out.append((kind, f"{name}{list(idx)}: {old} -> {new}", mutant))
    return out


def check_mutant(automaton: Any, mutant: Any, max_len: int) -> dict[str, Any]:
    """Verify one mutant and check the verdict independently."""
    from fsmnet.errors import FsmnetError
    from fsmnet.proofs.certificate import build_certificate
    from fsmnet.proofs.checker import CertificateError, check_certificate
    from fsmnet.proofs.product import explore_product
    from fsmnet.proofs.verifier import verify

    result = verify(automaton, mutant, max_states=MAX_STATES)
    row: dict[str, Any] = {"verdict": result.verdict, "method": result.method}
    if result.verdict == "refuted":
        cex = result.counterexample
        word = list(automaton.encode(cex.word))
        got = mutant.labels[int(mutant.label_trace(word, exact=True)[-1])]
        want = automaton.output(automaton.run(word))
        row["confirmed"] = type(got) is not type(want) or got != want
        return row
    diff = first_difference(mutant, automaton, max_len)
    row["separated"] = diff
    if result.verdict == "proved":
        exploration = explore_product(mutant, automaton, max_states=MAX_STATES)
        try:
            check_certificate(build_certificate(mutant, automaton, exploration))
            row["certificate"] = "valid"
        except FsmnetError:
            row["certificate"] = "n/a"
        except CertificateError as exc:
            row["certificate"] = f"INVALID: {exc}"
    return row


def campaign(archs: list[str], families: list[str], per_kind: int, seed: int,
             log: Any = None) -> list[dict[str, Any]]:
    """Every (arch, family, mutant) record of the campaign."""
    import fsmnet
    from fsmnet.automata import load
    from fsmnet.errors import FsmnetError
    from fsmnet.nets.alignment import align_alphabet

    rng = np.random.default_rng(seed)
    records = []
    for arch in archs:
        for family in families:
            automaton = load(family).minimal()
            try:
                net = fsmnet.compile(automaton, arch)
            except FsmnetError:
                continue
            aligned = align_alphabet(automaton, net)
            max_len = brute_force_length(aligned.n_symbols)
            for kind, desc, mutant in mutants(net, rng, per_kind):
                rec = {"arch": arch, "family": family, "kind": kind, "mutation": desc,
                       "max_len": max_len}
                if mutant is None:
                    rec["verdict"] = "invalid"
                else:
                    rec.update(check_mutant(aligned, mutant, max_len))
                records.append(rec)
                if log is not None:
                    log(rec)
    return records


def summarize(records: list[dict[str, Any]]) -> dict[str, Counter]:
    table: dict[str, Counter] = {}
    for rec in records:
        c = table.setdefault(rec["arch"], Counter())
        c["mutants"] += 1
        c[rec["verdict"]] += 1
        if rec["verdict"] == "refuted" and not rec.get("confirmed"):
            c["unconfirmed refutation"] += 1
        if rec["verdict"] == "proved" and rec.get("separated") is not None:
            c["WRONG PROOF"] += 1
        if rec["verdict"] == "proved" and str(rec.get("certificate", "")).startswith("INVALID"):
            c["certificate rejected"] += 1
        if rec["verdict"] == "proved" and rec.get("certificate") == "valid":
            c["certificate valid"] += 1
        if rec["verdict"] == "unknown" and rec.get("separated") is not None:
            c["unknown, separable"] += 1
    return table


COLUMNS = ("mutants", "invalid", "refuted", "proved", "unknown", "WRONG PROOF",
           "unconfirmed refutation", "certificate valid", "certificate rejected",
           "unknown, separable")


def markdown_table(table: dict[str, Counter]) -> str:
    lines = ["| arch | " + " | ".join(COLUMNS) + " |", "|---" * (len(COLUMNS) + 1) + "|"]
    total: Counter = Counter()
    for arch, c in table.items():
        total.update(c)
        lines.append(f"| {arch} | " + " | ".join(str(c[k]) for k in COLUMNS) + " |")
    lines.append("| **total** | " + " | ".join(f"**{total[k]}**" for k in COLUMNS) + " |")
    return "\n".join(lines)


def bar_chart(table: dict[str, Counter], path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    archs = list(table)
    fig, ax = plt.subplots(figsize=(9, 4.5))
    bottom = np.zeros(len(archs))
    for verdict, color in (("refuted", "#4c72b0"), ("proved", "#55a868"),
                           ("unknown", "#c9a227"), ("invalid", "#999999")):
        counts = np.array([table[a][verdict] for a in archs], dtype=float)
        ax.bar(archs, counts, bottom=bottom, label=verdict, color=color)
        bottom += counts
    wrong = [table[a]["WRONG PROOF"] for a in archs]
    ax.set_ylabel("mutants")
    ax.set_title(f"Verifier mutation campaign: {int(bottom.sum())} mutants, "
                 f"{sum(wrong)} wrong proofs")
    ax.legend()
    plt.setp(ax.get_xticklabels(), rotation=30, ha="right")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    from fsmnet.constructions import CONSTRUCTIONS

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-kind", type=int, default=6, help="mutants per kind per network")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--arch", action="append", help="only these architectures")
    parser.add_argument("--family", action="append", help="only these families")
    parser.add_argument("--json", metavar="PATH", help="write every record as JSON")
    parser.add_argument("--markdown", metavar="PATH", help="write the table (markdown)")
    parser.add_argument("--png", metavar="PATH", help="write the bar chart")
    parser.add_argument("--merge", nargs="+", metavar="JSON",
                        help="only summarize records written by earlier --json runs")
    parser.add_argument("-v", "--verbose", action="store_true")
    args = parser.parse_args(argv)
    t0 = time.perf_counter()

    def log(rec: dict[str, Any]) -> None:
        if args.verbose or (rec["verdict"] == "proved" and rec.get("separated") is not None):
            print(json.dumps(rec, default=str), file=sys.stderr, flush=True)

    if args.merge:
        records = []
        for path in args.merge:
            with open(path, encoding="utf-8") as handle:
                records.extend(json.load(handle))
    else:
        records = campaign(args.arch or list(CONSTRUCTIONS), args.family or list(FAMILIES),
                           args.per_kind, args.seed, log)
    table = summarize(records)
    print(markdown_table(table))
    print(f"\n{len(records)} mutants in {time.perf_counter() - t0:.1f} s")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(records, handle, indent=1, default=str)
    if args.markdown:
        with open(args.markdown, "w", encoding="utf-8") as handle:
            handle.write(markdown_table(table) + "\n")
    if args.png:
        bar_chart(table, args.png)
    wrong = sum(c["WRONG PROOF"] + c["unconfirmed refutation"] + c["certificate rejected"]
                for c in table.values())
    if wrong:
        print(f"SOUNDNESS BUG: {wrong} wrong verdict(s); see the records", file=sys.stderr)
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
