"""experiments/repl_tokens.py and fsmnet.train.token_deltanet: vocabulary, value
positions, β ranges, causality and the chunked recurrence (no long training).

The printed values are checked against ``repl_traces.printed_targets`` (line
based, independent of the token-level search), the chunked delta rule against
the step-by-step recurrence.
"""

from __future__ import annotations

import pytest
import torch
from experiment_scripts import load_script
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples

from fsmnet.automata.repl_traces import generate, printed_targets, tokenize
from fsmnet.train.token_deltanet import TokenDeltaNet, delta_rule, delta_rule_loop

rt = load_script("repl_tokens.py", "repl_tokens_experiment")


def test_vocabulary_is_exactly_the_generators_tokens():
    seen: set[str] = set()
    for seed in range(300):
        seen.update(tokenize(generate(3, 30, reveal_spacing=1 + seed % 5, seed=seed)))
    assert seen == set(rt.VOCAB)
    assert len(rt.VOCAB) == len(set(rt.VOCAB)) == 13
    assert rt.vocabulary() == rt.VOCAB  # a fixed order, rebuilt the same


@given(seed=st.integers(0, 10**6), spacing=st.integers(1, 6), lines=st.integers(2, 60))
def test_value_positions_are_the_printed_values(seed, spacing, lines):
    trace = generate(3, lines, reveal_spacing=spacing, seed=seed)
    tokens = tokenize(trace)
    found = [tokens[i] for i in rt.value_positions(tokens)]
    assert found == [v for _, v in printed_targets(trace)]


@settings(max_examples=examples(10))
@given(seed=st.integers(0, 10**6), spacing=st.integers(1, 5), count=st.integers(1, 4))
def test_encode_marks_the_values_it_scores(seed, spacing, count):
    ids, valid, is_value = rt.encode(25, spacing, count, seed)
    assert valid.all()  # one length and spacing: one token count, no padding
    for b in range(count):
        trace = generate(3, 25, reveal_spacing=spacing, seed=seed * 1_000_003 + b)
        values = [rt.VOCAB[i] for i in ids[b][is_value[b]]]
        assert values == [v for _, v in printed_targets(trace)]


@pytest.mark.parametrize("beta_max", [1.0, 2.0])
def test_beta_range_and_eigenvalues(beta_max):
    torch.manual_seed(0)
    model = TokenDeltaNet(13, width=16, key=4, beta_max=beta_max)
    tokens = torch.randint(0, 13, (2, 40))
    eye = torch.eye(4)
    # Random weights scaled up (β near both ends), then a constant β at 0, β_max/2, β_max.
    for scale, bias, low in ((50.0, 0.0, None), (0.0, -30.0, 1.0),
                             (0.0, 0.0, 1 - beta_max / 2), (0.0, 30.0, 1 - beta_max)):
        with torch.no_grad():
            model.beta.weight.mul_(scale)
            model.beta.bias.fill_(bias)
            _, k, _, beta = model.gates(model.features(tokens))
        assert float(beta.min()) >= 0.0 and float(beta.max()) <= beta_max
        mats = eye - beta[..., None, None] * k[..., :, None] * k[..., None, :]
        eig = torch.linalg.eigvalsh(mats.double())  # ascending: 1 − β, then ones
        assert float(eig.min()) >= 1 - beta_max - 1e-5 and float(eig.max()) <= 1 + 1e-5
        assert torch.allclose(eig[..., 1:], torch.ones(()).double(), atol=1e-5)
        if low is None:
            assert float(beta.min()) < 0.01 * beta_max and float(beta.max()) > 0.99 * beta_max
        else:
            assert torch.allclose(eig[..., 0], torch.tensor(low).double(), atol=1e-5)


def test_forward_is_causal():
    torch.manual_seed(1)
    model = TokenDeltaNet(13, width=16, key=4, beta_max=2.0, chunk=8)
    tokens = torch.randint(0, 13, (1, 30))
    changed = tokens.clone()
    changed[0, 17] = (changed[0, 17] + 1) % 13
    with torch.no_grad():
        a, b = model(tokens), model(changed)
    assert torch.equal(a[:, :17], b[:, :17])
    assert not torch.allclose(a[:, 17], b[:, 17])  # the change is seen from there on


@pytest.mark.parametrize("chunk", [1, 7, 64])
def test_chunked_delta_rule_is_the_recurrence(chunk):
    gen = torch.Generator().manual_seed(chunk)
    q, k = (torch.nn.functional.normalize(torch.randn(2, 45, 5, generator=gen), dim=-1)
            for _ in range(2))
    v = torch.randn(2, 45, 5, generator=gen)
    beta = 2 * torch.rand(2, 45, generator=gen)
    want = delta_rule_loop(q, k, v, beta)
    assert torch.allclose(delta_rule(q, k, v, beta, chunk), want, atol=1e-5)


def test_swaps_as_reflections_track_the_values():
    # The mechanism the [−1, 1] model can use, set by hand: write each variable's value
    # under key e_x (β = 1), swap x, y by the reflection k = (e_x − e_y)/√2 (β = 2), read
    # with q = e_x.  β ≤ 1 cannot reflect, so the same keys do not track.
    trace = generate(3, 200, reveal_spacing=1, seed=3)
    steps, queries = [], []
    eye = torch.eye(3)
    for line in trace.splitlines()[1:]:
        if line.startswith(">>> print("):
            queries.append((len(steps), "abc".index(line[10])))
        elif line.startswith(">>> "):
            x, y = "abc".index(line[4]), "abc".index(line[7])
            steps.append((eye[x] - eye[y]) / 2**0.5)
    k = torch.cat([eye, torch.stack(steps)])[None]
    v = torch.cat([eye, torch.zeros(len(steps), 3)])[None]
    q = torch.zeros_like(k)
    for at, x in queries:  # read after the last swap before each print: o = S e_x
        q[0, 2 + at, x] = 1.0
    want = [int(value) for _, value in printed_targets(trace)]
    for beta_max, tracks in ((2.0, True), (1.0, False)):
        beta = torch.cat([torch.ones(3), torch.full((len(steps),), beta_max)])[None]
        o = delta_rule(q, k, v, beta)
        got = [int(o[0, 2 + at].argmax()) for at, _ in queries]
        assert (got == want) == tracks


@settings(max_examples=examples(10))
@given(seed=st.integers(0, 10**6), spacing=st.integers(1, 6))
def test_window_reader_over_the_whole_trace_is_exact(seed, spacing):
    # A window holding the initialization line tracks every swap, so it never misses;
    # a window of no lines knows nothing and guesses the same value for every print.
    trace = generate(3, 80, reveal_spacing=spacing, seed=seed)
    assert rt.window_reader(trace, 80) == 1.0
    values = [int(v) for _, v in printed_targets(trace)]
    assert rt.window_reader(trace, 0) == values.count(0) / len(values)
