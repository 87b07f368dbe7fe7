"""Fixed-point networks for partially ordered automata: merges carried *behaviourally*.

A fixed-point transition A = (I + (Λ⁻¹ − I)Q)⁻¹ is invertible, so it cannot map
two states to one exactly (:mod:`fsmnet.constructions.fixed_point_reset` carries
resets by a contraction).  For an automaton whose transition graph has no cycle
but self-loops (a *partially ordered* automaton: every letter moves a state
"down" a fixed order or leaves it; the latch, "at least k", "contains the factor
ab", every acyclic star-free test), one can instead keep a faint copy of the
state a letter leaves.  With one-hot states e_q,

    A_σ e_q = e_{σ(q)} + ε e_q   if σ(q) ≠ q,        A_σ e_q = e_q   otherwise.

In a topological order of the states A_σ is triangular with diagonal entries 1
(fixed states) and ε (moved ones), so it is invertible.

**Why the labels stay right** (the theorem the construction rests on; the proof
of each network is still the verifier's invariant, see below).  Write the state
as a sum of weighted *threads*: h0 = e_{q0} is one thread of weight 1 (the true
run), and a step moves every thread along σ; a thread that moves leaves a child
of weight ε·(its weight) behind at its old state.  All entries stay ≥ 0.  In a
partially ordered automaton a thread moves at most n − 1 times in its life (each
move goes down the order), so it has at most n − 1 children, and the true run
keeps weight 1.  The total weight of all other threads is therefore at most
Σ_{d≥1} ((n − 1)ε)^d = (n − 1)ε / (1 − (n − 1)ε), which is < 1 for
ε = 1/(2n).  The readout sums the entries of each label, so the true label
scores ≥ 1 and every other label < 1: the argmax is the automaton's output after
every word, with no length limit.

**Convergence of the fixed-point iteration.**  With Λ = λI for every letter,
Q = (λ/(1 − λ))(A⁻¹ − I) and the iteration's error matrix is M = I − λA⁻¹,
triangular in the same order, with eigenvalues 1 − λ (fixed states) and 1 − λ/ε
(moved ones).  λ = 2ε/(1 + ε) balances the two: spectral radius
(1 − ε)/(1 + ε) < 1 for every letter (n = 3: 5/7; n = 5: 9/11).

The network's exact states never close (threads keep being spawned), so
``fsmnet verify`` proves it with a cone invariant (one polyhedral cone per
automaton state, inclusions checked in Fractions, a certificate the stdlib
checker re-checks).
"""

from __future__ import annotations

from fractions import Fraction

from fsmnet.automata import Automaton
from fsmnet.constructions.fixed_point_reset import rational_network
from fsmnet.errors import NotExpressible
from fsmnet.nets import Network

__all__ = ["compile_fixed_point_acyclic", "cycle_of", "default_epsilon", "merges", "why_not"]


def cycle_of(automaton: Automaton) -> list[int] | None:
    """A cycle of two or more states in the transition graph (self-loops do not
    count), as a list of states; None when the automaton is partially ordered."""
    n = automaton.n_states
    succ = [sorted({int(row[q]) for row in automaton.delta} - {q}) for q in range(n)]
    colour = [0] * n  # 0 new, 1 on the path, 2 done
    for root in range(n):
        if colour[root]:
            continue
        path, stack = [root], [iter(succ[root])]
        colour[root] = 1
        while stack:
            nxt = next(stack[-1], None)
            if nxt is None:
                colour[path.pop()] = 2
                stack.pop()
            elif colour[nxt] == 1:
                return path[path.index(nxt):]
            elif colour[nxt] == 0:
                colour[nxt] = 1
                path.append(nxt)
                stack.append(iter(succ[nxt]))
    return None


def merges(automaton: Automaton) -> bool:
    """Whether some letter maps two states to one."""
    return any(len(set(row.tolist())) < automaton.n_states for row in automaton.delta)


def _cycle_text(automaton: Automaton, cycle: list[int]) -> str:
    names = " -> ".join(str(automaton.states[q]) for q in [*cycle, cycle[0]])
    return f"the transitions have the cycle {names}"


def why_not(automaton: Automaton) -> str | None:
    """Why the construction is not the one for this automaton, or None: some letter
    must merge two states (without a merge the permutation constructions apply) and
    the transition graph must have no cycle."""
    if not merges(automaton):
        return "no letter maps two states to one"
    cycle = cycle_of(automaton)
    return None if cycle is None else _cycle_text(automaton, cycle)


def default_epsilon(n_states: int) -> Fraction:
    """ε = 1/(2n): the weight bound of the module docstring is then < 1."""
    return Fraction(1, 2 * max(1, n_states))


def _inverse(moved: list[bool], target: list[int], eps: Fraction) -> list[list[Fraction]]:
    """A⁻¹ for A e_q = e_{σ(q)} + ε e_q (moved q), e_q (fixed q), by back-substitution
    down the order: A⁻¹ e_q = (e_q − A⁻¹ e_{σ(q)}) / ε for a moved q."""
    n = len(moved)
    cols: list[list[Fraction] | None] = [None] * n

    def column(q: int) -> list[Fraction]:
        chain = []
        while cols[q] is None and moved[q]:
            chain.append(q)
            q = target[q]
        if cols[q] is None:  # a fixed state
            cols[q] = [Fraction(int(i == q)) for i in range(n)]
        for p in reversed(chain):  # cols[target[p]] is known by now
            below = cols[target[p]]
            assert below is not None
            cols[p] = [(Fraction(int(i == p)) - below[i]) / eps for i in range(n)]
        done = cols[chain[0] if chain else q]
        assert done is not None
        return done

    by_col = [column(q) for q in range(n)]
    return [[by_col[j][i] for j in range(n)] for i in range(n)]


def compile_fixed_point_acyclic(automaton: Automaton, *, epsilon: Fraction | None = None
                                ) -> Network:
    """The construction above, for a minimal partially ordered automaton.

    Raises
    ------
    NotExpressible
        When the transition graph has a cycle (named), or when ε is not below
        1/(2(n − 1)) (the bound of the docstring would not hold).
    """
    cycle = cycle_of(automaton)
    if cycle is not None:
        raise NotExpressible(f"fixed-point (behavioural merge): {_cycle_text(automaton, cycle)}; "
                             f"the construction needs a partially ordered automaton")
    n = automaton.n_states
    eps = default_epsilon(n) if epsilon is None else Fraction(epsilon)
    if not 0 < eps or 2 * (n - 1) * eps >= 1:
        raise NotExpressible(f"fixed-point (behavioural merge): ε = {eps} must lie in "
                             f"(0, 1/(2(n − 1))) for {n} states")
    lam = 2 * eps / (1 + eps)
    lam_exact, q_exact = [], []
    for row in automaton.delta:
        target = [int(t) for t in row]
        moved = [target[q] != q for q in range(n)]
        inv = _inverse(moved, target, eps)
        scale = lam / (1 - lam)
        lam_exact.append([lam] * n)
        q_exact.append([[scale * (inv[i][j] - int(i == j)) for j in range(n)]
                        for i in range(n)])
    return rational_network(automaton, lam_exact, q_exact, n,
                            {"construction": "behavioural merge", "epsilon": str(eps)})
