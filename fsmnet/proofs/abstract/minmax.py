"""Boxes for ``minmax-dense`` networks: exact interval images by monotonicity.

x ↦ (R ⊗ x) ⊕ s is monotone in x (max and min are), so the image of the box
[lo, hi] lies in [f(lo), f(hi)], computed exactly in float64 because max and
min only select among the inputs.  The Kleene iteration of boxes therefore
moves over finitely many values (entries of R, s and x0) and always stops;
what can fail is only the readout margin, when the hull of two states'
values mixes them.

``--float32``: rounding to float32 is monotone, so it commutes with max and
min; when every weight of the file is already a float32 value (as a trained
module's are), a float32 run is the exact run and the exact certificate covers
it.  Such a certificate has the rounding model ``float32-select``, and the
checker re-verifies that every model number is a float32 value.  Otherwise no
certificate is claimed for float32.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from fsmnet.automata import Automaton
from fsmnet.nets import Network
from fsmnet.nets.minmax import affine_step, maxmin_matvec
from fsmnet.proofs.certificate_models import _strings


@dataclass(frozen=True)
class MinMaxBoxes:
    """The ``minmax-box`` domain (the registry's abstract transformer for minmax-dense)."""

    name: str = "minmax-box"

    def candidates(self, net: Network, automaton: Automaton,
                   clouds: dict[int, list[np.ndarray]], right: dict[int, int], *,
                   float32: bool = False) -> Iterator[tuple[dict[str, Any] | None, str]]:
        """(certificate body, why), or (None, why not): one box per automaton state
        (hulls), then, if a hull mixes labels, one point box per reachable exact state."""
        body, why = self._prove(net, automaton, right, float32)
        yield body, why
        if body is None and why.endswith("(the hull is too coarse)"):
            yield self._points(net, automaton, right, float32)

    def _points(self, net: Network, automaton: Automaton, right: dict[int, int],
                float32: bool, limit: int = 20_000) -> tuple[dict[str, Any] | None, str]:
        """The refinement by exact states: box i = {x_i}, a (state, automaton state)
        pair reached from (x0, q0); finitely many, since max and min only select
        among the entries of R, s and x0."""
        p = net.params
        assert automaton.initial is not None
        x0 = np.array(p["x0"], dtype=np.float64)
        start = (x0.tobytes(), automaton.initial)
        index = {start: 0}
        points: list[tuple[np.ndarray, int]] = [(x0, automaton.initial)]
        succ: list[list[int]] = []
        for x, q in points:  # grows while it is read: breadth-first
            row = []
            for a in range(automaton.n_symbols):
                y = affine_step(p["R"][a], p["s"][a], x)
                key = (y.tobytes(), int(automaton.delta[a, q]))
                if key not in index:
                    if len(points) >= limit:
                        return None, f"more than {limit} exact states"
                    index[key] = len(points)
                    points.append((y, key[1]))
                row.append(index[key])
            succ.append(row)
            if not _reads_right(p["readout"], right[q], x, x):
                return None, f"an exact state of automaton state {q} is read out wrongly"
        return {"domain": self.name, "rounding": _rounding(float32),
                "initial_box": 0, "successors": succ,
                "boxes": [{"state": q, "lo": _strings(x), "hi": _strings(x)}
                          for x, q in points]}, f"{len(points)} point boxes closed"

    def _prove(self, net: Network, automaton: Automaton, right: dict[int, int],
               float32: bool) -> tuple[dict[str, Any] | None, str]:
        p = net.params
        if float32 and not all(_float32_values(v) for v in p.values()):
            # Rounding to float32 is monotone, so it commutes with max and min: a float32
            # run is the exact run of the rounded weights, which is not the file's model.
            return None, ("a weight is not a float32 value: the float32 run is another "
                          "network (round the weights to float32 first)")
        # With every number a float32 value, a float32 run selects (max, min, compare)
        # among the same values as the exact run: the exact claim is the float32 claim.
        boxes: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        assert automaton.initial is not None
        x0 = np.array(p["x0"], dtype=np.float64)
        boxes[automaton.initial] = (x0.copy(), x0.copy())
        changed = True
        while changed:  # finitely many values: this terminates
            changed = False
            for q in list(boxes):
                lo, hi = boxes[q]
                for a in range(automaton.n_symbols):
                    t = int(automaton.delta[a, q])
                    ilo = affine_step(p["R"][a], p["s"][a], lo)
                    ihi = affine_step(p["R"][a], p["s"][a], hi)
                    if t not in boxes:
                        boxes[t] = (ilo, ihi)
                        changed = True
                        continue
                    tlo, thi = boxes[t]
                    if np.any(ilo < tlo) or np.any(ihi > thi):
                        boxes[t] = (np.minimum(ilo, tlo), np.maximum(ihi, thi))
                        changed = True
        for q, (lo, hi) in boxes.items():
            if not _reads_right(p["readout"], right[q], lo, hi):
                return None, f"the box of state {q} mixes labels (the hull is too coarse)"
        ids = sorted(boxes)
        pos = {q: i for i, q in enumerate(ids)}
        return {"domain": self.name, "rounding": _rounding(float32),
                "initial_box": pos[automaton.initial],
                "successors": [[pos[int(automaton.delta[a, q])]
                                for a in range(automaton.n_symbols)] for q in ids],
                "boxes": [{"state": q, "lo": _strings(boxes[q][0]), "hi": _strings(boxes[q][1])}
                          for q in ids]}, f"{len(boxes)} boxes closed"


def _reads_right(readout: np.ndarray, r: int, lo: np.ndarray, hi: np.ndarray) -> bool:
    """Label r wins on the whole box [lo, hi]: its max-min score at lo (monotone, so
    its least) beats every other label's at hi (their greatest), a tie only against a
    later label (the argmax keeps the first)."""
    low = maxmin_matvec(readout[r], lo)
    high = maxmin_matvec(readout, hi)
    return all(c == r or (low > high[c] if c < r else low >= high[c])
               for c in range(len(high)))


def _rounding(float32: bool) -> str:
    # float32-select: the checker verifies that every model number is a float32 value,
    # which makes a float32 run of the max-min step the exact run.
    return "float32-select" if float32 else "exact"


def _float32_values(arr: np.ndarray) -> bool:
    """Every entry is exactly a float32 number (a trained module's weights are)."""
    a = np.asarray(arr, dtype=np.float64)
    with np.errstate(over="ignore"):
        return bool(np.array_equal(a.astype(np.float32).astype(np.float64), a))


MINMAX_BOX = MinMaxBoxes()
