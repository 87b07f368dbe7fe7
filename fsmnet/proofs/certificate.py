"""Build proof certificates (JSON) from a closed product exploration.

A certificate restates everything the independent checker
(:mod:`fsmnet.proofs.checker`) needs, in exact rationals written as strings
``"p/q"``: the automaton's table and outputs, the network's exact per-symbol
matrices, h0 and readout (for linear-recurrence networks), the reached network
states, the (state, automaton state) pairs, and the transition of every pair
on every symbol.  The checker re-derives each transition and each readout
itself; it trusts nothing but this file.  With a network file, the checker
compares the file's SHA-256 with the one stated, and :func:`check_model_against_file`
(run by ``fsmnet check --network``) compares the model fsmnet derives from the
file's tensors with the certificate's model, value by value.
"""

from __future__ import annotations

import hashlib
import json
import os
from typing import Any

from fsmnet.automata import Automaton
from fsmnet.errors import FsmnetError
from fsmnet.nets import Network
from fsmnet.proofs.certificate_models import (
    LINEAR,
    MINMAX_DENSE,
    SPARSE_LINEAR,
    SPARSE_MINMAX,
    NotRational,
    certificate_form,
    exact_qs,
    float32_linear_model,
    has_sparse_minmax_model,
    has_sparse_model,
    linear_model,
    sparse_linear_model,
    sparse_minmax_model,
)
from fsmnet.proofs.product import ProductExploration

SPARSE_FORMS = ((LINEAR, has_sparse_model, SPARSE_LINEAR),
                (MINMAX_DENSE, has_sparse_minmax_model, SPARSE_MINMAX))
"""(form, when the network has a sparse model, that form): exact-product certificates of
networks stored sparse list their models' entries and their states' non-zeros."""
SPARSE_MODELS = {"linear-sparse": sparse_linear_model, "minmax-sparse": sparse_minmax_model}
"""A certificate's sparse model type -> the model of a file (for ``check --network``)."""

CERTIFICATE_FORMAT = "fsmnet-certificate"
CERTIFICATE_VERSION = 1


def network_model(net: Network) -> dict[str, Any]:
    """The exact model of a network that the checker knows how to step."""
    return certificate_form(net).model(net)


def float32_model(net: Network) -> dict[str, Any]:
    """The model of a ``float32-product`` certificate: the exact one, or where that has an
    irrational weight (an exact header's rotation), :func:`float32_linear_model`, whose
    entries are the doubles the float32 reference step rounds."""
    try:
        return network_model(net)
    except NotRational:
        return float32_linear_model(net)


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
    sparse = next((to for base, applies, to in SPARSE_FORMS if form is base and applies(net)),
                  None)
    if sparse is not None:
        # Stored sparse: the model by its entries and each state by its non-zeros, so
        # neither the certificate nor its check grows with the square of the states.
        reached = exploration.states
        model = sparse.model(net)
        states = [sparse.state(net, reached.entries(i)) for i in range(len(reached))]
    else:
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


def channel_product_fields(net: Network, automaton: Automaton, model: dict[str, Any],
                           network_path: str | None) -> dict[str, Any]:
    """The common fields of a ``channel-product`` certificate
    (:mod:`fsmnet.proofs.channel_product` adds the states, pairs and transitions)."""
    return _common(net, automaton, "channel-product", model, network_path)


