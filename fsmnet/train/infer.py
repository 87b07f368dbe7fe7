"""Label traces of the trained modules without autograd.

``module(words)`` (the label index after every prefix, what users of
:func:`fsmnet.train.convert.to_torch` call) is, on a CPU, :func:`reference_labels`:
the float32 reference execution (:mod:`fsmnet.nets.float32`) of the module's
network form, the semantics ``certify --float32`` proves, so a module's labels are
the certified ones bit for bit.  A module made from a network by
:func:`fsmnet.train.convert.to_torch` is tied to that network
(:func:`adopt_network`) until its weights change.

:func:`cpu_labels` (``module.fast_labels``) is the float64 kernel for monitoring:
a torch op costs ~5 µs of dispatch whatever its size, and a step of the
recurrence is two of them, while its arithmetic is a mat-vec of nanoseconds, so
the whole batch goes to the Numba kernels of :mod:`fsmnet.gpu.numba_linear`,
which take each word through h_t = A[x_t] h_{t-1} in float64 with the rescale by
max|h| and the readout's argmax inside the loop.  Every rescale is by a positive
factor, so no argmax changes; ties go to the first label and NaN counts as
largest, as in ``torch.argmax``.  Matrices (and readouts) with at most H/2
nonzeros a row, compiled networks' have 1-4, run as K gathered entries a row
(ELLPACK); DeltaNet/DeltaProduct apply their Householder factors one by one when
that is cheaper (2·n_h·H a step against H², or 2KH).

The module's matrices (or diagonals) are derived from its parameters once and kept
while no parameter changes: torch counts every in-place update of a tensor in its
``_version`` (an optimizer step is one), a replaced parameter is another object,
and the module's scalar settings (β_max, ...) are compared too.

>>> import torch
>>> mats = torch.tensor([[[0., 1.], [1., 0.]], [[1., 0.], [0., 1.]]])
>>> dense_labels(mats, torch.tensor([[0, 1, 0]]), torch.tensor([1., 0.]), torch.eye(2))
tensor([[0, 1, 1, 0]])
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from fsmnet.errors import FsmnetError

Tensor = torch.Tensor


def _f64(x: Tensor) -> np.ndarray:
    return np.ascontiguousarray(x.detach().to(torch.float64).cpu().numpy())


def _tokens(words: Tensor, n_symbols: int) -> np.ndarray:
    # The kernels index without bounds checks: check here, as torch's gather would.
    tokens = np.ascontiguousarray(words.detach().cpu().numpy(), dtype=np.int64)
    if tokens.ndim != 2:
        raise ValueError(f"words must be (batch, length) token ids, got shape {tokens.shape}")
    if tokens.size and (tokens.min() < 0 or tokens.max() >= n_symbols):
        bad = tokens[(tokens < 0) | (tokens >= n_symbols)][0]
        raise IndexError(f"token id {int(bad)} out of range for {n_symbols} symbols")
    return tokens


def _ell(dense: np.ndarray) -> tuple[np.ndarray, np.ndarray, bool]:
    """(..., R, H) matrices as K entries a row, k-major: (..., K, R) column indices and
    values (padding: column 0, value 0), and whether that pays: K ≤ H/2 (a gathered
    entry costs about two of a dense, vectorized row)."""
    flat = dense.reshape(-1, *dense.shape[-2:])
    nnz = flat != 0
    width = max(1, int(nnz.sum(axis=2).max()))
    idx = np.zeros((flat.shape[0], width, flat.shape[1]), dtype=np.int64)
    val = np.zeros((flat.shape[0], width, flat.shape[1]))
    for m in range(flat.shape[0]):
        rows, cols = np.nonzero(nnz[m])
        slot = np.arange(len(rows)) - np.searchsorted(rows, rows)  # k-th nonzero of its row
        idx[m, slot, rows] = cols
        val[m, slot, rows] = flat[m, rows, cols]
    shape = (*dense.shape[:-2], width, flat.shape[1])
    return idx.reshape(shape), val.reshape(shape), bool(2 * width <= flat.shape[2])


def _readout_arrays(h0: Tensor, readout: Tensor) -> dict[str, Any]:
    r = _f64(readout)
    r_idx, r_val, r_ell = _ell(r)
    return {"h0": _f64(h0), "readout": r, "r_idx": r_idx, "r_val": r_val, "r_ell": r_ell}


def _step_cost(arrays: dict[str, Any]) -> int:
    """Multiply-adds of a step of the product form (a gathered entry counted as two)."""
    size = arrays["mats"].shape[1]
    return 2 * arrays["e_idx"].shape[1] * size if arrays["ell"] else size * size


def _run(arrays: dict[str, Any], tokens: np.ndarray) -> Tensor:
    from fsmnet.gpu import numba_linear

    labels = np.empty((tokens.shape[0], tokens.shape[1] + 1), dtype=np.int64)
    a = arrays
    numba_linear.label_traces(a["kind"], a["mats"], a["e_idx"], a["e_val"], a["ell"],
                              a["readout"], a["r_idx"], a["r_val"], a["r_ell"], tokens, a["h0"],
                              labels)
    return torch.from_numpy(labels)


def _dense_arrays(mats: Tensor, h0: Tensor, readout: Tensor) -> dict[str, Any]:
    from fsmnet.gpu.numba_linear import DENSE

    m = _f64(mats)
    e_idx, e_val, ell = _ell(m)
    return {"kind": DENSE, "mats": m, "e_idx": e_idx, "e_val": e_val, "ell": ell,
            **_readout_arrays(h0, readout)}


def _householder_arrays(keys: Tensor, betas: Tensor, h0: Tensor,
                        readout: Tensor) -> dict[str, Any]:
    from fsmnet.gpu.numba_linear import HOUSEHOLDER

    k = keys.detach().to(torch.float64).cpu()
    k = k / k.norm(dim=-1, keepdim=True).clamp_min(1e-30)  # as the module normalizes
    return {"kind": HOUSEHOLDER, "mats": _f64(k), "e_idx": np.zeros((1, 1, 1), dtype=np.int64),
            "e_val": _f64(betas)[:, None, :], "ell": False, **_readout_arrays(h0, readout)}


def _diag_arrays(log_mod: Tensor, phase: Tensor, pairs: bool, h0: Tensor,
                 readout: Tensor) -> dict[str, Any]:
    from fsmnet.gpu.numba_linear import COMPLEX_PAIRS, REAL_DIAG

    mod = torch.exp(log_mod.detach().to(torch.float64).cpu())
    ph = phase.detach().to(torch.float64).cpu()
    if pairs:
        kind, mats = COMPLEX_PAIRS, _f64(torch.stack([mod * torch.cos(ph), mod * torch.sin(ph)], 1))
    else:  # real channels: the phase holds the signs
        kind, mats = REAL_DIAG, _f64((mod * ph)[:, None, :])
    return {"kind": kind, "mats": mats, "e_idx": np.zeros((1, 1, 1), dtype=np.int64),
            "e_val": np.zeros((1, 1, 1)), "ell": False, **_readout_arrays(h0, readout)}


def dense_labels(mats: Tensor, words: Tensor, h0: Tensor, readout: Tensor) -> Tensor:
    """argmax(readout · h_t) after every prefix of h_t = A[x_t] h_{t-1}, (B, T + 1) int64."""
    return _run(_dense_arrays(mats, h0, readout), _tokens(words, mats.shape[0]))


def diag_labels(log_mod: Tensor, phase: Tensor, complex_pairs: bool, words: Tensor,
                h0: Tensor, readout: Tensor) -> Tensor:
    """The same for the diagonal recurrence of :func:`fsmnet.train.scan.diag_loop`."""
    arrays = _diag_arrays(log_mod, phase, complex_pairs, h0, readout)
    return _run(arrays, _tokens(words, log_mod.shape[0]))


def _cached(module: Any, key: str, build: Any) -> Any:
    """``build()`` once per state of the module's parameters and scalar settings."""
    params = list(module.parameters())
    versions = [p._version for p in params]
    settings = {k: v for k, v in vars(module).items() if isinstance(v, (bool, int, float))}
    cached = getattr(module, key, None)
    # The cache holds the parameter objects themselves: compared by identity, a freed
    # parameter's address reused by a new one (version 0 again) cannot pass for it.
    if (cached is not None and len(cached[0]) == len(params)
            and all(a is b for a, b in zip(cached[0], params))
            and cached[1] == versions and cached[2] == settings):
        return cached[3]
    value = build()
    setattr(module, key, (params, versions, settings, value))
    return value


