"""The impossibility theorems of docs/theory.md, by id.

An architecture record lists the ids that bound its class; :mod:`fsmnet.decide`
looks for each theorem's witness and, when one exists, the class cannot
express the automaton.  Each witness is re-verified by ``fsmnet check``.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, kw_only=True)
class Theorem:
    """An impossibility theorem: its statement and the witness search that applies it.

    ``witness`` is ``"module:function"`` (:mod:`fsmnet.decide.witness`), called
    as ``witness(minimal_automaton, **witness_options)``; it returns a witness
    or ``None`` when the theorem says nothing about the automaton.
    """

    id: str
    statement: str
    witness: str
    witness_options: tuple[tuple[str, int], ...] = ()


THEOREMS: dict[str, Theorem] = {t.id: t for t in (
    Theorem(id="commuting",
            statement="theorem 1 (commuting transitions): h depends only on the symbol counts",
            witness="fsmnet.decide.witness:equal_counts_witness"),
    Theorem(id="real-diag",
            statement="theorem 2 (real diagonal): outputs along even powers of u settle",
            witness="fsmnet.decide.witness:unsettled_powers_witness",
            witness_options=(("stride", 2),)),
    Theorem(id="positive-diag",
            statement="theorem 3 (positive diagonal): outputs along powers of u settle",
            witness="fsmnet.decide.witness:unsettled_powers_witness",
            witness_options=(("stride", 1),)),
    Theorem(id="minmax-scalar",
            statement="theorem 4 (scalar MinMax cascade): outputs along powers of u settle "
                      "after L steps",
            witness="fsmnet.decide.witness:unsettled_powers_witness",
            witness_options=(("stride", 1),)),
)}
