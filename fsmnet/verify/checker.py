"""The independent certificate checker: the trusted base of fsmnet's proofs.

It imports nothing from fsmnet; only the standard library (and safetensors,
to compare the certificate with a network file when one is given).  Read it in
one sitting: it re-derives every claim of a certificate from scratch.

A certificate of method ``exact-product`` claims that a finite set of pairs
(network state h, automaton state q) contains (h0, q0), is closed under every
symbol, and agrees on outputs.  Then, by induction on the length of w,
(h_w, q_w) is in the set for every word w, so the network's output equals the
automaton's on every word.  The checker verifies exactly that:

1. pair 0 is (normalize(h0), q0);
2. for every pair p = (h, q) and symbol a, the listed target pair is
   (normalize(A_a h), delta[a][q]) — recomputed here in exact rationals;
3. for every pair, the label of argmax(readout @ h) equals outputs[q].

``normalize`` divides by the largest absolute entry (a positive rescaling,
which changes no argmax), so equal projective states have equal entries.
"""

from __future__ import annotations

import hashlib
import json
import sys
from fractions import Fraction
from typing import Any


class CertificateError(Exception):
    """The certificate is malformed or one of its claims is false."""


def _frac(x: Any) -> Fraction:
    if not isinstance(x, str):
        raise CertificateError(f"expected a rational as a string, got {x!r}")
    try:
        return Fraction(x)
    except (ValueError, ZeroDivisionError):
        raise CertificateError(f"not a rational: {x!r}") from None


def _vec(v: Any) -> list[Fraction]:
    if not isinstance(v, list):
        raise CertificateError(f"expected a list, got {type(v).__name__}")
    return [_frac(x) for x in v]


def _mat(m: Any) -> list[list[Fraction]]:
    if not isinstance(m, list):
        raise CertificateError(f"expected a matrix, got {type(m).__name__}")
    return [_vec(row) for row in m]


def _normalize(h: list[Fraction]) -> list[Fraction]:
    scale = max((abs(x) for x in h), default=Fraction(0))
    return h if scale == 0 else [x / scale for x in h]


def _matvec(a: list[list[Fraction]], h: list[Fraction]) -> list[Fraction]:
    if any(len(row) != len(h) for row in a):
        raise CertificateError("matrix and vector sizes differ")
    return [sum((x * y for x, y in zip(row, h)), Fraction(0)) for row in a]


def _argmax(scores: list[Fraction]) -> int:
    best = 0
    for i in range(1, len(scores)):
        if scores[i] > scores[best]:
            best = i
    return best


def _same_label(x: Any, y: Any) -> bool:
    return type(x) is type(y) and x == y


def check_linear_product(cert: dict[str, Any]) -> None:
    """Raise CertificateError unless the exact-product claim holds."""
    auto, net = cert["automaton"], cert["network"]
    delta, outputs = auto["delta"], auto["outputs"]
    k, n = len(delta), len(outputs)
    if any(len(row) != n for row in delta) or not all(
            isinstance(t, int) and 0 <= t < n for row in delta for t in row):
        raise CertificateError("automaton.delta is not a table over the states")
    model = net["model"]
    if model.get("type") != "linear":
        raise CertificateError(f"unsupported model type {model.get('type')!r}")
    mats = [_mat(m) for m in model["matrices"]]
    if len(mats) != k:
        raise CertificateError("one matrix per symbol is required")
    readout = _mat(model["readout"])
    labels = net["labels"]
    if len(readout) != len(labels):
        raise CertificateError("one readout row per label is required")
    states = [_vec(h) for h in cert["states"]]
    pairs, trans = cert["pairs"], cert["transitions"]
    if not pairs or len(trans) != len(pairs):
        raise CertificateError("every pair needs its row of transitions")
    for p in pairs:
        if not (isinstance(p, list) and len(p) == 2 and 0 <= p[0] < len(states)
                and 0 <= p[1] < n):
            raise CertificateError(f"bad pair {p!r}")
    h0 = _normalize(_vec(model["h0"]))
    if states[pairs[0][0]] != h0 or pairs[0][1] != auto["initial"]:
        raise CertificateError("pair 0 is not (h0, q0)")
    for p, ((hi, q), row) in enumerate(zip(pairs, trans)):
        h = states[hi]
        got = labels[_argmax(_matvec(readout, h))]
        if not _same_label(got, outputs[q]):
            raise CertificateError(f"pair {p}: readout gives {got!r}, automaton {outputs[q]!r}")
        if len(row) != k:
            raise CertificateError(f"pair {p}: needs one transition per symbol")
        for a, t in enumerate(row):
            if not (isinstance(t, int) and 0 <= t < len(pairs)):
                raise CertificateError(f"pair {p}, symbol {a}: bad target {t!r}")
            th, tq = pairs[t]
            if tq != delta[a][q]:
                raise CertificateError(f"pair {p}, symbol {a}: automaton target differs")
            if states[th] != _normalize(_matvec(mats[a], h)):
                raise CertificateError(f"pair {p}, symbol {a}: network target differs")


