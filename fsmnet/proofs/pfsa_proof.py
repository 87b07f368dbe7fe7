"""Proof that a bilinear network tracks the exact belief of a PFSA-SR, for every word.

Theorem (scale invariance).  Let a PFSA-SR have column-stochastic transition
matrices T_a (non-negative, columns summing to 1) and reveal masks D_a, and let
a linear recurrence have h_ε = c·e_{q0} (c > 0) and h_{wa} = α_a M_a h_w with
M_a = T_a D_a exactly and constants α_a > 0 (α_a = 1 for the construction).
Then for every word w:

* if P(w) > 0: h_w = c·α_w·P(w)·b_w (α_w the product of the α of w's
  symbols), so h_w / ‖h_w‖₁ = b_w (the exact belief) and the first argmax
  of h_w is the first most likely state of b_w;
* if P(w) = 0: h_w = 0 (and the belief is undefined).

Proof, by induction on |w| (written for α = 1; the factors only multiply
through).  ε: h = c·e_{q0} = c·1·b_ε.  Step: let
h_w = c·P(w)·b_w.  By linearity h_{wa} = c·P(w)·T_a D_a b_w.  Since T_a is
non-negative and column-stochastic, ‖T_a v‖₁ = ‖v‖₁ for v ≥ 0, so with
m = ‖D_a b_w‖₁ (= P(wa)/P(w), the chance the reveal of a holds):
if m > 0, b_{wa} = T_a D_a b_w / m, hence h_{wa} = c·P(wa)·b_{wa}; if m = 0,
D_a b_w = 0 and h_{wa} = 0, and from 0 every later state is 0.  The
network's per-step rescaling by its largest entry (the bilinear-full
semantics) multiplies h by a positive number, which changes neither
h / ‖h‖₁ nor the argmax.  ∎

So the proof of a concrete network is a *finite* check of the hypotheses:
the PFSA's rows are distributions, W[:, :, a] is a positive multiple of T_a D_a,
h0 = c·e_{q0}, the readout is the identity on states.  :func:`prove_belief`
checks them in exact rationals (every float64 is a rational), and
:func:`belief_certificate` writes them for the independent checker
(``fsmnet/proofs/checker/belief.py``, method ``belief-tracking``).  A network
that fails a hypothesis is refuted only by a word whose exact network state
differs from the exact belief, found by breadth-first search.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from fsmnet.automata.pfsa import PFSA, normalize1
from fsmnet.constructions.pfsa_bilinear import belief_matrices
from fsmnet.nets import Network
from fsmnet.nets.linear import to_fractions

__all__ = ["BeliefProof", "belief_certificate", "prove_belief"]

METHOD = "belief-tracking"


@dataclass(frozen=True)
class BeliefProof:
    """Verdict of :func:`prove_belief`: proved / refuted / unknown, and why."""

    verdict: str
    method: str
    reason: str
    counterexample: dict[str, Any] | None = None
    details: dict[str, Any] = field(default_factory=dict)


def scale_factor(w: Any, m: Any) -> Fraction | None:
    """α > 0 with w = α·m exactly (entrywise), or None.

    A positive factor per symbol is allowed: it rescales h, which changes
    neither h/‖h‖₁ nor the argmax (e.g. float64 rounds 1/3 and 2/3 by the same
    factor, so p = 1/3 still gives an exactly proportional matrix).
    """
    n = len(m)
    alpha = None
    for i, j in itertools.product(range(n), repeat=2):
        if m[i][j]:
            alpha = Fraction(w[i][j]) / m[i][j]
            break
    if alpha is None or alpha <= 0:
        return None
    ok = all(Fraction(w[i][j]) == alpha * m[i][j]
             for i, j in itertools.product(range(n), repeat=2))
    return alpha if ok else None


def _hypotheses(pfsa: PFSA, net: Network) -> str | None:
    """None when every hypothesis of the theorem holds exactly, else which fails."""
    if net.arch != "bilinear-full":
        return f"architecture {net.arch!r} is not bilinear-full (h = A(x) h)"
    if tuple(net.symbols) != pfsa.symbols:
        return "the network's symbols are not the PFSA's, in the same order"
    if net.hidden_size != pfsa.n_states:
        return f"hidden size {net.hidden_size} is not the number of states {pfsa.n_states}"
    w = to_fractions(net.params["W"])
    for a, m in enumerate(belief_matrices(pfsa)):
        alpha = scale_factor(w[:, :, a], m)
        if alpha is None:
            return (f"W[:, :, {pfsa.symbols[a]!r}] is not a positive multiple of T_a D_a")
    h0 = to_fractions(net.params["h0"])
    if not (h0[pfsa.initial] > 0 and all(x == 0 for q, x in enumerate(h0) if q != pfsa.initial)):
        return "h0 is not a positive multiple of e_q0"
    readout = to_fractions(net.params["readout"])
    n = pfsa.n_states
    if tuple(net.labels) != pfsa.states or readout.shape != (n, n) or any(
            readout[i, j] != int(i == j) for i in range(n) for j in range(n)):
        return "the readout is not the identity with the state names as labels"
    return None


def _counterexample(pfsa: PFSA, net: Network, max_length: int) -> dict[str, Any] | None:
    """The shortest word (up to max_length) whose exact network state is not the belief."""
    mats = to_fractions(net.params["W"]) if net.hidden_size == pfsa.n_states else None
    if mats is None or tuple(net.symbols) != pfsa.symbols:
        return None
    layer: list[tuple[tuple[int, ...], tuple[Any, ...], tuple[Fraction, ...]]] = [
        ((), tuple(to_fractions(net.params["h0"])), pfsa.unnormalized(()))]
    for _ in range(max_length + 1):
        nxt: list[tuple[tuple[int, ...], tuple[Any, ...], tuple[Fraction, ...]]] = []
        for word, h, u in layer:
            total = sum(u, Fraction(0))
            hsum = sum(h, Fraction(0))
            if total == 0:
                bad = any(h)
            else:
                bad = hsum == 0 or tuple(x / hsum for x in h) != normalize1(u)
            if bad:
                got = [str(x) for x in h] if hsum == 0 else [str(x / hsum) for x in h]
                return {"word": [pfsa.symbols[a] for a in word],
                        "expected": [str(x) for x in (normalize1(u) if total else u)],
                        "got": got}
            for a in range(pfsa.n_symbols):
                col = mats[:, :, a]
                h2 = tuple(sum((col[i, j] * h[j] for j in range(len(h)) if h[j]), Fraction(0))
                           for i in range(len(h)))
                nxt.append(((*word, a), h2, pfsa.unnormalized_step(u, a)))
        layer = nxt
        if len(layer) > 200_000:
            break
    return None


def prove_belief(pfsa: PFSA, net: Network, *, search_length: int = 3) -> BeliefProof:
    """Prove (exactly) that ``net`` tracks the belief of ``pfsa`` on every word, or refute."""
    failed = _hypotheses(pfsa, net)
    if failed is None:
        return BeliefProof("proved", METHOD, "W = alpha_a T_a D_a exactly (alpha_a > 0), "
                           "h0 = c e_q0, readout I: by scale invariance the normalized "
                           "state is the exact belief on every word of every length",
                           details={"states": pfsa.n_states, "symbols": pfsa.n_symbols})
    cex = _counterexample(pfsa, net, search_length)
    note = failed
    if net.exact is not None and net.exact.get("kind") == "rational-W":
        note += " (the float64 weights round non-binary probabilities; the rational " \
                "matrices are in the network's 'exact' field)"
    if cex is not None:
        return BeliefProof("refuted", METHOD, note, counterexample=cex)
    return BeliefProof("unknown", METHOD, f"a hypothesis fails ({note}) and no word up to "
                       f"length {search_length} shows a difference")


def _strings(rows: Any) -> Any:
    if isinstance(rows, (list, tuple)) or hasattr(rows, "tolist"):
        return [_strings(r) for r in (rows.tolist() if hasattr(rows, "tolist") else rows)]
    return str(Fraction(rows))


def belief_certificate(pfsa: PFSA, net: Network, *,
                       network_path: str | os.PathLike[str] | None = None) -> dict[str, Any]:
    """The certificate of method ``belief-tracking`` (proved networks only)."""
    proof = prove_belief(pfsa, net)
    if proof.verdict != "proved":
        raise ValueError(f"no certificate for an unproved network: {proof.reason}")
    network: dict[str, Any] = {
        "arch": net.arch,
        "labels": list(net.labels),
        "h0": _strings(to_fractions(net.params["h0"])),
        "matrices": [_strings(to_fractions(net.params["W"][:, :, a]))
                     for a in range(pfsa.n_symbols)],
        "readout": _strings(to_fractions(net.params["readout"])),
    }
    if network_path is not None:
        with open(network_path, "rb") as handle:
            network["sha256"] = hashlib.sha256(handle.read()).hexdigest()
    return {
        "format": "fsmnet-certificate", "format_version": 1, "method": METHOD,
        "claim": "for every word w: P(w) > 0 implies h_w / ||h_w||_1 = belief_w and the "
                 "readout is the first most likely state; P(w) = 0 implies h_w = 0",
        "pfsa": {"name": pfsa.name, "states": list(pfsa.states), "symbols": list(pfsa.symbols),
                 "kernel": _strings(pfsa.kernel), "reveals": [list(r) for r in pfsa.reveals],
                 "initial": pfsa.initial},
        "network": network,
    }


def write_certificate(cert: dict[str, Any], path: str | os.PathLike[str]) -> None:
    """Write a certificate atomically (a reader never sees half a file)."""
    from fsmnet.io import write_text

    write_text(path, json.dumps(cert, indent=1))
