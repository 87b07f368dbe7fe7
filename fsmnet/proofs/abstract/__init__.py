"""Abstract-simulation proofs for networks with infinitely many reachable states.

A trained or perturbed network has real weights, so the exact product of
:mod:`fsmnet.proofs.product` never closes.  Here a *set* S_q of hidden states
stands for each state q of the minimal automaton, with

1. h0 ∈ S_q0;
2. F_x(S_q) ⊆ S_δ(q, x) for every state q and symbol x;
3. the readout on S_q is out(q), with a strict margin.

By induction on the length of a word, the network equals the automaton on
every word.  The sets are found in floats (:mod:`.search`) and then checked,
every inclusion and margin, in exact rationals by the independent checker
(:mod:`fsmnet.proofs.checker.invariants`) before anything is called proved.

Domains (``domain`` in results and certificates):

* ``chart-box`` — linear recurrences h ↦ A_x h (every linear architecture):
  outputs are invariant under positive scaling, so S_q is a cone over a box
  in an affine chart {y_p = 1} of a chosen basis y = B h (:mod:`.linear`);
* ``slice-box`` — the same cones, cut by one hyperplane φ·h = 1
  (:mod:`.slice_boxes`);
* ``zonotope`` — cones over zonotopes with a shared template of
  rotation-plane directions, which linear maps carry exactly, for rotating
  networks on which every box grows (:mod:`.zonotope`);
* ``minmax-box`` — ``minmax-dense``: max and min are monotone, so the image
  of a box is the box of the images of its corners (:mod:`.minmax`).

A linear network is first reduced, exactly, to its minimal linear
representation (:mod:`.minimal_linear`): the directions that no word reaches
or that the readout never sees are dropped before any search, and the
certificate carries the reduction for the checker to re-verify.

The driver is :func:`fsmnet.proofs.abstract.certify.certify`.
"""

from __future__ import annotations

__all__: list[str] = []
