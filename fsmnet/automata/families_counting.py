"""Counting and arithmetic families: parity, counting mod m, modular addition
and arithmetic, random state machines.

These reproduce the synthetic benchmarks of the bilinear-RNN paper
(arXiv 2505.21749, seeds 000/001): parity, modular addition, modular
arithmetic and random state machines.  The paper summaries do not pin the
tasks down symbol by symbol, so each builder's docstring states the exact
definition used here; ``docs/families.md`` repeats them.
"""

from __future__ import annotations

import numpy as np

from fsmnet.automata.automaton import Automaton
from fsmnet.automata.families_common import check_size

_OPS = ("+", "-", "*")


def parity(*, spec: str) -> Automaton:
    """Parity (bilinear-RNN paper, arXiv 2505.21749, "parity" ablation).

    Acceptor over ``{"0", "1"}`` that accepts the words with an **even**
    number of ``"1"`` (the empty word included).  ``"0"`` is the identity
    letter: keeping it makes the benchmark a real sequence task and gives the
    monoid an identity generator, as in the paper's bit-string version.
    States ``even`` (initial, accepting) and ``odd``; minimal.
    """
    delta = np.array([[0, 1], [1, 0]], dtype=np.int64)
    return Automaton(delta=delta, symbols=("0", "1"), states=("even", "odd"), initial=0,
                     outputs=(True, False), name=spec,
                     description="accept words over {0,1} with an even number of 1s")


def modcount(*, m: int, spec: str) -> Automaton:
    """Counting modulo m (bilinear-RNN paper, arXiv 2505.21749; docs/families.md).

    Moore machine over ``{"0", "1"}``; the state and the output is the number
    of ``"1"`` read so far, modulo ``m`` (outputs are the ints ``0..m-1``).
    ``modcount:2`` is :func:`parity` with integer outputs.  Minimal.
    """
    check_size(2, m, spec=spec)
    q = np.arange(m, dtype=np.int64)
    delta = np.stack([q, (q + 1) % m])
    return Automaton(delta=delta, symbols=("0", "1"), states=[str(i) for i in range(m)],
                     initial=0, outputs=list(range(m)), name=spec,
                     description=f"number of 1s read so far, modulo {m}")


def atleast(*, k: int, spec: str) -> Automaton:
    """Threshold counting: accept words over ``{"0", "1"}`` with at least k ``"1"``.

    Commutative and star-free, so positive-diagonal (Mamba-like) networks can
    track it (docs/constructions.md, the commutative construction with period 1): the
    hierarchy's example of a task on which that class succeeds.  Minimal,
    k + 1 states.
    """
    check_size(2, k + 1, spec=spec)
    q = np.arange(k + 1, dtype=np.int64)
    delta = np.stack([q, np.minimum(q + 1, k)])
    return Automaton(delta=delta, symbols=("0", "1"), states=[str(i) for i in range(k + 1)],
                     initial=0, outputs=[bool(i >= k) for i in range(k + 1)], name=spec,
                     description=f"at least {k} 1s")


def counter(*, k: int, spec: str) -> Automaton:
    """Capped up/down counter: ``"u"`` adds 1 up to k, ``"d"`` takes 1 down to 0.

    Moore machine; the output is the count 0..k.  Aperiodic (both letters are
    monotone maps of the chain 0..k, and the monoid of monotone maps of a chain
    is aperiodic), but with no congruence, no threshold order and one cycle:
    the MinMax scalar cascade's known hard case (docs/constructions-minmax.md).
    Minimal, k + 1 states.
    """
    check_size(2, k + 1, spec=spec)
    q = np.arange(k + 1, dtype=np.int64)
    delta = np.stack([np.minimum(q + 1, k), np.maximum(q - 1, 0)])
    return Automaton(delta=delta, symbols=("u", "d"), states=[str(i) for i in range(k + 1)],
                     initial=0, outputs=list(range(k + 1)), name=spec,
                     description=f"count of u minus d, kept within 0..{k}")


def dyck(*, k: int, spec: str) -> Automaton:
    """Bounded Dyck language: balanced ``"("``/``")"`` words of depth at most k.

    Acceptor; state = current depth 0..k, plus a rejecting sink entered by a
    ``")"`` at depth 0 or a ``"("`` at depth k.  Accepts the balanced words
    (depth 0, sink never entered).  Dyck-(1, k) of the bounded-hierarchy
    literature (Hewitt et al., arXiv 2010.07515).  Aperiodic; minimal, k + 2 states.
    """
    check_size(2, k + 2, spec=spec)
    sink = k + 1
    q = np.arange(k + 2, dtype=np.int64)
    up = np.where(q < k, q + 1, sink)
    down = np.where((q > 0) & (q < sink), q - 1, sink)
    return Automaton(delta=np.stack([up, down]), symbols=("(", ")"),
                     states=[*(str(i) for i in range(k + 1)), "sink"], initial=0,
                     outputs=[bool(i == 0) for i in range(k + 2)], name=spec,
                     description=f"balanced brackets of depth at most {k}")


def modadd(*, m: int, spec: str) -> Automaton:
    """Modular addition (bilinear-RNN paper, arXiv 2505.21749, main benchmark).

    Symbols ``"0".."m-1"``; the output after each prefix is the sum of the
    digits read so far modulo ``m`` (ints ``0..m-1``).  The word problem of
    the cyclic group Z_m with every element as a letter.  Minimal.
    """
    check_size(m, m, spec=spec)
    q = np.arange(m, dtype=np.int64)
    delta = (q[None, :] + q[:, None]) % m  # delta[a, q] = q + a
    names = [str(i) for i in range(m)]
    return Automaton(delta=delta, symbols=names, states=names, initial=0,
                     outputs=list(range(m)), name=spec,
                     description=f"running sum of the digits modulo {m}")


