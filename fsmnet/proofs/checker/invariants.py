"""Method ``box-invariant``: a set per automaton state, closed under every symbol,
read out correctly with a strict margin; every inclusion re-checked in Fractions.

Domains (``cert["domain"]``):

* ``chart-box`` (linear models).  The certificate gives a basis B, its
  inverse, a pivot p and per state q a box [lo_q, hi_q] with lo_p = hi_p = 1.
  K_q = {λ B⁻¹ y : λ > 0, lo_q ≤ y ≤ hi_q} is a cone (positive scaling changes
  neither the normalization nor the argmax).  Checked here, with
  M_a = B A_a B⁻¹ computed here:
    1. B B⁻¹ = I;
    2. h0 ∈ K_q0 (for ``float32-step``: the whole box of float32 roundings of h0);
    3. for every boxed q and symbol a, with t = δ(a, q) boxed too:
       min_box M_p·y > 0, min_box (M_i − lo_t,i M_p)·y ≥ 0 and
       min_box (hi_t,i M_p − M_i)·y ≥ 0 for i ≠ p — then A_a K_q ⊆ K_t;
    4. every rival c of the right label r: min_box ((R_r − R_c) B⁻¹)·y > 0.
  The minimum of a linear form over a box is exact interval arithmetic.
* ``minmax-box`` (minmax-dense models).  x ↦ (R_a ⊗ x) ⊕ s_a is monotone, so
  the image of the box [lo, hi] lies in [f(lo), f(hi)]; checked: x0 in the
  box of q0, [f(lo_q), f(hi_q)] ⊆ box of δ(a, q), and the readout's lowest
  right score beats the highest rival score (strictly for a rival listed
  before the right label, as argmax takes the first maximum).

Rounding model ``float32-select`` (minmax-box only): every number of the
model (R, s, readout, x0) is checked here to be exactly a float32 value.  A
max-min step and readout only select and compare among those numbers, so a
float32 run computes exactly what the exact run computes and the exact claim
covers it (any evaluation order: max and min need no rounding).

Rounding model ``float32-step`` (chart-box only): the claim also covers
h_t = fl(fl(A h_{t-1}) / max_i |fl(A h_{t-1})_i|) with the float32 matrices
``model32`` (checked here to be the float32 roundings of the exact model),
every dot product in any order (with or without FMA, gradual underflow
included), and labels = first argmax of fl(R h).  Each step then lies within
e of s·A h with |e| ≤ c1 |A| 1 + c2 (|h| ≤ 1 after normalization), which is
added to every condition of 3 and 4, scaled by N_q = max over K_q's chart of
‖B⁻¹ y‖∞ (so that y_p ≥ 1 / N_q when ‖h‖∞ = 1).
"""

from __future__ import annotations

import struct
from fractions import Fraction
from typing import Any

from .core import CertificateError, _automaton_table, _frac, _mat, _same_label, _vec

U32 = Fraction(1, 2**24)  # unit roundoff of float32
TINY = Fraction(1, 2**149)  # smallest float32 subnormal
# Underflow in rounding h0 to float32 and normalizing it, relative to the normalized
# state; assumes the file's largest |h0| entry is at least 2^-8 (documented).
H0_ABS = Fraction(1, 2**140)


def _gamma(n: int) -> Fraction:
    return n * U32 / (1 - n * U32)


def readout_loss32(right: list[Fraction], rival: list[Fraction], scale: Fraction,
                   dim: int) -> Fraction:
    """What float32 evaluation can take off the margin (right − rival)·h, |h| ≤ scale.

    Each of the two scores is a dot product of ``dim`` terms: γ_dim times the sum
    of |weights| (any summation order), plus the underflow of every product.
    """
    tot = sum((abs(x) + abs(y) for x, y in zip(right, rival)), Fraction(0))
    return scale * (_gamma(dim) * tot + 2 * dim * TINY)


