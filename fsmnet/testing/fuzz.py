"""``fuzz``: Hypothesis-driven search for a word on which a network and an automaton differ.

Unlike :func:`fsmnet.proofs.verifier.verify`, fuzzing never proves anything: it
runs a budget of words and either reports a *confirmed* counterexample or says
"no counterexample in N examples".

How a word is judged
--------------------
1. The network runs on the word with the **float** reference evaluator (fast),
   and its label after every prefix is compared with the automaton's.
2. A float disagreement is only a candidate: the prefix that ends there is
   re-run with the **exact** reference evaluator
   (:func:`fsmnet.proofs.verifier.confirm`).  Only a confirmed prefix makes
   the word "interesting" to Hypothesis.  Float-only disagreements (rounding
   that the exact semantics does not share) are counted and reported apart.

Because the exact confirmation is part of the condition Hypothesis shrinks
against, the shrunk word is still a confirmed counterexample; its first
confirmed prefix is what gets reported.
"""

from __future__ import annotations

import random
import secrets
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from hypothesis import HealthCheck, Phase, find, settings
from hypothesis.errors import NoSuchExample, Unsatisfiable

from fsmnet.automata import Automaton, load
from fsmnet.errors import SpecError
from fsmnet.nets import Network
from fsmnet.nets.alignment import align_alphabet, label_map
from fsmnet.proofs.verifier import Counterexample, confirm
from fsmnet.testing.strategies import words_for

MAX_FLOAT_CANDIDATES = 3
"""Float disagreements re-run exactly per word (the first few along the word)."""


@dataclass(frozen=True)
class FuzzResult:
    """The ``fuzz --json`` result.

    Attributes
    ----------
    verdict
        ``"refuted"`` (a confirmed counterexample) or ``"no-counterexample"``.
        Never "proved": a budget of words is not a proof.
    examples, max_length, seed
        The budget and the seed that reproduces the run.
    counterexample
        The shrunk word, the automaton's and the network's label, or None.
    words_run
        Words the condition was evaluated on (generation and shrinking).
    float_only
        Float disagreements that the exact evaluator did not confirm.
    """

    verdict: str
    examples: int
    max_length: int
    seed: int
    counterexample: Counterexample | None
    words_run: int = 0
    float_only: int = 0
    details: dict[str, Any] = field(default_factory=dict)

    @property
    def message(self) -> str:
        if self.counterexample is None:
            return f"no counterexample in {self.examples} examples (not a proof)"
        return "confirmed counterexample"


class _Judge:
    """The condition Hypothesis searches with: float run, then exact confirmation."""

    def __init__(self, net: Network, automaton: Automaton) -> None:
        self.net = net
        self.automaton = automaton
        self.to_auto = np.array(label_map(net, automaton), dtype=np.int64)
        self.out_ids = np.asarray(automaton.output_ids, dtype=np.int64)
        self.calls = 0
        self.float_only: set[tuple[int, ...]] = set()

    def first_confirmed(self, word: list[int]) -> Counterexample | None:
        """The counterexample at the first confirmed disagreeing prefix, or None."""
        float_labels = self.to_auto[self.net.label_trace(word)]
        auto_labels = self.out_ids[self.automaton.trace(word)]
        for t in np.flatnonzero(float_labels != auto_labels)[:MAX_FLOAT_CANDIDATES]:
            prefix = word[:int(t)]
            cex = confirm(self.net, self.automaton, prefix)
            if cex is not None:
                return cex
            self.float_only.add(tuple(prefix))
        return None

    def __call__(self, word: list[int]) -> bool:
        self.calls += 1
        return self.first_confirmed(word) is not None


def fuzz(spec: Any, net: Network, *, examples: int = 200, max_length: int = 50,
         seed: int | None = None) -> FuzzResult:
    """Search ``examples`` random words (up to ``max_length`` symbols) for a counterexample.

    Parameters
    ----------
    spec
        Anything :func:`fsmnet.load` accepts; it needs an initial state and outputs.
    net
        The network; its alphabet must be the automaton's (any order).
    examples
        Hypothesis's ``max_examples`` for the search phase (>= 1).
    max_length
        Longest word generated (>= 0).
    seed
        Seed of the search; a fresh one is drawn (and reported) when None.

    Returns
    -------
    FuzzResult
        ``"refuted"`` with a shrunk, exactly confirmed word, or
        ``"no-counterexample"``.

    Raises
    ------
    SpecError
        For a semiautomaton, different alphabets, or a bad budget.
    """
    if not isinstance(examples, int) or examples < 1:
        raise SpecError("the number of examples must be a positive integer",
                        source="<fuzz>", field="examples", value=examples)
    if not isinstance(max_length, int) or max_length < 0:
        raise SpecError("the maximum word length must be a non-negative integer",
                        source="<fuzz>", field="max_length", value=max_length)
    automaton = load(spec)
    if automaton.is_semiautomaton:
        raise SpecError("fuzzing needs an initial state and outputs",
                        source=automaton.name or "<automaton>", field="initial_state",
                        value=automaton.initial)
    automaton = align_alphabet(automaton, net)
    if seed is None:
        seed = secrets.randbelow(2**32)
    judge = _Judge(net, automaton)
    config = settings(max_examples=examples, database=None, deadline=None,
                      phases=(Phase.generate, Phase.shrink),
                      suppress_health_check=list(HealthCheck))
    try:
        word = find(words_for(automaton, max_length=max_length), judge, settings=config,
                    random=random.Random(seed))
    except (NoSuchExample, Unsatisfiable):
        return FuzzResult("no-counterexample", examples, max_length, seed, None,
                          judge.calls, len(judge.float_only))
    cex = judge.first_confirmed(list(word))
    # ``find`` returns a word the condition accepted, and the condition is
    # deterministic, so the confirmation cannot fail here.
    assert cex is not None
    return FuzzResult("refuted", examples, max_length, seed, cex, judge.calls,
                      len(judge.float_only), {"shrunk_word_length": len(word)})
