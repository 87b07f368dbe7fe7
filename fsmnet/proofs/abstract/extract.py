"""``certify NET`` without an automaton: learn one from the network with L*, then prove.

The network is AALpy's system under learning (:func:`fsmnet.nets.adapters.network_sul`,
a Moore machine over its labels).  The learned machine is minimized and
handed to :func:`~fsmnet.proofs.abstract.certify.certify`.  When that refutes
it, the confirmed word shows that the hypothesis (not necessarily the
network) is wrong: learning is run again with that word in the equivalence
oracle's test set, up to ``rounds`` times; the last answer is reported with
the learned automaton named in ``details``.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from fsmnet.automata import Automaton
from fsmnet.errors import BackendUnavailable
from fsmnet.nets import Network


def learn(net: Network, *, extra_words: Sequence[Sequence[str]] = (), walks: int = 500,
          seed: int = 0) -> Automaton:
    """A Moore machine learned from ``net`` by L* (aalpy), minimized."""
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
            return base.find_cex(hypothesis)

    model = run_Lstar(alphabet, sul, WithWords(alphabet, sul), automaton_type="moore",
                      print_level=0)
    return from_aalpy(model, name=f"L*({net.name or 'network'})").minimal()


def certify_extracted(net: Network, *, float32: bool, certificate: str | None,
                      network_path: str | None, start: float, rounds: int = 3) -> Any:
    """Learn, certify, and re-learn with each confirmed counterexample."""
    from dataclasses import replace

    from fsmnet.proofs.abstract.certify import certify

    words: list[list[str]] = []
    result: Any = None
    for _ in range(rounds):
        automaton = learn(net, extra_words=words)
        result = certify(automaton, net, float32=float32, certificate=certificate,
                         network_path=network_path)
        result.details["learned"] = f"{automaton.n_states} states (L*, aalpy)"
        if result.verdict != "refuted":
            break
        words.append(list(result.counterexample.word))
    return replace(result, seconds=time.perf_counter() - start)
