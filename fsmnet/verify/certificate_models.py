"""Certificate models of MinMax networks, in the checker's exact JSON form.

The independent checker (:mod:`fsmnet.verify.checker`) re-implements each
architecture's step from a *model*: the network's tensors written as exact
rationals.  Every float64 is a rational; :func:`exact_str` writes it as
``"p/q"`` (or an integer), so the checker computes with the very values the
network holds.  Max and min only select values, so no arithmetic is lost.

* ``minmax-dense`` -> ``{"type": "minmax-dense", "R", "s", "x0", "readout"}``.
* ``minmax-cascade`` and ``minmax-scalar`` -> ``{"type": "minmax-cascade",
  "units": [{"level", "size", "kind", "r"|"R", "s", "x0"}], "readout"}``
  where ``kind`` is ``"scalar"`` or ``"matrix"`` and ``readout`` lists the
  label index of every mixed-radix code.

States are written the same way: a dense state is a vector of strings, a
cascade state a list of per-unit vectors (a scalar unit as a one-entry list).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np

from fsmnet.errors import FsmnetError
from fsmnet.nets import Network

MINMAX_ARCHS = ("minmax-dense", "minmax-cascade", "minmax-scalar")


def exact_str(x: float) -> str:
    """The exact rational value of a float64 as ``"p/q"`` (``"p"`` for integers)."""
    f = Fraction(float(x))  # raises for inf / nan: those are never valid weights
    return str(f.numerator) if f.denominator == 1 else f"{f.numerator}/{f.denominator}"


def _strings(array: Any) -> Any:
    arr = np.asarray(array, dtype=np.float64)
    if arr.ndim == 0:
        return exact_str(float(arr))
    if np.all(np.abs(arr) < 2.0**53) and np.all(arr == np.trunc(arr)):
        # Integer-valued (the usual 0/1 and 1..k weights): exact as integers,
        # and much faster than one Fraction per entry.
        return np.vectorize(str, otypes=[object])(arr.astype(np.int64)).tolist()
    return [_strings(x) for x in arr]


def certificate_model(net: Network) -> dict[str, Any]:
    """The exact model of a MinMax network for the checker.

    Raises
    ------
    FsmnetError
        For an architecture that is not a MinMax one.
    """
    p = net.params
    if net.arch == "minmax-dense":
        return {"type": "minmax-dense", "R": _strings(p["R"]), "s": _strings(p["s"]),
                "x0": _strings(p["x0"]), "readout": _strings(p["readout"])}
    if net.arch in ("minmax-cascade", "minmax-scalar"):
        from fsmnet.nets.minmax_cascade import SCALAR_KIND

        units = []
        for u, (level, size, kind) in enumerate(zip(p["unit_level"], p["unit_size"],
                                                    p["unit_kind"])):
            unit: dict[str, Any] = {"level": int(level), "size": int(size)}
            if int(kind) == SCALAR_KIND:
                unit.update(kind="scalar", r=_strings(p[f"unit{u}_r"]))
            else:
                unit.update(kind="matrix", R=_strings(p[f"unit{u}_R"]))
            unit.update(s=_strings(p[f"unit{u}_s"]), x0=_strings(p[f"unit{u}_x0"]))
            units.append(unit)
        return {"type": "minmax-cascade", "units": units,
                "readout": [int(c) for c in p["readout"]]}
    raise FsmnetError(f"no MinMax certificate model for {net.arch}")


def certificate_state(net: Network, state: Any) -> Any:
    """A reached MinMax state as exact JSON (strings), in the model's layout."""
    if net.arch == "minmax-dense":
        return _strings(state)
    return [_strings(np.atleast_1d(x)) for x in state]
