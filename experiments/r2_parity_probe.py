"""Does longer training fix R2 on parity?  (A follow-up of Table 1 in docs/experiments.md.)

R2 blocks fit parity on lengths 2–10 exactly but fail at 500.  This probe trains
longer and slower (3000 steps at lr 0.01 and 0.003, 3 seeds each) and prints the
normalized accuracy at 10 and at 500, and the learned angle of the letter 1 in the
channel with the largest modulus (parity needs exactly π).

    python experiments/r2_parity_probe.py     # about 80 s
"""

from __future__ import annotations

import math
import sys

sys.path.insert(0, "experiments")
from common import save  # noqa: E402

from fsmnet.train.data import accuracy, normalized  # noqa: E402
from fsmnet.train.loop import TrainConfig, train  # noqa: E402


def main() -> None:
    rows = []
    print("| steps | lr | seed | norm@10 | norm@500 | angle of '1' / π (largest modulus) |")
    print("|---|---|---|---|---|---|")
    for steps, lr in ((3000, 0.01), (3000, 0.003)):
        for seed in range(3):
            r = train("modadd:2", TrainConfig(arch="bilinear-r2", hidden=16, steps=steps,
                                              lr=lr, seed=seed, threads=1))
            m = r.module
            n10 = normalized(accuracy(m, r.automaton, 10, words=64), 2)
            n500 = normalized(accuracy(m, r.automaton, 500, words=64), 2)
            rho, theta = m.rho.detach(), m.theta.detach()
            k = int((rho[0] + rho[1]).argmax())  # channel that dominates long words
            angle = float(theta[1, k]) % (2 * math.pi) / math.pi
            rows.append({"steps": steps, "lr": lr, "seed": seed, "norm10": n10,
                         "norm500": n500, "angle_over_pi": angle})
            print(f"| {steps} | {lr} | {seed} | {n10:.2f} | {n500:.2f} | {angle:.4f} |",
                  flush=True)
    save("r2_parity_probe", rows)


if __name__ == "__main__":
    main()
