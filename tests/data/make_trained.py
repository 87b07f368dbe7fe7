"""Regenerate ``tests/data/trained_nets.json``: trained networks that certify proves.

The tests train small networks on the fly too, but a proof is about one
network, and the training fast paths may change their rounding; these
fixtures pin the networks whose proofs the tests assert.  Each entry keeps
the exact float64 values of the saved weights (``float.hex``) and the
training configuration that produced them.

    python tests/data/make_trained.py         # from the repository root: new entries
    python tests/data/make_trained.py --all   # retrain every entry

Without ``--all`` the pinned entries are kept as they are, so adding a network
does not change the ones other tests assert about.
"""

from __future__ import annotations

import json
import os
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
# The last symbol read and Tomita 1 (1*), as in tests/test_certify_trained.py.
LAST = {"delta": [[0, 0], [1, 1]], "symbols": ["set", "reset"], "initial": 0,
        "outputs": ["on", "off"], "name": "last-letter"}
TOMITA1 = {"delta": [[1, 1], [0, 1]], "symbols": ["0", "1"], "initial": 0,
           "outputs": [True, False], "name": "tomita1"}
NETS = {  # name: (spec, arch, hidden, steps, seed)
    "last_bilinear_cp": (LAST, "bilinear-cp", 2, 600, 3),
    "last_fixed_point": (LAST, "fixed-point", 2, 300, 0),
    "last_deltanet": (LAST, "deltanet", 2, 300, 0),
    "flipflop_minmax_dense": ("flipflop", "minmax-dense", 4, 300, 0),
    "tomita1_minmax_dense": (TOMITA1, "minmax-dense", 4, 600, 2),
    # wrong on an 8-letter word and a drifting machine to L* (tests/test_adversarial_crashes.py)
    "flipflop_bilinear_cp": ("flipflop", "bilinear-cp", 4, 300, 0),
}


def main() -> None:
    import sys

    from fsmnet.automata import Automaton
    from fsmnet.train.convert import to_network
    from fsmnet.train.loop import TrainConfig, train

    path = os.path.join(HERE, "trained_nets.json")
    out: dict[str, Any] = {}
    if "--all" not in sys.argv[1:] and os.path.exists(path):
        with open(path, encoding="utf-8") as fh:
            out = json.load(fh)
    for name, (spec, arch, hidden, steps, seed) in NETS.items():
        if name in out:
            continue
        task = Automaton(**spec) if isinstance(spec, dict) else spec
        res = train(task, TrainConfig(arch=arch, hidden=hidden, steps=steps, seed=seed,
                                      threads=1))
        net = to_network(res.module, res.automaton.symbols, res.automaton.labels, name=name)
        out[name] = {
            "spec": spec, "arch": net.arch, "symbols": list(net.symbols),
            "labels": list(net.labels),
            "train": {"arch": arch, "hidden": hidden, "steps": steps, "seed": seed,
                      "threads": 1},
            "params": {k: {"shape": list(v.shape),
                           "hex": [float(x).hex() for x in v.ravel()]}
                       for k, v in net.params.items()}}
    with open(path + ".tmp", "w", encoding="utf-8") as fh:
        json.dump(out, fh, indent=1)
    os.replace(path + ".tmp", path)
    print(path)


if __name__ == "__main__":
    main()
