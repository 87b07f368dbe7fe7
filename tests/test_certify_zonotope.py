"""Zonotope invariants (fsmnet.proofs.abstract.zonotope, checker.zonotope): a rotating
network on which every box grows, certified by slice zonotopes.

The subject: "the last symbol is b" with two extra hidden coordinates v that
every symbol rotates by the Pythagorean angle (cos, sin) = (3/5, 4/5) and
contracts by ρ = 9/10, fed with u_a = (1/10, 0) or u_b = (0, 1/10):
v' = ρ R v + u_x.  By hand (the independent route): |v|₂ ≤ |u|/(1 − ρ) = 1
on every word, so the readout difference ±(s_A − s_B) + (v1 − v2)/4 keeps the
sign of s_A − s_B = ±1 (|v1 − v2|/4 ≤ √2/4 < 1): the net equals the automaton
for every length.  Boxes: one step of ρ R maps the box [−r, r]² onto a square
of half-diagonal ρ√2 r rotated by 53°, whose bounding box is ρ(3/5 + 4/5) r =
1.26 r — every box in these coordinates grows.
"""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest
from certify_helpers import exhaustive_agree

import fsmnet
from fsmnet.automata import Automaton
from fsmnet.proofs.abstract.certify import certify
from fsmnet.proofs.checker import CertificateError, check_certificate

LAST_B = Automaton(delta=[[0, 0], [1, 1]], symbols=["a", "b"], initial=0,
                   outputs=[False, True], name="last-b")


def rotation_net(eps: float = 0.0, seed: int = 0) -> fsmnet.nets.Network:
    rot = 0.9 * np.array([[0.6, -0.8], [0.8, 0.6]])
    w = np.zeros((4, 4, 2))
    for x, u in enumerate([(0.1, 0.0), (0.0, 0.1)]):
        w[x, 0, x] = w[x, 1, x] = 1  # s ← e_x (s_A + s_B)
        w[2:, 2:, x] = rot
        w[2:, 0, x] = w[2:, 1, x] = u
    net = fsmnet.nets.Network(arch="bilinear-full", params={
        "W": w, "h0": np.array([1.0, 0, 0, 0]),
        "readout": np.array([[1, 0, 0.25, 0], [0, 1, 0, 0.25]])},
        symbols=["a", "b"], labels=[False, True])
    if eps:
        rng = np.random.default_rng(seed)
        net = net.with_params(**{k: v + eps * rng.standard_normal(v.shape)
                                 for k, v in net.params.items()})
    return net


@pytest.fixture(scope="module")
def certs(tmp_path_factory: pytest.TempPathFactory) -> dict[float, tuple]:
    out = {}
    for eps in (0.0, 1e-3):
        net = rotation_net(eps)
        path = tmp_path_factory.mktemp("z") / "cert.json"
        out[eps] = (net, certify(LAST_B, net, certificate=str(path)), path)
    net = rotation_net(1e-3)
    path = tmp_path_factory.mktemp("z32") / "cert.json"
    out["float32"] = (net, certify(LAST_B, net, float32=True, certificate=str(path)), path)
    return out


@pytest.mark.parametrize("eps", [0.0, 1e-3])
def test_rotating_net_is_certified_by_zonotopes(certs: dict, eps: float) -> None:
    net, result, path = certs[eps]
    assert (result.verdict, result.domain) == ("proved", "zonotope")
    assert exhaustive_agree(net, LAST_B, 10)  # independent: all words to length 10
    cert = json.loads(path.read_text())
    assert cert["method"] == "zonotope-invariant"
    assert check_certificate(cert).startswith("valid: zonotope invariant")


