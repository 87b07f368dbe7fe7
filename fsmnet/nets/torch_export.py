"""Export a network to a ``torch.nn.Module`` with the same weights.

Each architecture's semantics may define ``torch_module(net)``; torch is only
imported here, inside the call, so nothing else pays its import time.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from fsmnet.errors import FsmnetError

if TYPE_CHECKING:
    from fsmnet.nets.network import Network


def to_torch(net: Network) -> Any:
    """A ``torch.nn.Module`` computing label logits/scores for batches of words.

    The module's ``forward(words)`` takes an int64 tensor (batch, length) of
    symbol indices and returns the readout index after every prefix,
    shape (batch, length + 1), so it can be compared with the reference.
    """
    build = getattr(net.semantics, "torch_module", None)
    if build is None:
        raise FsmnetError(f"torch export is not available for {net.arch}")
    return build(net)
