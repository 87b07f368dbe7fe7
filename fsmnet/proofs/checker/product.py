"""Method ``exact-product``: a finite set of (network state, automaton state) pairs,
closed under every symbol, that agrees on outputs."""

from __future__ import annotations

from typing import Any

from .core import CertificateError, _automaton_table, _same_label
from .models import MODELS


def check_product(cert: dict[str, Any]) -> None:
    """Raise CertificateError unless the exact-product claim holds."""
    auto, net = cert["automaton"], cert["network"]
    delta, outputs, q0, _ = _automaton_table(auto)
    k, n = len(delta), len(outputs)
    build = MODELS.get(net["model"].get("type"))
    if build is None:
        raise CertificateError(f"unsupported model type {net['model'].get('type')!r}")
    labels = net["labels"]
    model = build(net["model"], k, len(labels))
    if not isinstance(cert["states"], list):
        raise CertificateError("states must be a list")
    states = [model.state(h) for h in cert["states"]]
    pairs, trans = cert["pairs"], cert["transitions"]
    if not pairs or len(trans) != len(pairs):
        raise CertificateError("every pair needs its row of transitions")
    for p in pairs:
        if not (isinstance(p, list) and len(p) == 2 and 0 <= p[0] < len(states)
                and 0 <= p[1] < n):
            raise CertificateError(f"bad pair {p!r}")
    if states[pairs[0][0]] != model.h0 or pairs[0][1] != q0:
        raise CertificateError("pair 0 is not (h0, q0)")
    for p, ((hi, q), row) in enumerate(zip(pairs, trans)):
        h = states[hi]
        got = labels[model.label(h)]
        if not _same_label(got, outputs[q]):
            raise CertificateError(f"pair {p}: readout gives {got!r}, automaton {outputs[q]!r}")
        if not isinstance(row, list) or len(row) != k:
            raise CertificateError(f"pair {p}: needs one transition per symbol")
        for a, t in enumerate(row):
            if not (isinstance(t, int) and 0 <= t < len(pairs)):
                raise CertificateError(f"pair {p}, symbol {a}: bad target {t!r}")
            th, tq = pairs[t]
            if tq != delta[a][q]:
                raise CertificateError(f"pair {p}, symbol {a}: automaton target differs")
            if states[th] != model.step(h, a):
                raise CertificateError(f"pair {p}, symbol {a}: network target differs")
