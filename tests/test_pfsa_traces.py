"""REPL traces: generator, tokenizer, and the compiled trace automaton at 100%.

The reference for every printed value is the generator's own simulation
(written into the trace); the automaton and the network never see it.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples

from fsmnet.automata.repl_traces import (
    NO_OUTPUT,
    generate,
    line_symbols,
    printed_targets,
    tokenize,
    trace_automaton,
)
from fsmnet.constructions import compile_automaton
from fsmnet.errors import SpecError
from fsmnet.gpu.engine import evaluate


def test_generator_is_deterministic_and_spaced():
    a = generate(3, 200, reveal_spacing=4, seed=5)
    assert a == generate(3, 200, reveal_spacing=4, seed=5)
    assert a != generate(3, 200, reveal_spacing=4, seed=6)
    lines = a.splitlines()
    assert len(lines) == 200 and lines[0] == ">>> a, b, c = 0, 1, 2"
    prints = [i for i, x in enumerate(lines) if x.startswith(">>> print(")]
    # 1 init line, then blocks of 4 commands + print + value: print at 5, 11, 17, ...
    assert prints[:3] == [5, 11, 17]
    assert "coin()" not in a and "coin()" in generate(3, 200, hidden_prob=0.5, seed=5)


def test_printed_values_follow_a_direct_simulation():
    # An independent interpreter: run the trace as Python with a recording print.
    trace = generate(4, 300, reveal_spacing=2, assign_prob=0.3, seed=2)
    seen: list[str] = []
    env = {"print": lambda v: seen.append(str(v))}
    for line in trace.splitlines():
        if line.startswith(">>> "):
            exec(line[4:], env)  # noqa: S102 - the generator's own output
    assert seen == [v for _, v in printed_targets(trace)]


def test_tokenizer():
    toks = tokenize(">>> a, b = b, a\n>>> print(b)\n0")
    assert toks == [">>>", "a", ",", "b", "=", "b", ",", "a", "\n", ">>>", "print", "(",
                    "b", ")", "\n", "0"]
    with pytest.raises(SpecError):
        tokenize(">>> a = b; c")
    trace = generate(3, 50, hidden_prob=0.3, seed=1)
    assert "".join(tokenize(trace)) == trace.replace(" ", "")


def test_hidden_branches_have_no_automaton():
    with pytest.raises(SpecError, match="hidden branch"):
        line_symbols(generate(3, 50, hidden_prob=1.0, seed=0), 3)


def _accuracy(model, trace, n_vars, **kw):
    m = trace_automaton(n_vars)
    index = {s: i for i, s in enumerate(m.symbols)}
    arr = np.array([index[s] for s in line_symbols(trace, n_vars)], dtype=np.uint8)
    res = evaluate(model, arr, backend="numba", **kw)
    targets = printed_targets(trace)
    labels = model.labels
    got = [labels[k] for k in res.outputs[[i for i, _ in targets]]]
    others = set(range(len(arr))) - {i for i, _ in targets}
    assert all(labels[res.outputs[i]] == NO_OUTPUT for i in list(others)[:1000])
    return np.mean([g == v for g, (_, v) in zip(got, targets)]), len(targets)


@settings(max_examples=examples(15))
@given(st.integers(2, 4), st.integers(1, 5), st.floats(0, 0.5), st.integers(0, 10**6))
def test_automaton_predicts_every_print(n, spacing, assign, seed):
    trace = generate(n, 400, reveal_spacing=spacing, assign_prob=assign, seed=seed)
    acc, count = _accuracy(trace_automaton(n), trace, n)
    assert count > 0 and acc == 1.0


def test_compiled_network_on_a_long_trace():
    trace = generate(3, 100_000, reveal_spacing=3, assign_prob=0.2, seed=7)
    net = compile_automaton(trace_automaton(3), "bilinear-full")
    assert compile_automaton(trace_automaton(3), "bilinear-full").hidden_size == 84
    acc, count = _accuracy(net, trace, 3)
    assert acc == 1.0 and count == 19_999   # (100000 - 1) // 5 blocks


@pytest.mark.slow
def test_million_line_trace_automaton_and_network_direct():
    trace = generate(3, 10**6, reveal_spacing=3, assign_prob=0.2, seed=11)
    m = trace_automaton(3)
    assert _accuracy(m, trace, 3)[0] == 1.0
    net = compile_automaton(m, "bilinear-full")
    # the network's own kernel (84-dimensional mat-vec per line), not its tabulation
    assert _accuracy(net, trace, 3, path="direct")[0] == 1.0


@pytest.mark.slow
def test_training_experiment_is_deterministic():
    # experiments/pfsa_traces.py on a tiny budget: two runs give the same numbers.
    pytest.importorskip("torch")
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parent.parent / "experiments" / "pfsa_traces.py"
    spec = importlib.util.spec_from_file_location("pfsa_traces_experiment", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    first = module.run("deltanet-neg", 1, steps=3, eval_traces=8)
    second = module.run("deltanet-neg", 1, steps=3, eval_traces=8)
    assert {k: v for k, v in first.items() if k != "seconds"} == \
        {k: v for k, v in second.items() if k != "seconds"}
    assert 0 <= first["acc40"] <= 1 and 0 <= first["acc400"] <= 1
    hidden = module.run("deltanet-neg", 1, steps=2, eval_traces=4, hidden=0.3)
    assert hidden == {**module.run("deltanet-neg", 1, steps=2, eval_traces=4, hidden=0.3),
                      "seconds": hidden["seconds"]}
    assert 1 / 3 < module.ideal(1, 0.3, 40, 4, 0) <= 1


def test_trace_network_is_proved_for_every_length():
    from fsmnet.proofs.verifier import verify

    m = trace_automaton(3)
    result = verify(m, compile_automaton(m, "bilinear-full"))
    assert result.verdict == "proved"


def _ideal_reader(n, trace):
    """Bayes-optimal accuracy at the prints, and whether every printed value had
    positive probability under the exact belief (it must: the trace is one run)."""
    from fsmnet.automata.repl_pfsa import predicted_value, trace_pfsa, value_distribution

    m = trace_pfsa(n)
    targets = dict(printed_targets(trace))
    b = m.initial_belief()
    hits, possible = 0, True
    for i, a in enumerate(m.encode(line_symbols(trace, n, hidden=True))):
        b = m.update(b, a)
        if i in targets:
            v = int(targets[i])
            hits += predicted_value(m, b) == v
            possible &= value_distribution(m, b).get(v, 0) > 0
    return hits / len(targets), possible


def test_hidden_branch_traces_as_a_pfsa():
    from fsmnet.automata.repl_pfsa import trace_pfsa
    from fsmnet.constructions.pfsa_bilinear import compile_pfsa_bilinear
    from fsmnet.proofs.pfsa_proof import prove_belief

    m = trace_pfsa(3)
    assert (m.n_states, m.n_symbols) == (108, 19) and not m.is_deterministic
    assert prove_belief(m, compile_pfsa_bilinear(m)).verdict == "proved"
    # Without hidden branches the ideal reader is the deterministic automaton: 100%.
    assert _ideal_reader(3, generate(3, 600, reveal_spacing=3, seed=4)) == (1.0, True)
    acc, possible = _ideal_reader(3, generate(3, 600, reveal_spacing=3, hidden_prob=0.3,
                                              seed=4))
    assert possible and 1 / 3 < acc < 1.0
