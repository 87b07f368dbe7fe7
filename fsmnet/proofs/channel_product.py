"""The ``channel-product`` certificate: a closed product of diagonal channels.

A diagonal or R2 network whose multipliers are roots of unity (a group language's
characters, :mod:`fsmnet.constructions.group_characters`) reaches finitely many
channel states, but its rotations are irrational, so the ``exact-product``
certificate, whose models are rational, cannot state it; and the count abstraction
enumerates Π_a (N_a + P_a) count types, millions for modular addition m = 10.  This
lists the reachable (channel values, automaton state) pairs instead, by breadth-first
search in Q(ζ_M), for :mod:`fsmnet.proofs.checker.channel_product` to re-derive.

Cost: pairs × symbols × channels multiplications in Q(ζ_M) (degree φ(M)); the search
stops at ``max_pairs``.
"""

from __future__ import annotations

from collections import deque
from typing import Any

from fsmnet.automata import Automaton
from fsmnet.nets import Network
from fsmnet.nets.alignment import label_map
from fsmnet.nets.cyclotomic import Cyclotomic
from fsmnet.proofs.count_certificate import channel_model, channels, elem_json

MAX_PAIRS = 20_000

State = tuple[Cyclotomic, ...]


def _label(weights: list[list[Cyclotomic]], state: State) -> int:
    """The first argmax of Re Σ_c w_{l,c} v_c (exact comparisons)."""
    scores = [sum((w * v for w, v in zip(row, state)), state[0] * 0).real_part()
              for row in weights]
    best = 0
    for i in range(1, len(scores)):
        if scores[i] > scores[best]:
            best = i
    return best


def channel_product_certificate(net: Network, automaton: Automaton, *,
                                network_path: str | None = None,
                                max_pairs: int = MAX_PAIRS) -> tuple[dict[str, Any] | None, str]:
    """(the certificate, a note) when the channel product closes within ``max_pairs``
    and agrees with the automaton on every pair; else (None, why not).

    ``automaton`` is minimal and aligned with the network (the verifier's)."""
    from fsmnet.proofs.certificate import channel_product_fields

    form = channels(net)
    if form is None:
        return None, "the exact matrices are not diagonal channels"
    _, lam, h0, weights = form
    if not h0:
        return None, "the network has no channels"
    to_auto = label_map(net, automaton)
    start = (tuple(h0), int(automaton.initial or 0))
    index: dict[tuple[State, int], int] = {start: 0}
    states: dict[State, int] = {start[0]: 0}
    order: list[tuple[State, int]] = [start]
    transitions: list[list[int]] = []
    queue = deque([start])
    while queue:
        state, q = queue.popleft()
        if to_auto[_label(weights, state)] != int(automaton.output_ids[q]):
            return None, "the network's label differs from the automaton's on a pair"
        row = []
        for a in range(automaton.n_symbols):
            target = (tuple(x * v for x, v in zip(lam[a], state)), int(automaton.delta[a, q]))
            if target not in index:
                if len(order) >= max_pairs:
                    return None, f"the channel product has more than {max_pairs} pairs"
                index[target] = len(order)
                states.setdefault(target[0], len(states))
                order.append(target)
                queue.append(target)
            row.append(index[target])
        transitions.append(row)
    listed = sorted(states, key=states.__getitem__)
    cert = channel_product_fields(net, automaton, channel_model(form), network_path)
    cert.update(states=[[elem_json(x) for x in s] for s in listed],
                pairs=[[states[s], q] for s, q in order], transitions=transitions)
    return cert, f"channel product: {len(order)} pairs, {len(listed)} channel states"
