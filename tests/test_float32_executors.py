"""Every float32 executor gives the reference step's labels (fsmnet.nets.float32).

Executors: ``fsmnet.train.convert.to_torch`` (the torch module's ``forward``), ``fsmnet run
--float32`` (fsmnet.gpu.checked.run_checked) and the reference itself, on 10^5
random and adversarial symbols (long repetitions) per architecture, for compiled
networks and for networks whose every weight was perturbed (so labels are not
trivially right).  Independent oracles for the first 1,500 symbols: the checker's
stdlib replay (as in tests/test_float32_reference.py) for the linear families; for the
max-min families the float64 evaluator, which float32 cannot differ from on
float32-valued weights (max and min only select).
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from test_float32_reference import emulated_trace

import fsmnet
from fsmnet.gpu.checked import run_checked
from fsmnet.nets.float32 import OVERFLOW, float32_trace
from fsmnet.train.convert import to_torch

LENGTH = 100_000
CASES = [("parity", "bilinear-full"), ("modadd:3", "bilinear-cp"),
         ("symmetric:3", "bilinear-block"), ("modadd:5", "bilinear-r2"),
         ("parity", "bilinear-real-diag"), ("atleast:3", "bilinear-positive-diag"),
         ("flipflop", "minmax-dense"), ("contains:aba", "minmax-cascade"),
         ("flipflop", "minmax-scalar"), ("symmetric:3", "deltaproduct"),
         ("cyclic:3", "fixed-point")]
SELECT = ("minmax-dense", "minmax-cascade", "minmax-scalar")


def _perturbed(net: fsmnet.nets.Network, seed: int) -> fsmnet.nets.Network:
    """Every float weight times (1 + 1e-3 N(0,1)), kept inside each class's ranges."""
    rng = np.random.default_rng(seed)
    out = {}
    for k, v in net.params.items():
        if v.dtype != np.float64 or k in ("Q",):
            continue
        w = v * (1 + 1e-3 * rng.standard_normal(v.shape))
        if net.arch == "bilinear-positive-diag" and k == "diag":
            w = np.clip(w, 1e-3, 1.0)
        if k in ("Lambda",):
            w = np.clip(w, 1e-3, 1 - 1e-3)
        if k == "betas":
            w = np.clip(w, 0.0, 2.0)
        out[k] = w
    return net.with_params(**out)


