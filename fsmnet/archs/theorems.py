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


@dataclass(frozen=True, kw_only=True)
class PossibilityTheorem:
    """A theorem that a class expresses *every* automaton, with the network that shows it.

    Expressivity answers ``possible`` from such a theorem without building anything
    (the verdict names the theorem); the network is built, proved and certified only
    on request (``fsmnet expressivity --witness-dir``).

    ``classes`` are the architecture ids it settles (the theorem names them, so that
    the records of other modules need not change).  ``construction_options`` are the
    options of each class's own construction that build the theorem's network (e.g.
    a single block, or the CP image bound without a search).  ``size`` is
    ``"module:function"``, called as ``size(minimal_automaton)``: the sizes the
    theorem guarantees (upper bounds; a construction may find smaller ones).
    """

    id: str
    statement: str
    classes: tuple[str, ...]
    size: str
    construction_options: tuple[tuple[str, int | str | bool], ...] = ()


POSSIBILITY_THEOREMS: dict[str, PossibilityTheorem] = {t.id: t for t in (
    PossibilityTheorem(
        id="one-hot",
        statement="proposition 1 of arXiv 2505.21749 (one-hot): A(σ)[δ(j, σ), j] = 1 tracks "
                  "every automaton with H = n",
        classes=("bilinear-full",), size="fsmnet.decide.possibility:one_hot_size"),
    PossibilityTheorem(
        id="one-hot-cp",
        statement="one-hot CP factors (image bound): one rank-1 term per letter and image "
                  "state gives A(σ) exactly, rank Σ_σ |σ(Q)| ≤ n·|Σ|",
        classes=("bilinear-cp",), size="fsmnet.decide.possibility:cp_image_size",
        construction_options=(("bounds", "image"), ("search", False))),
    PossibilityTheorem(
        id="one-hot-block",
        statement="a single n × n block is the one-hot matrix of proposition 1 "
                  "(arXiv 2505.21749): every automaton, H = n",
        classes=("bilinear-block",), size="fsmnet.decide.possibility:one_block_size",
        construction_options=(("max_states", 1),)),
    PossibilityTheorem(
        id="one-hot-maxmin",
        statement="one-hot max-min matrices (docs/constructions-minmax.md): "
                  "R[σ][δ(j, σ), j] = 1, s = 0 tracks every automaton with H = n",
        classes=("minmax-dense",), size="fsmnet.decide.possibility:one_hot_size"),
    PossibilityTheorem(
        id="one-unit-cascade",
        statement="a one-level cascade whose one matrix unit is the one-hot max-min "
                  "network (docs/constructions-minmax.md) tracks every automaton",
        classes=("minmax-cascade",), size="fsmnet.decide.possibility:one_unit_size",
        construction_options=(("max_steps", 1),)),
    PossibilityTheorem(
        id="householder-one-hot",
        statement="one-hot Householder products (docs/constructions-deltaproduct-"
                  "fixedpoint.md): transpositions and pairs of projections give every "
                  "letter up to a positive scale, H = n",
        classes=("deltaproduct",), size="fsmnet.decide.possibility:householder_size"),
)}


def possibility_theorems(arch: str) -> tuple[PossibilityTheorem, ...]:
    """The possibility theorems that settle ``arch``, in registry order."""
    return tuple(t for t in POSSIBILITY_THEOREMS.values() if arch in t.classes)
