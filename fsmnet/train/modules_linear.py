"""Trainable float32 modules for the linear recurrences h_t = A(x_t) h_{t-1}.

Every module takes token ids (batch, length) and gives, through
:meth:`LinearRNN.logits`, per-position logits (batch, length + 1, labels) for
the readout of the normalized state after every prefix (the empty one first):
``logits_t = W · h_t / ‖h_t‖``.  ``forward`` returns their argmax, the label
index trace that ``Network.label_trace`` returns (ties go to the first label,
as in the reference evaluator).  The inputs are one-hot, so a bilinear map
A(x) is one matrix per symbol: each class builds those matrices from its own
parameters, as its paper parametrizes them, and the scans of
:mod:`fsmnet.train.scan` run the recurrence (``fast=False``: the step loop).

=====================  ==========================================  =============
class                  A(σ) (one-hot σ)                            source
=====================  ==========================================  =============
BilinearFull           W[σ] (dense 3-way tensor)                   arXiv 2505.21749
BilinearCP             U diag(V[σ]) Zᵀ (rank-R CP factors)         arXiv 2505.21749
BilinearR2             2×2 blocks e^{ρ[σ]}·rot(θ[σ])               arXiv 2505.21749
BilinearRealDiag       diag(d[σ]), d unconstrained                 arXiv 2505.21749
BilinearPositiveDiag   diag(exp(−softplus(a[σ])))  (Mamba-like)    arXiv 2505.21749
DeltaProduct           Π_j (I − β_j k̂_j k̂_jᵀ), β = β_max·σ(b)     arXiv 2502.10297
FixedPointRNN          (I + (Λ⁻¹ − I) Q)⁻¹, Λ = σ(l)               arXiv 2503.10799
=====================  ==========================================  =============

DeltaNet (Yang et al. 2024, arXiv 2406.06484) is DeltaProduct with n_h = 1;
β_max = 1 gives eigenvalues in [0, 1], β_max = 2 gives [−1, 1] (Grazzi et al.,
arXiv 2411.12537; the code-trace paper arXiv 2602.14814 compares the two).

Simplifications, stated plainly: the papers compute A from a learned
projection of an embedding of x_t; with one-hot symbols that projection *is* a
free table per symbol, which is what is stored here.  DeltaNet's value/write
term and the papers' output gates are dropped (fsmnet's deltaproduct semantics
has none).  The fixed-point RNN solves its fixed point exactly
(``torch.linalg.inv``) instead of iterating the paper's diagonal RNN to
convergence.  The block-diagonal bilinear model lives in
:mod:`fsmnet.train.modules_block`.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import torch
from torch import nn

from fsmnet.train import commuting, infer, scan
from fsmnet.train.module_base import TrainModule, _np, _p

Tensor = torch.Tensor


class LinearRNN(TrainModule, nn.Module):
    """Base class: per-symbol transitions, an initial state and a linear readout."""

    arch = "linear"
    diagonal = False      # diagonal classes give log-moduli and phases instead
    complex_pairs = False

    def __init__(self, n_symbols: int, n_labels: int, hidden: int) -> None:
        super().__init__()
        self.n_symbols, self.n_labels, self.hidden = int(n_symbols), int(n_labels), int(hidden)
        self.h0 = nn.Parameter(torch.randn(hidden))
        self.readout = nn.Parameter(torch.randn(n_labels, hidden) / math.sqrt(hidden))

    # hooks ------------------------------------------------------------
    def matrices(self) -> Tensor:
        """(S, H, H) transition matrices (dense classes)."""
        raise NotImplementedError

    def log_phase(self) -> tuple[Tensor, Tensor]:
        """(S, K) log-moduli and phases (diagonal classes)."""
        raise NotImplementedError

    def householder(self) -> tuple[Tensor, Tensor] | None:
        """(S, n, H) keys and (S, n) β when A(σ) = Π_j (I − β_j k̂_j k̂_jᵀ), F_1 first
        (the no-gradient forward applies the factors, not their product), else None."""
        return None

    def network_params(self) -> dict[str, np.ndarray]:
        """The architecture's tensors in fsmnet's file format (float64)."""
        raise NotImplementedError

    def load_network_params(self, params: dict[str, np.ndarray]) -> None:
        raise NotImplementedError

    # running ------------------------------------------------------------
    def states(self, words: Tensor, fast: bool = True) -> Tensor:
        """Unit-norm hidden state after every prefix: (B, T + 1, H)."""
        words = words.to(torch.int64)
        if self.diagonal:
            log_mod, phase = self.log_phase()
            diag = scan.diag_scan if fast else scan.diag_loop
            h = diag(log_mod, phase, words, self.h0, self.complex_pairs)
        else:
            dense = scan.dense_auto if fast else scan.dense_loop
            h = dense(self.matrices(), words, self.h0)
        return scan.unit(h)

    def logits(self, words: Tensor, fast: bool = True) -> Tensor:
        """Per-position logits (B, T + 1, C)."""
        if fast and self.diagonal and (torch.is_grad_enabled() or commuting.dedupe_pays(
                words.shape[0], words.shape[1], self.n_symbols)):
            # Equal symbol counts give equal states (diagonals commute): read out each
            # distinct count vector once, then gather (fsmnet.train.commuting).  Without
            # gradients and with few repeats the log-space scan below is cheaper.
            counts, inverse = commuting.distinct_counts(words, self.n_symbols)
            log_mod, phase = self.log_phase()
            scores = commuting.count_states(log_mod, phase, counts, self.h0, self.complex_pairs,
                                            self.readout)
            return scores.index_select(0, inverse.view(-1)).view(*inverse.shape, -1)
        if fast and not self.diagonal:
            # (h/‖h‖)·Rᵀ = (h·Rᵀ)/‖h‖: divide the C scores, not the H channels (one pass
            # over the states fewer each way).
            h = scan.dense_auto(self.matrices(), words.to(torch.int64), self.h0)
            return (h @ self.readout.T) / torch.linalg.vector_norm(
                h, dim=-1, keepdim=True).clamp_min(1e-30)
        return self.states(words, fast) @ self.readout.T

    def loss(self, words: Tensor, labels: Tensor) -> Tensor:
        """Mean cross-entropy of every prefix's label, ``labels`` (B, T + 1) class ids: the
        same function as ``cross_entropy(logits(words))``, in fewer passes (one autograd node
        for the loss, fsmnet.train.losses; diagonal classes: grouped per distinct count
        vector inside fsmnet.train.commuting, no gather of the logits)."""
        from fsmnet.train import losses

        if self.diagonal and torch.is_grad_enabled() and not words.is_cuda:
            log_mod, phase = self.log_phase()
            # The Mamba-like class's decays are positive by construction: no sign checks.
            positive = self.arch == "bilinear-positive-diag"
            return commuting.count_loss(log_mod, None if positive else phase,
                                        words.to(torch.int64), labels, self.h0,
                                        self.complex_pairs, self.readout)
        return losses.cross_entropy(self.logits(words), labels)

    def forward(self, words: Tensor | Any) -> Tensor:
        """Label index after every prefix, (B, T + 1) int64: the float32 reference
        execution of the module's network form on a CPU (fsmnet.train.infer.reference_labels,
        the semantics certify --float32 proves; −1 where it overflows), the argmax of
        the logits on a GPU.  ``fast_labels`` is the float64 kernel.

        ``words``: (B, T) or one word (T,) of symbol indices, as a tensor, numpy array or
        list of ints (:func:`~fsmnet.train.module_base.token_ids`; one word gives a
        (T + 1,) trace)."""
        return self._label_trace(words, self._forward)

    def _forward(self, words: Tensor) -> Tensor:
        with torch.no_grad():
            if not words.is_cuda and not self.h0.is_cuda:
                return infer.reference_labels(self, words)
            return self.logits(words).argmax(dim=-1)

    def fast_labels(self, words: Tensor) -> Tensor:
        """Label index after every prefix by the float64 Numba kernel (no exact step
        to derive: for monitoring while training)."""
        with torch.no_grad():
            return infer.cpu_labels(self, words)

    # files --------------------------------------------------------------
    def to_params(self) -> dict[str, np.ndarray]:
        out = self.network_params()
        out["h0"], out["readout"] = _np(self.h0), _np(self.readout)
        return out

    @classmethod
    def from_params(cls, params: dict[str, np.ndarray], n_symbols: int, n_labels: int,
                    **options: Any) -> LinearRNN:
        module = cls(n_symbols, n_labels, int(np.asarray(params["h0"]).shape[0]), **options)
        module.load_network_params(params)
        module.h0 = _p(params["h0"])
        module.readout = _p(params["readout"])
        return module


class BilinearFull(LinearRNN):
    """h_t = W[x_t] h_{t-1} with a dense (S, H, H) tensor (arXiv 2505.21749, eq. of the
    bilinear RNN with one-hot input)."""

    arch = "bilinear-full"

    def __init__(self, n_symbols: int, n_labels: int, hidden: int) -> None:
        super().__init__(n_symbols, n_labels, hidden)
        self.W = nn.Parameter(torch.randn(n_symbols, hidden, hidden) / math.sqrt(hidden))

    def matrices(self) -> Tensor:
        return self.W

    def network_params(self) -> dict[str, np.ndarray]:
        return {"W": np.ascontiguousarray(np.moveaxis(_np(self.W), 0, 2))}

    def load_network_params(self, params: dict[str, np.ndarray]) -> None:
        self.W = _p(np.moveaxis(params["W"], 2, 0))


class BilinearCP(LinearRNN):
    """A(x) = U diag(Vᵀx) Zᵀ, a rank-R CP factorization (arXiv 2505.21749)."""

    arch = "bilinear-cp"

    def __init__(self, n_symbols: int, n_labels: int, hidden: int, rank: int | None = None
                 ) -> None:
        super().__init__(n_symbols, n_labels, hidden)
        r = int(rank or hidden)
        self.rank = r
        self.U = nn.Parameter(torch.randn(hidden, r) / math.sqrt(r))
        self.V = nn.Parameter(torch.randn(n_symbols, r))
        self.Z = nn.Parameter(torch.randn(hidden, r) / math.sqrt(hidden))

    def _repr_options(self) -> dict[str, Any]:
        return {"rank": self.rank}

    def matrices(self) -> Tensor:
        return torch.einsum("ir,sr,jr->sij", self.U, self.V, self.Z)

    def network_params(self) -> dict[str, np.ndarray]:
        return {"U": _np(self.U), "V": _np(self.V), "Z": _np(self.Z)}

    def load_network_params(self, params: dict[str, np.ndarray]) -> None:
        self.U, self.V, self.Z = _p(params["U"]), _p(params["V"]), _p(params["Z"])

    @classmethod
    def from_params(cls, params: dict[str, np.ndarray], n_symbols: int, n_labels: int,
                    **options: Any) -> LinearRNN:
        options.setdefault("rank", int(np.asarray(params["U"]).shape[1]))
        return super().from_params(params, n_symbols, n_labels, **options)


class BilinearR2(LinearRNN):
    """Channel k is a complex number (h[2k], h[2k+1]) multiplied by e^{ρ[σ,k]}·e^{iθ[σ,k]}:
    2×2 rotation-scaling blocks (arXiv 2505.21749).  H must be even."""

    arch = "bilinear-r2"
    diagonal = True
    complex_pairs = True

    def __init__(self, n_symbols: int, n_labels: int, hidden: int) -> None:
        super().__init__(n_symbols, n_labels, hidden + hidden % 2)
        k = self.hidden // 2
        self.rho = nn.Parameter(-0.1 * torch.rand(n_symbols, k))
        self.theta = nn.Parameter(math.pi * (2 * torch.rand(n_symbols, k) - 1))

    def log_phase(self) -> tuple[Tensor, Tensor]:
        return self.rho, self.theta

    def network_params(self) -> dict[str, np.ndarray]:
        return {"modulus": np.exp(_np(self.rho)), "angle": _np(self.theta)}

    def load_network_params(self, params: dict[str, np.ndarray]) -> None:
        with np.errstate(divide="ignore"):  # modulus 0 -> ρ = −∞, exp(−∞) = 0 exactly
            self.rho = _p(np.log(params["modulus"]))
        self.theta = _p(params["angle"])


class BilinearRealDiag(LinearRNN):
    """h_t = diag(d[x_t]) h_{t-1}, d unconstrained real (arXiv 2505.21749)."""

    arch = "bilinear-real-diag"
    diagonal = True

    def __init__(self, n_symbols: int, n_labels: int, hidden: int) -> None:
        super().__init__(n_symbols, n_labels, hidden)
        self.d = nn.Parameter(2 * torch.rand(n_symbols, hidden) - 1)

    def log_phase(self) -> tuple[Tensor, Tensor]:
        return torch.log(self.d.abs()), torch.sign(self.d)

    def network_params(self) -> dict[str, np.ndarray]:
        return {"diag": _np(self.d)}

    def load_network_params(self, params: dict[str, np.ndarray]) -> None:
        self.d = _p(params["diag"])


class BilinearPositiveDiag(LinearRNN):
    """h_t = diag(exp(−softplus(a[x_t]))) h_{t-1}: decays in (0, 1], the Mamba-like
    class (arXiv 2505.21749; the decay form is Mamba's exp(−Δ·A) with Δ·A = softplus)."""

    arch = "bilinear-positive-diag"
    diagonal = True

    def __init__(self, n_symbols: int, n_labels: int, hidden: int) -> None:
        super().__init__(n_symbols, n_labels, hidden)
        self.a = nn.Parameter(torch.randn(n_symbols, hidden))

    def log_phase(self) -> tuple[Tensor, Tensor]:
        return -nn.functional.softplus(self.a), torch.ones_like(self.a)

    def network_params(self) -> dict[str, np.ndarray]:
        return {"diag": np.exp(-np.logaddexp(0.0, _np(self.a)))}

    def load_network_params(self, params: dict[str, np.ndarray]) -> None:
        y = -np.log(np.asarray(params["diag"], dtype=np.float64))  # = softplus(a) ≥ 0
        with np.errstate(divide="ignore"):  # decay 1 -> a = −∞, softplus(−∞) = 0
            self.a = _p(np.log(np.expm1(y)))


class DeltaProduct(LinearRNN):
    """A(σ) = F_{n_h} ··· F_1, F_j = I − β_j k̂_j k̂_jᵀ, k̂ = k/‖k‖, β_j = β_max·sigmoid(b_j)
    (DeltaProduct, arXiv 2502.10297; n_h = 1 is DeltaNet).  ``beta_max`` 1 keeps the
    eigenvalues in [0, 1], 2 allows [−1, 1]."""

    arch = "deltaproduct"

    def __init__(self, n_symbols: int, n_labels: int, hidden: int, n_h: int = 1,
                 beta_max: float = 2.0) -> None:
        super().__init__(n_symbols, n_labels, hidden)
        self.n_h, self.beta_max = int(n_h), float(beta_max)
        self.keys = nn.Parameter(torch.randn(n_symbols, self.n_h, hidden))
        self.b = nn.Parameter(torch.randn(n_symbols, self.n_h))

    def _repr_options(self) -> dict[str, Any]:
        return {"n_h": self.n_h, "beta_max": self.beta_max}

    def betas(self) -> Tensor:
        return self.beta_max * torch.sigmoid(self.b)

    def householder(self) -> tuple[Tensor, Tensor]:
        return self.keys, self.betas()

    def matrices(self) -> Tensor:
        k = self.keys / self.keys.norm(dim=-1, keepdim=True).clamp_min(1e-30)
        beta = self.betas()
        m = torch.eye(self.hidden, dtype=k.dtype, device=k.device).expand(self.n_symbols, -1, -1)
        for j in range(self.n_h):  # F_1 is applied first
            kj = k[:, j]
            m = m - beta[:, j, None, None] * kj[:, :, None] * (kj[:, None, :] @ m)
        return m

    def network_params(self) -> dict[str, np.ndarray]:
        return {"keys": _np(self.keys), "betas": np.clip(_np(self.betas()), 0.0, 2.0)}

    def load_network_params(self, params: dict[str, np.ndarray]) -> None:
        self.keys = _p(params["keys"])
        frac = np.asarray(params["betas"], dtype=np.float64) / self.beta_max
        if np.any(frac > 1):
            from fsmnet.errors import FsmnetError
            raise FsmnetError(f"deltaproduct: β up to {float(np.max(params['betas']))} does not "
                              f"fit β_max = {self.beta_max}")
        with np.errstate(divide="ignore"):  # β = 0 or β_max -> logit ∓∞, exact after sigmoid
            self.b = _p(np.log(frac) - np.log1p(-frac))

    @classmethod
    def from_params(cls, params: dict[str, np.ndarray], n_symbols: int, n_labels: int,
                    **options: Any) -> LinearRNN:
        options.setdefault("n_h", int(np.asarray(params["betas"]).shape[1]))
        return super().from_params(params, n_symbols, n_labels, **options)


class FixedPointRNN(LinearRNN):
    """A(σ) = (I + (Λ[σ]⁻¹ − I) Q[σ])⁻¹ with Λ = sigmoid(l) ∈ (0, 1): the dense transition
    a diagonal RNN reaches at its fixed point (Fixed-point RNNs, arXiv 2503.10799).
    Solved exactly by an inverse here, not by the paper's fixed-point iteration."""

    arch = "fixed-point"
    # |logit| bound: Λ = sigmoid(l) stays strictly inside (0, 1) in float64, as the
    # network format requires (1 − sigmoid(30) ≈ 9e-14).
    _L = 30.0

    def __init__(self, n_symbols: int, n_labels: int, hidden: int) -> None:
        super().__init__(n_symbols, n_labels, hidden)
        self.l = nn.Parameter(torch.randn(n_symbols, hidden))
        self.Q = nn.Parameter(torch.eye(hidden) + 0.3 * torch.randn(n_symbols, hidden, hidden)
                              / math.sqrt(hidden))

    def lam(self) -> Tensor:
        return torch.sigmoid(self.l.clamp(-self._L, self._L))

    def matrices(self) -> Tensor:
        eye = torch.eye(self.hidden, dtype=self.Q.dtype, device=self.Q.device)
        # Λ⁻¹ − 1 = e^{−l} exactly: no cancellation in 1/Λ − 1 when Λ is within float32's
        # resolution of 1 (compiled fixed-point nets have Λ = 1 − 2^-20, where 1/Λ − 1 in
        # float32 was 5% off and moved the labels).
        inv = eye + torch.exp(-self.l.clamp(-self._L, self._L))[:, :, None] * self.Q
        return torch.linalg.inv(inv)

    def network_params(self) -> dict[str, np.ndarray]:
        lam = 1.0 / (1.0 + np.exp(-np.clip(_np(self.l), -self._L, self._L)))  # float64
        return {"Lambda": lam, "Q": _np(self.Q)}

    def load_network_params(self, params: dict[str, np.ndarray]) -> None:
        lam = np.asarray(params["Lambda"], dtype=np.float64)
        self.l = _p(np.log(lam) - np.log1p(-lam))
        self.Q = _p(params["Q"])
