"""A one-layer DeltaNet language model over tokens, for next-token training on REPL traces.

What it computes, for token ids x_1 … x_T (batch, T) → logits (batch, T, vocab),
the logits at t predicting x_{t+1}:

* e_t = Embed(x_t);  u_t = SiLU(Conv(e_{t−c+1}, …, e_t)) + e_t, a causal
  convolution over the last ``conv`` tokens (width 4 by default, as DeltaNet
  layers have).  One token cannot say which two variables a swap line
  ``a, b = b, a`` names; the window ``>>> a , b`` can.
* q_t, k_t (unit norm), v_t and β_t = β_max · sigmoid(w·u_t + b) ∈ [0, β_max]
  from u_t.  The DeltaNet recurrence (Yang et al. 2024, arXiv 2406.06484) keeps
  a matrix state S_t (value × key):

      S_t = S_{t−1} (I − β_t k_t k_tᵀ) + β_t v_t k_tᵀ,   S_0 = 0,   o_t = S_t q_t.

  Its transition I − β_t k_t k_tᵀ has eigenvalues 1 (multiplicity key − 1) and
  1 − β_t: in [0, 1] for β_max = 1 ("deltanet") and in [−1, 1] for β_max = 2
  ("deltanet-neg"), the comparison of arXiv 2411.12537 and arXiv 2602.14814.
* logits_t = MLP(u_t + W_o o_t).

Why this variant and not the state-only one, h_t = (I − β_t k_t k_tᵀ) h_{t−1},
of fsmnet's training harness (:class:`fsmnet.train.modules_linear.DeltaProduct`):
a token trace states its initial values on its first line (``a, b, c = 0, 1, 2``)
and asks for one variable at a time (``print(b)``).  The write term β v kᵀ lets
the model store each value under its variable's key, and the query q_t reads the
variable a ``print`` names; with β = 2 a swap is a reflection that exchanges two
stored rows.  The state-only variant has neither a write nor a query.

The recurrence runs chunk by chunk (the WY/UT form of DeltaNet's parallel
training): with δ_t = β_t (v_t − S_{t−1} k_t), S_t = S_0 + Σ_{i≤t} δ_i k_iᵀ inside a
chunk, and the δ solve one unit lower-triangular system per chunk, so the Python
loop runs T / chunk times instead of T.  :func:`delta_rule_loop` is the plain
step-by-step recurrence, the reference the tests compare :func:`delta_rule` with.
"""

from __future__ import annotations

import torch
from torch import nn

Tensor = torch.Tensor

__all__ = ["TokenDeltaNet", "delta_rule", "delta_rule_loop"]


def delta_rule_loop(q: Tensor, k: Tensor, v: Tensor, beta: Tensor) -> Tensor:
    """o_t = S_t q_t with S_t = S_{t−1}(I − β_t k_t k_tᵀ) + β_t v_t k_tᵀ, one step at a time.

    ``q``, ``k``: (batch, T, key); ``v``: (batch, T, value); ``beta``: (batch, T).
    """
    batch, length, key = k.shape
    state = k.new_zeros(batch, v.shape[-1], key)
    out = []
    for t in range(length):
        kt, bt = k[:, t], beta[:, t, None]
        delta = bt * (v[:, t] - torch.einsum("bvk,bk->bv", state, kt))
        state = state + delta[:, :, None] * kt[:, None, :]
        out.append(torch.einsum("bvk,bk->bv", state, q[:, t]))
    return torch.stack(out, dim=1)


def delta_rule(q: Tensor, k: Tensor, v: Tensor, beta: Tensor, chunk: int = 64) -> Tensor:
    """The same outputs as :func:`delta_rule_loop`, computed ``chunk`` positions at a time."""
    batch, length, key = k.shape
    state = k.new_zeros(batch, v.shape[-1], key)
    out = []
    for start in range(0, length, chunk):
        qc, kc = q[:, start:start + chunk], k[:, start:start + chunk]
        vc, bc = v[:, start:start + chunk], beta[:, start:start + chunk, None]
        c = kc.shape[1]
        eye = torch.eye(c, dtype=k.dtype, device=k.device)
        # δ_t + β_t Σ_{i<t} (k_tᵀ k_i) δ_i = β_t (v_t − S_0 k_t): unit lower-triangular.
        a = eye + torch.tril(bc * (kc @ kc.transpose(1, 2)), diagonal=-1)
        rhs = bc * (vc - kc @ state.transpose(1, 2))
        delta = torch.linalg.solve_triangular(a, rhs, upper=False, unitriangular=True)
        scores = torch.tril(qc @ kc.transpose(1, 2))  # i ≤ t: δ_t is already in S_t
        out.append(qc @ state.transpose(1, 2) + scores @ delta)
        state = state + delta.transpose(1, 2) @ kc
    return torch.cat(out, dim=1)


class TokenDeltaNet(nn.Module):
    """Embedding → causal convolution → one DeltaNet head → MLP readout (next-token logits).

    ``width``: embedding and convolution size; ``key``: the key/query/value size
    (the state is key × key); ``beta_max``: 1 (eigenvalues in [0, 1]) or 2 ([−1, 1]).
    """

    def __init__(self, vocab: int, width: int = 32, key: int = 8, conv: int = 4,
                 beta_max: float = 2.0, chunk: int = 64) -> None:
        super().__init__()
        if not 0.0 < beta_max <= 2.0:
            raise ValueError(f"beta_max must be in (0, 2], not {beta_max}")
        self.beta_max, self.conv_width, self.chunk = float(beta_max), int(conv), int(chunk)
        self.embed = nn.Embedding(vocab, width)
        self.conv = nn.Conv1d(width, width, self.conv_width)
        self.qkv = nn.Linear(width, 3 * key)
        self.beta = nn.Linear(width, 1)
        self.mix = nn.Linear(key, width)
        self.readout = nn.Sequential(nn.Linear(width, 2 * width), nn.GELU(),
                                     nn.Linear(2 * width, vocab))

    def features(self, tokens: Tensor) -> Tensor:
        """u_t (batch, T, width): the convolved window of the last ``conv`` tokens."""
        e: Tensor = self.embed(tokens)
        # Left padding only: position t sees tokens t − conv + 1 … t, never later ones.
        padded = nn.functional.pad(e.transpose(1, 2), (self.conv_width - 1, 0))
        windows: Tensor = self.conv(padded)
        return nn.functional.silu(windows).transpose(1, 2) + e

    def gates(self, u: Tensor) -> tuple[Tensor, Tensor, Tensor, Tensor]:
        """(q, k, v, β): q and k of unit norm, β = β_max · sigmoid(·) ∈ [0, β_max]."""
        q, k, v = self.qkv(u).chunk(3, dim=-1)
        q = nn.functional.normalize(q, dim=-1)
        k = nn.functional.normalize(k, dim=-1)
        beta = self.beta_max * torch.sigmoid(self.beta(u)[..., 0])
        return q, k, v, beta

    def forward(self, tokens: Tensor) -> Tensor:
        u = self.features(tokens)
        q, k, v, beta = self.gates(u)
        o = delta_rule(q, k, v, beta, self.chunk)
        logits: Tensor = self.readout(u + self.mix(o))
        return logits
