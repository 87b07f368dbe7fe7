"""Torch modules for MinMax networks (imported only by ``Network.to_torch``).

Both compute in float64 with ``torch.minimum``/``amax``, which only select
values, so they reproduce the NumPy reference exactly.  A cascade controller
is an embedding lookup: row ``symbol · D_u + code`` of a per-unit table, where
``code`` is the mixed-radix code of the units above (read at t−1).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch


def _param(array: np.ndarray) -> torch.nn.Parameter:
    return torch.nn.Parameter(torch.tensor(np.asarray(array), dtype=torch.float64))


def maxmin_apply(matrix: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
    """Batched ``(A ⊗ x)_i = max_j min(A[b, i, j], x[b, j])``."""
    return torch.minimum(matrix, x[:, None, :]).amax(dim=-1)


class DenseMinMaxModule(torch.nn.Module):
    """``x_t = (R[x_t] ⊗ x_{t-1}) ⊕ s[x_t]``; label = first argmax of ``readout ⊗ x``.

    ``forward(words)`` takes (batch, length) int64 symbol indices and returns the
    label index after every prefix, shape (batch, length + 1); ``scores`` returns
    the max-min readout scores.
    """

    def __init__(self, r: np.ndarray, s: np.ndarray, x0: np.ndarray,
                 readout: np.ndarray) -> None:
        super().__init__()
        self.R = _param(r)
        self.s = _param(s)
        self.x0 = _param(x0)
        self.readout = _param(readout)

    def scores(self, words: torch.Tensor) -> torch.Tensor:
        batch, length = words.shape
        x = self.x0.expand(batch, -1)
        w = self.readout.expand(batch, -1, -1)
        out = [maxmin_apply(w, x)]
        for t in range(length):
            sym = words[:, t]
            x = torch.maximum(maxmin_apply(self.R[sym], x), self.s[sym])
            out.append(maxmin_apply(w, x))
        return torch.stack(out, dim=1)

    def forward(self, words: torch.Tensor) -> torch.Tensor:
        return self.scores(words).argmax(dim=-1)


class CascadeMinMaxModule(torch.nn.Module):
    """A MinMax cascade; controllers are exact embedding lookups.

    Parameters
    ----------
    sizes, kinds, above
        Per unit: number of values, kind (0 scalar, 1 matrix), number of units above.
    tables
        Per unit ``(r, s, x0)`` (scalar, shapes (|Σ|, D), (|Σ|, D), (1,)) or
        ``(R, s, x0)`` (matrix, shapes (|Σ|, D, k, k), (|Σ|, D, k), (k,)).
    readout
        int64 label index per mixed-radix code of all units.
    """

    def __init__(self, sizes: Sequence[int], kinds: Sequence[int], above: Sequence[int],
                 tables: Sequence[tuple[np.ndarray, np.ndarray, np.ndarray]],
                 readout: np.ndarray) -> None:
        super().__init__()
        self.sizes = [int(k) for k in sizes]
        self.kinds = [int(k) for k in kinds]
        self.above = [int(a) for a in above]
        self.domains = [int(t[0].shape[1]) for t in tables]
        self.gates = torch.nn.ParameterList()
        self.sets = torch.nn.ParameterList()
        self.starts = torch.nn.ParameterList()
        for (gate, offset, x0), k, kind in zip(tables, self.sizes, self.kinds):
            n_sym, dom = gate.shape[:2]
            # Flatten (symbol, code) into one embedding row index.
            if kind == 0:
                self.gates.append(_param(np.reshape(gate, (n_sym * dom,))))
                self.sets.append(_param(np.reshape(offset, (n_sym * dom,))))
            else:
                self.gates.append(_param(np.reshape(gate, (n_sym * dom, k, k))))
                self.sets.append(_param(np.reshape(offset, (n_sym * dom, k))))
            self.starts.append(_param(x0))
        strides = [1] * len(self.sizes)
        for i in range(len(self.sizes) - 2, -1, -1):
            strides[i] = strides[i + 1] * self.sizes[i + 1]
        self.strides = strides
        self.register_buffer("readout", torch.tensor(np.asarray(readout), dtype=torch.int64))

    def _coords(self, state: list[torch.Tensor]) -> list[torch.Tensor]:
        out = []
        for x, k, kind in zip(state, self.sizes, self.kinds):
            if kind == 0:
                out.append(torch.clamp(torch.floor(x), 1, k).to(torch.int64) - 1)
            else:
                out.append(x.argmax(dim=-1))
        return out

    def _code(self, coords: list[torch.Tensor], count: int) -> torch.Tensor:
        code = torch.zeros_like(coords[0])
        for j in range(count):
            code = code * self.sizes[j] + coords[j]
        return code

    def _label(self, state: list[torch.Tensor]) -> torch.Tensor:
        coords = self._coords(state)
        table: torch.Tensor = self.get_buffer("readout")
        return table[self._code(coords, len(coords))]

    def forward(self, words: torch.Tensor) -> torch.Tensor:
        batch, length = words.shape
        # scalar units: x0 has shape (1,) -> (batch,); matrix units: (k,) -> (batch, k)
        state = [x0.expand(batch) if kind == 0 else x0.expand(batch, -1)
                 for x0, kind in zip(self.starts, self.kinds)]
        out = [self._label(state)]
        for t in range(length):
            coords = self._coords(state)  # every controller reads t-1
            new = []
            for u, kind in enumerate(self.kinds):
                row = words[:, t] * self.domains[u] + self._code(coords, self.above[u])
                gate, offset = self.gates[u][row], self.sets[u][row]
                if kind == 0:
                    new.append(torch.maximum(torch.minimum(gate, state[u]), offset))
                else:
                    new.append(torch.maximum(maxmin_apply(gate, state[u]), offset))
            state = new
            out.append(self._label(state))
        return torch.stack(out, dim=1)
