"""A small, fast version of bench/mutants.py: for every architecture with a
construction, a few mutants of a compiled network; no wrong proof allowed.

The independent source for "did the mutant's behaviour change?" is brute
force over every word up to a length bound with the exact semantics (no
merging of states, unlike the verifier's product exploration).
"""

import importlib.util
import itertools
import pathlib

import numpy as np
import pytest

import fsmnet
from fsmnet.archs import ids as registered_ids
from fsmnet.automata import Automaton, load
from fsmnet.errors import FsmnetError
from fsmnet.nets.alignment import align_alphabet
from fsmnet.proofs.verifier import verify

_spec = importlib.util.spec_from_file_location(
    "bench_mutants", pathlib.Path(__file__).parents[1] / "bench" / "mutants.py")
bench = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench)

# Small families that together reach every construction: parity and
# modcount:3 (groups), flipflop and starfree (aperiodic, for minmax-scalar),
# and "at least two a's" (commutative and aperiodic, for bilinear-positive-diag).
AT_LEAST_TWO_AS = Automaton(delta=np.array([[1, 2, 2], [0, 1, 2]]), symbols=("a", "b"),
                            initial=0, outputs=(False, False, True))
FAMILIES = ("parity", "modcount:3", "flipflop", "starfree", AT_LEAST_TWO_AS)


def _networks(arch):
    for family in FAMILIES:
        automaton = load(family).minimal()
        try:
            net = fsmnet.compile(automaton, arch)
        except FsmnetError:
            continue
        yield align_alphabet(automaton, net), net


@pytest.mark.parametrize("arch", sorted(registered_ids()))
def test_no_wrong_proof(arch) -> None:
    # The first family that compiles is enough: the mutants, not the families, vary.
    nets = list(itertools.islice(_networks(arch), 1))
    if not nets:
        pytest.skip(f"{arch}: no construction for these families in this version")
    rng = np.random.default_rng(sorted(registered_ids()).index(arch))
    checked = 0
    for automaton, net in nets:
        for _kind, desc, mutant in bench.mutants(net, rng, per_kind=2):
            if mutant is None:
                continue  # rejected by validation: not a network at all
            result = verify(automaton, mutant, max_states=100)
            diff = bench.first_difference(mutant, automaton, 6)
            if result.verdict == "proved":
                assert diff is None, f"SOUNDNESS BUG: {arch} {desc} proved, differs on {diff}"
            elif result.verdict == "refuted":
                word = list(automaton.encode(result.counterexample.word))
                got = mutant.labels[int(mutant.label_trace(word, exact=True)[-1])]
                assert got == result.counterexample.got
                assert automaton.output(automaton.run(word)) == result.counterexample.expected
                if len(word) <= 6:  # then brute force sees a difference too
                    assert diff is not None
            checked += 1
    assert checked > 0