# Round to nearest sends every magnitude from the midpoint between the largest float32
# (2^128 − 2^104) and 2^128 upwards to infinity.
F32_LIMIT = Fraction(2**128 - 2**103)
H0_MIN = Fraction(1, 2**8)  # the smallest largest-|h0| entry H0_ABS is derived for


def _round32(x: Fraction) -> Fraction:
    """Round to the nearest float32 (x is a double in the models this is used on)."""
    try:
        return Fraction(struct.unpack("f", struct.pack("f", float(x)))[0])
    except OverflowError:
        raise CertificateError(f"float32: the model number {float(x):.6g} rounds to "
                               "infinity in float32") from None


def check_float32_magnitudes(mats32: list[list[list[Fraction]]],
                             readout32: list[list[Fraction]], h0: list[Fraction]) -> None:
    """Nothing in the float32 step overflows, so the rounding model (relative errors and
    underflow, no infinities) holds on every word.

    A normalized state has ‖h‖∞ ≤ 1 (each entry is fl(g_i / max|g|), and rounding
    is monotone), so every product and partial sum of a row's dot product is at
    most (1 + γ_n) Σ_j |a_j| + n·2⁻¹⁴⁹ in magnitude (Higham, Lemma 3.1 and its
    underflow term), in any summation order; below F32_LIMIT none is infinite.
    h0's float32 rounding must be finite and its largest entry at least H0_MIN,
    the assumption behind H0_ABS.
    """
    dim = len(h0)
    grow = 1 + _gamma(dim)
    for what, rows in (("transition", [r for m in mats32 for r in m]), ("readout", readout32)):
        for row in rows:
            bound = grow * sum((abs(x) for x in row), Fraction(0)) + dim * TINY
            if bound >= F32_LIMIT:
                raise CertificateError(f"float32-step: a {what} row sums to {float(bound):.4g} "
                                       "in magnitude: its float32 dot product can overflow")
    big = max((abs(x) for x in h0), default=Fraction(0))
    if big >= F32_LIMIT:
        raise CertificateError(f"float32-step: h0 entry {float(big):.4g} is infinite in float32")
    if big < H0_MIN:
        raise CertificateError(f"float32-step: the largest |h0| entry {float(big):.4g} is below "
                               "2^-8, outside the rounding model of h0")


def _is_float32(x: Fraction) -> bool:
    """x is exactly a finite float32 value (float(x) rounds, so equality is the test)."""
    try:
        return _round32(x) == x
    except (OverflowError, struct.error):
        return False


def _lin_min(c: list[Fraction], lo: list[Fraction], hi: list[Fraction]) -> Fraction:
    """min over the box of c·y (each coordinate independently)."""
    return sum((ci * (lo[j] if ci >= 0 else hi[j]) for j, ci in enumerate(c) if ci),
               Fraction(0))


def _matmul(a: list[list[Fraction]], b: list[list[Fraction]]) -> list[list[Fraction]]:
    n = len(b[0])
    out = []
    for row in a:
        acc = [Fraction(0)] * n
        for k, x in enumerate(row):
            if x:
                acc = [s + x * v for s, v in zip(acc, b[k])] if any(b[k]) else acc
        out.append(acc)
    return out


def _boxes(cert: dict[str, Any], delta: list[list[int]], n_states: int, q0: int,
           dim: int) -> tuple[list[tuple[int, list[Fraction], list[Fraction]]], list[list[int]],
                              int]:
    """(state, lo, hi) per box, the successor box per symbol, and the initial box; the
    successors must follow the automaton (a refinement of it: several boxes may
    share a state)."""
    boxes = []
    for box in cert["boxes"]:
        q, lo, hi = box["state"], _vec(box["lo"]), _vec(box["hi"])
        if not (isinstance(q, int) and 0 <= q < n_states) or len(lo) != dim or len(hi) != dim:
            raise CertificateError(f"box of state {q!r}: bad state or size")
        if any(a > b for a, b in zip(lo, hi)):
            raise CertificateError(f"box of state {q}: lo > hi")
        boxes.append((q, lo, hi))
    succ, i0 = cert["successors"], cert["initial_box"]
    if not isinstance(i0, int) or not 0 <= i0 < len(boxes) or boxes[i0][0] != q0:
        raise CertificateError("initial_box is not a box of the initial state")
    if len(succ) != len(boxes):
        raise CertificateError("one row of successors per box is required")
    for i, row in enumerate(succ):
        if len(row) != len(delta) or not all(isinstance(j, int) and 0 <= j < len(boxes)
                                             for j in row):
            raise CertificateError(f"box {i}: needs one successor box per symbol")
        for a, j in enumerate(row):
            if boxes[j][0] != delta[a][boxes[i][0]]:
                raise CertificateError(f"box {i}, symbol {a}: the successor box belongs to "
                                       "another automaton state")
    return boxes, succ, i0


