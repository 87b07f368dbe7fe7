"""The independent certificate checker: the trusted base of fsmnet's proofs.

It imports nothing from fsmnet; only the standard library (and safetensors,
to compare the certificate with a network file when one is given).  Read it in
one sitting: it re-derives every claim of a certificate from scratch.

A certificate of method ``exact-product`` claims that a finite set of pairs
(network state h, automaton state q) contains (h0, q0), is closed under every
symbol, and agrees on outputs.  Then, by induction on the length of w,
(h_w, q_w) is in the set for every word w, so the network's output equals the
automaton's on every word.  The checker verifies exactly that:

1. pair 0 is (h0, q0);
2. for every pair p = (h, q) and symbol a, the listed target pair is
   (step_a(h), delta[a][q]) — recomputed here in exact rationals;
3. for every pair, the label of readout(h) equals outputs[q].

The model types (``network.model.type``) define h0, step and readout:

* ``linear``: step_a(h) = normalize(A_a h), readout = first argmax of
  readout @ h.  ``normalize`` divides by the largest absolute entry (a
  positive rescaling, which changes no argmax), so equal projective states
  have equal entries; h0 is normalized too.
* ``minmax-dense``: step_a(x) = (R_a ⊗ x) ⊕ s_a over (max, min), readout =
  first argmax of readout ⊗ x.
* ``minmax-cascade``: see :func:`_cascade_model` (also used for minmax-scalar).

Every number is a string read as an exact rational (``"p/q"`` or a decimal);
MinMax models only select values with max and min.
"""

from __future__ import annotations

import hashlib
import json
import math
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
    support = [j for j, y in enumerate(h) if y]  # zero entries add nothing
    return [sum((row[j] * h[j] for j in support), Fraction(0)) for row in a]


def _argmax(scores: list[Fraction]) -> int:
    best = 0
    for i in range(1, len(scores)):
        if scores[i] > scores[best]:
            best = i
    return best


def _same_label(x: Any, y: Any) -> bool:
    return type(x) is type(y) and x == y


class _Model:
    """A network model the checker can run: initial state, step, readout (label index)."""

    def __init__(self, h0: Any, step: Any, label: Any, state: Any) -> None:
        self.h0, self.step, self.label, self.state = h0, step, label, state


def _linear_model(model: dict[str, Any], k: int, n_labels: int) -> _Model:
    """h' = normalize(A_a h); label = first argmax of readout @ h."""
    mats = [_mat(m) for m in model["matrices"]]
    if len(mats) != k:
        raise CertificateError("one matrix per symbol is required")
    readout = _mat(model["readout"])
    if len(readout) != n_labels:
        raise CertificateError("one readout row per label is required")
    return _Model(_normalize(_vec(model["h0"])),
                  lambda h, a: _normalize(_matvec(mats[a], h)),
                  lambda h: _argmax(_matvec(readout, h)), _vec)


# ------------------------------------------------------------------ MinMax
# Values are exact rationals; max and min only select among them.

def _maxmin(row: list[Fraction], x: list[Fraction]) -> Fraction:
    """max_j min(row[j], x[j]) (a max-min "dot product")."""
    if len(row) != len(x) or not x:
        raise CertificateError("max-min sizes differ")
    return max(min(r, v) for r, v in zip(row, x))


def _affine(big_r: list[list[Fraction]], s: list[Fraction], x: list[Fraction]) -> list[Fraction]:
    """x'_i = max(max_j min(R[i][j], x[j]), s[i])."""
    if len(big_r) != len(s):
        raise CertificateError("R and s sizes differ")
    return [max(_maxmin(row, x), si) for row, si in zip(big_r, s)]


def _dense_model(model: dict[str, Any], k: int, n_labels: int) -> _Model:
    """minmax-dense: x' = (R_a ⊗ x) ⊕ s_a; label = first argmax of readout ⊗ x."""
    big_r = [_mat(m) for m in model["R"]]
    s = [_vec(v) for v in model["s"]]
    readout = _mat(model["readout"])
    if len(big_r) != k or len(s) != k or len(readout) != n_labels:
        raise CertificateError("minmax-dense: need R and s per symbol, a readout row per label")
    return _Model(_vec(model["x0"]), lambda x, a: _affine(big_r[a], s[a], x),
                  lambda x: _argmax([_maxmin(row, x) for row in readout]), _vec)


