"""Fixed-point RNNs: a dense transition reached as the fixed point of a diagonal RNN.

h* = A(x) h with A = (I + (Λ⁻¹ − I)Q)⁻¹ (docs/constructions-deltaproduct-fixedpoint.md).
"""

from __future__ import annotations

from fsmnet.archs.record import Architecture

RECORDS = (
    Architecture(
        id="fixed-point", family="fixed-point",
        summary="dense A reached as a fixed point of a diagonal RNN; permutation letters "
                "exactly, resets and partially ordered merges behaviourally (options: seed, "
                "tuning_steps (deterministic))",
        semantics="fsmnet.nets.fixed_point:FIXED_POINT",
        abstract_transformer="fsmnet.proofs.abstract.linear:CHART_BOX",
        construction="fsmnet.constructions.fixed_point:compile_fixed_point",
        construction_progress="fsmnet.constructions.fixed_point_budget:reporting",
        trainable="fsmnet.train.modules_linear:FixedPointRNN",
        proofs=("exact-product", "cone-invariant"),
        # Exact states close for permutation letters (a group's elements: at most a few
        # hundred here); behavioural constructions never close, and their cone proof
        # needs only a short sample, so a longer search is wasted time.
        product_budget=2000,
        certificate_model="fsmnet.proofs.certificate_models:LINEAR", scan="linear"),
)
