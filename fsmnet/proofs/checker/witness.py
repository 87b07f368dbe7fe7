"""Method ``witness``: an impossibility witness, re-checked by running the automaton."""

from __future__ import annotations

from typing import Any

from .core import Automaton, CertificateError, _same_label, read_automaton


def _check_equal_counts(auto: Automaton, words: dict[str, Any]) -> str:
    first, second = words["first"], words["second"]
    if sorted(first) != sorted(second):
        raise CertificateError("the two words do not have equal symbol counts")
    x = auto.outputs[auto.run(auto.initial, first)]
    y = auto.outputs[auto.run(auto.initial, second)]
    if _same_label(x, y):
        raise CertificateError("the two words have the same output")
    return "valid witness: equal symbol counts, different outputs"


def _check_unsettled_powers(auto: Automaton, words: dict[str, Any], stride: Any) -> str:
    if not (isinstance(stride, int) and stride >= 1) or not words["u"]:
        raise CertificateError("need a stride >= 1 and a non-empty u")
    q = auto.run(auto.initial, words["p"])
    seen: dict[int, int] = {}
    sequence: list[int] = []
    while q not in seen:  # q_k = q0·p·(u^stride)^k, until it repeats
        seen[q] = len(sequence)
        sequence.append(q)
        q = auto.run(q, words["u"] * stride)
    cycle = sequence[seen[q]:]
    outs = [auto.outputs[auto.run(r, words["s"])] for r in cycle]
    if all(_same_label(o, outs[0]) for o in outs):
        raise CertificateError("the outputs along the powers of u settle")
    return f"valid witness: outputs along powers of u cycle with period {len(cycle)}"


def check_witness(cert: dict[str, Any]) -> str:
    """Re-check an impossibility witness by running the automaton only.

    ``equal-counts``: the words have equal symbol counts and different outputs
    (so commuting transitions cannot separate them: h depends on counts only).
    ``unsettled-powers``: along q_k = q0·p·(u^stride)^k the states are
    eventually periodic; the outputs of q_k·s over one period are not all
    equal, so they never settle.
    """
    auto = read_automaton(cert["automaton"])
    if cert["kind"] == "equal-counts":
        return _check_equal_counts(auto, cert["words"])
    if cert["kind"] == "unsettled-powers":
        return _check_unsettled_powers(auto, cert["words"], cert["stride"])
    raise CertificateError(f"unknown witness kind {cert['kind']!r}")