def _automaton_table(auto: dict[str, Any]) -> tuple[list[list[int]], list[Any], int, dict]:
    delta, outputs, q0 = auto["delta"], auto["outputs"], auto["initial"]
    n = len(outputs)
    if any(len(row) != n for row in delta) or not all(
            isinstance(t, int) and 0 <= t < n for row in delta for t in row):
        raise CertificateError("automaton.delta is not a table over the states")
    if not (isinstance(q0, int) and 0 <= q0 < n):
        raise CertificateError("automaton.initial is not a state")
    index = {s: i for i, s in enumerate(auto["symbols"])}
    if len(index) != len(delta):
        raise CertificateError("one table row per symbol is required")
    return delta, outputs, q0, index


def _run(delta: list[list[int]], index: dict, q: int, word: Any) -> int:
    if not isinstance(word, list):
        raise CertificateError("a word must be a list of symbols")
    for sym in word:
        if sym not in index:
            raise CertificateError(f"unknown symbol {sym!r}")
        q = delta[index[sym]][q]
    return q


def check_witness(cert: dict[str, Any]) -> str:
    """Re-check an impossibility witness by running the automaton only.

    ``equal-counts``: the words have equal symbol counts and different outputs
    (so commuting transitions cannot separate them: h depends on counts only).
    ``unsettled-powers``: along q_k = q0·p·(u^stride)^k the states are
    eventually periodic; the outputs of q_k·s over one period are not all
    equal, so they never settle.
    """
    delta, outputs, q0, index = _automaton_table(cert["automaton"])
    words = cert["words"]
    if cert["kind"] == "equal-counts":
        first, second = words["first"], words["second"]
        if sorted(first) != sorted(second):
            raise CertificateError("the two words do not have equal symbol counts")
        x = outputs[_run(delta, index, q0, first)]
        y = outputs[_run(delta, index, q0, second)]
        if _same_label(x, y):
            raise CertificateError("the two words have the same output")
        return "valid witness: equal symbol counts, different outputs"
    if cert["kind"] == "unsettled-powers":
        stride = cert["stride"]
        if not (isinstance(stride, int) and stride >= 1) or not words["u"]:
            raise CertificateError("need a stride >= 1 and a non-empty u")
        q = _run(delta, index, q0, words["p"])
        seen: dict[int, int] = {}
        sequence: list[int] = []
        while q not in seen:
            seen[q] = len(sequence)
            sequence.append(q)
            q = _run(delta, index, q, words["u"] * stride)
        cycle = sequence[seen[q]:]
        outs = [outputs[_run(delta, index, r, words["s"])] for r in cycle]
        if all(_same_label(o, outs[0]) for o in outs):
            raise CertificateError("the outputs along the powers of u settle")
        return f"valid witness: outputs along powers of u cycle with period {len(cycle)}"
    raise CertificateError(f"unknown witness kind {cert['kind']!r}")


def check_network_file(cert: dict[str, Any], network_path: str) -> None:
    """The network file is the one certified (same bytes, by SHA-256)."""
    digest = hashlib.sha256()
    with open(network_path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    if cert["network"].get("sha256") != digest.hexdigest():
        raise CertificateError("the network file differs from the certified one (SHA-256)")


def check_certificate(cert: Any, network_path: str | None = None) -> str:
    """Check a parsed certificate; return a one-line summary or raise CertificateError."""
    if not isinstance(cert, dict) or cert.get("format") != "fsmnet-certificate":
        raise CertificateError("not an fsmnet certificate")
    if cert.get("format_version") != 1:
        raise CertificateError(f"unsupported format_version {cert.get('format_version')!r}")
    try:
        if cert.get("method") == "witness":
            return check_witness(cert)
        if cert.get("method") != "exact-product":
            raise CertificateError(f"unsupported method {cert.get('method')!r}")
        check_linear_product(cert)
        if network_path is not None:
            check_network_file(cert, network_path)
    except (KeyError, TypeError, IndexError) as exc:
        raise CertificateError(f"malformed certificate ({type(exc).__name__}: {exc})") from None
    return (f"valid: {len(cert['pairs'])} pairs, {len(cert['states'])} network states, "
            f"{len(cert['automaton']['delta'])} symbols, closed and consistent")


def main(argv: list[str]) -> int:
    """``python -m fsmnet.verify.checker CERT.json [NET.safetensors]``."""
    if not argv:
        print("usage: python -m fsmnet.verify.checker CERT.json [NET]", file=sys.stderr)
        return 2
    try:
        with open(argv[0], encoding="utf-8") as handle:
            cert = json.load(handle)
        print(check_certificate(cert, argv[1] if len(argv) > 1 else None))
        return 0
    except (OSError, json.JSONDecodeError) as exc:
        print(f"invalid: cannot read {argv[0]}: {exc}", file=sys.stderr)
        return 2
    except CertificateError as exc:
        print(f"invalid: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