def modarith(*, m: int, spec: str) -> Automaton:
    """Modular arithmetic (bilinear-RNN paper, arXiv 2505.21749).

    Symbols: the digits ``"0".."m-1"`` and the operators ``"+"``, ``"-"``,
    ``"*"``.  The word is an expression evaluated **left to right** (no
    precedence) modulo ``m``; the output is the current value (an int).
    Total behaviour on every word, like a pocket calculator:

    - the value starts at 0 with no pending operator;
    - an operator becomes the pending operator (a later operator replaces an
      earlier pending one: ``3+*2`` = 3·2);
    - a digit ``d`` with a pending operator ``o`` sets value := value o d and
      clears the operator;
    - a digit with no pending operator (at the start, or right after a digit)
      **starts a new expression**: value := d.

    So on the benchmark's well-formed words ``d op d op d ...`` it is plain
    left-to-right evaluation, and the output after an operator is the value
    so far.  The raw state set is (value, pending ∈ {none, +, -, *}); the
    equivalent raw states are merged so that the machine is minimal: "0 +"
    and "1 *" behave as "0" and "1" with nothing pending, and for m = 2
    ``-`` is ``+``.  That leaves 4m - 2 states (4 for m = 2), named ``"v"``
    (nothing pending) or ``"v+"``, ``"v-"``, ``"v*"``.
    """
    check_size(m + len(_OPS), 4 * m, spec=spec)
    kinds = ("", *_OPS)  # pending operator; "" = none
    n = 4 * m  # state k*m + v holds value v with pending operator kinds[k]
    v = np.arange(m, dtype=np.int64)
    d = v[:, None]  # digits along the first axis: results are [digit, value]
    digit_results = (
        np.broadcast_to(d, (m, m)),  # nothing pending: a new expression starts
        (v[None, :] + d) % m,
        (v[None, :] - d) % m,
        (v[None, :] * d) % m,
    )
    symbols = [str(i) for i in range(m)] + list(_OPS)
    delta = np.empty((m + len(_OPS), n), dtype=np.int64)
    for k, res in enumerate(digit_results):
        delta[:m, k * m:(k + 1) * m] = res  # lands in "nothing pending" (k = 0)
        for j in range(len(_OPS)):
            delta[m + j, k * m:(k + 1) * m] = (j + 1) * m + v
    # Merge the raw states that are equivalent, so that the result is minimal
    # without running a partition refinement (which takes seconds for m = 1000):
    # "0 +" acts like "nothing pending" (0 + d = d), so does "1 *" (1 * d = d),
    # and modulo 2 subtracting is adding.  tests/test_families.py checks
    # is_minimal and compares with an independent evaluator.
    alias = np.arange(n, dtype=np.int64)
    alias[1 * m + 0] = 0
    alias[3 * m + 1] = 1
    if m == 2:
        alias[2 * m:3 * m] = alias[1 * m:2 * m]
    keep = np.flatnonzero(alias == np.arange(n))
    renumber = np.full(n, -1, dtype=np.int64)
    renumber[keep] = np.arange(len(keep))
    table = renumber[alias[delta[:, keep]]]
    states = [f"{x}{kind}" for kind in kinds for x in range(m)]
    outputs = [x for _ in kinds for x in range(m)]
    return Automaton(delta=table, symbols=symbols, states=[states[q] for q in keep],
                     initial=0, outputs=[outputs[q] for q in keep], name=spec,
                     description=f"left-to-right evaluation of digits and + - * modulo {m}")


def random_machine(*, n: int, k: int, seed: int, classes: int | str | None,
                   spec: str) -> Automaton:
    """Random state machine (bilinear-RNN paper, arXiv 2505.21749).

    ``n`` states ``"q0".."q{n-1}"``, ``k`` symbols ``"0".."k-1"``, initial
    state ``q0``.  With ``rng = numpy.random.default_rng(seed)``, first
    ``delta = rng.integers(0, n, size=(k, n))`` (each transition uniform and
    independent), then the outputs:

    - no ``classes``: an acceptor, ``rng.integers(0, 2, size=n)`` as booleans;
    - ``classes=c``: Moore labels ``rng.integers(0, c, size=n)`` (ints);
    - ``classes=state``: each state outputs its own index (predict the state,
      as in the paper's task).

    The machine is kept as drawn: it need not be minimal, nor have every state
    reachable (call :meth:`Automaton.minimal` for that).  Equal parameters
    give the same machine on every platform (numpy's PCG64 stream).
    """
    check_size(k, n, spec=spec)
    rng = np.random.default_rng(seed)
    delta = rng.integers(0, n, size=(k, n), dtype=np.int64)
    outputs: list[bool] | list[int]
    if classes is None:
        outputs = [bool(b) for b in rng.integers(0, 2, size=n)]
        what = "random accept/reject"
    elif classes == "state":
        outputs = list(range(n))
        what = "output = state index"
    else:
        outputs = [int(c) for c in rng.integers(0, int(classes), size=n)]
        what = f"random labels 0..{int(classes) - 1}"
    return Automaton(delta=delta, symbols=[str(a) for a in range(k)],
                     states=[f"q{i}" for i in range(n)], initial=0, outputs=outputs,
                     name=spec,
                     description=f"random machine: {n} states, {k} symbols, seed {seed}, {what}")
