"""What every training module shares: parameter conversion, checked token ids, and the
:class:`TrainModule` mix-in (a repr with sizes, ``to_network``, the label trace).

Kept apart from the module families (:mod:`.modules_linear`, :mod:`.modules_minmax`,
:mod:`.modules_block`, :mod:`.lstm`), which all mix it in.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import torch
from torch import nn

from fsmnet.nets import Network

Tensor = torch.Tensor


def _p(x: Any) -> nn.Parameter:
    return nn.Parameter(torch.tensor(np.array(x, dtype=np.float64)).to(torch.float32))


def _np(x: Tensor) -> np.ndarray:
    return x.detach().to(torch.float64).cpu().numpy()


def token_ids(words: Any, n_symbols: int, device: torch.device | None = None
              ) -> tuple[Tensor, bool]:
    """``words`` as a (batch, length) int64 tensor of symbol indices, and whether it was
    one unbatched word of shape (length,).

    A tensor, a numpy array or a list of ints is accepted (a list or array goes to
    ``device``).  Float, complex and boolean ids are refused with a ``TypeError``
    naming the dtype: casting them would truncate 0.7 to symbol 0 without a word.
    An id outside ``0 .. n_symbols - 1`` is an ``IndexError`` naming it, since a
    negative index would otherwise select from the end of a per-symbol table.

    >>> token_ids([[0, 1, 1]], 2)[0].tolist(), token_ids([1, 0], 2)[1]
    ([[0, 1, 1]], True)
    >>> token_ids(torch.tensor([[0.0, 1.0]]), 2)
    Traceback (most recent call last):
    ...
    TypeError: token ids must be integers (symbol indices), got dtype torch.float32
    """
    if isinstance(words, Tensor):
        tokens = words
        if tokens.dtype == torch.bool or tokens.is_floating_point() or tokens.is_complex():
            raise TypeError(f"token ids must be integers (symbol indices), got dtype "
                            f"{tokens.dtype}")
        tokens = tokens.to(torch.int64)
    else:
        array = np.asarray(words)
        if array.size == 0:
            array = array.astype(np.int64)  # np.asarray([]) is float64: an empty word
        if array.dtype.kind not in "iu":
            raise TypeError(f"token ids must be integers (symbol indices), got dtype "
                            f"{array.dtype} (value: {words!r:.80})")
        tokens = torch.from_numpy(array.astype(np.int64)).to(device or "cpu")
    if tokens.ndim not in (1, 2):
        raise ValueError(f"words must be (batch, length) or (length,) token ids, got shape "
                         f"{tuple(tokens.shape)}")
    if tokens.numel():
        bad = tokens[(tokens < 0) | (tokens >= n_symbols)]
        if bad.numel():
            raise IndexError(f"token id {int(bad[0])} out of range for {n_symbols} symbols "
                             f"(0 .. {n_symbols - 1})")
    return (tokens.unsqueeze(0), True) if tokens.ndim == 1 else (tokens, False)


def _device(module: Any) -> torch.device:
    """Where the module's weights are (the CPU for a module without parameters)."""
    first = next(iter(module.parameters()), None)
    return torch.device("cpu") if first is None else first.device


class TrainModule:
    """What every training module shares (mixed in before ``nn.Module``): a repr with
    its sizes, :meth:`to_network`, and :meth:`_label_trace` around ``forward``."""

    arch: str
    n_symbols: int
    n_labels: int
    hidden: int

    def _repr_options(self) -> dict[str, Any]:
        """Constructor options beyond the sizes, shown by the repr (rank, blocks, ...)."""
        return {}

    def extra_repr(self) -> str:
        """``arch='bilinear-full', symbols=2, labels=2, hidden=3`` and the options."""
        fields = {"arch": self.arch, "symbols": self.n_symbols, "labels": self.n_labels,
                  "hidden": self.hidden, **self._repr_options()}
        return ", ".join(f"{k}={v!r}" for k, v in fields.items())

    def to_network(self, symbols: Sequence[str] | None = None,
                   labels: Sequence[Any] | None = None, *, name: str = "",
                   options: Mapping[str, Any] | None = None) -> Network:
        """The :class:`~fsmnet.nets.Network` computing what this module computes (float64
        copies of its float32 weights), so it can be saved, run and verified
        (:func:`fsmnet.train.convert.to_network`).

        ``symbols`` default to ``"0" .. "k-1"`` and ``labels`` to ``0 .. C-1``; pass the
        automaton's (``automaton.symbols``, ``automaton.labels``) to verify against
        it.  An LSTM and a trained MinMax cascade have no network form:
        :class:`~fsmnet.errors.FsmnetError`.
        """
        from fsmnet.train.convert import to_network

        return to_network(self, symbols, labels, name=name, options=options)

    def _label_trace(self, words: Any, run: Any) -> Tensor:
        """``run(tokens)`` on ``words`` checked by :func:`token_ids`; an unbatched word
        gives an unbatched trace (length + 1,), as torch's recurrent modules do."""
        tokens, single = token_ids(words, self.n_symbols, _device(self))
        out: Tensor = run(tokens)
        return out[0] if single else out