def test_boxes_blow_up_on_the_rotating_net() -> None:
    from fsmnet.proofs.abstract import slice_boxes
    from fsmnet.proofs.abstract.linear import PADS
    from fsmnet.proofs.abstract.search import sample_states

    net = rotation_net()
    cloud = sample_states(net, LAST_B)
    mats = np.asarray(net.semantics.matrices(net, False))
    # even with the functional s_A + s_B that every symbol preserves exactly
    for pad in PADS:
        found = slice_boxes.search(np.array([1.0, 1, 0, 0]), mats, LAST_B, cloud.states,
                                   pad=pad)
        assert found.boxes is None and "blew up" in found.reason
    # and no one-step box candidate of the registry's domain passes the exact check;
    # boxes for words of several letters (a stride: the rotation's powers contract
    # towards a box that holds) come after the zonotopes, and those that come pass
    from fsmnet.proofs.abstract.certify import _rights
    from fsmnet.proofs.abstract.linear import CHART_BOX
    from fsmnet.proofs.certificate import _common, network_model

    common = _common(net, LAST_B, "box-invariant", network_model(net), None)
    seen_zonotope = False
    for body, _ in CHART_BOX.candidates(net, LAST_B, cloud.states, _rights(net, LAST_B)):
        if body is None or body["domain"] == "zonotope":
            seen_zonotope = seen_zonotope or body is not None
            continue
        if body.get("stride", 1) > 1:
            assert seen_zonotope
            assert check_certificate({**common, **body}).startswith("valid: chart-box")
            continue
        with pytest.raises(CertificateError):
            check_certificate({**common, **body})


@pytest.mark.parametrize("eps", [0.0, 1e-3])
def test_float32_zonotope_certificate(tmp_path, eps: float) -> None:
    net = rotation_net(eps)
    path = tmp_path / "c32.json"
    result = certify(LAST_B, net, float32=True, certificate=str(path))
    assert (result.verdict, result.domain) == ("proved", "zonotope")
    cert = json.loads(path.read_text())
    assert cert["rounding"] == "float32-step"
    assert check_certificate(cert).startswith("valid: zonotope invariant (float32-step)")
    # independent: a numpy float32 run of the step semantics, 3000 random symbols
    rng = np.random.default_rng(1)
    mats = np.asarray(net.semantics.matrices(net, False), dtype=np.float32)
    readout = net.params["readout"].astype(np.float32)
    h = net.params["h0"].astype(np.float32)
    h = h / np.abs(h).max()
    for a in rng.integers(0, 2, size=3000):
        h = mats[a] @ h
        h = (h / np.abs(h).max()).astype(np.float32)
        # the state of "last symbol is b" after symbol a is a itself
        assert net.labels[int(np.argmax(readout @ h))] == LAST_B.output(int(a))
    # the float32 model is bound to the exact one
    bad = copy.deepcopy(cert)
    bad["model32"]["matrices"][0][2][2] = "1/3"
    with pytest.raises(CertificateError):
        check_certificate(bad)
    bad = copy.deepcopy(cert)
    bad["zonotopes"][0]["scale"][1] = "0"
    with pytest.raises(CertificateError):
        check_certificate(bad)


def _mutants(cert: dict) -> list[dict]:
    """Every number of the invariant made huge (each then breaks φ·x = 0, φ·c = 1, an
    inclusion or a margin), scales made negative, φ negated, successors moved,
    outputs negated, readout rows swapped."""
    out = []

    def numbers(node: object, path: tuple) -> list[tuple]:
        if isinstance(node, list):
            return [p for i, x in enumerate(node) for p in numbers(x, path + (i,))]
        if isinstance(node, dict):
            return [p for k, x in node.items() for p in numbers(x, path + (k,))]
        return [path] if isinstance(node, str) else []

    for key in ("extra", "coefficients", "zonotopes"):
        for path in numbers(cert[key], (key,)):
            if "state" in path:
                continue
            for value in ("1000000", "-1") if "scale" in path else ("1000000",):
                m = copy.deepcopy(cert)
                node = m
                for k in path[:-1]:
                    node = node[k]
                node[path[-1]] = value
                out.append(m)
    m = copy.deepcopy(cert)
    m["phi"] = [x[1:] if x.startswith("-") else "-" + x for x in m["phi"]]
    out.append(m)
    for i, row in enumerate(cert["successors"]):
        for a in range(len(row)):
            m = copy.deepcopy(cert)
            m["successors"][i][a] = (row[a] + 1) % len(cert["zonotopes"])
            out.append(m)
    m = copy.deepcopy(cert)
    m["automaton"]["outputs"] = [not x for x in m["automaton"]["outputs"]]
    out.append(m)
    m = copy.deepcopy(cert)
    m["network"]["model"]["readout"] = m["network"]["model"]["readout"][::-1]
    out.append(m)
    m = copy.deepcopy(cert)
    m["pivot"] = (cert["pivot"] + 1) % len(cert["phi"])
    out.append(m)
    return out


