"""The regularizers of ``fsmnet.train.losses`` (margin, moduli, contraction): each one's
value on tiny hand-set modules against its formula computed here in numpy (the states
by the recurrence written out, singular values by ``numpy.linalg.svd``, the readout's
null space by the SVD of the readout), and the training loop adding exactly
weight × penalty to the first step's loss."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from fsmnet.errors import SpecError  # noqa: E402
from fsmnet.train import losses  # noqa: E402
from fsmnet.train.convert import build  # noqa: E402
from fsmnet.train.data import batch, task_automaton  # noqa: E402
from fsmnet.train.loop import TrainConfig, train  # noqa: E402

W = np.array([[[0.9, 0.2, 0.0], [0.1, 0.5, 0.3], [0.0, 0.4, 1.2]],
              [[0.0, -1.0, 0.1], [1.0, 0.0, 0.0], [0.2, 0.3, 0.6]]])
H0 = np.array([1.0, 0.5, -0.25])
R = np.array([[1.0, 0.0, 0.5], [0.0, 1.0, -0.5]])      # 2 labels, a 1-dim null space
WORDS = np.array([[0, 1, 1, 0], [1, 1, 0, 1]])
LABELS = np.array([[0, 0, 1, 1, 0], [1, 0, 1, 0, 0]])


def value(t) -> float:
    return float(t.detach())


def set_params(module, **values):
    with torch.no_grad():
        for name, value in values.items():
            getattr(module, name).copy_(torch.tensor(value, dtype=torch.float32))
    return module


def full_module():
    return set_params(build("bilinear-full", 2, 2, 3), W=W, h0=H0, readout=R)


def numpy_logits(words: np.ndarray) -> np.ndarray:
    out = []
    for word in words:
        h, rows = H0.copy(), []
        for x in [None, *word]:
            if x is not None:
                h = W[x] @ h
            rows.append(R @ h / np.linalg.norm(h))
        out.append(rows)
    return np.array(out)


def hinge(z: np.ndarray, labels: np.ndarray, scale: float, target: float) -> float:
    total, n = 0.0, 0
    for zb, yb in zip(z, labels):
        for zn, y in zip(zb, yb):
            gap = zn[y] - max(zn[c] for c in range(len(zn)) if c != y)
            total += max(0.0, target - gap / scale)
            n += 1
    return total / n


def pull(sigmas: np.ndarray) -> float:
    return float(np.mean(np.minimum(sigmas, np.abs(sigmas - 1)) ** 2))


def null_projector(readout: np.ndarray) -> np.ndarray:
    _, s, vt = np.linalg.svd(readout)
    rank = int(np.sum(s > 1e-9))
    v = vt[rank:].T
    return v @ v.T


@pytest.mark.parametrize("target", [0.1, 0.5])
def test_margin_is_the_hinge_on_the_normalized_gap(target):
    z = numpy_logits(WORDS)
    want = hinge(z, LABELS, float(np.linalg.norm(R)), target)
    got = losses.margin_penalty(full_module(), torch.tensor(WORDS), torch.tensor(LABELS), target)
    assert want > 0 and value(got) == pytest.approx(want, rel=1e-5)


def test_margin_of_max_min_is_in_score_units():
    """minmax-dense: the gap over the temperature, i.e. of the max-min scores."""
    from fsmnet.train.modules_minmax import TEMPERATURE

    m = build("minmax-dense", 2, 2, 2)
    x0, rr, s = np.array([0.8, 0.1]), np.array([[[0.0, 1.0], [1.0, 0.0]]] * 2), np.zeros((2, 2))
    ro = np.array([[0.9, 0.2], [0.3, 0.6]])
    set_params(m, x0=x0, R=rr, s=s, readout=ro)
    words, labels = np.array([[0, 1]]), np.array([[1, 1, 0]])
    scores, x = [], x0
    for sym in [None, 0, 1]:
        if sym is not None:
            x = np.maximum(np.max(np.minimum(rr[sym], x[None, :]), axis=1), s[sym])
        scores.append(np.max(np.minimum(ro, x[None, :]), axis=1))
    want = hinge(TEMPERATURE * np.array([scores]), labels, TEMPERATURE, 0.3)
    got = losses.margin_penalty(m, torch.tensor(words), torch.tensor(labels), 0.3)
    assert want > 0 and value(got) == pytest.approx(want, rel=1e-5)


def test_moduli_pull_singular_values_to_0_or_1():
    sigmas = np.concatenate([np.linalg.svd(a, compute_uv=False) for a in W])
    assert value(losses.moduli_penalty(full_module())) == pytest.approx(pull(sigmas), rel=1e-5)


def test_moduli_of_diagonal_and_rotation_classes_are_their_moduli():
    d = np.array([[1.0, -0.5, 0.02], [-1.3, 0.9, 0.0]])
    real = set_params(build("bilinear-real-diag", 2, 2, 3), d=d)
    assert value(losses.moduli_penalty(real)) == pytest.approx(pull(np.abs(d).ravel()), rel=1e-5)
    rho, theta = np.array([[0.0, -0.7]]), np.array([[2.0, -1.0]])
    r2 = set_params(build("bilinear-r2", 1, 2, 4), rho=rho, theta=theta)
    mats = losses.letter_blocks(r2)[0][0].detach().numpy()[0]
    c, s = np.cos(2.0), np.sin(2.0)
    assert mats[:2, :2] == pytest.approx(np.array([[c, -s], [s, c]]), abs=1e-6)
    moduli = np.repeat(np.exp(rho.ravel()), 2)  # each complex channel: σ = e^ρ twice
    assert value(losses.moduli_penalty(r2)) == pytest.approx(pull(moduli), rel=1e-5)


def test_contraction_is_the_kept_null_component():
    p = null_projector(R)
    want = np.mean([np.sum((p @ a @ p) ** 2) / np.sum(a ** 2) for a in W])
    got = losses.contraction_penalty(full_module())
    assert want > 0 and value(got) == pytest.approx(want, rel=1e-4)


def test_contraction_of_a_block_reads_the_unfolded_readout():
    """Blocks of sizes 3 and 1, one label: block 0's readout directions are the single
    vector readout[0, :, 0]; the size-1 block is read whole (no null space)."""
    m = build("bilinear-block", 2, 1, 4, sizes=[3, 1])
    ro = np.array([[[1.0], [2.0], [0.0]]])
    w1 = np.array([[[0.7]], [[-1.0]]])
    set_params(m, readout=ro)
    with torch.no_grad():
        m.W[0].copy_(torch.tensor(W, dtype=torch.float32))
        m.W[1].copy_(torch.tensor(w1, dtype=torch.float32))
    p = null_projector(ro[0, :, 0][None, :])
    block0 = [np.sum((p @ a @ p) ** 2) / np.sum(a ** 2) for a in W]
    want = np.mean(block0 + [0.0, 0.0])
    assert value(losses.contraction_penalty(m)) == pytest.approx(want, rel=1e-4)


def test_max_min_has_no_moduli_or_contraction():
    m = build("minmax-dense", 2, 2, 3)
    assert value(losses.moduli_penalty(m)) == 0.0
    assert value(losses.contraction_penalty(m)) == 0.0


@pytest.mark.parametrize("weights", [{"margin": 0.5}, {"moduli": 0.3},
                                     {"contraction": 0.2, "margin": 0.1, "margin_target": 0.4}])
def test_the_loop_adds_weight_times_penalty(weights):
    """Step 0's recorded loss with the regularizers minus without them = Σ weight ×
    penalty of the initial module on step 0's batch (rebuilt here: the module from
    torch.manual_seed(seed), the batch from numpy's default_rng(seed), as train draws
    them)."""
    config = TrainConfig(arch="bilinear-full", hidden=3, steps=1, batch=8, seed=4)
    plain = train("parity", config).losses[0]
    reg = train("parity", TrainConfig(**{**config.__dict__, "regularizers": weights})).losses[0]
    automaton = task_automaton("parity")
    torch.manual_seed(4)
    module = build("bilinear-full", 2, 2, 3)
    rng = np.random.default_rng(4)
    words, labels = batch(automaton, rng, 8, int(rng.integers(2, 11)))
    w, y = torch.tensor(words), torch.tensor(labels)
    target = weights.get("margin_target", losses.MARGIN_TARGET)
    extra = (weights.get("margin", 0) * value(losses.margin_penalty(module, w, y, target))
             + weights.get("moduli", 0) * value(losses.moduli_penalty(module))
             + weights.get("contraction", 0) * value(losses.contraction_penalty(module)))
    assert extra > 0 and reg - plain == pytest.approx(extra, rel=1e-4, abs=1e-6)


def test_no_regularizer_is_the_plain_loss():
    config = TrainConfig(arch="bilinear-real-diag", hidden=3, steps=5, batch=8, seed=1)
    off = TrainConfig(**{**config.__dict__, "regularizers": {"margin": 0.0, "moduli": 0.0}})
    assert train("parity", config).losses == train("parity", off).losses


@pytest.mark.parametrize("bad", [{"margins": 1.0}, {"moduli": -0.1},
                                 {"margin": float("nan")}, {"contraction": True}])
def test_bad_regularizers_are_refused_before_training(bad):
    with pytest.raises(SpecError, match="regularizer"):
        train("parity", TrainConfig(arch="bilinear-full", hidden=2, steps=1, regularizers=bad))
