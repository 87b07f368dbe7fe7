"""Proof-time benchmark (``python bench/bench_proofs.py``; not a test).

For networks compiled from random automata (``random:n=N,k=2,seed=1`` for
N = 10, 100, 1000) and, for the MinMax cascade, from modular counters of the
same sizes, measures: compile time, the time of ``verify`` (exact product
exploration, target < 10 s at 1000 states), the number of product pairs and
network states, and the time the independent checker takes on the
certificate.  Every case runs in a child process with a memory cap and a
timeout, because some constructions (the holonomy cascade of a random
automaton) blow up; such a case is reported, not fatal.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time

CASES = [(f"random:n={n},k=2,seed=1", arch)
         for arch in ("bilinear-full", "minmax-cascade", "minmax-dense")
         for n in (10, 100, 1000)]
CASES += [(f"modcount:{n}", "minmax-cascade") for n in (10, 100, 1000)]
CHECK_WORK_CAP = 2e8


def run_case(spec: str, arch: str) -> dict[str, object]:
    """Compile, verify with a certificate, check it; times in seconds."""
    import os
    import tempfile

    import fsmnet
    from fsmnet.automata import load
    from fsmnet.proofs.checker import check_certificate
    from fsmnet.proofs.verifier import verify

    automaton = load(spec).minimal()
    row: dict[str, object] = {"spec": spec, "arch": arch, "states": automaton.n_states}
    t0 = time.perf_counter()
    net = fsmnet.compile(automaton, arch)
    row["compile_s"] = time.perf_counter() - t0
    row["hidden"] = net.hidden_size
    t0 = time.perf_counter()
    result = verify(automaton, net, max_states=200_000)
    row["verify_s"] = time.perf_counter() - t0
    row.update(verdict=result.verdict, pairs=result.details.get("pairs"),
               network_states=result.details.get("network_states"))
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "cert.json")
        t0 = time.perf_counter()
        verify(automaton, net, max_states=200_000, certificate=path)
        row["verify_with_certificate_s"] = time.perf_counter() - t0
        row["certificate_mb"] = os.path.getsize(path) / 1e6
        # The checker is plain Python on purpose; a dense max-min step costs
        # H^2 operations, so very large MinMax certificates are not timed.
        work = int(result.details.get("pairs") or 0) * len(net.symbols) * net.hidden_size ** 2
        if arch.startswith("minmax") and work > CHECK_WORK_CAP:
            row["check_s"] = None
            row["check_note"] = f"skipped: about {work:.1e} max/min operations"
            return row
        t0 = time.perf_counter()
        with open(path, encoding="utf-8") as handle:
            check_certificate(json.load(handle))
        row["check_s"] = time.perf_counter() - t0
    return row


def _limit_memory(gib: float) -> None:
    limit = int(gib * 2**30)
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def run_isolated(spec: str, arch: str, timeout: float, mem_gib: float) -> dict[str, object]:
    """:func:`run_case` in a child process; failures become a ``failed`` field."""
    try:
        proc = subprocess.run([sys.executable, __file__, "--case", spec, arch],
                              capture_output=True, text=True, timeout=timeout,
                              preexec_fn=lambda: _limit_memory(mem_gib))
    except subprocess.TimeoutExpired:
        return {"spec": spec, "arch": arch, "failed": f"timeout after {timeout:.0f} s"}
    if proc.returncode != 0:
        last = (proc.stderr.strip().splitlines() or ["?"])[-1]
        return {"spec": spec, "arch": arch, "failed": last[:160]}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def fmt(row: dict[str, object]) -> str:
    if "failed" in row:
        dashes = " - |" * 6
        return f"| {row['arch']} | {row['spec']} |{dashes} failed: {row['failed']} |"
    return (f"| {row['arch']} | {row['spec']} | {row['states']} | {row['hidden']} | "
            f"{row['compile_s']:.2f} | {row['verify_s']:.2f} | {row['pairs']} | "
            f"{'-' if row['check_s'] is None else format(row['check_s'], '.2f')} | "
            f"{row['verdict']} |")


HEADER = ("| arch | automaton | minimal states | hidden | compile s | verify s | pairs | "
          "check s | verdict |\n|---|---|---|---|---|---|---|---|---|")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--case", nargs=2, metavar=("SPEC", "ARCH"), help=argparse.SUPPRESS)
    parser.add_argument("--timeout", type=float, default=180.0, help="seconds per case")
    parser.add_argument("--mem-gib", type=float, default=3.0, help="memory cap per case")
    parser.add_argument("--json", metavar="PATH")
    args = parser.parse_args(argv)
    if args.case:
        print(json.dumps(run_case(*args.case)))
        return 0
    print(HEADER, flush=True)
    rows = []
    for spec, arch in CASES:
        row = run_isolated(spec, arch, args.timeout, args.mem_gib)
        rows.append(row)
        print(fmt(row), flush=True)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(rows, handle, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