def _cascade_model(model: dict[str, Any], k: int, n_labels: int) -> _Model:
    """minmax-cascade: units by level; every unit reads the units of smaller
    levels at t-1 (before anyone updates) to pick its step.

    A scalar unit of size m holds x and steps by max(min(r, x), s); its value
    is clip(floor(x), 1, m) - 1.  A matrix unit holds a vector and steps by
    (R ⊗ x) ⊕ s; its value is the first argmax.  The code of units 0..u-1 is
    mixed-radix, unit 0 most significant.  The label is readout[code of all].
    """
    units = model["units"]
    levels = [u["level"] for u in units]
    sizes = [u["size"] for u in units]
    if not units or not all(isinstance(v, int) for v in levels + sizes) or levels != sorted(
            levels) or min(levels) < 0 or min(sizes) < 1:
        raise CertificateError("cascade units need sorted levels >= 0 and sizes >= 1")
    above = [sum(1 for other in levels if other < lv) for lv in levels]
    tables: list[tuple[str, Any, Any]] = []
    for u, unit in enumerate(units):
        r: Any
        s: Any
        domain = 1
        for m in sizes[:above[u]]:
            domain *= m
        if unit["kind"] == "scalar":
            r, s = [_vec(v) for v in unit["r"]], [_vec(v) for v in unit["s"]]
            ok = all(len(v) == domain for v in r + s)
        elif unit["kind"] == "matrix":
            r, s = [[_mat(m) for m in v] for v in unit["R"]], [[_vec(m) for m in v]
                                                             for v in unit["s"]]
            ok = all(len(v) == domain for v in r + s)
        else:
            raise CertificateError(f"unknown unit kind {unit['kind']!r}")
        if len(r) != k or len(s) != k or not ok:
            raise CertificateError(f"unit {u}: need a table per symbol over {domain} codes")
        tables.append((unit["kind"], r, s))
    readout = model["readout"]
    n_codes = 1
    for m in sizes:
        n_codes *= m
    if len(readout) != n_codes or not all(
            isinstance(c, int) and 0 <= c < n_labels for c in readout):
        raise CertificateError("the readout needs one label index per code")

    def values(state: list[list[Fraction]]) -> list[int]:
        if len(state) != len(units):
            raise CertificateError("a cascade state needs one entry per unit")
        out = []
        for (kind, _, _), m, x in zip(tables, sizes, state):
            if kind == "scalar":
                if len(x) != 1:
                    raise CertificateError("a scalar unit holds one value")
                out.append(min(max(math.floor(x[0]), 1), m) - 1)
            else:
                if len(x) != m:
                    raise CertificateError("a matrix unit holds one value per point")
                out.append(_argmax(x))
        return out

    def code(vals: list[int]) -> int:
        c = 0
        for v, m in zip(vals, sizes):
            c = c * m + v
        return c

    def step(state: list[list[Fraction]], a: int) -> list[list[Fraction]]:
        vals = values(state)  # all read at t-1, before any update
        new = []
        for u, ((kind, r, s), x) in enumerate(zip(tables, state)):
            d = code(vals[:above[u]])
            if kind == "scalar":
                new.append([max(min(r[a][d], x[0]), s[a][d])])
            else:
                new.append(_affine(r[a][d], s[a][d], x))
        return new

    return _Model([_vec(x) for x in (u["x0"] for u in units)], step,
                  lambda state: readout[code(values(state))],
                  lambda state: [_vec(x) for x in state])


MODELS = {"linear": _linear_model, "minmax-dense": _dense_model,
          "minmax-cascade": _cascade_model}


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