def _rights(labels: list[Any], outputs: list[Any], q: int) -> int:
    right = [c for c, lab in enumerate(labels) if _same_label(lab, outputs[q])]
    if len(right) != 1:
        raise CertificateError(f"state {q}: the network has no single label {outputs[q]!r}")
    return right[0]


def _check_chart(cert: dict[str, Any]) -> str:
    delta, outputs, q0, _ = _automaton_table(cert["automaton"])
    labels = cert["network"]["labels"]
    mats, readout, h0, _ = _linear_models(cert)  # float32 matrices checked there
    rounding = cert["rounding"]
    dim = len(h0)
    b, binv, p = _mat(cert["basis"]), _mat(cert["basis_inverse"]), cert["pivot"]
    if not (isinstance(p, int) and 0 <= p < dim) or len(b) != dim or len(binv) != dim:
        raise CertificateError("basis, inverse and pivot do not fit the model")
    if _matmul(b, binv) != [[Fraction(int(i == j)) for j in range(dim)] for i in range(dim)]:
        raise CertificateError("basis_inverse is not the inverse of basis")
    if len(mats) != len(delta) or len(readout) != len(labels) or any(
            len(r) != dim for m in mats for r in m):
        raise CertificateError("model and automaton sizes differ")
    boxes, succ, i0 = _boxes(cert, delta, len(outputs), q0, dim)
    if any(lo[p] != 1 or hi[p] != 1 for _, lo, hi in boxes):
        raise CertificateError("every box must fix the pivot coordinate to 1")
    f32 = rounding == "float32-step"

    def n_bound(lo: list[Fraction], hi: list[Fraction]) -> Fraction:
        # max over the chart box of ‖B⁻¹ y‖∞
        return max(max(-_lin_min(row, lo, hi), _lin_min([-x for x in row], lo, hi) * -1)
                   for row in binv)

    def abs_row(w: list[Fraction]) -> list[Fraction]:
        return [abs(x) for x in w]

    def wb(i_coefs: list[Fraction]) -> list[Fraction]:  # y-functional -> h-functional
        nz = [(i, c) for i, c in enumerate(i_coefs) if c]
        return [sum((c * b[i][j] for i, c in nz), Fraction(0)) for j in range(dim)]

    # 2. the initial state (a box of h0's float32 roundings, up to a common scale)
    _, lo0, hi0 = boxes[i0]
    g2 = _gamma(2) if f32 else Fraction(0)
    eta = H0_ABS if f32 else Fraction(0)
    h_lo = [x - g2 * abs(x) - eta for x in h0]
    h_hi = [x + g2 * abs(x) + eta for x in h0]
    funcs = [([Fraction(int(j == p)) for j in range(dim)], True)]
    for i in range(dim):
        if i != p:
            funcs.append(([Fraction(int(j == i)) - (lo0[i] if j == p else 0)
                           for j in range(dim)], False))
            funcs.append(([(hi0[i] if j == p else 0) - Fraction(int(j == i))
                           for j in range(dim)], False))
    for coefs, strict in funcs:
        v = _lin_min(wb(coefs), h_lo, h_hi)
        if v < 0 or (strict and v == 0):
            raise CertificateError("h0 is not in the box of the initial state")
    # 3. inclusions
    ms = [_matmul(b, _matmul(a, binv)) for a in mats]
    c1 = _gamma(dim) + U32 * (1 + _gamma(dim)) if f32 else Fraction(0)
    n_incl = 0
    for i, (q, lo, hi) in enumerate(boxes):
        nq = n_bound(lo, hi) if f32 else Fraction(0)
        for a, (ma, am) in enumerate(zip(ms, mats)):
            t = succ[i][a]
            _, tlo, thi = boxes[t]
            rows = [sum((abs(x) for x in r), Fraction(0)) for r in am]
            s_max = (1 + _gamma(dim)) * max(rows) + dim * TINY
            err = [c1 * r + (dim + s_max + 1) * TINY * 2 for r in rows] if f32 else None
            checks = [(ma[p], [Fraction(int(j == p)) for j in range(dim)], True)]
            for k in range(dim):
                if k != p:
                    ek = [Fraction(int(j == k)) for j in range(dim)]
                    checks.append(([x - tlo[k] * y for x, y in zip(ma[k], ma[p])],
                                   [x - (tlo[k] if j == p else 0) for j, x in enumerate(ek)],
                                   False))
                    checks.append(([thi[k] * y - x for x, y in zip(ma[k], ma[p])],
                                   [(thi[k] if j == p else 0) - x for j, x in enumerate(ek)],
                                   False))
            for row, ycoefs, strict in checks:
                v = _lin_min(row, lo, hi)
                if err is not None:
                    w = abs_row(wb(ycoefs))
                    v -= nq * sum((x * e for x, e in zip(w, err)), Fraction(0))
                if v < 0 or (strict and v == 0):
                    raise CertificateError(f"box {i} (state {q}), symbol {a}: the image "
                                           f"leaves box {t}")
            n_incl += 1
    # 4. readout margins
    for q, lo, hi in boxes:
        r = _rights(labels, outputs, q)
        nq = n_bound(lo, hi) if f32 else Fraction(0)
        for c in range(len(readout)):
            if c == r:
                continue
            d = [x - y for x, y in zip(readout[r], readout[c])]
            v = _lin_min([sum((d[i] * binv[i][j] for i in range(dim) if d[i]), Fraction(0))
                          for j in range(dim)], lo, hi)
            if f32:
                v -= readout_loss32(readout[r], readout[c], nq, dim)
            if v <= 0:
                raise CertificateError(f"state {q}: label {labels[c]!r} is not beaten "
                                       "with a margin")
    return (f"valid: {cert['domain']} invariant ({rounding}) over {len(boxes)} states, "
            f"dimension {dim}, {n_incl} inclusions")


