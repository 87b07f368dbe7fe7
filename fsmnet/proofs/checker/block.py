"""Model type ``bilinear-block``: independent bilinear blocks, multilinear readout.

``{"type": "bilinear-block", "blocks": [{"matrices": [A_a per symbol], "h0"}],
"readout": (C, b_0, ..., b_{m-1}) nested lists}``.  A state is one vector per
block; block i steps by normalize(A_a h⁽ⁱ⁾) on its own (a positive rescaling
of one block multiplies every score by the same positive number), and the
label is the first argmax of score_c = Σ readout[c][i_0]...[i_{m-1}] ·
Π_k h⁽ᵏ⁾[i_k].
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from .core import CertificateError, _argmax, _mat, _matvec, _normalize, _vec


def _contract(tensor: Any, states: list[list[Fraction]], depth: int = 0) -> Fraction:
    """Σ tensor[i_d]...[i_{m-1}] Π_k states[k][i_k] over the axes from ``depth`` on."""
    if depth == len(states):
        if isinstance(tensor, list):
            raise CertificateError("the readout has more axes than blocks")
        from .core import _frac

        return _frac(tensor)
    h = states[depth]
    if not isinstance(tensor, list) or len(tensor) != len(h):
        raise CertificateError("a readout axis does not match its block's size")
    return sum((x * _contract(t, states, depth + 1) for t, x in zip(tensor, h) if x),
               Fraction(0))


def block_model(model: dict[str, Any], k: int, n_labels: int) -> Any:
    """The bilinear-block model (see the module docstring)."""
    from .models import _Model

    blocks = model["blocks"]
    if not isinstance(blocks, list) or not blocks:
        raise CertificateError("bilinear-block needs at least one block")
    mats = [[_mat(a) for a in b["matrices"]] for b in blocks]
    h0 = [_normalize(_vec(b["h0"])) for b in blocks]
    if any(len(m) != k for m in mats):
        raise CertificateError("every block needs one matrix per symbol")
    readout = model["readout"]
    if not isinstance(readout, list) or len(readout) != n_labels:
        raise CertificateError("one readout tensor per label is required")

    def state(h: Any) -> list[list[Fraction]]:
        if not isinstance(h, list) or len(h) != len(blocks):
            raise CertificateError("a block state needs one vector per block")
        return [_vec(x) for x in h]

    return _Model(h0, lambda h, a: [_normalize(_matvec(m[a], x)) for m, x in zip(mats, h)],
                  lambda h: _argmax([_contract(r, h) for r in readout]), state)
