"""After training: accuracy against length through the scan engine, and its plot.

Long lengths run the *saved network* (float64 weights of the trained float32
module) through :func:`fsmnet.gpu.checked.run_checked`, which compares every
position with the automaton: the same network that ``fsmnet verify`` sees.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Sequence
from typing import Any

from fsmnet.io import output_path
from fsmnet.nets import Network

PLOT_LENGTHS = (10, 100, 1_000, 10_000, 100_000, 1_000_000)


def engine_accuracy(spec: str, net: Network | None, lengths: Sequence[int], *,
                    arch: str | None = None, seed: int = 0) -> dict[int, float | None]:
    """Per-position accuracy of ``net`` (or of ``arch`` compiled) on one random word of
    each length, by the scan engine (backend ``auto``)."""
    from fsmnet.gpu.checked import run_checked

    out: dict[int, float | None] = {}
    with tempfile.TemporaryDirectory() as tmp:
        path = None
        if net is not None:
            path = os.path.join(tmp, "net.safetensors")
            net.save(path)
        for n in lengths:
            res = run_checked(spec, length=int(n), net_path=path, arch=None if path else arch,
                              seed=seed)
            out[int(n)] = res.accuracy
    return out


def compiled_accuracy(spec: str, arch: str, lengths: Sequence[int]) -> dict[int, float | None]:
    """The compiled network's accuracy, or {} when ``arch`` cannot express ``spec``."""
    from fsmnet.constructions import compile_automaton
    from fsmnet.errors import FsmnetError
    from fsmnet.train.data import task_automaton

    try:
        net = compile_automaton(task_automaton(spec), arch)
    except FsmnetError:
        return {}
    return engine_accuracy(spec, net, lengths)


def plot_accuracy(curves: dict[str, dict[int, Any]], path: str, title: str) -> None:
    """Accuracy against length (log scale), one line per curve."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 4.0))
    for name, curve in curves.items():
        pts = sorted((n, a) for n, a in curve.items() if a is not None)
        if pts:
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=name)
    ax.set_xscale("log")
    ax.set_ylim(-0.02, 1.02)
    ax.set_xlabel("word length")
    ax.set_ylabel("per-position accuracy")
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    # fsmnet.io's rules: atomic (a reader never sees half a picture), "-" for stdout,
    # the file's format picked by its suffix (PNG without one).
    fmt = os.path.splitext(path)[1].lstrip(".").lower() or "png"
    try:
        with output_path(path) as tmp:
            fig.savefig(tmp, dpi=120, format=fmt)
    finally:
        plt.close(fig)
