"""Diagonal bilinear RNNs: 2×2 rotation-scaling blocks, real and positive diagonals.

Their transition matrices commute, so they see only symbol counts (theorem 1 of
docs/theory.md); the positive diagonal is the Mamba-like class.
"""

from __future__ import annotations

from fsmnet.archs.record import Architecture
from fsmnet.types import ProofMethod

_COUNTS: tuple[ProofMethod, ...] = ("exact-product", "count-abstraction", "cone-invariant")
# Their exact states rarely close (a contraction never repeats): keep the
# product search short and let the count abstraction decide.
_BUDGET = 2000

RECORDS = (
    Architecture(
        id="bilinear-r2", family="diagonal",
        summary="2×2 rotation-scaling blocks; commutative languages only",
        semantics="fsmnet.nets.diagonal:R2",
        abstract_transformer="fsmnet.proofs.abstract.linear:CHART_BOX",
        construction="fsmnet.constructions.commutative:compile_r2",
        trainable="fsmnet.train.modules_linear:BilinearR2",
        theorems=("commuting",), proofs=_COUNTS, product_budget=_BUDGET,
        certificate_model="fsmnet.proofs.certificate_models:LINEAR", scan="linear"),
    Architecture(
        id="bilinear-real-diag", family="diagonal",
        summary="real diagonal; commutative languages with periods ≤ 2",
        semantics="fsmnet.nets.diagonal:REAL_DIAG",
        abstract_transformer="fsmnet.proofs.abstract.linear:CHART_BOX",
        construction="fsmnet.constructions.commutative:compile_real_diag",
        trainable="fsmnet.train.modules_linear:BilinearRealDiag",
        theorems=("commuting", "real-diag"), proofs=_COUNTS, product_budget=_BUDGET,
        certificate_model="fsmnet.proofs.certificate_models:LINEAR", scan="linear"),
    Architecture(
        id="bilinear-positive-diag", family="diagonal",
        summary="positive diagonal (Mamba-like); commutative, aperiodic counts",
        semantics="fsmnet.nets.diagonal:POSITIVE_DIAG",
        abstract_transformer="fsmnet.proofs.abstract.linear:CHART_BOX",
        construction="fsmnet.constructions.commutative:compile_positive_diag",
        trainable="fsmnet.train.modules_linear:BilinearPositiveDiag",
        theorems=("commuting", "positive-diag"), proofs=_COUNTS, product_budget=_BUDGET,
        certificate_model="fsmnet.proofs.certificate_models:LINEAR", scan="linear"),
)
