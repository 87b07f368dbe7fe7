"""Float32 counterexamples: words on which the float32 reference execution disagrees
with the automaton, each confirmed by an independent float32 run.

``certify --float32`` claims the float32 run (:mod:`fsmnet.nets.float32`) is
right on every word, so a word where that run is wrong, or overflows, refutes
the claim even when the exact run is right (a bias of 1 − 2⁻³⁰ that ties with 1
in float32 fails on the empty word).  Candidates come from the reference's fast
loop: every word up to the length where |Σ|^L passes ``short_words``, the
repetitions u^n of every u with |u| ≤ 2 (n·|u| ≤ 4096: drifting loops), and
random words.  A candidate is reported only if a second implementation agrees:
the standard-library replay of :mod:`fsmnet.proofs.checker.float32_replay` for
linear models, the checker's exact max-min step on the float32-rounded model for
``minmax-dense`` (selection is exact).  Other architectures get no float32
refutation here (their exact refutations still apply).
"""

from __future__ import annotations

from itertools import product
from typing import Any

import numpy as np

from fsmnet.automata import Automaton
from fsmnet.nets import Network
from fsmnet.nets.alignment import label_map
from fsmnet.nets.float32 import OVERFLOW, float32_trace

OVERFLOW_LABEL = "overflow (inf or NaN in float32)"


def _candidates(n_symbols: int, short_words: int, random_words: int, length: int,
                seed: int) -> list[list[int]]:
    words: list[list[int]] = [[]]
    size = 1
    while size * n_symbols <= short_words:
        size *= n_symbols
        words = [list(w) for w in product(range(n_symbols), repeat=len(words[-1]) + 1)]
    loops = [list(u) * (4096 // len(u)) for k in (1, 2) for u in product(range(n_symbols),
                                                                        repeat=k)]
    rng = np.random.default_rng(seed)
    walks = [rng.integers(0, n_symbols, length).tolist() for _ in range(random_words)]
    return words + loops + walks


def _confirm(net: Network, word: list[int]) -> int | None:
    """The float32 label after ``word`` by a second implementation (None: none here)."""
    from fsmnet.nets.linear import LinearRecurrence
    from fsmnet.proofs.certificate_models import linear_model
    from fsmnet.proofs.checker.float32_replay import replay_labels

    if net.arch == "minmax-dense":
        return _minmax_label(net, word)
    if not isinstance(net.semantics, LinearRecurrence):
        return None  # no second implementation (bilinear-block: a product of blocks)
    try:
        model = net.cached("certificate_linear_model", lambda: linear_model(net))
    except TypeError:  # irrational exact weights (a cyclotomic header): no rational model
        return None
    return replay_labels(model, word)[-1]


def _minmax_label(net: Network, word: list[int]) -> int:
    from fsmnet.proofs.checker.float32_replay import f32
    from fsmnet.proofs.checker.minmax_box import _maxmin_apply

    p = {k: np.vectorize(lambda x: f32(float(x)))(v).tolist() for k, v in net.params.items()}
    x = p["x0"]
    for a in word:
        x = _maxmin_apply(p["R"][a], p["s"][a], x)
    scores = [max(min(w, v) for w, v in zip(row, x)) for row in p["readout"]]
    return max(range(len(scores)), key=lambda c: (scores[c], -c))


def float32_refutation(net: Network, automaton: Automaton, *, seed: int = 0,
                       short_words: int = 2048, random_words: int = 32,
                       length: int = 2000) -> Any:
    """A confirmed float32 counterexample (shortest prefix of each candidate), or None."""
    to_auto = np.array([*label_map(net, automaton), -1])
    outputs = automaton.output_ids
    for word in _candidates(automaton.n_symbols, short_words, random_words, length, seed):
        got = float32_trace(net, word)
        want = outputs[automaton.trace(np.asarray(word, dtype=np.int64))]
        bad = np.flatnonzero(to_auto[got] != want)
        if len(bad):
            cex = confirmed_float32(net, automaton, word[:int(bad[0])])
            if cex is not None:
                return cex
    return None


def confirmed_float32(net: Network, automaton: Automaton, word: list[int]) -> Any:
    """A Counterexample if the independent float32 run of ``word`` and the reference both
    disagree with the automaton there, with the same label; else None."""
    from fsmnet.proofs.verifier import Counterexample

    label = _confirm(net, word)
    if label is None or label != int(float32_trace(net, word)[-1]):
        return None  # not confirmed independently: never reported
    to_auto = [*label_map(net, automaton), -1]
    if to_auto[label] == automaton.output_ids[automaton.run(word)]:
        return None
    expected = automaton.output(automaton.run(word))
    shown = OVERFLOW_LABEL if label == OVERFLOW else net.labels[label]
    return Counterexample(word=automaton.decode(word), expected=expected, got=shown)
