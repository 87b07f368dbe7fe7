"""Exact headers pin their tensors bit for bit (docs/formats.md, the ``exact`` field).

A network whose proofs read the weights from its ``exact`` header is accepted only
when every tensor the header describes holds the correctly rounded float64 value
(round to nearest, ties to even) of the header's entry; otherwise loading refuses
it, naming the file, the tensor, the index and both values.

Oracles, independent of :mod:`fsmnet.nets.exact_header`:

* rational entries: ``float(Fraction)``, which CPython rounds correctly;
* cyclotomic entries (Σ q·ζ_N^k) and angles (2πk/N): mpmath at 300 bits
  (``mp.mpf``, not interval arithmetic), rounded to a double by ``float()`` of the
  mpf, which rounds to nearest; a value below 2^-250 there is an exact zero (+0.0).
"""

from __future__ import annotations

import functools
import json
import math
import pathlib
from fractions import Fraction
from typing import Any

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples
from safetensors.numpy import save_file

import fsmnet
from fsmnet.automata.pfsa_families import cups
from fsmnet.constructions.pfsa_bilinear import compile_pfsa_bilinear
from fsmnet.errors import NetworkFileError
from fsmnet.nets import Network, load_network
from fsmnet.nets.cyclotomic import cyclotomic_field
from fsmnet.nets.exact_header import (
    COVERS_HEADER,
    COVERS_TENSORS,
    Angle,
    check_exact_header,
    round_exact,
    rounds_to,
)

CASES = {
    "r2 parity": ("parity", "bilinear-r2"),
    "r2 modcount:3": ("modcount:3", "bilinear-r2"),
    "r2 modadd:5": ("modadd:5", "bilinear-r2"),
    "real-diag parity": ("parity", "bilinear-real-diag"),
    "real-diag atleast:3": ("atleast:3", "bilinear-real-diag"),
    "positive-diag atleast:3": ("atleast:3", "bilinear-positive-diag"),
    "fixed-point parity": ("parity", "fixed-point"),
    "fixed-point flipflop": ("flipflop", "fixed-point"),
    "belief pcups 1/3": (None, "bilinear-full"),
}
DESCRIBED = {"bilinear-r2": ("modulus", "angle", "readout"),
             "bilinear-real-diag": ("diag", "readout"),
             "bilinear-positive-diag": ("diag", "readout"),
             "fixed-point": ("Lambda", "Q"), "bilinear-full": ("W",)}


@functools.cache
def compiled(case: str) -> Network:
    spec, arch = CASES[case]
    if spec is None:  # a PFSA belief network: rational weights that are not binary
        return compile_pfsa_bilinear(cups(2, "1/3"))
    return fsmnet.compile(spec, arch)


def load(path: pathlib.Path) -> Network:
    """What ``fsmnet run`` and ``fsmnet verify`` load: the file, with its exact header
    checked against its tensors (the check the loader runs on every file)."""
    net = load_network(path)
    check_exact_header(net, str(path))
    return net


def resave(net: Network, path: pathlib.Path, **tensors: np.ndarray) -> pathlib.Path:
    """``net`` with some tensors replaced and its header kept, written as raw safetensors
    (so a tensor fsmnet would refuse to build still reaches the loader)."""
    params = {k: np.ascontiguousarray(v) for k, v in {**net.params, **tensors}.items()}
    save_file(params, str(path), metadata={"fsmnet": json.dumps(net.header())})
    return path


# ------------------------------------------------------------------ oracles
def _mp_round(x: Any) -> float:
    with mpmath.workprec(300):
        return 0.0 if abs(x) < mpmath.mpf(2) ** -250 else float(x)


def _mp_zeta_sum(coef: dict[str, str], n: int) -> Any:
    with mpmath.workprec(300):
        return mpmath.fsum(mpmath.mpf(Fraction(q).numerator) / Fraction(q).denominator
                           * mpmath.expjpi(mpmath.mpf(2 * int(k)) / n)
                           for k, q in coef.items())


def _mp_angle(k: int, n: int) -> float:
    k %= n
    k = k - n if 2 * k > n else k
    with mpmath.workprec(300):
        return _mp_round(2 * mpmath.pi * k / n)


