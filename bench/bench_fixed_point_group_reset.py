"""Fixed-point networks for permutation-reset automata (``python
bench/bench_fixed_point_group_reset.py``, from the repository root; not a test).

Subjects: four automata whose letters permute or reset the states (parity with a
reset letter, a mod-3 counter with a clear letter, S3 by a transposition and a
3-cycle plus a reset, four cups with three swaps and a reset).  For each: the time
of ``fsmnet.compile(a, "fixed-point")``, of ``fsmnet.verify`` (a box per state in
the recorded basis, checked exactly), of the independent checker alone on the
certificate, and, beside them in the same process, the baseline: exact brute
force over every word up to a length (which proves nothing beyond it), with the
ratio.  Before this construction every subject raised NotExpressible.
"""

from __future__ import annotations

import json
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, "tests")

import fsmnet  # noqa: E402
from fsmnet.automata import Automaton  # noqa: E402
from fsmnet.proofs.checker import check_certificate  # noqa: E402

SUBJECTS = {
    "parity + reset": Automaton(delta=np.array([[1, 0], [0, 0]]), symbols=("t", "r"),
                                initial=0, outputs=(0, 1)),
    "mod 3 + clear": Automaton(delta=np.array([[1, 2, 0], [0, 0, 0]]), symbols=("a", "r"),
                               initial=0, outputs=(0, 1, 2)),
    "S3 + reset": Automaton(delta=np.array([[1, 0, 2], [1, 2, 0], [0, 0, 0]]),
                            symbols=("s", "c", "r"), initial=0, outputs=(0, 1, 2)),
    "4 cups + reset": Automaton(
        delta=np.array([[1, 0, 2, 3], [0, 2, 1, 3], [0, 1, 3, 2], [0, 0, 0, 0]]),
        symbols=("a", "b", "c", "r"), initial=0, outputs=(0, 1, 2, 3)),
}


def main() -> None:
    from certify_helpers import exhaustive_agree

    length = int(sys.argv[1]) if len(sys.argv) > 1 else 7
    print(f"| subject | H | compile | verify | checker | brute force to length {length} "
          f"| verify / brute |")
    print("|---|---|---|---|---|---|---|")
    for name, a in SUBJECTS.items():
        t0 = time.perf_counter()
        net = fsmnet.compile(a, "fixed-point")
        t_compile = time.perf_counter() - t0
        with tempfile.TemporaryDirectory() as d:
            path = f"{d}/c.json"
            t0 = time.perf_counter()
            result = fsmnet.verify(a, net, certificate=path)
            t_verify = time.perf_counter() - t0
            assert result.verdict == "proved", (name, result.details)
            cert = json.load(open(path))
        t0 = time.perf_counter()
        assert check_certificate(cert).startswith("valid")
        t_check = time.perf_counter() - t0
        t0 = time.perf_counter()
        assert exhaustive_agree(net, a, length)
        t_brute = time.perf_counter() - t0
        print(f"| {name} | {net.hidden_size} | {t_compile:.2f} s | {t_verify:.2f} s | "
              f"{t_check:.3f} s | {t_brute:.2f} s | {t_verify / t_brute:.2f} |", flush=True)


if __name__ == "__main__":
    main()
