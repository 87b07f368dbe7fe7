"""Method ``channel-product``: a closed product of diagonal channels over Q(ζ_M).

The model is ``diagonal-channels`` (:mod:`.counts`): channel c holds a number v_c,
letter a multiplies it by λ_{a,c}, the start is h0, and label l scores
Re Σ_c w_{l,c} v_c; the label is the first argmax.  Nothing is rescaled: a listed
state is the channels' exact values.

Like ``exact-product``, the certificate lists network states (one number per
channel, {power: "p/q"}), pairs (state, automaton state) and, per pair, the target
pair of every symbol.  The checker verifies, in Q(ζ_M):

1. pair 0 is (h0, q0);
2. every target pair is (λ_a ∘ v, δ_a(q)), the product taken here;
3. at every pair the first argmax of the scores, decided by exact signs of their
   differences (:meth:`.cyclotomic.Field.sign`), is the automaton's output.

By induction on the length of w, (h_w, q_w) is a listed pair for every word w, so
the network's label equals the automaton's output on every word.  This closes where
every multiplier is a root of unity (a group language's characters), whose
rotations are irrational and so have no rational ``exact-product`` model.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from .core import Automaton, CertificateError, read_automaton
from .counts import Channels, _element, read_channels
from .cyclotomic import Element
from .fields import PRODUCT_WORDS, PairTable, read_pair_table
from .models import _Model
from .product import check_pairs


@dataclass(frozen=True)
class ChannelProduct:
    """A channel-product certificate, parsed."""

    automaton: Automaton
    labels: tuple[Any, ...]
    channels: Channels
    states: tuple[tuple[Element, ...], ...]
    table: PairTable


def parse_channel_product(cert: dict[str, Any]) -> ChannelProduct:
    automaton = read_automaton(cert["automaton"])
    labels = tuple(cert["network"]["labels"])
    ch = read_channels(cert["network"]["model"], automaton.n_symbols, len(labels),
                       "channel-product")
    states = tuple(tuple(_element(ch.field, x) for x in state) for state in cert["states"])
    if any(len(state) != len(ch.h0) for state in states):
        raise CertificateError("every state needs one number per channel")
    table = read_pair_table(cert["pairs"], cert["transitions"], len(states),
                            automaton.n_states, automaton.n_symbols, PRODUCT_WORDS)
    return ChannelProduct(automaton, labels, ch, states, table)


def _label(ch: Channels, state: tuple[Element, ...]) -> int:
    """The first argmax of Re Σ_c w_{l,c} v_c, by exact signs."""
    fld = ch.field
    scores = []
    for row in ch.weights:
        total = fld.rational(Fraction(0))
        for w, v in zip(row, state):
            total = fld.add(total, fld.mul(w, v))
        scores.append(fld.real_part(total))
    best = 0
    for i in range(1, len(scores)):
        if fld.sign(fld.sub(scores[i], scores[best])) > 0:
            best = i
    return best


def _step(ch: Channels, state: tuple[Element, ...], a: int) -> tuple[Element, ...]:
    return tuple(ch.field.mul(lam, v) for lam, v in zip(ch.multipliers[a], state))


def check_channel_product(cert: dict[str, Any]) -> str:
    """Check a channel-product certificate; a one-line summary, or CertificateError."""
    cp = parse_channel_product(cert)
    ch = cp.channels
    model = _Model(ch.h0, lambda h, a: _step(ch, h, a), lambda h: _label(ch, h), tuple)
    check_pairs(cp.automaton, cp.labels, model, cp.states, cp.table)
    return (f"valid: {len(cp.table.pairs)} pairs, {len(cp.states)} channel states over "
            f"Q(ζ_{ch.field.order}), closed and consistent")