def _maxmin_apply(big_r: list[list[Fraction]], s: list[Fraction], x: list[Fraction]
                  ) -> list[Fraction]:
    if any(len(row) != len(x) for row in big_r) or len(big_r) != len(s):
        raise CertificateError("max-min sizes differ")
    return [max(max(min(r, v) for r, v in zip(row, x)), si) for row, si in zip(big_r, s)]


def _check_minmax(cert: dict[str, Any]) -> str:
    delta, outputs, q0, _ = _automaton_table(cert["automaton"])
    model, labels = cert["network"]["model"], cert["network"]["labels"]
    if model.get("type") != "minmax-dense" or cert["rounding"] not in ("exact",
                                                                        "float32-select"):
        raise CertificateError("minmax boxes are for minmax-dense models, rounding 'exact' "
                               "or 'float32-select'")
    big_r, s = [_mat(m) for m in model["R"]], [_vec(v) for v in model["s"]]
    readout, x0 = _mat(model["readout"]), _vec(model["x0"])
    if cert["rounding"] == "float32-select":
        numbers = [x for m in (*big_r, readout) for row in m for x in row]
        numbers += [x for v in (*s, x0) for x in v]
        bad = next((x for x in numbers if not _is_float32(x)), None)
        if bad is not None:
            raise CertificateError(f"float32-select: the model number {bad} is not a float32 "
                                   "value, so a float32 run is another network")
    if len(big_r) != len(delta) or len(s) != len(delta) or len(readout) != len(labels):
        raise CertificateError("model and automaton sizes differ")
    boxes, succ, i0 = _boxes(cert, delta, len(outputs), q0, len(x0))
    if not all(a <= v <= c for a, v, c in zip(boxes[i0][1], x0, boxes[i0][2])):
        raise CertificateError("x0 is not in the box of the initial state")
    for i, (q, lo, hi) in enumerate(boxes):
        for a in range(len(delta)):
            t = succ[i][a]
            ilo, ihi = _maxmin_apply(big_r[a], s[a], lo), _maxmin_apply(big_r[a], s[a], hi)
            _, tlo, thi = boxes[t]
            if any(x < y for x, y in zip(ilo, tlo)) or any(x > y for x, y in zip(ihi, thi)):
                raise CertificateError(f"state {q}, symbol {a}: image leaves the box of {t}")
        r = _rights(labels, outputs, q)
        low = max(min(w, v) for w, v in zip(readout[r], lo))
        for c, row in enumerate(readout):
            high = max(min(w, v) for w, v in zip(row, hi))
            if c != r and not (low > high if c < r else low >= high):
                raise CertificateError(f"state {q}: label {labels[c]!r} may win")
    return (f"valid: minmax-box invariant ({cert['rounding']}) over {len(boxes)} states")


