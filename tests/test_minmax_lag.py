"""The trainable MinMax cascade's update order (fsmnet/train/modules_minmax.py).

``order="lag"`` (the default): layer ℓ's gates at step t read the layers below at
t−1, the order of fsmnet's evaluator and of the compiled cascade (docs/theory.md,
"Update order matters"; the MinMax RNC, arXiv 2605.06384, gets the delay from its
causal convolution).  ``order="same-time"``: at t, after their update.

Independent sources: the automaton's own run (``Automaton.trace``); an exhaustive
check, word by word, that every letter acts idempotently on the same-time cascade
(so it cannot tell ``1`` from ``1 1``); and fsmnet's evaluator of a ``minmax-scalar``
network (``MinMaxCascade.step``, float64, and the level-wise scan) built here by
tabulating a cascade whose gates saturate to exactly 0 or 1.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import fsmnet

torch = pytest.importorskip("torch")

from fsmnet.nets import Network  # noqa: E402
from fsmnet.nets.minmax_cascade import levelwise_label_trace  # noqa: E402
from fsmnet.train import convert  # noqa: E402
from fsmnet.train.data import accuracy, task_automaton  # noqa: E402
from fsmnet.train.loop import TrainConfig, train  # noqa: E402
from fsmnet.train.modules_minmax import MinMaxCascade  # noqa: E402


def automaton_labels(a, word) -> list:
    """The label after every prefix (the empty one first), by the automaton's run."""
    return [a.labels[i] for i in np.asarray(a.output_ids)[a.trace(np.asarray(word))]]


def module_labels(module, a, word) -> list:
    return [a.labels[i] for i in module(torch.tensor([list(word)]))[0].tolist()]


def counter_to_two(order: str) -> MinMaxCascade:
    """Hand-set weights for atleast:2 (at least two 1s) over {0, 1}, one unit a layer.

    Layer 0's unit u: '1' sets it to 1, '0' keeps it.  Layer 1's unit v: '1' sets it
    to 1 when u was 1, else it keeps.  Label: v.  Pre-activations are ±200 or less,
    so every gate is exactly 0.0 or 1.0 in float32.
    """
    m = convert.build("minmax-cascade", 2, 2, 2, layers=2, order=order)
    with torch.no_grad():
        # gate rows: [r, s]; inputs: e('0'), e('1') (then u for layer 1)
        m.gates[0].weight.copy_(torch.tensor([[0.0, 0.0], [0.0, 400.0]]))
        m.gates[0].bias.copy_(torch.tensor([200.0, -200.0]))
        m.gates[1].weight.copy_(torch.tensor([[0.0, 0.0, 0.0], [0.0, 400.0, 400.0]]))
        m.gates[1].bias.copy_(torch.tensor([200.0, -600.0]))
        m.x0.zero_()
        m.readout.weight.copy_(torch.tensor([[0.0, -1.0], [0.0, 1.0]]))
        m.readout.bias.copy_(torch.tensor([0.5, 0.0]))
    return m


def all_words(n_symbols: int, longest: int):
    for n in range(longest + 1):
        yield from itertools.product(range(n_symbols), repeat=n)


def same_time_states(module: MinMaxCascade, word: list[int]) -> list[np.ndarray]:
    """The cascade's states after every prefix, written here step by step in float64
    from the module's weights: at step t, layer l's gates read the letter and the
    layers below *after* their update at t; x = max(min(r, x), s).

    One letter at a time, so equal inputs give bit-equal outputs (the module computes
    each layer's gates for all steps in one matrix product, whose rounding may depend
    on the row's position: that is float behaviour, not the algebra this tests)."""
    weights = [(g.weight.detach().double().numpy(), g.bias.detach().double().numpy())
               for g in module.gates]
    x = [row.copy() for row in module.x0.detach().double().numpy()]
    out = [np.concatenate(x)]
    for a in word:
        e = np.eye(module.n_symbols)[a]
        for l, (w, b) in enumerate(weights):
            r, s = np.split(1.0 / (1.0 + np.exp(-(w @ np.concatenate([e, *x[:l]]) + b))), 2)
            x[l] = np.maximum(np.minimum(r, x[l]), s)
        out.append(np.concatenate(x))
    return out


def assert_every_letter_idempotent(module: MinMaxCascade, longest: int) -> None:
    """For every word w up to ``longest`` and letter a: the whole cascade's state after
    w·a equals the state after w·a·a, bit for bit, in the step-by-step float64 run; and
    the module's own float32 states follow that run to 1e-5 (a consistency check of
    the module against the definition, not the property)."""
    for w in all_words(module.n_symbols, longest):
        for a in range(module.n_symbols):
            word = list(w) + [a, a]
            x = same_time_states(module, word)
            assert np.array_equal(x[-1], x[-2]), (w, a)
            with torch.no_grad():
                got = module.states(torch.tensor([word]))[0].double().numpy()
            assert np.allclose(got, np.array(x), atol=1e-5), (w, a)


