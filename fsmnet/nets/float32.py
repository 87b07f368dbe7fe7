"""The float32 reference execution: what "the network, run in float32" means.

Trained networks are trained and run in float32, so a float32 claim needs one
execution that is the truth, fixed to the order of every operation.  This
module is that execution, written once as plain loops (docs/formats.md,
"The float32 reference step").  ``fsmnet run --float32``,
``fsmnet certify --float32`` (its counterexample search) and the torch
modules' label traces all run it; the scan kernels and torch are tested
against it.

Three programs cover every architecture:

``linear`` (every h ↦ A_x h recurrence: bilinear-full/cp/r2/diagonal,
deltaproduct, fixed-point with its solved matrix)
    A32 = fl32(fl64(A_x)) for the exact per-symbol matrix A_x of the file
    (the model a certificate states), R32 likewise;
    h_0 = fl32(fl64(h0 / max_i |h0_i|)), the direction of the file's h0 (a
    positive rescaling changes no label, and this one cannot overflow);
    g_i = ((0 + A32[i,0]·h_0) + A32[i,1]·h_1) + ... left to right, every
    product and sum rounded to float32 (no fused multiply-add);
    h' = g_i / max_i |g_i| (float32 division; the zero vector stays zero);
    scores s_c = the same left-to-right dot product of R32[c] and h;
    label = the first c with the largest score.
``block`` (bilinear-block)
    the same per block, each block normalized by its own largest entry;
    the multilinear readout contracts the last block first, each
    contraction a left-to-right float32 dot product.
``select`` (minmax-dense, minmax-cascade, minmax-scalar)
    every float tensor rounded to float32, then the exact step: max, min,
    floor and comparisons only select among float32 values, so every
    evaluation order computes the same state.

Overflow is part of the semantics, not outside it: a state, a partial sum or
a score that is not finite (inf or NaN) makes the label :data:`OVERFLOW`
(−1, never an automaton output) at that position and every later one.
Subnormals are kept (gradual underflow, as IEEE 754 and numpy do).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from fsmnet.nets.network import Network

OVERFLOW = -1
"""The label of a position whose float32 state or scores are not finite."""

SELECT_ARCHS = ("minmax-dense", "minmax-cascade", "minmax-scalar")


def exact_or_double(exact: Any, fallback: Any) -> np.ndarray:
    """The exact weights (an object array) with every entry that is not a rational
    (an exact header's cyclotomic entry) replaced by the file's float64 value
    (``fallback``, same shape), which is its correctly rounded double (docs/formats.md):
    the values whose float32 rounding the reference step uses, and which a float32
    certificate's model states."""
    arr = np.asarray(exact, dtype=object)
    back = np.asarray(fallback, dtype=np.float64).ravel()
    return np.array([x if isinstance(x, (Fraction, int)) else float(back[i])
                     for i, x in enumerate(arr.ravel())], dtype=object).reshape(arr.shape)


def _rounded(exact: Any, fallback: Any = None) -> np.ndarray:
    """fl32(fl64(x)) of every exact weight: the float32 rounding through its double (the
    rounding a certificate's float32 model states and the checker re-derives); an
    irrational entry takes the file's double instead (:func:`exact_or_double`)."""
    arr = np.asarray(exact)
    if arr.dtype != object:
        doubles = arr.astype(np.float64)
    else:
        values = arr if fallback is None else exact_or_double(arr, fallback)
        doubles = np.array([float(x) for x in values.ravel()],
                           dtype=np.float64).reshape(arr.shape)
    with np.errstate(over="ignore"):
        return doubles.astype(np.float32)


@dataclass(frozen=True)
class Float32Program:
    """The float32 tensors of one network and which loop runs them (``kind``)."""

    kind: str  # "linear" | "block" | "select"
    matrices: tuple[np.ndarray, ...]  # linear: one (S, H, H); block: one per block
    h0: tuple[np.ndarray, ...]
    readout: np.ndarray
    select_net: Any = None  # select: the network with float32-valued tensors


def program(net: Network) -> Float32Program:
    """The float32 program of ``net`` (computed once per network)."""
    return net.cached("float32_program", lambda: _build(net))  # type: ignore[no-any-return]


def _build(net: Network) -> Float32Program:
    if net.arch in SELECT_ARCHS:
        params = {k: (v.astype(np.float32).astype(np.float64) if v.dtype == np.float64 else v)
                  for k, v in net.params.items()}
        select = net.with_params(**params) if _finite(params) else None
        return Float32Program("select", (), (), np.zeros(0, np.float32), select)
    sem: Any = net.semantics
    if net.arch == "bilinear-block":
        blocks = tuple(_rounded(m) for m in sem.matrices(net, False))
        h0 = tuple(_rounded(_direction(h)) for h in sem.initial_state(net, False))
        return Float32Program("block", blocks, h0, _rounded(net.params["readout"]))
    mats = _rounded_entries(net, sem)
    if mats is None:
        mats = _rounded(sem.matrices(net, True), sem.matrices(net, False))
    readout = _rounded(sem.readout_matrix(net, True), sem.readout_matrix(net, False))
    return Float32Program("linear", (mats,), (_rounded(_direction(net.params["h0"])),), readout)


def _rounded_entries(net: Network, sem: Any) -> np.ndarray | None:
    """The float32 matrices placed from the exact matrices' stored entries, with no
    matrix of rationals in between (sparse networks: 5,040 states make 25 million
    Fractions per symbol otherwise); None when the semantics has no stored entries."""
    entries = sem.matrix_entries(net, True)
    if entries is None:
        return None
    symbols, rows, cols, values = entries
    hidden = sem.hidden_size(net)
    out = np.zeros((len(net.symbols), hidden, hidden), dtype=np.float32)
    out[symbols, rows, cols] = _rounded(values)
    return out


def _direction(h0: np.ndarray) -> np.ndarray:
    """h0 / max|h0| in exact rationals: a positive rescaling (no label changes), so h0
    enters the float32 run as its direction, whatever its magnitude in the file."""
    from fsmnet.nets.linear import normalize, to_fractions

    return normalize(to_fractions(h0))


def _finite(params: dict[str, np.ndarray]) -> bool:
    return all(np.all(np.isfinite(v)) for v in params.values() if v.dtype == np.float64)


class Float32Run:
    """A float32 run that can be continued piece by piece (``fsmnet run --float32``)."""

    def __init__(self, net: Network) -> None:
        self.net = net
        self.program = program(net)
        self.overflowed = False
        self.state: Any = None

    def labels(self, word: Sequence[int] | np.ndarray, *, include_start: bool) -> np.ndarray:
        """Labels after every symbol of ``word`` (and before the first if
        ``include_start``); the state carries over to the next call."""
        w = np.ascontiguousarray(word, dtype=np.int64)
        runner = _RUNNERS[self.program.kind]
        out, self.state, self.overflowed = runner(self.program, self.state, self.overflowed, w)
        return out if include_start else out[1:]


def float32_trace(net: Network, word: Sequence[int] | np.ndarray) -> np.ndarray:
    """Label index after every prefix of ``word`` (empty prefix first) in the float32
    reference execution; :data:`OVERFLOW` where the run is not finite."""
    return Float32Run(net).labels(word, include_start=True)


# ---------------------------------------------------------------- linear
def _linear(prog: Float32Program, state: Any, over: bool, word: np.ndarray
            ) -> tuple[np.ndarray, Any, bool]:
    from fsmnet.nets.float32_kernels import linear_trace

    if state is None:
        state, over = _start(prog.h0[0], over)
    out = np.empty(len(word) + 1, dtype=np.int64)
    h = np.array(state, dtype=np.float32)
    over = bool(linear_trace(prog.matrices[0], prog.readout, word, h, over, out))
    return out, h, over


def _start(h0: np.ndarray, over: bool) -> tuple[np.ndarray, bool]:
    from fsmnet.nets.float32_kernels import normalize32

    h = np.array(h0, dtype=np.float32)
    if not np.all(np.isfinite(h)):
        return h, True
    return normalize32(h), over


# ---------------------------------------------------------------- block
def _block(prog: Float32Program, state: Any, over: bool, word: np.ndarray
           ) -> tuple[np.ndarray, Any, bool]:
    from fsmnet.nets.float32_kernels import block_trace

    sizes = np.array([len(h) for h in prog.h0], dtype=np.int64)
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
    if state is None:
        started = [_start(h, over) for h in prog.h0]
        state = np.concatenate([h for h, _ in started]).astype(np.float32)
        over = over or any(o for _, o in started)
    flat = [m.ravel() for m in prog.matrices]  # each (S, b, b), symbol-major
    moffsets = np.concatenate([[0], np.cumsum([len(m) for m in flat])[:-1]]).astype(np.int64)
    out = np.empty(len(word) + 1, dtype=np.int64)
    h = np.array(state, dtype=np.float32)
    over = bool(block_trace(np.concatenate(flat), moffsets, starts, sizes,
                            np.ascontiguousarray(prog.readout.ravel()), word, h, over, out))
    return out, h, over


# ---------------------------------------------------------------- select
def _select(prog: Float32Program, state: Any, over: bool, word: np.ndarray
            ) -> tuple[np.ndarray, Any, bool]:
    net = prog.select_net
    out = np.empty(len(word) + 1, dtype=np.int64)
    if net is None:  # a tensor overflows float32: every label is an overflow
        out[:] = OVERFLOW
        return out, state, True
    sem = net.semantics
    if state is None:
        state = sem.initial_state(net, False)
    out[0] = sem.readout(net, state, False)
    for t, a in enumerate(word):
        state = sem.step(net, state, int(a), False)
        out[t + 1] = sem.readout(net, state, False)
    return out, state, over


_RUNNERS = {"linear": _linear, "block": _block, "select": _select}
