"""Exact linear step benchmark (``python bench/bench_exact_step.py``; not a test).

Baseline: the rational product ``normalize(A.dot(state))`` over Python Fractions,
the definition of the exact step.  fsmnet: ``LinearRecurrence.step`` with exact
arithmetic, which runs the same step on common-denominator integers
(``fsmnet.nets.linear.integer_step``).  Subjects: a ``bilinear-full`` net of hidden
size H with random float64 weights (rationals with large power-of-two
denominators), and its exact states along a random word.  Prints both times per
step and the ratio, and checks that the two give the same Fractions.
"""

from __future__ import annotations

import sys

import numpy as np

sys.path.insert(0, "bench")

from timing import best  # noqa: E402

import fsmnet  # noqa: E402
from fsmnet.nets.linear import normalize  # noqa: E402


def subject(hidden: int) -> tuple[fsmnet.nets.Network, list[np.ndarray]]:
    rng = np.random.default_rng(hidden)
    net = fsmnet.nets.Network(arch="bilinear-full", params={
        "W": rng.standard_normal((hidden, hidden, 2)), "h0": rng.standard_normal(hidden),
        "readout": rng.standard_normal((2, hidden))}, symbols=("a", "b"), labels=(0, 1))
    sem = net.semantics
    states = [sem.initial_state(net, True)]
    for a in rng.integers(0, 2, 20):
        states.append(sem.step(net, states[-1], int(a), True))
    return net, states


def rational_steps(mats: np.ndarray, states: list[np.ndarray]) -> list[np.ndarray]:
    return [normalize(mats[0].dot(h)) for h in states]


def fsmnet_steps(net: fsmnet.nets.Network, states: list[np.ndarray]) -> list[np.ndarray]:
    return [net.semantics.step(net, h, 0, True) for h in states]


def main() -> None:
    for hidden in (4, 16, 64):
        net, states = subject(hidden)
        mats = net.semantics.matrices(net, True)
        assert [list(x) for x in fsmnet_steps(net, states)] == \
            [list(x) for x in rational_steps(mats, states)]
        base = best(3, rational_steps, mats, states) / len(states)
        mine = best(3, fsmnet_steps, net, states) / len(states)
        print(f"H = {hidden:2d}: rational {base * 1e3:7.2f} ms, integer {mine * 1e3:6.2f} ms, "
              f"ratio {base / mine:5.1f}x")


if __name__ == "__main__":
    main()