def _adversarial_word(n_symbols: int, seed: int) -> np.ndarray:
    """10^5 symbols: random ones, then long repetitions of every letter and of every
    pair (a drifting letter goes wrong only after many repeats)."""
    rng = np.random.default_rng(seed)
    loops = [np.tile(u, 20_000 // (len(u) * n_symbols * n_symbols)) for u in
             [[a] for a in range(n_symbols)] + [[a, b] for a in range(n_symbols)
                                                for b in range(n_symbols) if a != b]]
    head = rng.integers(0, n_symbols, LENGTH - sum(map(len, loops)))
    return np.concatenate([head, *loops]).astype(np.int64)


def _agree(spec: str, arch: str, perturb: bool, length: int) -> None:
    net = fsmnet.compile(spec, arch)
    if perturb:
        net = _perturbed(net, 5)
    word = _adversarial_word(len(net.symbols), 11)[-length:]
    ref = float32_trace(net, word)
    got = to_torch(net)(torch.tensor(word[None, :])).numpy()[0]
    assert np.array_equal(got, ref)
    if arch not in SELECT and arch != "bilinear-block":
        # The replay reads rational models: an irrational exact header (R2) is dropped,
        # and the tensors' own values are replayed.
        plain = net if net.exact is None else net.with_params()
        want = emulated_trace(plain, word[:1500].tolist())[0]
        assert float32_trace(plain, word[:1500]).tolist() == want
    else:
        assert np.array_equal(ref[:1501], net.label_trace(word[:1500]))


# The cascades' reference and torch port are Python step loops (about 10^4 symbols
# a second): 2·10^4 symbols by default, 10^5 in the slow twin.
CASCADES = ("minmax-cascade", "minmax-scalar")


# Perturbed weights for the linear families only: max and min select, so perturbing
# a max-min network exercises no new rounding.
@pytest.mark.parametrize(("spec", "arch", "perturb"),
                         [(*c, False) for c in CASES] + [(*c, True) for c in CASES
                                                         if c[1] not in SELECT])
def test_torch_run_and_reference_agree_on_1e5_symbols(spec, arch, perturb):
    _agree(spec, arch, perturb, 5_000 if arch in CASCADES else LENGTH)  # 10^5: slow twin


@pytest.mark.slow
@pytest.mark.parametrize(("spec", "arch"), [c for c in CASES if c[1] in CASCADES])
def test_cascades_agree_on_1e5_symbols(spec, arch):
    _agree(spec, arch, False, LENGTH)


@pytest.mark.parametrize(("spec", "arch"), [("parity", "bilinear-full"),
                                            ("modadd:5", "bilinear-r2")])
def test_run_float32_accuracy_is_the_reference_accuracy(tmp_path, spec, arch):
    """Oracle: the automaton's labels on the same random word, compared with the
    reference trace here; run_checked draws its word from default_rng(seed) in one piece."""
    net = _perturbed(fsmnet.compile(spec, arch), 2)
    path = tmp_path / "net.safetensors"
    net.save(path)
    result = run_checked(spec, length=LENGTH, net_path=str(path), seed=4, float32=True)
    automaton = fsmnet.load(spec)
    word = np.random.default_rng(4).integers(0, automaton.n_symbols, size=LENGTH,
                                             dtype=np.uint8)
    ref = float32_trace(net, word)[1:]
    q, want = automaton.initial, []
    for a in word:
        q = int(automaton.delta[a, q])
        want.append(automaton.outputs[q])
    labels = [net.labels[i] if i != OVERFLOW else None for i in ref]
    assert result.accuracy == sum(x == y for x, y in zip(labels, want)) / LENGTH
    assert result.backend == "float32-reference"


def test_minmax_scores_one_float32_step_apart_keep_their_order():
    """The audit's case: 0.80000007 and 0.80000013 are adjacent float32 values; a
    temperature of 10 applied in float32 merged them.  Oracle: the exact comparison."""
    lo, hi = np.float32(0.80000007), np.float32(0.80000013)
    assert np.nextafter(lo, np.float32(1)) == hi
    net = fsmnet.nets.Network(arch="minmax-dense", params={
        "R": np.ones((1, 1, 1)), "s": np.zeros((1, 1)), "x0": np.ones(1),
        "readout": np.array([[float(lo)], [float(hi)]])}, symbols=["a"], labels=[0, 1])
    assert net.label_trace([0, 0], exact=True).tolist() == [1, 1, 1]
    assert to_torch(net)(torch.tensor([[0, 0]])).tolist() == [[1, 1, 1]]
    assert float32_trace(net, [0, 0]).tolist() == [1, 1, 1]


def test_deltaproduct_keys_far_below_the_old_clamp_are_normalized_exactly():
    """Keys are normalized by the semantics (k / ‖k‖), so scaling every key by 1e-35
    changes no matrix.  Oracle: the exact evaluator of the scaled network, and the
    automaton (the unscaled network is proved)."""
    net = fsmnet.compile("symmetric:3", "deltaproduct")
    tiny = net.with_params(keys=np.asarray(net.params["keys"]) * 1e-35)
    word = np.random.default_rng(0).integers(0, len(net.symbols), 300)
    want = tiny.label_trace(word, exact=True)
    assert np.array_equal(want, net.label_trace(word, exact=True))
    assert np.array_equal(to_torch(tiny)(torch.tensor(word[None, :])).numpy()[0], want)


def test_overflow_labels_reach_the_torch_module():
    """A readout near float32's largest value: the reference says OVERFLOW everywhere
    (test_float32_reference), and so does the module."""
    net = fsmnet.compile("parity", "bilinear-full")
    big = net.with_params(readout=np.asarray(net.params["readout"]) * 3e38 + 3e38)
    assert set(to_torch(big)(torch.tensor([[0, 1, 1]])).numpy().ravel()) == {OVERFLOW}
