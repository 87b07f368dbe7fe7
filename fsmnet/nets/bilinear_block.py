"""Semantics of bilinear-block networks: independent bilinear blocks, multilinear readout.

Tensors (m ≥ 1 blocks, numbered from 0)
---------------------------------------
``W.i``      (b_i, b_i, |Σ|): block i steps h⁽ⁱ⁾ ← W.i[:, :, σ] h⁽ⁱ⁾.
``h0.i``     (b_i): block i's initial state.
``readout``  (C, b_0, ..., b_{m-1}): score_c = readout[c] contracted with
             h⁽⁰⁾ ⊗ ... ⊗ h⁽ᵐ⁻¹⁾; the output is the argmax.

An ``exact-W`` header (``{"kind": "exact-W", "W.i": per symbol, rows}``, a snapped
trained network, fsmnet.train.snap_blocks) states every block's matrices as
rationals: they are then the exact weights, and each ``W.i`` holds their correctly
rounded doubles (checked on load, fsmnet.nets.exact_header).

The recurrence is block-diagonal (A(x) = diag(A_0(x), ..., A_{m-1}(x))); the
readout is multilinear rather than linear, which is what lets a direct product
of automata be read out from its factors' states.  Each block is renormalized
on its own: a positive rescaling of one block multiplies every score by the
same positive number, so the argmax never changes.

This is its own semantics (not a :class:`~fsmnet.nets.linear.LinearRecurrence`)
because the readout is not a linear map of the concatenated hidden state.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING

import numpy as np

from fsmnet.errors import NetworkFileError
from fsmnet.nets.linear import _argmax_exact, normalize, to_fractions
from fsmnet.nets.semantics import require_tensor

if TYPE_CHECKING:
    from fsmnet.nets.network import Network

_NAME = re.compile(r"^(W|h0)\.(\d+)$")


def block_count(params: Mapping[str, np.ndarray]) -> int:
    """Number of blocks m (the ``W.i`` tensors)."""
    return sum(1 for k in params if (m := _NAME.match(k)) and m.group(1) == "W")


def contract(readout: np.ndarray, states: tuple[np.ndarray, ...]) -> np.ndarray:
    """scores[c] = Σ readout[c, i_0, ..., i_{m-1}] Π_k h⁽ᵏ⁾[i_k] (works on object arrays)."""
    scores = readout
    for h in reversed(states):  # contract the last axis each time
        lead = scores.shape[:-1]
        scores = scores.reshape(-1, scores.shape[-1]).dot(h).reshape(lead)
    return scores


def exact_block_header(net: Network) -> list[np.ndarray] | None:
    """Per block the (|Σ|, b, b) Fractions of an ``exact-W`` header, or None without one."""
    exact = net.exact
    if exact is None or exact.get("kind") != "exact-W":
        return None

    def parse() -> list[np.ndarray]:
        from fsmnet.nets.exact_header import rational_array

        out = []
        for i in range(block_count(net.params)):
            b, _, k = net.params[f"W.{i}"].shape
            out.append(rational_array(exact.get(f"W.{i}"), (k, b, b), f"exact.W.{i}",
                                      f"<network {net.name}>"))
        return out

    return net.cached("exact_block_w", parse)  # type: ignore[no-any-return]


class BlockBilinear:
    """h⁽ⁱ⁾_t = W.i[:, :, x_t] h⁽ⁱ⁾_{t-1} per block; argmax of a multilinear readout."""

    arch = "bilinear-block"

    def validate(self, params: Mapping[str, np.ndarray], n_symbols: int, n_labels: int,
                 source: str) -> None:
        m = block_count(params)
        if m == 0:
            raise NetworkFileError(f"{source}: field 'W.0': tensor is missing "
                                   f"(present: {sorted(params)})")
        sizes = []
        for i in range(m):
            w = require_tensor(params, f"W.{i}", (None, None, n_symbols), source)
            require_tensor(params, f"W.{i}", (w.shape[0], w.shape[0], n_symbols), source)
            require_tensor(params, f"h0.{i}", (w.shape[0],), source)
            sizes.append(int(w.shape[0]))
        require_tensor(params, "readout", (n_labels, *sizes), source)
        known = {f"W.{i}" for i in range(m)} | {f"h0.{i}" for i in range(m)} | {"readout"}
        extra = sorted(set(params) - known)
        if extra:
            raise NetworkFileError(f"{source}: field '{extra[0]}': unexpected tensor for "
                                   f"bilinear-block with {m} blocks (value: {extra})")

    def block_sizes(self, net: Network) -> tuple[int, ...]:
        return tuple(int(net.params[f"h0.{i}"].shape[0]) for i in range(block_count(net.params)))

    def hidden_size(self, net: Network) -> int:
        return sum(self.block_sizes(net))

    def matrices(self, net: Network, exact: bool) -> list[np.ndarray]:
        """Per block, the (|Σ|, b, b) stack of its matrices (exact: an exact-W header's
        where there is one)."""
        header = exact_block_header(net) if exact else None
        if header is not None:
            return header

        def build() -> list[np.ndarray]:
            mats = [np.ascontiguousarray(np.moveaxis(net.params[f"W.{i}"], 2, 0))
                    for i in range(block_count(net.params))]
            return [to_fractions(a) for a in mats] if exact else mats

        return net.cached("block_matrices_exact" if exact else "block_matrices", build)

    def initial_state(self, net: Network, exact: bool) -> tuple[np.ndarray, ...]:
        h0 = [net.params[f"h0.{i}"] for i in range(block_count(net.params))]
        return tuple(to_fractions(h) if exact else np.array(h, dtype=np.float64) for h in h0)

    def step(self, net: Network, state: tuple[np.ndarray, ...], symbol: int,
             exact: bool) -> tuple[np.ndarray, ...]:
        mats = self.matrices(net, exact)
        return tuple(normalize(a[symbol].dot(h)) for a, h in zip(mats, state))

    def readout(self, net: Network, state: tuple[np.ndarray, ...], exact: bool) -> int:
        if exact:
            r = net.cached("readout_exact", lambda: to_fractions(net.params["readout"]))
            return _argmax_exact(contract(r, state))
        return int(np.argmax(contract(net.params["readout"], state)))

BLOCK = BlockBilinear()