def _exact_tree(obj: Any) -> Any:
    """JSON with every rational string read as a Fraction, for value comparison."""
    if isinstance(obj, dict):
        return {k: _exact_tree(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_exact_tree(v) for v in obj]
    if isinstance(obj, str):
        return _exact_string(obj)
    return obj


def _exact_string(text: str) -> Any:
    """A rational string as a Fraction, else the string; through the checker's parser,
    which refuses a giant number ("1e999999999") before building it."""
    from fsmnet.proofs.checker import CertificateError
    from fsmnet.proofs.checker.core import _parse

    try:
        return _parse(text)
    except CertificateError:
        return text


def file_model(cert: dict[str, Any], network_path: str | Network) -> dict[str, Any]:
    """The model fsmnet derives from the network file, in the form the certificate uses.

    The stdlib checker proves the claim about the certificate's *model*; this is
    what ties that model to the file's tensors (the checker alone compares only
    the file's SHA-256, which the certificate itself states).  ``network_path``
    may be the network already loaded from the file.
    """
    from fsmnet.nets import load_network

    net = network_path if isinstance(network_path, Network) else load_network(network_path)
    network = cert["network"]
    model = network.get("model")
    if model is None and "matrices" in network:  # belief-tracking certificates
        linear = linear_model(net)
        return {"h0": linear["h0"], "matrices": linear["matrices"],
                "readout": linear["readout"]}
    if isinstance(model, dict) and model.get("type") in SPARSE_MODELS:
        return SPARSE_MODELS[model["type"]](net)
    if isinstance(model, dict) and model.get("type") == "diagonal-channels":
        from fsmnet.proofs.count_certificate import channel_model, channels

        form = channels(net)
        if form is None:
            raise FsmnetError(f"a {net.arch} network has no diagonal channels")
        return channel_model(form)
    if cert.get("method") == "float32-product":
        return float32_model(net)
    return certificate_form(net).model(net)


def check_against_network(cert: Any, network_path: str) -> str:
    """Check a certificate *and* that it is about this network file: the checker's
    claim, the file's SHA-256, and every fact the file also states — architecture,
    labels in order, symbols in order, and the model against the file's tensors.

    The checker's :func:`~fsmnet.proofs.checker.check_certificate` proves the claim
    about the model, labels and symbols the certificate states, and with a path
    compares only the digest the certificate states: all of it is the certificate
    writer's word.  This is what ``fsmnet check --network`` runs; call it, not the
    checker alone, to trust a certificate about a file.  Raises
    :class:`~fsmnet.proofs.checker.CertificateError`.
    """
    from fsmnet.proofs.checker import check_certificate

    summary = check_certificate(cert, network_path)
    check_model_against_file(cert, network_path)
    return summary


# Where a certificate states the alphabet whose order indexes its model's matrices
# (every producer writes the network's own order: fsmnet.nets.alignment.align_alphabet
# for automata, the PFSA's order for belief tracking, which must be the network's).
SYMBOLS_AT = (("automaton", "symbols"), ("pfsa", "symbols"))


def _same(stated: Any, actual: Any) -> bool:
    """Equal JSON values, with types: True is not 1, "1" is not 1."""
    if isinstance(stated, list) and isinstance(actual, list):
        return len(stated) == len(actual) and all(map(_same, stated, actual))
    return type(stated) is type(actual) and stated == actual


def check_facts_against_file(cert: dict[str, Any], net: Network) -> None:
    """Raise CertificateError unless the certificate's architecture, labels (in
    readout order) and symbols (in the order its model is indexed by) are the file's.

    A claim "label(readout(h_w)) == output(delta(q0, w))" reads labels through
    ``network.labels`` and symbols through their index: a certificate with the
    labels swapped (and the outputs with them), or the symbol names swapped, is
    a proof about another network than the file's — the complement, or another
    letter's parity — whose model has the file's very numbers.
    """
    from fsmnet.proofs.checker import CertificateError

    network = cert["network"]
    if network.get("arch") != net.arch:
        raise CertificateError(f"the certificate is about a {network.get('arch')} network, "
                               f"the file holds a {net.arch} network")
    where = next((f"{a}.{b}" for a, b in SYMBOLS_AT
                  if isinstance(cert.get(a), dict) and b in cert[a]), None)
    if where is None:
        raise CertificateError("the certificate states no symbols (automaton.symbols)")
    first, second = where.split(".")
    facts = [("network.labels", network.get("labels"), json.loads(json.dumps(list(net.labels)))),
             (where, cert[first][second], list(net.symbols))]
    for name, stated, actual in facts:
        if not _same(stated, actual):
            raise CertificateError(f"{name}: the certificate states {stated!r}, the network "
                                   f"file {actual!r} (names and order must be the file's)")


def check_model_against_file(cert: dict[str, Any], network_path: str) -> None:
    """Raise :class:`~fsmnet.proofs.checker.CertificateError` unless the certificate's
    facts about the network (:func:`check_facts_against_file`) are the file's and its
    network model has exactly the values fsmnet derives from the network file."""
    from fsmnet.nets import load_network
    from fsmnet.proofs.checker import CertificateError

    network = cert.get("network") if isinstance(cert, dict) else None
    if not isinstance(network, dict):
        return  # a witness: it is about the automaton, not a network
    net = load_network(network_path)
    check_facts_against_file(cert, net)
    try:
        expected = file_model(cert, net)
    except FsmnetError as exc:
        raise CertificateError(f"cannot derive the certified model from the file: {exc}") from None
    stated = network.get("model")
    if stated is None:
        stated = {k: network.get(k) for k in expected}
    if _exact_tree(stated) != _exact_tree(expected):
        raise CertificateError("the certificate's network model differs from the network "
                               "file's tensors")