def test_bad_order_is_refused_with_its_value():
    with pytest.raises(fsmnet.errors.SpecError, match="order"):
        convert.build("minmax-cascade", 2, 2, 4, order="later")


def test_lag_is_the_default_and_is_shown():
    module = convert.build("minmax-cascade", 2, 2, 4)
    assert module.order == "lag" and "order='lag'" in repr(module)


def test_lagged_cascade_counts_to_two_on_random_words():
    a = task_automaton("atleast:2")
    module = counter_to_two("lag")
    words = np.random.default_rng(5).integers(0, 2, (32, 30))
    for w in words:
        assert module_labels(module, a, w) == automaton_labels(a, w)


@pytest.mark.parametrize("seed", range(4))
def test_same_time_cascade_every_letter_is_idempotent_exhaustively(seed):
    # The mathematics (docs/theory.md): max(min(r, ·), s) is idempotent and, with
    # same-time inputs, a second letter a feeds every gate what the first one did.
    # Random weights (default initialization and scaled-up ones), 3 letters, 3 layers.
    torch.manual_seed(seed)
    module = convert.build("minmax-cascade", 3, 3, 6, layers=3, order="same-time")
    if seed % 2:
        with torch.no_grad():
            for p in module.parameters():
                p.mul_(8.0)
    assert_every_letter_idempotent(module, longest=5)


def test_same_time_cannot_count_to_two_and_the_lag_can():
    a = task_automaton("atleast:2")
    same = counter_to_two("same-time")
    assert_every_letter_idempotent(same, longest=6)  # the independent reason ...
    # ... so "1" and "1 1" share a label, and atleast:2 needs False then True
    assert module_labels(same, a, [1])[-1] == module_labels(same, a, [1, 1])[-1]
    assert automaton_labels(a, [1, 1])[1:] == [False, True]
    assert module_labels(counter_to_two("lag"), a, [1, 1])[1:] == [False, True]
    # the lag breaks idempotence: the state after 1 is not the state after 1 1
    with torch.no_grad():
        x = counter_to_two("lag").states(torch.tensor([[1, 1]]))[0]
    assert not torch.equal(x[1], x[2])


@pytest.mark.parametrize("spec,steps", [("atleast:2", 200), ("counter:2", 400)])
def test_trained_lagged_cascade_tracks_a_counter_the_same_time_one_cannot(spec, steps):
    # Fixed seed and budget (deterministic on the CPU): with the lag, training reaches
    # every position at length 10 and at 100 (a counter needs the lower layer's
    # state before the letter); the same-time module, trained alike, is idempotent
    # in every letter, so it gives 'u' and 'u u' (or '1' and '1 1') one label.
    results = {}
    for order in ("lag", "same-time"):
        results[order] = train(spec, TrainConfig(arch="minmax-cascade", hidden=4, steps=steps,
                                                 batch=32, lr=0.05, seed=1,
                                                 options={"order": order}))
    lag = results["lag"]
    assert accuracy(lag.module, lag.automaton, 10) == 1.0
    assert accuracy(lag.module, lag.automaton, 100, words=64) == 1.0
    same = results["same-time"]
    a = same.automaton
    up = a.symbols.index("1" if spec == "atleast:2" else "u")
    assert_every_letter_idempotent(same.module, longest=4)
    once, twice = (module_labels(same.module, a, [up] * n)[-1] for n in (1, 2))
    assert once == twice
    assert automaton_labels(a, [up, up])[1] != automaton_labels(a, [up, up])[2]
    assert accuracy(same.module, a, 10) < 1.0


# -------------------------------------------- the lag is the compiled semantics
def tabulate(module: MinMaxCascade) -> Network:
    """A ``minmax-scalar`` network with the module's semantics under the t−1 order, for
    a module whose gates are exactly 0 or 1 on every 0/1 input and whose start states
    are 0 or 1: unit (ℓ, j) becomes a 2-valued scalar unit at level ℓ holding
    1 + its state (max and min commute with x ↦ x + 1), its controller table indexed
    by the letter and the mixed-radix code of all units of the layers below, the
    readout table by the argmax of the module's readout on every 0/1 state vector."""
    n_layers, k, n_sym = module.layers, module.width, module.n_symbols
    n_units = n_layers * k
    params: dict[str, np.ndarray] = {
        "unit_level": np.repeat(np.arange(n_layers), k).astype(np.int64),
        "unit_size": np.full(n_units, 2, dtype=np.int64),
        "unit_kind": np.zeros(n_units, dtype=np.int64)}
    eye = torch.eye(n_sym)
    with torch.no_grad():
        for layer, gate in enumerate(module.gates):
            above = layer * k
            # itertools.product: the first unit is the most significant digit
            codes = torch.tensor(list(itertools.product((0.0, 1.0), repeat=above)),
                                 dtype=torch.float32).reshape(2 ** above, above)
            rows = torch.cat([eye[:, None, :].expand(n_sym, len(codes), n_sym),
                              codes[None].expand(n_sym, -1, -1)], dim=-1)
            rs = torch.sigmoid(gate(rows)).double().numpy()
            assert set(np.unique(rs)) <= {0.0, 1.0}, "gates must saturate exactly"
            for j in range(k):
                u = above + j
                params[f"unit{u}_r"] = 1.0 + rs[..., j]
                params[f"unit{u}_s"] = 1.0 + rs[..., k + j]
                x0 = float(module.x0[layer, j])
                assert x0 in (0.0, 1.0)
                params[f"unit{u}_x0"] = np.array([1.0 + x0])
        states = torch.tensor(list(itertools.product((0.0, 1.0), repeat=n_units)))
        params["readout"] = module.readout(states).argmax(dim=-1).numpy().astype(np.int64)
    return Network(arch="minmax-scalar", params=params,
                   symbols=tuple(str(i) for i in range(n_sym)),
                   labels=tuple(range(module.n_labels)))


