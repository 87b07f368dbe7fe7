"""MinMax recurrences: max-min matrices, holonomy cascades, scalar cascades.

x_t = (R[x_t] ⊗ x_{t-1}) ⊕ s[x_t] in the (max, min) semiring (docs/constructions-minmax.md).
"""

from __future__ import annotations

from fsmnet.archs.record import Architecture

RECORDS = (
    Architecture(
        id="minmax-dense", family="minmax",
        summary="max-min recurrence over Boolean one-hot matrices; any automaton",
        semantics="fsmnet.nets.minmax:DENSE",
        abstract_transformer="fsmnet.proofs.abstract.minmax:MINMAX_BOX",
        construction="fsmnet.constructions.minmax_dense:compile_minmax_dense",
        trainable="fsmnet.train.modules_minmax:MinMaxDense",
        certificate_model="fsmnet.proofs.certificate_models:MINMAX_DENSE",
        scan="minmax-dense", one_hot_tensor=True),
    Architecture(
        id="minmax-cascade", family="minmax",
        summary="holonomy cascade of MinMax units",
        semantics="fsmnet.nets.minmax_cascade:CASCADE",
        construction="fsmnet.constructions.minmax_cascade:compile_minmax_cascade",
        trainable="fsmnet.train.modules_minmax:MinMaxCascade", trained_to_network=False,
        certificate_model="fsmnet.proofs.certificate_models:MINMAX_CASCADE",
        scan="minmax-cascade"),
    Architecture(
        id="minmax-scalar", family="minmax",
        summary="cascade of scalar MinMax units; star-free (aperiodic) languages only",
        semantics="fsmnet.nets.minmax_cascade:SCALAR",
        construction="fsmnet.constructions.minmax_cascade:compile_minmax_scalar",
        trainable="fsmnet.train.modules_minmax:MinMaxCascade", trained_to_network=False,
        theorems=("minmax-scalar",),
        certificate_model="fsmnet.proofs.certificate_models:MINMAX_CASCADE",
        scan="minmax-cascade"),
)
