"""Method ``exact-product``: a finite set of (network state, automaton state) pairs,
closed under every symbol, that agrees on outputs."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .core import Automaton, CertificateError, _same_label, read_automaton
from .fields import PRODUCT_WORDS, PairTable, read_pair_table
from .models import MODELS, _Model


@dataclass(frozen=True)
class ProductCertificate:
    """An exact-product certificate, parsed: the listed states read by the model."""

    automaton: Automaton
    labels: tuple[Any, ...]
    model: _Model
    states: tuple[Any, ...]
    table: PairTable


def parse_product(cert: dict[str, Any]) -> ProductCertificate:
    auto, net = read_automaton(cert["automaton"]), cert["network"]
    build = MODELS.get(net["model"].get("type"))
    if build is None:
        raise CertificateError(f"unsupported model type {net['model'].get('type')!r}")
    labels = tuple(net["labels"])
    model = build(net["model"], auto.n_symbols, len(labels))
    if not isinstance(cert["states"], list):
        raise CertificateError("states must be a list")
    states = tuple(model.state(h) for h in cert["states"])
    table = read_pair_table(cert["pairs"], cert["transitions"], len(states), auto.n_states,
                            auto.n_symbols, PRODUCT_WORDS)
    return ProductCertificate(auto, labels, model, states, table)


def check_pairs(automaton: Automaton, labels: tuple[Any, ...], model: _Model,
                states: tuple[Any, ...], table: PairTable) -> None:
    """Raise CertificateError unless the listed pairs hold (h0, q0) first, are closed
    under every symbol by ``model``'s step and the automaton's, and agree on labels."""
    delta, outputs, pairs = automaton.delta, automaton.outputs, table.pairs
    if states[pairs[0][0]] != model.h0 or pairs[0][1] != automaton.initial:
        raise CertificateError("pair 0 is not (h0, q0)")
    for p, ((hi, q), row) in enumerate(zip(pairs, table.transitions)):
        h = states[hi]
        got = labels[model.label(h)]
        if not _same_label(got, outputs[q]):
            raise CertificateError(f"pair {p}: readout gives {got!r}, automaton {outputs[q]!r}")
        for a, t in enumerate(row):
            th, tq = pairs[t]
            if tq != delta[a][q]:
                raise CertificateError(f"pair {p}, symbol {a}: automaton target differs")
            if states[th] != model.step(h, a):
                raise CertificateError(f"pair {p}, symbol {a}: network target differs")


def check_product(cert: dict[str, Any]) -> None:
    """Raise CertificateError unless the exact-product claim holds."""
    pc = parse_product(cert)
    check_pairs(pc.automaton, pc.labels, pc.model, pc.states, pc.table)
