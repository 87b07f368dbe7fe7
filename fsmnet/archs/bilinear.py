"""Bilinear RNNs with dense, CP-factored and block-diagonal transition tensors.

h_t = A(x_t) h_{t-1}, readout argmax(W h_t): arXiv 2505.21749 (docs/constructions.md).
"""

from __future__ import annotations

from fsmnet.archs.record import Architecture

_LINEAR_MODEL = "fsmnet.proofs.certificate_models:LINEAR"

RECORDS = (
    Architecture(
        id="bilinear-full", family="bilinear",
        summary="h = A(x) h with a dense 3-way tensor; any automaton (one-hot, H = n)",
        semantics="fsmnet.nets.bilinear:FULL",
        abstract_transformer="fsmnet.proofs.abstract.linear:CHART_BOX",
        construction="fsmnet.constructions.bilinear_full:compile_bilinear_full",
        belief_construction="fsmnet.constructions.pfsa_bilinear:compile_pfsa_bilinear",
        trainable="fsmnet.train.modules_linear:BilinearFull",
        proofs=("exact-product", "cone-invariant"),
        certificate_model=_LINEAR_MODEL, scan="linear", one_hot_tensor=True),
    Architecture(
        id="bilinear-cp", family="bilinear",
        summary="A(x) = U diag(Vᵀx) Zᵀ; exact CP factors (options: rank, bounds, search, "
                "search_rlimit (deterministic), search_seconds (optional guard))",
        semantics="fsmnet.nets.bilinear:CP",
        abstract_transformer="fsmnet.proofs.abstract.linear:CHART_BOX",
        construction="fsmnet.constructions.bilinear_cp:compile_bilinear_cp",
        trainable="fsmnet.train.modules_linear:BilinearCP",
        proofs=("exact-product", "cone-invariant"),
        certificate_model=_LINEAR_MODEL, scan="linear"),
    Architecture(
        id="bilinear-block", family="bilinear",
        summary="block-diagonal A(x), one block per direct-product factor "
                "(options: max_states, max_congruences, max_steps)",
        semantics="fsmnet.nets.bilinear_block:BLOCK",
        construction="fsmnet.constructions.bilinear_block:compile_bilinear_block",
        certificate_model="fsmnet.proofs.certificate_models:BLOCK",
        trainable="fsmnet.train.modules_block:BilinearBlock"),
)