def saturated_cascade(seed: int, n_sym: int, n_labels: int, layers: int, width: int,
                      order: str) -> MinMaxCascade:
    """Random counter-like gates, exact in float32: every pre-activation on 0/1 inputs is
    an odd multiple of 200 (biases 200·odd, weights ±400), so sigmoid gives exactly 0
    or 1.  Each unit is reset (r = 0, s = 0) by a letter b and set (s = 1) by a
    letter a, in layers ≥ 1 only when a unit u below holds a chosen value (an AND:
    the counter's shape); otherwise it keeps.  Integer readout weights, the top
    layer's ×4 (exact scores, ties to the first label in both evaluators)."""
    g = torch.Generator().manual_seed(seed)
    module = convert.build("minmax-cascade", n_sym, n_labels, layers * width, layers=layers,
                           order=order)

    def pick(n: int) -> int:
        return int(torch.randint(0, n, (1,), generator=g))

    with torch.no_grad():
        for layer, gate in enumerate(module.gates):
            weight = torch.zeros(2 * width, gate.in_features)
            bias = torch.zeros(2 * width)
            for j in range(width):
                a, b = pick(n_sym), pick(n_sym)
                weight[j, b], bias[j] = -400.0, 200.0  # r: 0 on letter b, else 1
                weight[width + j, a], bias[width + j] = 400.0, -200.0  # s: 1 on letter a
                if layer:
                    u = n_sym + pick(layer * width)
                    if pick(2):  # ... and unit u is 1
                        weight[width + j, u], bias[width + j] = 400.0, -600.0
                    else:  # ... and unit u is 0
                        weight[width + j, u] = -400.0
            gate.weight.copy_(weight)
            gate.bias.copy_(bias)
        module.x0.copy_(torch.randint(0, 2, module.x0.shape, generator=g).float())
        readout = torch.randint(-3, 4, module.readout.weight.shape, generator=g).float()
        readout[:, -width:] *= 4
        module.readout.weight.copy_(readout)
        module.readout.bias.copy_(torch.randint(-3, 4, module.readout.bias.shape,
                                                generator=g).float())
    return module


@pytest.mark.parametrize("seed,n_sym,layers,width", [
    (0, 2, 2, 1), (1, 3, 2, 2), (2, 2, 3, 2), (3, 3, 3, 1), (6, 4, 2, 2), (5, 2, 4, 1)])
def test_lagged_module_equals_fsmnets_evaluator_on_random_words(seed, n_sym, layers, width):
    module = saturated_cascade(seed, n_sym, 3, layers, width, "lag")
    net = tabulate(module)
    words = np.random.default_rng(seed).integers(0, n_sym, (12, 40))
    got = module(torch.tensor(words)).numpy()
    for w, row in zip(words, got):
        assert np.array_equal(row, net.label_trace(w))  # MinMaxCascade.step, float64
        assert np.array_equal(row, levelwise_label_trace(net, w))  # level-wise scans
    # The words tell the orders apart: the same weights read at t disagree somewhere.
    same = saturated_cascade(seed, n_sym, 3, layers, width, "same-time")
    assert not np.array_equal(same(torch.tensor(words)).numpy(), got)


def test_same_time_module_differs_from_the_compiled_semantics():
    # The same weights read at t instead of t−1: some word tells them apart (here the
    # hand-set counter on "1 1"), so the lag is what makes the module the compiled one.
    lag, same = counter_to_two("lag"), counter_to_two("same-time")
    net = tabulate(lag)
    word = np.array([1, 1])
    assert np.array_equal(lag(torch.tensor(word[None]))[0].numpy(), net.label_trace(word))
    assert not np.array_equal(same(torch.tensor(word[None]))[0].numpy(), net.label_trace(word))
