"""A fast exact state model of MinMax cascades for the product exploration.

The generic path of :func:`fsmnet.proofs.product.explore_product` steps a
cascade through :meth:`fsmnet.nets.minmax_cascade.MinMaxCascade.step`: a few
NumPy calls per unit and per step, and a key built from one byte string per
unit.  For a 200-level cascade that is most of the proof's time.  This model
is the same semantics on plain Python floats: a scalar unit's state is its
float, stepped by ``max(min(r, x), s)`` (max and min only *select* values,
so Python's and NumPy's results are the same number); a matrix unit's state
stays a NumPy vector stepped by the semantics' own ``affine_step``.  The
coordinates, the prefix index (mixed-radix or links, per component with
joins in format 3) and the readout follow the module docs of
:mod:`fsmnet.nets.minmax_cascade` exactly.

It applies only when every tensor is free of NaN (where Python's max and
NumPy's maximum would differ); otherwise :func:`cascade_model` returns None
and the generic path runs.  tests/test_holonomy_scale.py compares the two.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from fsmnet.nets import Network


def _coordinate(x: float, k: int) -> int:
    """``clip(floor(x), 1, k) - 1`` without ``math.floor`` (which fails on ±inf)."""
    if x >= k:
        return k - 1
    if x < 2:
        return 0
    return int(x) - 1  # 2 <= x < k: int() truncates, which is floor for x > 0


def cascade_model(net: Network) -> dict[str, Any] | None:
    """The parts of a :class:`~fsmnet.proofs.product._StateModel` (initial, step,
    readout, key, materialize) for a MinMax cascade, or None."""
    from fsmnet.nets.minmax import affine_step
    from fsmnet.nets.minmax_cascade import SCALAR_KIND, MinMaxCascade

    sem = net.semantics
    if type(sem) is not MinMaxCascade:
        return None
    lay = sem.layout(net)
    p = net.params
    n = lay.n_units
    tensors = [np.asarray(p[name], dtype=np.float64) for name in p
               if name.startswith("unit") and name.split("_")[-1] in ("r", "s", "R", "x0")]
    if any(np.isnan(t).any() for t in tensors):
        return None
    scalar = [lay.kinds[u] == SCALAR_KIND for u in range(n)]
    sizes = lay.sizes
    above = lay.above
    rs = [p[f"unit{u}_r"].tolist() if scalar[u] else None for u in range(n)]
    ss = [p[f"unit{u}_s"].tolist() if scalar[u] else np.asarray(p[f"unit{u}_s"]) for u in range(n)]
    big = [None if scalar[u] else np.asarray(p[f"unit{u}_R"]) for u in range(n)]
    links = None if lay.links is None else [x.tolist() for x in lay.links]
    joins = [x.tolist() for x in lay.joins]
    readout = [int(v) for v in np.asarray(p["readout"])]
    comp = lay.components
    members = lay.members

    def rows_code(h: tuple[Any, ...]) -> tuple[list[int], int]:
        pis = [[0] for _ in members]
        for u in range(n):
            c = _coordinate(h[u], sizes[u]) if scalar[u] else int(np.argmax(h[u]))
            chain = pis[comp[u]]
            chain.append(links[u][chain[-1]][c] if links is not None
                         else chain[-1] * sizes[u] + c)
        rows = [pis[comp[u]][above[u]] for u in range(n)]
        code = pis[0][-1]
        for j, join in enumerate(joins, start=1):
            code = join[code][pis[j][-1]]
        return rows, code

    def step(h: tuple[Any, ...], a: int) -> tuple[Any, ...]:
        rows, _ = rows_code(h)
        new: list[Any] = []
        for u in range(n):
            d = rows[u]
            if scalar[u]:
                new.append(max(min(rs[u][a][d], h[u]), ss[u][a][d]))  # type: ignore[index]
            else:
                new.append(affine_step(big[u][a, d], ss[u][a, d], h[u]))  # type: ignore[index]
        return tuple(new)

    def key(h: tuple[Any, ...]) -> Any:
        # Floats are exact keys (-0.0 == 0.0 hash alike); vectors by their bytes.
        return tuple(x + 0.0 if scalar[u] else (x + 0.0).tobytes() for u, x in enumerate(h))

    def materialize(h: tuple[Any, ...]) -> tuple[np.ndarray, ...]:
        return tuple(np.array([x], dtype=np.float64) if scalar[u] else np.array(x)
                     for u, x in enumerate(h))

    initial = tuple(float(np.asarray(p[f"unit{u}_x0"])[0]) if scalar[u]
                    else np.asarray(p[f"unit{u}_x0"], dtype=np.float64) for u in range(n))
    return {"initial": initial, "step": step, "readout": lambda h: readout[rows_code(h)[1]],
            "key": key, "materialize": materialize}
