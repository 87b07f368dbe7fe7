"""DeltaProduct: products of generalized Householder reflections per symbol.

A(x) = Π_j (I − β_j k_j k_jᵀ): arXiv 2502.10297 (docs/constructions-deltaproduct-fixedpoint.md).
"""

from __future__ import annotations

from fsmnet.archs.record import Architecture

RECORDS = (
    Architecture(
        id="deltaproduct", family="householder",
        summary="products of generalized Householder reflections",
        semantics="fsmnet.nets.deltaproduct:DELTAPRODUCT",
        abstract_transformer="fsmnet.proofs.abstract.linear:CHART_BOX",
        construction="fsmnet.constructions.deltaproduct:compile_deltaproduct",
        trainable="fsmnet.train.modules_linear:DeltaProduct",
        proofs=("exact-product", "cone-invariant"),
        certificate_model="fsmnet.proofs.certificate_models:LINEAR", scan="linear"),
)
