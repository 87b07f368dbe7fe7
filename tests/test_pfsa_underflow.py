"""Underflow of the unnormalized belief: exact prediction vs float runs.

The prediction comes from the exponent range and the exact decay rate only
(fsmnet.proofs.pfsa_underflow.predict); the confirmation is an independent
float computation (numpy float32, torch bfloat16) of the same recurrence.
Hand check for pcups:2: after (pswap01 show0=a)^k pswap01 the state is
(2^-(k+1), 2^-(k+1)); float32 rounds 2^-150 (half its smallest subnormal) to 0,
so the first all-zero step is 2*149 + 1 = 299.
"""

from __future__ import annotations

from fractions import Fraction as F

import pytest

from fsmnet.automata.pfsa_families import cups, joint_decay_period, marginal_adversarial_period
from fsmnet.proofs.pfsa_underflow import eigen_relation, predict, run_float


@pytest.mark.parametrize("n", [2, 3])
def test_float32_underflow_at_the_predicted_step(n):
    m = cups(n)
    u = m.encode(joint_decay_period())
    v, r = eigen_relation(m, [], u)
    assert r == F(1, 2) and v == m.initial_belief()
    pred = predict(m, [], u, "float32")
    assert pred.representable and pred.zero_step == 299 and pred.subnormal_step == 253
    run = run_float(m, [], u, "float32")
    assert (run["zero_step"], run["subnormal_step"]) == (pred.zero_step, pred.subnormal_step)


def test_bfloat16_underflow_at_the_predicted_step():
    pytest.importorskip("torch")
    m = cups(3)
    u = m.encode(joint_decay_period())
    pred = predict(m, [], u, "bfloat16")
    assert pred.zero_step == 267   # smallest bfloat16 subnormal is 2^-133
    run = run_float(m, [], u, "bfloat16")
    assert (run["zero_step"], run["subnormal_step"]) == (pred.zero_step, pred.subnormal_step)
    pred = predict(m, [], u, "float16")   # smallest subnormal 2^-24, smallest normal 2^-14
    assert (pred.zero_step, pred.subnormal_step) == (49, 29)
    run = run_float(m, [], u, "float16")
    assert (run["zero_step"], run["subnormal_step"]) == (49, 29)


def test_float64_and_other_rates():
    m = cups(2)
    u = m.encode(joint_decay_period())
    assert predict(m, [], u, "float64").zero_step == run_float(m, [], u, "float64")["zero_step"]
    # p = 1/3: rate 2/3 is not a power of two; rounding keeps the smallest
    # subnormal alive (2/3 of it rounds back up), so the float run never reaches
    # zero, but it turns subnormal exactly when predicted.
    m = cups(3, "1/3")
    u = m.encode(joint_decay_period())
    pred = predict(m, [], u, "float32")
    assert pred.rate == F(2, 3) and not pred.representable
    run = run_float(m, [], u, "float32", max_steps=2000)
    assert run["subnormal_step"] == pred.subnormal_step and run["zero_step"] is None


def test_no_constant_rate_is_refused():
    m = cups(3)
    with pytest.raises(ValueError, match="multiple"):
        eigen_relation(m, [], m.encode(marginal_adversarial_period()[:1]))


def test_periodic_renormalization_survives_below_the_underflow_length():
    # The hybrid: renormalize every K steps.  From a normalized state the word
    # underflows after 299 steps (float32), so K = 298 survives indefinitely and
    # K = 299 or more is zero at step 299 (the first renormalization comes too late).
    from fsmnet.proofs.pfsa_underflow import run_periodic

    m = cups(3)
    u = m.encode(joint_decay_period())
    assert run_periodic(m, u, 298, 20_000) is None
    assert run_periodic(m, u, 299, 20_000) == 299
    assert run_periodic(m, u, 1, 20_000) is None
