"""Build proof certificates (JSON) from a closed product exploration.

A certificate restates everything the independent checker
(:mod:`fsmnet.verify.checker`) needs, in exact rationals written as strings
``"p/q"``: the automaton's table and outputs, the network's exact per-symbol
matrices, h0 and readout (for linear-recurrence networks), the reached network
states, the (state, automaton state) pairs, and the transition of every pair
on every symbol.  The checker re-derives each transition and each readout
itself; it trusts nothing but this file (and, when given, the network file,
whose tensors it compares with the certificate's model).
"""

from __future__ import annotations

import hashlib
import json
import os
from fractions import Fraction
from typing import Any

import numpy as np

from fsmnet.automata import Automaton
from fsmnet.errors import FsmnetError
from fsmnet.nets import Network
from fsmnet.nets.linear import LinearRecurrence
from fsmnet.verify.certificate_models import MINMAX_ARCHS, certificate_model, certificate_state
from fsmnet.verify.product import ProductExploration

CERTIFICATE_FORMAT = "fsmnet-certificate"
CERTIFICATE_VERSION = 1


def _q(x: Any) -> str:
    f = Fraction(x)
    return str(f.numerator) if f.denominator == 1 else f"{f.numerator}/{f.denominator}"


def _qs(array: Any) -> Any:
    arr = np.asarray(array, dtype=object)
    if arr.ndim == 0:
        return _q(arr.item())
    return [_qs(x) for x in arr]


def network_model(net: Network) -> dict[str, Any]:
    """The exact model of a network that the checker knows how to step."""
    sem = net.semantics
    if isinstance(sem, LinearRecurrence):
        return {
            "type": "linear",
            "matrices": _qs(sem.matrices(net, True)),
            "h0": _qs(sem.initial_state(net, True)),
            "readout": _qs(sem.readout_matrix(net, True)),
        }
    if net.arch in MINMAX_ARCHS:
        return certificate_model(net)
    model = getattr(sem, "certificate_model", None)
    if model is None:
        raise FsmnetError(f"certificates are not available for {net.arch} yet")
    return dict(model(net))


def file_sha256(path: str | os.PathLike[str]) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def build_certificate(net: Network, automaton: Automaton, exploration: ProductExploration,
                      *, network_path: str | None = None) -> dict[str, Any]:
    """The JSON certificate of a closed exploration (see docs/certificates.md)."""
    if exploration.status != "closed":
        raise FsmnetError("only a closed exploration is a proof")
    model = network_model(net)
    if model["type"] == "linear":
        states = [_qs(h) for h in exploration.states]
    elif net.arch in MINMAX_ARCHS:
        states = [certificate_state(net, h) for h in exploration.states]
    else:
        states = [json.loads(json.dumps(s, default=_jsonable)) for s in exploration.states]
    return {
        **_common(net, automaton, "exact-product", model, network_path),
        "states": states,
        "pairs": [list(p) for p in exploration.pairs],
        "transitions": exploration.transitions,
    }


def _common(net: Network, automaton: Automaton, method: str, model: dict[str, Any],
            network_path: str | None) -> dict[str, Any]:
    """The fields every proof certificate has: format, claim, automaton, network."""
    return {
        "format": CERTIFICATE_FORMAT,
        "format_version": CERTIFICATE_VERSION,
        "claim": "for every word w: label(readout(h_w)) == output(delta(q0, w))",
        "method": method,
        "automaton": {
            "symbols": list(automaton.symbols),
            "delta": automaton.delta.tolist(),
            "initial": automaton.initial,
            "outputs": list(automaton.outputs or ()),
        },
        "network": {
            "arch": net.arch,
            "labels": list(net.labels),
            "file": None if network_path is None else os.path.basename(network_path),
            "sha256": None if network_path is None else file_sha256(network_path),
            "model": model,
        },
    }


def _jsonable(obj: Any) -> Any:
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    if isinstance(obj, (np.integer, np.floating)):
        return obj.item()
    if isinstance(obj, Fraction):
        return _q(obj)
    raise TypeError(type(obj).__name__)


def write_certificate(cert: dict[str, Any], path: str | os.PathLike[str]) -> None:
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(cert, handle, separators=(",", ":"))
        handle.write("\n")


def cone_certificate(net: Network, automaton: Automaton, proof: Any, *,
                     network_path: str | None = None) -> dict[str, Any]:
    """The certificate of a cone invariant (method ``cone-invariant``): generators per
    automaton state and the exact non-negative multipliers of every inclusion."""
    return {
        **_common(net, automaton, "cone-invariant", network_model(net), network_path),
        "cones": {str(q): _qs(g) for q, g in proof.generators.items()},
        "initial_multipliers": _qs(proof.initial),
        "inclusions": [{"state": q, "symbol": a, "generator": j, "multipliers": _qs(lam)}
                       for (q, a, j), lam in sorted(proof.steps.items())],
    }