def adopt_network(module: Any, net: Any) -> Any:
    """Tie a module made from ``net`` (:func:`~fsmnet.train.convert.to_torch`) to the
    network itself while its parameters stay as loaded: its labels are then ``net``'s
    float32 reference execution, whose matrices are the float32 roundings of the
    file's exact (float64) weights, not of the module's float32 copies of them."""
    _cached(module, "_fsmnet_reference_cache", lambda: net)
    return module


def reference_labels(module: Any, words: Tensor) -> Tensor:
    """``module(words)``: the label after every prefix in the float32 reference execution
    (:mod:`fsmnet.nets.float32`) of the module's network form, (B, T + 1) int64, −1
    where the float32 run overflows.  This is the semantics ``certify --float32``
    proves, so a module's labels are the certified ones bit for bit."""
    from fsmnet.nets.float32 import Float32Run
    from fsmnet.train.convert import to_network

    def build() -> Any:
        with torch.no_grad():
            return to_network(module, [str(i) for i in range(module.n_symbols)],
                              list(range(module.n_labels)), name="module")

    try:
        net = _cached(module, "_fsmnet_reference_cache", build)
    except FsmnetError:
        # Weights with no network form in float64 copies (a gate saturated to a bound
        # the file format excludes, NaN after divergence): the module's own float path.
        with torch.no_grad():
            return module.logits(words).argmax(dim=-1)
    tokens = _tokens(words, module.n_symbols)
    out = np.empty((tokens.shape[0], tokens.shape[1] + 1), dtype=np.int64)
    for b, row in enumerate(tokens):
        out[b] = Float32Run(net).labels(row, include_start=True)
    return torch.from_numpy(out).to(words.device)


def cpu_labels(module: Any, words: Tensor) -> Tensor:
    """``module(words)`` of a :class:`fsmnet.train.modules_linear.LinearRNN` on a CPU.

    >>> from fsmnet.train import convert
    >>> m = convert.build("bilinear-full", 2, 2, 3)
    >>> w = torch.tensor([[0, 1, 1], [1, 0, 0]])
    >>> bool(torch.equal(cpu_labels(m, w), m.logits(w, fast=False).argmax(-1)))
    True
    """
    def build() -> dict[str, Any]:
        with torch.no_grad():
            if module.diagonal:
                log_mod, phase = module.log_phase()
                arrays = _diag_arrays(log_mod, phase, module.complex_pairs, module.h0,
                                      module.readout)
            else:
                arrays = _dense_arrays(module.matrices(), module.h0, module.readout)
                factors = module.householder()
                if factors is not None and _step_cost(arrays) > 2 * factors[0][0].numel():
                    keys, betas = factors
                    arrays = _householder_arrays(keys, betas, module.h0, module.readout)
        return arrays

    arrays = _cached(module, "_fsmnet_infer_cache", build)
    return _run(arrays, _tokens(words, module.n_symbols))