@pytest.mark.parametrize("which", [1e-3, "float32"])
def test_mutated_zonotope_certificates_never_pass(certs: dict, which: object) -> None:
    cert = json.loads(certs[which][2].read_text())
    assert cert["rounding"] == ("float32-step" if which == "float32" else "exact")
    mutants = _mutants(cert)
    assert len(mutants) > 100
    for m in mutants:
        with pytest.raises(CertificateError):
            check_certificate(m)


def test_a_mutated_network_file_is_rejected(certs: dict, tmp_path) -> None:
    net, _, _ = certs[1e-3]
    file = tmp_path / "net.safetensors"
    net.save(file)
    path = tmp_path / "c.json"
    assert certify(LAST_B, net, certificate=str(path), network_path=str(file)).verdict == \
        "proved"
    cert = json.loads(path.read_text())
    assert check_certificate(cert, str(file)).startswith("valid")
    other = tmp_path / "other.safetensors"
    net.with_params(W=net.params["W"] * 1.001).save(other)
    with pytest.raises(CertificateError):
        check_certificate(cert, str(other))


def test_reduction_then_zonotopes(tmp_path) -> None:
    # The rotating net padded with 4 unreached or unread coordinates: reduced back
    # to H = 4 first, then proved by zonotopes; the checker re-checks both.
    from test_minimal_linear import _pad

    net = _pad(rotation_net(1e-3), 2)
    path = tmp_path / "c.json"
    result = certify(LAST_B, net, certificate=str(path))
    assert (result.verdict, result.domain) == ("proved", "zonotope")
    assert exhaustive_agree(net, LAST_B, 8)  # independent: all words to length 8
    cert = json.loads(path.read_text())
    assert (cert["method"], cert["invariant"]["method"]) == ("reduced-invariant",
                                                             "zonotope-invariant")
    assert check_certificate(cert).startswith("valid: reduction H=8 -> d=4")
    bad = copy.deepcopy(cert)
    bad["invariant"]["zonotopes"][0]["scale"][0] = "-1"
    with pytest.raises(CertificateError):
        check_certificate(bad)


def _two_plane_net(eps: float) -> fsmnet.nets.Network:
    """The compiled "ends with ab" net (H = 3) plus two planes that each symbol rotates
    by its own Pythagorean angle and contracts (ρ = 0.88 and 0.85; box growth per step
    up to 1.23), fed from the automaton part and read out a little."""
    from certify_helpers import ENDS_AB, perturb

    base = fsmnet.compile(ENDS_AB, "bilinear-full")
    w0 = base.params["W"]
    h = w0.shape[0]

    def rot(c: float, s: float, rho: float) -> np.ndarray:
        return rho * np.array([[c, -s], [s, c]])

    w = np.zeros((h + 4, h + 4, 2))
    angles = {0: [(0.6, 0.8), (0.28, 0.96)], 1: [(0.8, 0.6), (-0.6, 0.8)]}
    for x in range(2):
        w[:h, :h, x] = w0[:, :, x]
        w[h:h + 2, h:h + 2, x] = rot(*angles[x][0], 0.88)
        w[h + 2:, h + 2:, x] = rot(*angles[x][1], 0.85)
        w[h:, :h, x] = 0.05 * (x + 1) * np.array([1, -1, 1, 1])[:, None]
    readout = np.c_[base.params["readout"], 0.1 * np.array([[1, 0, 1, 0], [0, 1, 0, -1]])]
    net = fsmnet.nets.Network(arch="bilinear-full", params={
        "W": w, "h0": np.r_[base.params["h0"], np.zeros(4)], "readout": readout},
        symbols=base.symbols, labels=base.labels)
    return perturb(net, eps) if eps else net