def _linear_models(cert: dict[str, Any]) -> tuple[list[list[list[Fraction]]],
                                                  list[list[Fraction]], list[Fraction], bool]:
    """(matrices, readout, h0, float32?) of a linear model, float32 ones checked."""
    model = cert["network"]["model"]
    if model.get("type") != "linear":
        raise CertificateError("this domain is for linear models")
    mats, readout = [_mat(m) for m in model["matrices"]], _mat(model["readout"])
    rounding = cert["rounding"]
    if rounding == "float32-step":
        m32 = cert["model32"]
        mats32, readout32 = [_mat(m) for m in m32["matrices"]], _mat(m32["readout"])
        if mats32 != [[[_round32(x) for x in row] for row in m] for m in mats] or \
                readout32 != [[_round32(x) for x in row] for row in readout]:
            raise CertificateError("model32 is not the float32 rounding of the model")
        h0 = _vec(model["h0"])
        check_float32_magnitudes(mats32, readout32, h0)
        return mats32, readout32, h0, True
    if rounding != "exact":
        raise CertificateError(f"unknown rounding model {rounding!r}")
    return mats, readout, _vec(model["h0"]), False


def _check_slice(cert: dict[str, Any]) -> str:
    """slice-box: S = {h : φ·h = 1, lo ≤ h ≤ hi}, K = positive multiples of S.

    "c·h ≥ 0 on S" is shown by the certificate's μ: on S,
    c·h = μ + (c − μφ)·h ≥ μ + min_box (c − μφ)·h (weak duality)."""
    delta, outputs, q0, _ = _automaton_table(cert["automaton"])
    labels = cert["network"]["labels"]
    mats, readout, h0, f32 = _linear_models(cert)
    dim, phi = len(h0), _vec(cert["phi"])
    if len(phi) != dim or len(mats) != len(delta) or len(readout) != len(labels) or any(
            len(r) != dim for m in mats for r in m):
        raise CertificateError("model, φ and automaton sizes differ")
    boxes, succ, i0 = _boxes(cert, delta, len(outputs), q0, dim)
    mults = cert["multipliers"]
    if len(mults) != len(boxes):
        raise CertificateError("one multiplier record per box is required")

    def bound(c: list[Fraction], mu: Any, lo: list[Fraction], hi: list[Fraction]) -> Fraction:
        m = _frac(mu)
        return m + _lin_min([x - m * f for x, f in zip(c, phi)], lo, hi)

    # h0 (for float32-step: every rounding of it, a box up to a common scale) in K_q0
    _, lo0, hi0 = boxes[i0]
    g2 = _gamma(2) if f32 else Fraction(0)
    eta = H0_ABS if f32 else Fraction(0)
    h_lo = [x - g2 * abs(x) - eta for x in h0]
    h_hi = [x + g2 * abs(x) + eta for x in h0]
    if _lin_min(phi, h_lo, h_hi) <= 0:
        raise CertificateError("φ is not positive at h0")
    for k in range(dim):
        lower = [Fraction(int(j == k)) - lo0[k] * phi[j] for j in range(dim)]
        upper = [hi0[k] * phi[j] - Fraction(int(j == k)) for j in range(dim)]
        if _lin_min(lower, h_lo, h_hi) < 0 or _lin_min(upper, h_lo, h_hi) < 0:
            raise CertificateError("h0 is not in the box of the initial state")
    c1 = _gamma(dim) + U32 * (1 + _gamma(dim)) if f32 else Fraction(0)
    n_incl = 0
    phi_a = [[sum((phi[r] * am[r][j] for r in range(dim) if phi[r]), Fraction(0))
              for j in range(dim)] for am in mats]  # φA, once per symbol
    for i, (q, lo, hi) in enumerate(boxes):
        nq = max(max(abs(x) for x in lo), max(abs(x) for x in hi))
        steps = mults[i]["steps"]
        if len(steps) != len(mats):
            raise CertificateError(f"box {i}: one multiplier row per symbol is required")
        for a, am in enumerate(mats):
            _, tlo, thi = boxes[succ[i][a]]
            d = phi_a[a]
            forms = [(d, phi, True)]
            for k in range(dim):
                forms.append(([x - tlo[k] * y for x, y in zip(am[k], d)],
                              [Fraction(int(j == k)) - tlo[k] * phi[j] for j in range(dim)],
                              False))
                forms.append(([thi[k] * y - x for x, y in zip(am[k], d)],
                              [thi[k] * phi[j] - Fraction(int(j == k)) for j in range(dim)],
                              False))
            if len(steps[a]) != len(forms):
                raise CertificateError(f"box {i}, symbol {a}: one multiplier per condition")
            if f32:
                rows = [sum((abs(x) for x in r), Fraction(0)) for r in am]
                s_max = (1 + _gamma(dim)) * max(rows) + dim * TINY
                err = [c1 * r + (dim + s_max + 1) * TINY * 2 for r in rows]
            for (c, w, strict), mu in zip(forms, steps[a]):
                v = bound(c, mu, lo, hi)
                if f32:
                    v -= nq * sum((abs(x) * e for x, e in zip(w, err)), Fraction(0))
                if v < 0 or (strict and v == 0):
                    raise CertificateError(f"box {i} (state {q}), symbol {a}: the image "
                                           f"leaves box {succ[i][a]}")
            n_incl += 1
        r = _rights(labels, outputs, q)
        if len(mults[i]["readout"]) != len(readout):
            raise CertificateError(f"box {i}: one readout multiplier per label")
        for c_idx, mu in enumerate(mults[i]["readout"]):
            if c_idx == r:
                continue
            diff = [x - y for x, y in zip(readout[r], readout[c_idx])]
            v = bound(diff, mu, lo, hi)
            if f32:
                v -= readout_loss32(readout[r], readout[c_idx], nq, dim)
            if v <= 0:
                raise CertificateError(f"box {i} (state {q}): label {labels[c_idx]!r} is not "
                                       "beaten with a margin")
    return (f"valid: slice-box invariant ({cert['rounding']}) over {len(boxes)} boxes, "
            f"dimension {dim}, {n_incl} inclusions")


def check_invariants(cert: dict[str, Any]) -> str:
    """Re-check a ``box-invariant`` certificate; a one-line summary or CertificateError."""
    domain = cert["domain"]
    if domain == "slice-box":
        return _check_slice(cert)
    if domain == "chart-box":
        return _check_chart(cert)
    if domain == "minmax-box":
        return _check_minmax(cert)
    raise CertificateError(f"unknown invariant domain {domain!r}")
