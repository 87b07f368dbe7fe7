"""Group-character construction against the count-type one (``python
bench/bench_group_characters.py``; not a test).

Subjects: modular addition mod m, a group language (every letter a permutation).
For each m, in one process, the two strategies of
:mod:`fsmnet.constructions.commutative` compile the same minimal automaton: the
count types (the baseline, forced by raising the limit; skipped where its
Π_a p_a types pass ``--baseline-limit``) and the group's characters (forced by
a limit of 0).  Printed: the count types, the channels and seconds of each, the
ratio, then for the characters the exact-product ``verify`` and the
certificate (``count-abstraction`` while its count types are few, else
``channel-product``) with its standard-library check.
"""

from __future__ import annotations

import argparse
import json
import math
import tempfile
import time
from pathlib import Path

import fsmnet
import fsmnet.algebra.commutative as count_algebra
from fsmnet.proofs.checker import check_certificate
from fsmnet.proofs.verifier import verify
from fsmnet.train.data import task_automaton


def _compile(m: object, limit: int) -> tuple[fsmnet.Network, float]:
    saved = count_algebra.COUNT_TYPE_LIMIT
    count_algebra.COUNT_TYPE_LIMIT = limit
    try:
        start = time.perf_counter()
        net = fsmnet.compile(m, "bilinear-r2")
        return net, time.perf_counter() - start
    finally:
        count_algebra.COUNT_TYPE_LIMIT = saved


def _what(cert: dict[str, object]) -> str:
    pairs = cert.get("pairs")
    return f"{cert['method']}" + (f", {len(pairs)} pairs" if isinstance(pairs, list) else "")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--moduli", default="3,5,7,10,25,50")
    parser.add_argument("--baseline-limit", type=int, default=200_000,
                        help="skip the count-type baseline above this many types")
    args = parser.parse_args()
    print("| m | count types | count-type channels, s | character channels, s | ratio "
          "| verify + certificate s | certificate | check s |")
    print("|---|---|---|---|---|---|---|---|")
    for m in (int(x) for x in args.moduli.split(",")):
        automaton = task_automaton(f"modadd:{m}").minimal()
        types = math.prod(m // math.gcd(a, m) for a in range(m))
        if types <= args.baseline_limit:
            base, base_s = _compile(automaton, 1 << 62)
            baseline = f"{base.options['channels']}, {base_s:.2f}"
        else:
            base_s, baseline = math.nan, "— (not run)"
        net, chars_s = _compile(automaton, 0)
        start = time.perf_counter()
        with tempfile.TemporaryDirectory() as tmp:
            cert_path = Path(tmp) / "c.json"
            result = verify(automaton, net, certificate=str(cert_path))
            verify_s = time.perf_counter() - start
            assert result.verdict == "proved", result
            cert = json.loads(cert_path.read_text())
            start = time.perf_counter()
            check_certificate(cert)
            check_s = time.perf_counter() - start
        ratio = "—" if math.isnan(base_s) else f"{base_s / chars_s:.1f}×"
        print(f"| {m} | {types:,} | {baseline} | {net.options['channels']}, {chars_s:.2f} "
              f"| {ratio} | {verify_s:.2f} | {_what(cert)} | {check_s:.2f} |",
              flush=True)


if __name__ == "__main__":
    main()