@pytest.mark.parametrize("float32", [False, True])
def test_two_rotation_planes_three_states(float32: bool, tmp_path) -> None:
    from certify_helpers import ENDS_AB

    net = _two_plane_net(1e-4)
    path = tmp_path / "c.json"
    result = certify(ENDS_AB, net, float32=float32, certificate=str(path))
    # zonotopes are tried last: the boxes failed first
    assert (result.verdict, result.domain) == ("proved", "zonotope")
    assert exhaustive_agree(net, ENDS_AB, 9)  # independent: all words to length 9
    cert = json.loads(path.read_text())
    assert check_certificate(cert).startswith("valid: zonotope invariant")
    assert len(cert["extra"]) >= 8  # a polygon per rotation plane


def _in_cone(v: np.ndarray, c: np.ndarray, gens: np.ndarray, s: np.ndarray) -> bool:
    """LP oracle: v = μ c + G diag(s) η with |η| ≤ μ, μ > 0 (v in the cone of Z)."""
    from scipy.optimize import linprog

    m = gens.shape[1]
    # variables (μ, η); maximize μ subject to the equality, |η_j| ≤ μ, μ ≤ 1e6
    a_eq = np.c_[c[:, None], gens * s[None, :]]
    a_ub = np.r_[np.c_[-np.ones(m), np.eye(m)], np.c_[-np.ones(m), -np.eye(m)]]
    res = linprog(np.r_[-1.0, np.zeros(m)], A_ub=a_ub, b_ub=np.zeros(2 * m), A_eq=a_eq,
                  b_eq=v, bounds=[(0, 1e6)] + [(None, None)] * m, method="highs")
    return res.status == 0 and -res.fun > 1e-9


def test_sampled_points_map_into_the_successor_cones(certs: dict) -> None:
    # Independent of the checker's ℓ1 conditions: points of each zonotope (random
    # vertices and interior points), mapped by A in floats, lie in the successor's
    # cone by an LP (the exact certificate keeps a margin far above float error).
    from fractions import Fraction

    cert = json.loads(certs[1e-3][2].read_text())
    model = cert["network"]["model"]
    mats = [np.array([[float(Fraction(x)) for x in row] for row in m]) for m in model["matrices"]]
    phi = np.array([float(Fraction(x)) for x in cert["phi"]])
    p, n = cert["pivot"], len(phi)
    basis = [np.eye(n)[j] - phi[j] * np.eye(n)[p] for j in range(n) if j != p]
    extra = [np.array([float(Fraction(x)) for x in row]) for row in cert["extra"]]
    gens = np.array(basis + extra).T
    zs = [(np.array([float(Fraction(x)) for x in z["center"]]),
           np.array([float(Fraction(x)) for x in z["scale"]])) for z in cert["zonotopes"]]
    rng = np.random.default_rng(0)
    for i, (c, s) in enumerate(zs):
        for a, am in enumerate(mats):
            ct, st = zs[cert["successors"][i][a]]
            for k in range(40):
                xi = rng.choice([-1.0, 1.0], size=len(s)) if k % 2 else rng.uniform(-1, 1,
                                                                                    len(s))
                assert _in_cone(am @ (c + gens @ (s * xi)), ct, gens, st)
    # and the oracle is not vacuous: a point far outside is rejected
    c, s = zs[0]
    assert not _in_cone(c + 100 * gens[:, 1], c, gens, s)
