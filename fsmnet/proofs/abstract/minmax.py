"""Boxes for ``minmax-dense`` networks: exact interval images by monotonicity.

x ↦ (R ⊗ x) ⊕ s is monotone in x (max and min are), so the image of the box
[lo, hi] lies in [f(lo), f(hi)], computed exactly in float64 because max and
min only select among the inputs.  The Kleene iteration of boxes therefore
moves over finitely many values (entries of R, s and x0) and always stops;
what can fail is only the readout margin, when the hull of two states'
values mixes them.
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
        """One (certificate body, why), or (None, why not)."""
        yield self._prove(net, automaton, right, float32)

    def _prove(self, net: Network, automaton: Automaton, right: dict[int, int],
               float32: bool) -> tuple[dict[str, Any] | None, str]:
        if float32:
            return None, "max and min are exact in every float format: run without --float32"
        p = net.params
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
            r = right[q]
            low = maxmin_matvec(p["readout"][r], lo)
            high = maxmin_matvec(p["readout"], hi)
            if any(c != r and not (low > high[c] if c < r else low >= high[c])
                   for c in range(len(high))):
                return None, f"the box of state {q} mixes labels (the hull is too coarse)"
        ids = sorted(boxes)
        pos = {q: i for i, q in enumerate(ids)}
        return {"domain": self.name, "rounding": "exact",
                "initial_box": pos[automaton.initial],
                "successors": [[pos[int(automaton.delta[a, q])]
                                for a in range(automaton.n_symbols)] for q in ids],
                "boxes": [{"state": q, "lo": _strings(boxes[q][0]), "hi": _strings(boxes[q][1])}
                          for q in ids]}, f"{len(boxes)} boxes closed"


MINMAX_BOX = MinMaxBoxes()
