"""The reference backend (``backend="numpy"``): the semantics' own step, one symbol at a time.

Slow, but it is the definition every fast path is tested against.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from fsmnet.automata import Automaton
from fsmnet.gpu.common import network_start, symbols_array


def evaluate_reference(model: Any, symbols: Any, *, outputs: str, start: Any, chunk: Any,
                    path: str) -> tuple[np.ndarray | None, Any, str]:
    if isinstance(model, Automaton):
        arr = symbols_array(symbols, model.n_symbols)
        states = model.trace(arr, start=start)
        out = model.output_ids[states[1:]] if outputs == "all" and model.outputs else None
        return out, int(states[-1]), "reference"
    sem = model.semantics
    arr = symbols_array(symbols, len(model.symbols))
    state = network_start(model, start)
    res = np.empty(len(arr) if outputs == "all" else 0, dtype=np.int64)
    for t, a in enumerate(arr):
        state = sem.step(model, state, int(a), False)
        if outputs == "all":
            res[t] = sem.readout(model, state, False)
    return (res if outputs == "all" else None), state, "reference"
