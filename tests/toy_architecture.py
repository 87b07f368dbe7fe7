"""A made-up architecture for the registry tests: "toy-doubled", a full bilinear
network whose one-hot states are scaled by 2 at every step (A = 2·A_full).

Outputs are invariant under positive scaling, so it tracks every automaton the
full bilinear construction tracks; its exact states 2^t·e_q repeat up to
scale, which the exact product (on normalized states) uses to close.  It lives
here, not in fsmnet, to show that one record in a test is all an architecture
needs.
"""

from __future__ import annotations

from typing import Any

from fsmnet.archs import Architecture
from fsmnet.constructions.bilinear_full import one_hot_tensors
from fsmnet.nets import Network
from fsmnet.nets.bilinear import FullBilinear


class ToyDoubled(FullBilinear):
    arch = "toy-doubled"


TOY = ToyDoubled()


def compile_toy(automaton: Any) -> Network:
    w, h0, readout = one_hot_tensors(automaton)
    return Network(arch="toy-doubled", params={"W": 2.0 * w, "h0": h0, "readout": readout},
                   symbols=automaton.symbols, labels=automaton.labels, name=automaton.name)


RECORD = Architecture(
    id="toy-doubled", family="toy",
    summary="a full bilinear network doubled at every step (a test architecture)",
    semantics="toy_architecture:TOY",
    construction="toy_architecture:compile_toy",
    theorems=(),
    proofs=("exact-product", "cone-invariant"),
    certificate_model="fsmnet.proofs.certificate_models:LINEAR",
    scan="linear",
)
