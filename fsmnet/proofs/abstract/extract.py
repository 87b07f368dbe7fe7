"""``certify NET`` without an automaton: learn one from the network with L*, then prove.

The network is AALpy's system under learning (:func:`fsmnet.nets.adapters.network_sul`,
a Moore machine over its labels).  The learned machine is minimized and
handed to :func:`~fsmnet.proofs.abstract.certify.certify`.  A failed proof
gives candidate words:

* "refuted": certify's word, already confirmed by the exact reference
  evaluator, on which the network and the hypothesis differ;
* "unknown" (no invariant closed): the sets that would not close are the
  orbits of short loops, so the candidates are p_q · u^n, p_q a shortest word
  to each hypothesis state q and u a word of length ≤ 2 (a slowly drifting
  loop goes wrong only after many repetitions); the first float disagreement
  of each is confirmed exactly.

A confirmed word is a counterexample to the *hypothesis*: it is fed back to
L* (the equivalence oracle tries it before random words) and learning starts
again, up to ``rounds`` hypotheses.  The last answer is reported;
``details["rounds"]`` says what each round learned and which word refuted it,
``details["hypothesis"]`` is the last hypothesis (a spec dict).

Learning is bounded by ``max_letters``, the letters L* may feed the network over
all its queries: a trained network that drifts is, on random words of length 40,
a machine of thousands of states, and L* would spend minutes (then hours, once a
counterexample is added) tabulating it.  Past the budget learning stops and the
verdict is "unknown", with the letters used and, if an earlier round finished,
its hypothesis; comparing against a known automaton (``certify SPEC NET``) asks
no learning at all.

Symbol indices are private to each alphabet: AALpy's machine comes back with
its symbols sorted by name, the network keeps its own order.  So the learned
machine is put in the network's order (:func:`~fsmnet.nets.alignment.align_alphabet`,
by name) before any index meets the network, candidate words travel as symbol
names, and a refutation is reported only after its word, by names, is run
once more through the hypothesis and the network's exact reference evaluator
and they differ (:func:`guard_refutation`).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from itertools import product
from typing import Any

import numpy as np

from fsmnet.automata import Automaton
from fsmnet.errors import BackendUnavailable
from fsmnet.nets import Network
from fsmnet.nets.alignment import align_alphabet

# Letters L* may feed the network in one learning (module docstring): about 2 s of
# queries on a small network; a 2-state flip-flop takes under 5 000.
MAX_LETTERS = 250_000


class LearningBudgetSpent(Exception):
    """L* asked the network for more than ``max_letters`` letters."""

    def __init__(self, letters: int) -> None:
        super().__init__(f"L* fed the network {letters} letters without settling")
        self.letters = letters


def learn(net: Network, *, extra_words: Sequence[Sequence[str]] = (), walks: int = 500,
          seed: int = 0, max_letters: int = MAX_LETTERS) -> Automaton:
    """A Moore machine learned from ``net`` by L* (aalpy), minimized, with its symbols
    in the network's order (so that its indices are the network's).

    ``extra_words`` (symbol names) are offered to L* as counterexamples before
    ``walks`` random words of length 1..40.  Raises :class:`LearningBudgetSpent`
    once L* has fed the network ``max_letters`` letters."""
    try:
        import random

        from aalpy.base import Oracle
        from aalpy.learning_algs import run_Lstar
        from aalpy.oracles import RandomWordEqOracle
    except ImportError:
        raise BackendUnavailable("certify without SPEC learns the automaton with aalpy: "
                                 "pip install aalpy (or the 'extract' extra)") from None
    from fsmnet.automata.convert import from_aalpy
    from fsmnet.nets.adapters import network_sul

    random.seed(seed)
    sul = network_sul(net)
    step = sul.step
    letters = [0]

    def counted_step(letter: Any) -> Any:
        letters[0] += 1
        if letters[0] > max_letters:
            raise LearningBudgetSpent(max_letters)
        return step(letter)

    sul.step = counted_step
    alphabet = list(net.symbols)
    base = RandomWordEqOracle(alphabet, sul, num_walks=walks, min_walk_len=1,
                              max_walk_len=40)

    class WithWords(Oracle):  # type: ignore[misc]
        """Try the confirmed words first, then random words."""

        def find_cex(self, hypothesis: Any) -> Any:
            for word in extra_words:
                hypothesis.reset_to_initial()
                self.sul.pre()
                for i, letter in enumerate(word):
                    if hypothesis.step(letter) != self.sul.step(letter):
                        self.sul.post()
                        return tuple(word[:i + 1])
                self.sul.post()
            return base.find_cex(hypothesis) if walks > 0 else None

    model = run_Lstar(alphabet, sul, WithWords(alphabet, sul), automaton_type="moore",
                      print_level=0)
    learned = from_aalpy(model, name=f"L*({net.name or 'network'})").minimal()
    return align_alphabet(learned, net)  # from_aalpy sorts the symbols by name


def access_words(automaton: Automaton) -> dict[int, list[int]]:
    """A shortest word (symbol indices) to every reachable state (breadth-first)."""
    assert automaton.initial is not None
    words: dict[int, list[int]] = {automaton.initial: []}
    queue = [automaton.initial]
    for q in queue:
        for a in range(automaton.n_symbols):
            t = int(automaton.delta[a, q])
            if t not in words:
                words[t] = words[q] + [a]
                queue.append(t)
    return words


def drift_candidates(net: Network, automaton: Automaton, *, max_period: int = 2,
                     power: int = 1024, limit: int = 128) -> list[list[str]]:
    """Shortest float-disagreeing prefixes of p_q · u^n (module docstring), as symbol
    names, shortest first; at most ``limit`` words are run.  ``automaton`` may list
    its symbols in any order (they are matched to the network's by name).
    Candidates only: confirm them exactly."""
    from fsmnet.nets.alignment import label_map

    automaton = align_alphabet(automaton, net)  # its indices are now the network's
    to_auto = np.array(label_map(net, automaton))
    out = np.asarray(automaton.output_ids)
    loops = [u for m in range(1, max_period + 1)
             for u in product(range(automaton.n_symbols), repeat=m)]
    found: list[list[str]] = []
    runs = 0
    for prefix in access_words(automaton).values():
        for u in loops:
            if runs >= limit:
                return sorted(found, key=len)
            runs += 1
            word = np.array(prefix + list(u) * (power // len(u)), dtype=np.int64)
            bad = np.flatnonzero(to_auto[net.label_trace(word)] != out[automaton.trace(word)])
            if len(bad):
                found.append(automaton.decode(int(x) for x in word[:int(bad[0])]))
    return sorted(found, key=len)


def _confirmed_drift(net: Network, automaton: Automaton) -> Any:
    """The first drift candidate on which the exact evaluator disagrees with
    ``automaton`` (any symbol order), or None."""
    from fsmnet.proofs.verifier import confirm

    automaton = align_alphabet(automaton, net)
    for word in drift_candidates(net, automaton):
        cex = confirm(net, automaton, [int(x) for x in automaton.encode(word)])
        if cex is not None:
            return cex
    return None


def rerun_by_names(net: Network, automaton: Automaton, word: Sequence[str]
                   ) -> tuple[Any, Any]:
    """(the automaton's label, the network's exact label) after ``word``, each run
    by symbol names through its own alphabet (no shared index anywhere)."""
    names = [str(x) for x in word]
    return automaton.output_of(names), net.output_of(names, exact=True)


def guard_refutation(net: Network, automaton: Automaton, result: Any) -> Any:
    """``result`` unchanged unless it says "refuted" on a word where the automaton and
    the network's exact reference evaluator agree (re-run by names): then "unknown",
    with the proved length of an exact bounded exploration and a note in details.

    A refutation is reported with the labels of this re-run, so the printed
    "automaton says X, network says Y" is what the two really say."""
    from dataclasses import replace

    from fsmnet.proofs.abstract.bounded import bounded_exploration
    from fsmnet.proofs.verifier import Counterexample

    def disagreement(word: Sequence[str]) -> Counterexample | None:
        expected, got = rerun_by_names(net, automaton, word)
        if type(got) is type(expected) and got == expected:
            return None
        return Counterexample(word=[str(x) for x in word], expected=expected, got=got)

    if result.verdict != "refuted" or result.counterexample is None:
        return result
    word = [str(x) for x in result.counterexample.word]
    cex = disagreement(word)
    if cex is not None:
        return replace(result, counterexample=cex)
    details = dict(result.details)
    details["note"] = (f"a {result.method} refutation by {' '.join(word)!r} was withdrawn: "
                       "re-run by symbol names, the automaton and the exact network agree "
                       "there")
    aligned = align_alphabet(automaton, net)
    bounded = bounded_exploration(net, aligned)
    if bounded.word is not None:  # a shortest disagreement, checked by names as above
        cex = disagreement(aligned.decode(bounded.word))
        if cex is not None:
            return replace(result, method="bounded", counterexample=cex,
                           proved_length=bounded.proved_length, details=details)
    details["bounded"] = (f"exact exploration by length, equal states merged: "
                          f"{bounded.pairs} distinct pairs"
                          + (" (closed: every length agrees exactly)" if bounded.closed
                             else ""))
    return replace(result, verdict="unknown", counterexample=None,
                   proved_length=bounded.proved_length, details=details)


def certify_extracted(net: Network, *, float32: bool, certificate: str | None,
                      network_path: str | None, start: float, rounds: int = 4,
                      walks: int = 500, seed: int = 0,
                      max_letters: int = MAX_LETTERS) -> Any:
    """Learn, certify, and re-learn with each confirmed counterexample (module docstring)."""
    from dataclasses import replace

    from fsmnet.proofs.abstract.certify import certify

    words: list[list[str]] = []
    trail: list[str] = []
    result: Any = None
    automaton: Automaton | None = None
    for _ in range(rounds):
        try:
            automaton = learn(net, extra_words=words, walks=walks, seed=seed,
                              max_letters=max_letters)
        except LearningBudgetSpent as spent:
            trail.append(f"stopped: L* fed the network {spent.letters} letters "
                         "without settling on a hypothesis")
            return _learning_stopped(net, result, automaton, trail, spent, start)
        result = certify(automaton, net, float32=float32, certificate=certificate,
                         network_path=network_path)
        cex = result.counterexample if result.verdict == "refuted" else None
        if result.verdict == "unknown":
            cex = _confirmed_drift(net, automaton)
            if cex is not None:
                result = replace(result, verdict="refuted", method="drift-search",
                                 counterexample=cex, proved_length=len(cex.word) - 1)
        note = f"{automaton.n_states} states: {result.verdict}"
        if cex is None:
            trail.append(note)
            break
        word = [str(x) for x in cex.word]
        trail.append(f"{note} by a word of length {len(word)} (confirmed exactly)")
        if word in words:  # L* saw it and kept the hypothesis: the float run agrees there
            trail.append("the float network agrees with the hypothesis on that word "
                         "(only the exact evaluator differs): reported, not learned")
            break
        words.append(word)
    assert automaton is not None
    result = guard_refutation(net, automaton, result)
    result.details["learned"] = f"{automaton.n_states} states (L*, aalpy)"
    result.details["rounds"] = trail
    result.details["hypothesis"] = automaton.to_dict()
    return replace(result, seconds=time.perf_counter() - start)


def _learning_stopped(net: Network, result: Any, automaton: Automaton | None,
                      trail: list[str], spent: LearningBudgetSpent, start: float) -> Any:
    """The "unknown" of a learning that spent its budget (module docstring).  An earlier
    round's result is kept if it was "unknown"; its refutation refuted only that
    hypothesis, so it is not reported as the verdict."""
    from fsmnet.proofs.abstract.certify import CertifyResult

    details: dict[str, Any] = {}
    proved_length = None
    if automaton is not None and result is not None:
        details["hypothesis"] = automaton.to_dict()
        details["learned"] = f"{automaton.n_states} states (L*, aalpy), before the budget"
        proved_length = result.proved_length if result.verdict == "unknown" else None
    details["note"] = (f"learning stopped after {spent.letters} letters: the network does "
                       "not behave like a small automaton on random words; compare it "
                       "with a known one instead (certify SPEC NET)")
    details["rounds"] = trail
    return CertifyResult("unknown", "extraction", proved_length=proved_length,
                         seconds=time.perf_counter() - start, details=details)
