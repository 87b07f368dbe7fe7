"""The MinMax paper's parts of the trainable cascade (fsmnet.train.cascade_parts).

Independent sources: a direct loop over t for the causal window; a hand-set cascade
whose gates saturate to exactly 0 or 1, checked word by word against the rule it
implements (the letter two steps back), which only a window of 2 can read; the
MinMax algebra itself for the asymmetric start (s < x₀ < r keeps x₀ on every word).
"""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

torch = pytest.importorskip("torch")

from fsmnet.errors import SpecError  # noqa: E402
from fsmnet.train import convert  # noqa: E402
from fsmnet.train.cascade_parts import causal_window  # noqa: E402
from fsmnet.train.modules_minmax import MinMaxCascade  # noqa: E402


@given(st.integers(1, 7), st.integers(1, 5), st.integers(0, 1000))
def test_the_causal_window_is_the_states_t_minus_1_to_t_minus_k(length, window, seed):
    trace = torch.rand(2, length + 1, 3, generator=torch.Generator().manual_seed(seed))
    got = causal_window(trace, window)
    assert got.shape == (2, length, 3 * window)
    for t in range(1, length + 1):  # step t reads x_{t-1}, ..., x_{t-window}
        for back in range(1, window + 1):
            want = trace[:, max(0, t - back)]
            assert torch.equal(got[:, t - 1, 3 * (back - 1):3 * back], want)


def two_back(window: int) -> MinMaxCascade:
    """Layer 0's unit u_t = w_t (r = 0, s = [w_t = 1]); layer 1's unit v_t = s_t =
    [the window's last entry = 1], i.e. u_{t-window}; label = v.  Every gate is
    exactly 0.0 or 1.0 in float32 (pre-activations ±200)."""
    m = convert.build("minmax-cascade", 2, 2, 2, layers=2, window=window)
    with torch.no_grad():
        m.gates[0].weight.copy_(torch.tensor([[0.0, 0.0], [0.0, 400.0]]))
        m.gates[0].bias.copy_(torch.tensor([-200.0, -200.0]))
        last = [0.0] * (1 + window)
        last[-1] = 400.0
        m.gates[1].weight.copy_(torch.tensor([[0.0] * (2 + window), [0.0] + last]))
        m.gates[1].bias.copy_(torch.tensor([-200.0, -200.0]))
        m.x0.zero_()
        m.readout.weight.copy_(torch.tensor([[0.0, -1.0], [0.0, 1.0]]))
        m.readout.bias.copy_(torch.tensor([0.5, 0.0]))
    return m


def test_a_window_of_two_reads_the_letter_two_steps_back():
    """Oracle: label_t = 1 iff t ≥ 3 and w_{t-2} = 1 (u_{t-2}, x₀ = 0 before the
    start), on every word over {0, 1} of length 1 to 7; the window-1 cascade with the
    same gates reads u_{t-1} instead, and differs."""
    module, lag = two_back(2), two_back(1)
    differs = 0
    for n in range(1, 8):
        for word in itertools.product((0, 1), repeat=n):
            ids = torch.tensor([list(word)], dtype=torch.int64)
            want = [int(t >= 3 and word[t - 3] == 1) for t in range(n + 1)]
            assert module(ids)[0].tolist() == want, word
            differs += lag(ids)[0].tolist() != want
    assert differs > 0


def test_the_asymmetric_start_keeps_every_unit_on_every_word():
    """Reset gate bias +2, set gate bias −2, other weights 0: r = σ(2) > x₀ = 0.5 >
    s = σ(−2), so x_t = max(min(r, x), s) = x₀ for every t (the MinMax algebra)."""
    torch.manual_seed(0)
    for controller in ("affine", "mlp"):
        m = MinMaxCascade(3, 2, 8, layers=2, controller=controller, init="asymmetric")
        with torch.no_grad():
            for gate in m.gates:
                for p in gate.parameters():
                    if p is not gate.out.bias:
                        p.zero_()
        x = m.states(torch.randint(0, 3, (4, 20)))
        assert torch.equal(x, torch.full_like(x, 0.5)), controller


def test_a_saturated_output_gate_is_the_plain_readout():
    torch.manual_seed(1)
    gated = MinMaxCascade(2, 3, 6, output_gate=True, controller="mlp", window=3)
    plain = MinMaxCascade(2, 3, 6, controller="mlp", window=3)
    plain.load_state_dict({k: v for k, v in gated.state_dict().items()
                           if not k.startswith("out_gate")})
    with torch.no_grad():
        gated.out_gate.weight.zero_()
        gated.out_gate.bias.fill_(40.0)  # σ(40) is exactly 1.0 in float32
    words = torch.randint(0, 2, (5, 9))
    assert torch.equal(gated.logits(words), plain.logits(words))


@pytest.mark.parametrize("options,field", [({"controller": "lstm"}, "controller"),
                                           ({"init": "kaiming"}, "init"),
                                           ({"window": 0}, "window"),
                                           ({"window": 2, "order": "same-time"}, "window")])
def test_a_bad_choice_names_its_field(options, field):
    with pytest.raises(SpecError, match=field):
        MinMaxCascade(2, 2, 4, **options)


@pytest.mark.parametrize("argv,needle", [
    (["--arch", "minmax-cascade", "--window", "2", "--order", "same-time"], "field 'window'"),
    (["--arch", "bilinear-full", "--controller", "mlp"], "--controller applies to"),
    (["--arch", "minmax-cascade", "--relax", "0.2"], "--relax applies to minmax-dense"),
])
def test_the_cli_refuses_a_bad_choice_in_one_line(argv, needle, capsys):
    from fsmnet.cli import main

    assert main(["train", "parity", "--steps", "1", *argv]) == 2
    err = capsys.readouterr().err.strip()
    assert needle in err and "\n" not in err and "Traceback" not in err
