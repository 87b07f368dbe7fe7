"""Build proof certificates (JSON) from a closed product exploration.

A certificate restates everything the independent checker
(:mod:`fsmnet.proofs.checker`) needs, in exact rationals written as strings
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
from typing import Any

from fsmnet.automata import Automaton
from fsmnet.errors import FsmnetError
from fsmnet.nets import Network
from fsmnet.proofs.certificate_models import certificate_form, exact_qs
from fsmnet.proofs.product import ProductExploration

CERTIFICATE_FORMAT = "fsmnet-certificate"
CERTIFICATE_VERSION = 1


def network_model(net: Network) -> dict[str, Any]:
    """The exact model of a network that the checker knows how to step."""
    return certificate_form(net).model(net)


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
    form = certificate_form(net)
    model = form.model(net)
    states = [form.state(net, h) for h in exploration.states]
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


def write_certificate(cert: dict[str, Any], path: str | os.PathLike[str]) -> None:
    """Write ``cert`` as compact JSON (via :mod:`fsmnet.io`; ``"-"``: standard output)."""
    from fsmnet.io import write_text

    write_text(path, json.dumps(cert, separators=(",", ":")) + "\n")


def cone_certificate(net: Network, automaton: Automaton, proof: Any, *,
                     network_path: str | None = None) -> dict[str, Any]:
    """The certificate of a cone invariant (method ``cone-invariant``): generators per
    automaton state and the exact non-negative multipliers of every inclusion."""
    return {
        **_common(net, automaton, "cone-invariant", network_model(net), network_path),
        "cones": {str(q): exact_qs(g) for q, g in proof.generators.items()},
        "initial_multipliers": exact_qs(proof.initial),
        "inclusions": [{"state": q, "symbol": a, "generator": j, "multipliers": exact_qs(lam)}
                       for (q, a, j), lam in sorted(proof.steps.items())],
    }


def count_certificate(net: Network, automaton: Automaton, payload: dict[str, Any], *,
                      network_path: str | None = None) -> dict[str, Any]:
    """The certificate of a count abstraction (method ``count-abstraction``,
    :mod:`fsmnet.proofs.count_certificate`): the channel model, the letters'
    starts, periods and bases, and a Bernstein degree per (count type, rival)."""
    cert = _common(net, automaton, "count-abstraction", payload["model"], network_path)
    return {**cert, "letters": payload["letters"], "types": payload["types"]}
