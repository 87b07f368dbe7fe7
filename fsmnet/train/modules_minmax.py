"""MinMax modules: the trainable dense recurrence, the trainable cascade, and the
float32 port of compiled cascades.

Source: MinMax Recurrent Neural Cascades, arXiv 2605.06384; the algebra and its
associative combines are in docs/constructions-minmax.md.

* :class:`MinMaxDense` — x_t = (R[x_t] ⊗ x_{t-1}) ⊕ s[x_t] with
  (A ⊗ x)_i = max_j min(A_ij, x_j); score_c = (readout ⊗ x_t)_c.  Exactly the
  ``minmax-dense`` semantics, so it converts to and from a Network.  Trained
  through the subgradients of max/min (one selected entry per output), or with
  ``relax`` = τ > 0 through a τ-smooth recurrence's gradient while the values stay
  exact (fsmnet.train.relax, the straight-through estimator).
* :class:`MinMaxCascade` — the trainable cascade: L layers of K scalar units,
  unit state x_t = max(min(r_t, x_{t-1}), s_t) with gates r_t, s_t =
  sigmoid(affine(e(x_t) ‖ y)) of the symbol embedding and the states y of the
  layers below (a cascade: information only flows upward); linear readout of
  all states at t.  ``order`` says which states y are:

  - ``"lag"`` (the default): the layers below at **t−1**, before their update.
    This is the update order of fsmnet's evaluator and of the compiled
    cascade (docs/theory.md, "Update order matters"; DESIGN: the dependency
    function of a holonomy cascade), and the one-step delay the MinMax RNC
    gets from its causal convolution (arXiv 2605.06384).
  - ``"same-time"``: the layers below at t, after their update (the module
    before the lag was added).  Then every letter acts idempotently on the
    whole cascade (each unit's map x ↦ max(min(r, x), s) is idempotent and
    its gates see the same inputs on a second application), so it cannot
    count to two: a strictly weaker class.

  Simplifications against the paper: one gate form for every unit, no
  convolution beyond the one-step lag, continuous (not discretized) inputs
  between layers.  It has no ``Network`` form (a compiled cascade's
  controllers are lookup tables over the discrete coordinates of the units
  above); :meth:`to_params` raises.
* :class:`CompiledCascade` — a compiled ``minmax-cascade``/``minmax-scalar``
  network in float32 (max/min only select, so float32 is exact on the
  compiled values); a step loop, since its controllers read the discrete
  coordinates of the units above at t−1.  Not trainable (lookups).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from torch import nn

from fsmnet.train import relax, scan
from fsmnet.train.cascade_parts import CONTROLLERS, INITS, causal_window
from fsmnet.train.module_base import TrainModule, _np, _p

Tensor = torch.Tensor
TEMPERATURE = 10.0  # max-min scores lie in [0, 1]; scaled for the cross-entropy


class MinMaxDense(TrainModule, nn.Module):
    """x_t = (R[x_t] ⊗ x_{t-1}) ⊕ s[x_t], readout ⊗ x_t (arXiv 2605.06384)."""

    arch = "minmax-dense"

    def __init__(self, n_symbols: int, n_labels: int, hidden: int, relax: float = 0.0
                 ) -> None:
        super().__init__()
        self.n_symbols, self.n_labels, self.hidden = n_symbols, n_labels, hidden
        if not 0.0 <= relax < float("inf"):
            raise ValueError(f"relax must be a temperature >= 0 (value: {relax!r})")
        self.relax = float(relax)  # τ of the straight-through gradient (fsmnet.train.relax)
        self.R = nn.Parameter(torch.rand(n_symbols, hidden, hidden))
        self.s = nn.Parameter(0.5 * torch.rand(n_symbols, hidden))
        self.x0 = nn.Parameter(torch.rand(hidden))
        self.readout = nn.Parameter(torch.rand(n_labels, hidden))

    def _repr_options(self) -> dict[str, Any]:
        return {"relax": self.relax} if self.relax else {}

    def _relaxed(self) -> bool:
        return self.relax > 0 and torch.is_grad_enabled()

    def states(self, words: Tensor, fast: bool = True) -> Tensor:
        words = words.to(torch.int64)
        run = scan.maxmin_auto if fast else scan.maxmin_loop
        hard = run(self.R[words], self.s[words], self.x0)
        if not self._relaxed():
            return hard
        soft = relax.soft_loop(self.R[words], self.s[words], self.x0, self.relax)
        return relax.straight_through(hard, soft)

    def logits(self, words: Tensor, fast: bool = True) -> Tensor:
        x = self.states(words, fast)
        hard = scan.maxmin_apply(self.readout, x)
        if self._relaxed():
            hard = relax.straight_through(hard, relax.soft_apply(self.readout, x, self.relax))
        return TEMPERATURE * hard

    def forward(self, words: Tensor | Any) -> Tensor:
        """Label index after every prefix (max/min only select, so float32 is the
        reference); ``words`` as for :meth:`fsmnet.train.modules_linear.LinearRNN.forward`."""
        return self._label_trace(words, self._forward)

    def _forward(self, words: Tensor) -> Tensor:
        # The scores themselves, not the temperature-scaled logits: scaling in float32
        # can merge two adjacent float32 scores (or overflow) and change the argmax.
        with torch.no_grad():
            return scan.maxmin_apply(self.readout, self.states(words)).argmax(dim=-1)

    def to_params(self) -> dict[str, np.ndarray]:
        return {"R": _np(self.R), "s": _np(self.s), "x0": _np(self.x0),
                "readout": _np(self.readout)}

    @classmethod
    def from_params(cls, params: dict[str, np.ndarray], n_symbols: int, n_labels: int,
                    **options: Any) -> MinMaxDense:
        module = cls(n_symbols, n_labels, int(np.asarray(params["x0"]).shape[0]),
                     relax=float(options.get("relax", 0.0)))
        for key in ("R", "s", "x0", "readout"):
            setattr(module, key, _p(params[key]))
        return module


class MinMaxCascade(TrainModule, nn.Module):
    """L layers × K scalar MinMax units with sigmoid gates (arXiv 2605.06384, simplified).

    ``order="lag"`` (default): layer ℓ's gates at step t read the layers below at
    t−1, as the compiled cascade does; ``order="same-time"``: at t (every letter
    then acts idempotently; see the module docstring).
    """

    arch = "minmax-cascade"
    ORDERS = ("lag", "same-time")

    def __init__(self, n_symbols: int, n_labels: int, hidden: int, layers: int = 2,
                 order: str = "lag", controller: str = "affine", window: int = 1,
                 output_gate: bool = False, init: str = "default") -> None:
        super().__init__()
        for field, value, allowed in (("order", order, self.ORDERS),
                                      ("controller", controller, tuple(CONTROLLERS)),
                                      ("init", init, tuple(INITS))):
            if value not in allowed:
                from fsmnet.errors import SpecError

                raise SpecError(f"{field} must be one of {', '.join(allowed)}",
                                source="minmax-cascade", field=field, value=value)
        if window < 1 or (window > 1 and order != "lag"):
            from fsmnet.errors import SpecError

            raise SpecError("window must be >= 1, and > 1 only with order 'lag'",
                            source="minmax-cascade", field="window", value=window)
        self.order, self.controller, self.window = order, controller, int(window)
        self.output_gate, self.init = bool(output_gate), init
        self.n_symbols, self.n_labels, self.hidden = n_symbols, n_labels, hidden
        self.layers = max(1, int(layers))
        k = max(1, hidden // self.layers)
        self.width = k
        self.gates = nn.ModuleList(CONTROLLERS[controller](n_symbols + l * k * self.window,
                                                           2 * k)
                                   for l in range(self.layers))
        for gate in self.gates:
            INITS[init](gate)
        self.x0 = nn.Parameter(torch.full((self.layers, k), 0.5))
        self.readout = nn.Linear(self.layers * k, n_labels)
        # Created last, so the default module draws exactly the weights it always did.
        self.out_gate = (nn.Linear(n_symbols + self.layers * k, self.layers * k)
                         if self.output_gate else None)

    def states(self, words: Tensor, fast: bool = True) -> Tensor:
        words = words.to(torch.int64)
        e = nn.functional.one_hot(words, self.n_symbols).to(self.x0.dtype)
        run = scan.scalar_minmax_auto if fast else scan.scalar_minmax_loop
        # The lower layers' states that step t = 1..T reads: at t−1, …, t−window
        # (x[:, :-1] is t−1, the start state for t = 1) with the lag, at t (x[:, 1:])
        # without it.
        lag = self.order == "lag"
        below: list[Tensor] = []
        traces = []
        for l, gate in enumerate(self.gates):
            r, s = torch.sigmoid(gate(torch.cat([e, *below], dim=-1))).chunk(2, dim=-1)
            x = run(r, s, self.x0[l])
            traces.append(x)
            below.append(causal_window(x, self.window) if lag else x[:, 1:])
        return torch.cat(traces, dim=-1)

    def _repr_options(self) -> dict[str, Any]:
        return {"layers": self.layers, "width": self.width, "order": self.order,
                "controller": self.controller, "window": self.window,
                "output_gate": self.output_gate, "init": self.init}

    def logits(self, words: Tensor, fast: bool = True) -> Tensor:
        x = self.states(words, fast)
        if self.out_gate is not None:
            e = nn.functional.one_hot(words.to(torch.int64), self.n_symbols).to(x.dtype)
            start = e.new_zeros(e.shape[0], 1, e.shape[2])  # no letter before x_0
            x = torch.sigmoid(self.out_gate(torch.cat([torch.cat([start, e], 1), x], -1))) * x
        return self.readout(x)

    def forward(self, words: Tensor | Any) -> Tensor:
        """Label index after every prefix (argmax of the logits); ``words`` as for
        :meth:`fsmnet.train.modules_linear.LinearRNN.forward`."""
        return self._label_trace(words, self._forward)

    def _forward(self, words: Tensor) -> Tensor:
        with torch.no_grad():
            return self.logits(words).argmax(dim=-1)

    @classmethod
    def from_params(cls, params: dict[str, np.ndarray], n_symbols: int, n_labels: int,
                    **options: Any) -> CompiledCascade:
        """A compiled cascade network loads into its float32 port, :class:`CompiledCascade`
        (its lookup controllers have no place in the trainable gate form); ``arch``
        names the record the network came from."""
        return CompiledCascade(params, n_symbols, n_labels, arch=options.get("arch"))

    def to_params(self) -> dict[str, np.ndarray]:
        from fsmnet.errors import FsmnetError

        raise FsmnetError("a trained MinMax cascade has no network form: compiled cascades "
                          "use lookup-table controllers over discrete unit coordinates; "
                          "train --arch minmax-dense for a network that can be saved")


class CompiledCascade(TrainModule, nn.Module):
    """A compiled MinMax cascade network, in float32 (controllers: table lookups).

    ``arch`` is the record of the network it holds; None reads it off the units:
    ``minmax-scalar`` when every unit is scalar, else ``minmax-cascade`` (the two
    records share one semantics; ``minmax-scalar`` only admits no matrix unit).
    """

    def __init__(self, params: dict[str, np.ndarray], n_symbols: int, n_labels: int,
                 arch: str | None = None) -> None:
        super().__init__()
        self.params_np = {k: np.asarray(v) for k, v in params.items()}
        self.sizes = [int(k) for k in params["unit_size"]]
        self.kinds = [int(k) for k in params["unit_kind"]]
        self.n_symbols, self.n_labels = int(n_symbols), int(n_labels)
        # The state's dimension: one coordinate per scalar unit, k per matrix unit.
        self.hidden = sum(1 if kind == 0 else k for k, kind in zip(self.sizes, self.kinds))
        self.arch = arch or ("minmax-scalar" if all(kind == 0 for kind in self.kinds)
                             else "minmax-cascade")
        # Prefix links (format 2) and components with joins (format 3): the rows and
        # the readout code as in fsmnet.nets.minmax_cascade (CascadeLayout).
        from fsmnet.nets.minmax_cascade import CascadeLayout, join_names, link_names

        self.layout = CascadeLayout(
            params["unit_level"], params["unit_size"], params["unit_kind"],
            [params[n] for n in link_names(params)], int(np.asarray(params["readout"]).size),
            params.get("unit_component"), [params[n] for n in join_names(params)])
        self.above = self.layout.above
        self.links = [torch.tensor(np.array(x)) for x in self.layout.links or []]
        self.joins = [torch.tensor(np.array(x)) for x in self.layout.joins]
        self.gates, self.sets, self.starts = (nn.ParameterList() for _ in range(3))
        self.domains = []
        for u, (k, kind) in enumerate(zip(self.sizes, self.kinds)):
            gate = params[f"unit{u}_r" if kind == 0 else f"unit{u}_R"]
            n_sym, dom = gate.shape[:2]
            self.domains.append(int(dom))
            shape: tuple[int, ...] = (n_sym * dom,) if kind == 0 else (n_sym * dom, k, k)
            self.gates.append(_p(np.reshape(gate, shape)))
            self.sets.append(_p(np.reshape(params[f"unit{u}_s"], shape[:2 - (kind == 0)])))
            self.starts.append(_p(params[f"unit{u}_x0"]))
        self.register_buffer("table", torch.tensor(np.asarray(params["readout"]),
                                                   dtype=torch.int64))

    def _repr_options(self) -> dict[str, Any]:
        return {"units": len(self.sizes)}

    def _coords(self, state: list[Tensor]) -> list[Tensor]:
        return [torch.clamp(torch.floor(x), 1, k).to(torch.int64) - 1 if kind == 0
                else x.argmax(dim=-1) for x, k, kind in zip(state, self.sizes, self.kinds)]

    def _rows_and_code(self, coords: list[Tensor]) -> tuple[list[Tensor], Tensor]:
        lay = self.layout
        if lay.links is None and not lay.product:  # mixed radix, unit 0 most significant
            prefix = [torch.zeros_like(coords[0])]
            for j, c in enumerate(coords):
                prefix.append(prefix[-1] * self.sizes[j] + c)
            return [prefix[a] for a in self.above], prefix[-1]
        links, joins = self.links, self.joins
        chains = []
        for members in lay.members:
            pis = [torch.zeros_like(coords[0])]
            for u in members:
                pis.append(links[u][pis[-1], coords[u]])
            chains.append(pis)
        rows = [chains[comp][self.above[u]] for u, comp in enumerate(lay.components)]
        code = chains[0][-1]
        for comp, join in enumerate(joins, start=1):
            code = join[code, chains[comp][-1]]
        return rows, code

    def forward(self, words: Tensor | Any) -> Tensor:
        """Label index after every prefix; ``words`` as for
        :meth:`fsmnet.train.modules_linear.LinearRNN.forward`."""
        return self._label_trace(words, self._forward)

    def _forward(self, words: Tensor) -> Tensor:
        batch, length = words.shape
        table: Tensor = self.get_buffer("table")
        state = [x0.expand(batch) if kind == 0 else x0.expand(batch, -1)
                 for x0, kind in zip(self.starts, self.kinds)]
        coords = self._coords(state)
        rows, code = self._rows_and_code(coords)
        out = [table[code]]
        for t in range(length):
            new = []
            for u, kind in enumerate(self.kinds):  # every controller reads t−1
                row = words[:, t] * self.domains[u] + rows[u]
                gate, offset = self.gates[u][row], self.sets[u][row]
                step = (torch.minimum(gate, state[u]) if kind == 0
                        else scan.maxmin_apply(gate, state[u]))
                new.append(torch.maximum(step, offset))
            state = new
            coords = self._coords(state)
            rows, code = self._rows_and_code(coords)
            out.append(table[code])
        return torch.stack(out, dim=1)

    def to_params(self) -> dict[str, np.ndarray]:
        return dict(self.params_np)