def check_cones(cert: dict[str, Any]) -> str:
    """Re-check a cone invariant: K_q = cone(generators of q), for a linear model.

    1. h0 = Σ λ g over K_q0 with λ ≥ 0, not all zero;
    2. for every state q of a cone, symbol a and generator g of K_q: A_a g ≠ 0
       and A_a g = Σ μ g' over K_δ(q,a) with μ ≥ 0 (so every cone has a row for
       every symbol and generator, and the targets have cones);
    3. every generator of K_q is read out as outputs[q] (a rival before the
       right label strictly below it, one after it at most equal).
    By induction every reachable state is a non-negative combination, not all
    zero, of its cone's generators, and the readout is linear: see
    fsmnet/proofs/cones.py for the argument.
    """
    delta, outputs, q0, _ = _automaton_table(cert["automaton"])
    model = cert["network"]["model"]
    if model.get("type") != "linear":
        raise CertificateError("cone invariants are for linear models")
    mats = [_mat(m) for m in model["matrices"]]
    readout = _mat(model["readout"])
    labels = cert["network"]["labels"]
    if len(mats) != len(delta) or len(readout) != len(labels):
        raise CertificateError("model and automaton sizes differ")
    cones = {int(q): [_vec(g) for g in gs] for q, gs in cert["cones"].items()}

    def combination(coeffs: Any, gens: list[list[Fraction]]) -> list[Fraction]:
        lam = _vec(coeffs)
        if len(lam) != len(gens) or any(x < 0 for x in lam):
            raise CertificateError("multipliers must be one non-negative number a generator")
        return [sum((c * g[i] for c, g in zip(lam, gens)), Fraction(0))
                for i in range(len(gens[0]))]

    if q0 not in cones or not any(_frac(x) != 0 for x in cert["initial_multipliers"]):
        raise CertificateError("h0 needs a non-zero combination in the initial cone")
    if combination(cert["initial_multipliers"], cones[q0]) != _vec(model["h0"]):
        raise CertificateError("h0 is not the stated combination")
    for q, gens in cones.items():
        right = [c for c, lab in enumerate(labels) if _same_label(lab, outputs[q])]
        if not gens or not right:
            raise CertificateError(f"state {q}: no generators or no label")
        for g in gens:
            scores = _matvec(readout, g)
            if any(not (scores[right[0]] > s if c < right[0] else scores[right[0]] >= s)
                   for c, s in enumerate(scores) if c != right[0]):
                raise CertificateError(f"state {q}: a generator is read out wrongly")
    seen = set()
    for row in cert["inclusions"]:
        q, a, j = row["state"], row["symbol"], row["generator"]
        target = delta[a][q]
        if target not in cones:
            raise CertificateError(f"state {target} has no cone")
        image = _matvec(mats[a], cones[q][j])
        if all(x == 0 for x in image):
            raise CertificateError(f"A_{a} maps a generator of state {q} to 0")
        if combination(row["multipliers"], cones[target]) != image:
            raise CertificateError(f"state {q}, symbol {a}, generator {j}: not in the cone")
        seen.add((q, a, j))
    needed = {(q, a, j) for q, gens in cones.items() for a in range(len(delta))
              for j in range(len(gens))}
    if seen != needed:
        raise CertificateError("an inclusion obligation is missing")
    return (f"valid: cone invariant over {len(cones)} states, "
            f"{sum(len(g) for g in cones.values())} generators, {len(seen)} inclusions")


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
        if cert.get("method") == "cone-invariant":
            summary = check_cones(cert)
            if network_path is not None:
                check_network_file(cert, network_path)
            return summary
        if cert.get("method") != "exact-product":
            raise CertificateError(f"unsupported method {cert.get('method')!r}")
        check_product(cert)
        if network_path is not None:
            check_network_file(cert, network_path)
    except (KeyError, TypeError, IndexError) as exc:
        raise CertificateError(f"malformed certificate ({type(exc).__name__}: {exc})") from None
    return (f"valid: {len(cert['pairs'])} pairs, {len(cert['states'])} network states, "
            f"{len(cert['automaton']['delta'])} symbols, closed and consistent")


def main(argv: list[str]) -> int:
    """``python -m fsmnet.proofs.checker CERT.json [NET.safetensors]``."""
    if not argv:
        print("usage: python -m fsmnet.proofs.checker CERT.json [NET]", file=sys.stderr)
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