def oracle_tensors(net: Network) -> dict[str, np.ndarray]:
    """The correctly rounded tensors of a commutative-monomials header, by the oracles."""
    e = net.exact
    assert e is not None
    mu, n = Fraction(e["mu"]), int(e["zeta_order"])
    chans = e["channels"]
    mult = [[float(mu**i) for i, _ in ch] for ch in chans]
    out: dict[str, np.ndarray] = {}
    if net.arch == "bilinear-r2":
        out["modulus"] = np.array(mult).T
        out["angle"] = np.array([[_mp_angle(k, n) for _, k in ch] for ch in chans]).T
        zs = [[_mp_zeta_sum(c, n) for c in row] for row in e["readout"]]
        out["readout"] = np.array([[v for z in row for v in (_mp_round(z.real),
                                                              _mp_round(-z.imag))]
                                   for row in zs])
    else:  # periods <= 2: ζ_N^k is a sign
        out["diag"] = np.array([[m * (-1.0 if n == 2 and k % 2 else 1.0)
                                 for m, (_, k) in zip(row, ch)]
                                for row, ch in zip(mult, chans)]).T
        out["readout"] = np.array([[_mp_round(_mp_zeta_sum(c, n).real) for c in row]
                                   for row in e["readout"]])
    return out


def bits(a: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(a, dtype=np.float64).view(np.int64)


# -------------------------------------------------------------------- tests
@pytest.mark.parametrize("case", list(CASES))
def test_compiled_networks_load(case: str, tmp_path: pathlib.Path) -> None:
    net = compiled(case)
    assert net.exact is not None, "every case writes an exact header"
    back = load(resave(net, tmp_path / "net.safetensors"))
    for name in DESCRIBED[net.arch]:
        assert np.array_equal(bits(back.params[name]), bits(net.params[name]))


@pytest.mark.parametrize("case", [c for c in CASES if CASES[c][1].startswith("bilinear-")
                                  and CASES[c][1] != "bilinear-full"])
def test_compiler_rounds_correctly(case: str) -> None:
    """Bit-for-bit agreement with the mpmath / float(Fraction) oracles."""
    net = compiled(case)
    for name, want in oracle_tensors(net).items():
        got = net.params[name]
        assert np.array_equal(bits(got), bits(want)), (name, got, want)


def test_rational_headers_round_like_fraction() -> None:
    for case in ("fixed-point parity", "fixed-point flipflop"):
        net = compiled(case)
        for name in ("Lambda", "Q"):
            want = np.vectorize(lambda s: float(Fraction(s)), otypes=[np.float64])(
                np.array(net.exact[name], dtype=object))  # type: ignore[index]
            assert np.array_equal(bits(net.params[name]), bits(want))
    net = compiled("belief pcups 1/3")
    want = np.array([[[float(Fraction(x)) for x in row] for row in m]
                     for m in net.exact["W"]]).transpose(1, 2, 0)  # type: ignore[index]
    assert np.array_equal(bits(net.params["W"]), bits(want))


PAIRS = [(case, name) for case in CASES for name in DESCRIBED[CASES[case][1]]]


@pytest.mark.parametrize(("case", "name"), PAIRS)
@settings(max_examples=examples(4))
@given(data=st.data())
def test_one_ulp_off_is_refused(case: str, name: str, data: st.DataObject,
                                tmp_path_factory: pytest.TempPathFactory) -> None:
    net = compiled(case)
    tensor = np.array(net.params[name])
    index = tuple(data.draw(st.integers(0, s - 1), label=f"axis {i}")
                  for i, s in enumerate(tensor.shape))
    up = data.draw(st.booleans(), label="up")
    tensor[index] = np.nextafter(tensor[index], np.inf if up else -np.inf)
    path = resave(net, tmp_path_factory.mktemp("ulp") / "net.safetensors", **{name: tensor})
    with pytest.raises(NetworkFileError) as info:
        load(path)
    msg = str(info.value)
    assert str(path) in msg and f"field '{name}'" in msg
    try:  # a neighbour inside the tensor's valid range: refused by the header check
        net.with_params(**{name: tensor})
    except NetworkFileError:
        return
    assert f"entry {list(index)}" in msg and "correctly rounded" in msg
    assert repr(float(tensor[index])) in msg and repr(float(net.params[name][index])) in msg


def test_signed_zero_counts(tmp_path: pathlib.Path) -> None:
    """Bit for bit: -0.0 where the header's entry is exactly 0 is refused."""
    net = compiled("r2 parity")
    readout = np.array(net.params["readout"])
    zero = tuple(np.argwhere(readout == 0)[0])
    assert math.copysign(1.0, readout[zero]) > 0
    readout[zero] = -0.0
    with pytest.raises(NetworkFileError, match=r"field 'readout': entry .*value: -0\.0"):
        load(resave(net, tmp_path / "z.safetensors", readout=readout))


def _halved_parity() -> Network:
    """Real-diag parity whose every multiplier is halved: the header says 1/2 and -1/2
    (a positive common factor changes no label, so this is still parity)."""
    net = compiled("real-diag parity")
    exact = {**net.exact, "channels": [[[1, 0], [1, 0]], [[1, 0], [1, 1]]]}  # type: ignore[dict-item]
    return Network(arch=net.arch, params={**net.params, "diag": net.params["diag"] / 2},
                   symbols=net.symbols, labels=net.labels, exact=exact, name="halved")


def test_audit_case_half_plus_nine_e_minus_ten(tmp_path: pathlib.Path) -> None:
    honest = _halved_parity()
    good = load(resave(honest, tmp_path / "good.safetensors"))
    assert fsmnet.verify("parity", good).verdict == "proved"
    diag = np.array(honest.params["diag"])
    assert diag[0, 0] == 0.5
    diag[0, 0] = 0.5 * (1 + 9e-10)
    path = resave(honest, tmp_path / "bad.safetensors", diag=diag)
    with pytest.raises(NetworkFileError) as info:
        load(path)
    assert str(info.value) == (
        f"{path}: field 'diag': entry [0, 0]: not the correctly rounded float64 value of "
        f"its exact header entry (value: {float(diag[0, 0])!r}, correctly rounded: 0.5)")
    # Proofs read the header, so they refuse such a file too.
    with pytest.raises(NetworkFileError, match="field 'diag'"):
        fsmnet.verify("parity", load_network(path))


def test_verdicts_say_what_they_cover() -> None:
    net = compiled("real-diag parity")
    result = fsmnet.verify("parity", net)
    assert result.verdict == "proved" and result.details["covers"] == COVERS_HEADER
    plain = net.with_params()  # new weights have no exact description: the tensors count
    assert plain.exact is None
    result = fsmnet.verify("parity", plain)
    assert result.verdict == "proved" and result.details["covers"] == COVERS_TENSORS
    assert "exact header" in COVERS_HEADER and "tensors" in COVERS_TENSORS
    full = fsmnet.verify("parity", fsmnet.compile("parity", "bilinear-full"))
    assert full.details["covers"] == COVERS_TENSORS


# ------------------------------------------------- the rounding itself, by oracle
@settings(max_examples=examples(200))
@given(st.fractions(), st.integers(-1100, 1100))
def test_rationals_round_like_fraction(q: Fraction, shift: int) -> None:
    x = q * Fraction(2) ** shift
    try:
        want = float(x)
    except OverflowError:
        return
    assert math.copysign(1, round_exact(x)) == math.copysign(1, want) and round_exact(x) == want
    assert rounds_to(x, want)
    for other in (math.nextafter(want, math.inf), math.nextafter(want, -math.inf)):
        assert not rounds_to(x, other)


def test_ties_and_zeros() -> None:
    one_ulp = Fraction(2) ** -52
    assert round_exact(1 + one_ulp / 2) == 1.0  # a tie goes to the even significand
    assert not rounds_to(1 + one_ulp / 2, 1 + 2**-52)
    assert round_exact(1 + 3 * one_ulp / 2) == 1 + 2 * 2**-52
    assert rounds_to(Fraction(1, 2**1075), 0.0)  # halfway to the least subnormal: 0 is even
    assert not rounds_to(Fraction(1, 2**1075), 5e-324)
    assert rounds_to(-Fraction(1, 2**1076), -0.0) and not rounds_to(-Fraction(1, 2**1076), 0.0)
    assert rounds_to(Fraction(0), 0.0) and not rounds_to(Fraction(0), -0.0)
    assert not rounds_to(Angle(0, 5), -0.0) and rounds_to(Angle(0, 5), 0.0)


@settings(max_examples=examples(60))
@given(st.sampled_from([3, 5, 8, 12]), st.dictionaries(
    st.integers(0, 23), st.fractions(max_denominator=50, min_value=-50, max_value=50),
    min_size=1, max_size=4))
def test_cyclotomic_reals_round_like_mpmath(m: int, coef: dict[int, Fraction]) -> None:
    powers: dict[int, Fraction | int] = dict(coef)
    z = cyclotomic_field(m).element(powers)
    x = z.real_part()
    want = _mp_round(_mp_zeta_sum({str(k): str(q) for k, q in coef.items()}, m).real)
    got = round_exact(x)
    assert got == want and math.copysign(1, got) == math.copysign(1, want)
    assert rounds_to(x, want) and not rounds_to(x, math.nextafter(want, math.inf))


@settings(max_examples=examples(60))
@given(st.integers(1, 360), st.integers(-400, 400))
def test_angles_round_like_mpmath(n: int, k: int) -> None:
    k %= n
    k = k - n if 2 * k > n else k
    want = _mp_angle(k, n)
    assert round_exact(Angle(k, n)) == want
    assert rounds_to(Angle(k, n), want)
    assert not rounds_to(Angle(k, n), math.nextafter(want, -math.inf))
