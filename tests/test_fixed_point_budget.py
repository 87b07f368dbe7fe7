"""fixed-point between 17 and 32 coordinates: quotients first, and a step budget.

Independent references: the group orders for the quotient sizes (C_18 = C_2 x C_9,
so 2 and 9 classes); the exact product proof; the exact reference evaluator against
the automaton on random words; and, for the budget, a second compile of the same
automaton (the step count must not depend on anything but the input).
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from trace_oracle import assert_follows_automaton

import fsmnet
from fsmnet.constructions.fixed_point import compile_fixed_point
from fsmnet.constructions.fixed_point_budget import StepBudget
from fsmnet.errors import NotExpressible, SpecError
from fsmnet.proofs.verifier import verify


def test_a_mid_sized_group_is_split_into_its_quotients():
    # 18 states and a sign channel: 19 coordinates, above the 16 where a whole
    # encoding's tuning is tried first.
    net = fsmnet.compile("cyclic:18,gens", "fixed-point")
    assert net.options["construction"] == "subdirect split"
    assert sorted(net.options["quotients"]) == [2, 9]  # C_18 = C_2 x C_9
    a = fsmnet.load("cyclic:18,gens").minimal()
    result = verify(a, net)
    assert result.verdict == "proved" and result.details["network_states"] == 18
    rng = np.random.default_rng(1)
    assert_follows_automaton(net, a, rng.integers(0, a.n_symbols, 300).tolist())


def test_the_budget_is_counted_in_steps_so_two_compiles_spend_the_same():
    spent = []
    for _ in range(2):
        budget = StepBudget(total=60_000)
        compile_fixed_point(fsmnet.load("modadd:5").minimal(), tuning_steps=budget)
        spent.append(budget.total - budget.left)
    assert spent[0] == spent[1] > 0


def test_a_spent_budget_refuses_and_says_how_to_allow_more():
    budget = StepBudget(total=50)
    with pytest.raises(NotExpressible, match=r"spent its 50 Adam steps.*tuning_steps=N"):
        compile_fixed_point(fsmnet.load("symmetric:3").minimal(), tuning_steps=budget)
    assert budget.spent


def test_a_budget_shared_by_resets_and_permutations_is_honoured():
    # count mod 3 with a clear letter: the permutations-and-resets construction tunes too
    from fsmnet.automata import Automaton

    a = Automaton(delta=np.array([[1, 2, 0], [0, 0, 0]]), symbols=("a", "r"), initial=0,
                  outputs=(0, 1, 2))
    with pytest.raises(NotExpressible, match="permutations and resets.*spent its 5 Adam"):
        compile_fixed_point(a, tuning_steps=5)


@pytest.mark.parametrize("bad", [0, -3, True, 2.5, "many"])
def test_a_bad_budget_is_a_spec_error_naming_the_field(bad):
    with pytest.raises(SpecError, match="tuning_steps") as info:
        compile_fixed_point(fsmnet.load("parity").minimal(), tuning_steps=bad)
    assert info.value.field == "tuning_steps"


def test_the_cli_refuses_a_bad_budget_with_one_line(tmp_path):
    out = tmp_path / "p.safetensors"
    proc = subprocess.run([sys.executable, "-m", "fsmnet", "compile", "parity", "--arch",
                           "fixed-point", "--option", "tuning_steps=0", "-o", str(out)],
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "tuning_steps" in lines[0] and "Traceback" not in proc.stderr
    assert not out.exists()


def test_progress_is_reported_from_a_context_and_not_recorded():
    from fsmnet.constructions.fixed_point_budget import reporting

    seen: list[tuple[int, int]] = []
    with reporting(lambda spent, total: seen.append((spent, total))):
        net = fsmnet.compile("modadd:5", "fixed-point")
    assert seen and all(total == 100_000 for _, total in seen)
    spent = [s for s, _ in seen]
    assert spent == sorted(spent) and spent[0] == 250
    # outside the context nothing is called, and the options do not mention it
    assert "reporting" not in str(net.options)
    seen.clear()
    fsmnet.compile("parity", "fixed-point")
    assert seen == []
