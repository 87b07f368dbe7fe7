"""``possible`` verdicts from theorems, and the witness networks built on request.

Some classes express *every* automaton by a construction whose correctness is a
theorem (:data:`fsmnet.archs.theorems.POSSIBILITY_THEOREMS`: the one-hot
bilinear matrices of proposition 1 of arXiv 2505.21749, their CP factors, one
block, one-hot max-min matrices, one-hot Householder products).  For those,
building a network and proving it equal to the automaton restates the theorem
at the cost of a dense n × n × |Σ| tensor and an exact product exploration
(minutes at 5,040 states), so :mod:`fsmnet.decide.expressivity` answers from
the theorem and says so (``by = "theorem: ..."``); nothing is checked then.

The network is a *witness* built on request: :func:`theorem_witness_network`
compiles the theorem's construction, and :func:`prove_witness` proves it (exact
product) and writes the network with a certificate that ``fsmnet check``
re-verifies, so a user who wants more than the theorem gets the checked
artifact.

The ``size`` functions give what the theorem guarantees without building
anything: upper bounds, since a class's own construction may find smaller
networks (CP rank search, block splits, holonomy levels).
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from fsmnet import archs as registry
from fsmnet.archs.theorems import PossibilityTheorem, possibility_theorems
from fsmnet.automata import Automaton
from fsmnet.nets import Network
from fsmnet.types import Verdict

__all__ = ["cp_image_size", "householder_size", "one_block_size", "one_hot_size",
           "one_unit_size", "prove_witness", "theorem_for", "theorem_size",
           "theorem_witness_network"]


def theorem_for(arch: str) -> PossibilityTheorem | None:
    """The first possibility theorem that settles ``arch``, or None."""
    found = possibility_theorems(arch)
    return found[0] if found else None


def theorem_size(theorem: PossibilityTheorem, m: Automaton) -> dict[str, Any]:
    """The sizes ``theorem`` guarantees on the minimal automaton ``m``."""
    size: dict[str, Any] = registry.resolve(theorem.size)(m)
    return size


def one_hot_size(m: Automaton) -> dict[str, Any]:
    """One-hot matrices: H = n."""
    return {"hidden": m.n_states}


def one_block_size(m: Automaton) -> dict[str, Any]:
    """One block of the one-hot matrices: H = n, blocks [n]."""
    return {"hidden": m.n_states, "blocks": [m.n_states]}


def one_unit_size(m: Automaton) -> dict[str, Any]:
    """One level, one matrix unit over the n states."""
    return {"hidden": m.n_states, "levels": 1, "units": 1}


def cp_image_size(m: Automaton) -> dict[str, Any]:
    """CP rank of the image bound: Σ_σ |σ(Q)| terms (U = e_i, V = e_σ, Z = the
    indicator of σ⁻¹(i)), the ``image`` bound of :mod:`fsmnet.constructions.bilinear_cp`."""
    rank = sum(int(np.count_nonzero(np.bincount(row, minlength=m.n_states)))
               for row in np.asarray(m.delta))
    return {"hidden": m.n_states, "rank": rank}


def householder_size(m: Automaton) -> dict[str, Any]:
    """H = n and the factors per letter of the one-hot Householder construction.

    Counted, not built: a permutation letter with c cycles takes n − c reflections;
    a non-invertible letter f = π ∘ C takes two projections per state merged into its
    fiber's representative and n − cycles(π) reflections, with the representatives
    and π chosen as :func:`fsmnet.constructions.deltaproduct.collapse_factors` does
    (a test checks the count against the construction's ``n_h``)."""
    n = m.n_states
    n_h = max((_householder_factors([int(x) for x in row]) for row in np.asarray(m.delta)),
              default=0)
    return {"hidden": n, "n_h": n_h}


def _householder_factors(images: list[int]) -> int:
    from fsmnet.constructions.deltaproduct import collapse_permutation, cycles

    n = len(images)
    if len(set(images)) == n:
        return n - len(cycles(images))
    by_rep, perm = collapse_permutation(images)
    return 2 * (n - len(by_rep)) + n - len(cycles(perm))


def theorem_witness_network(m: Automaton, arch: str,
                            theorem: PossibilityTheorem | None = None) -> Network:
    """The theorem's network for ``arch`` on the minimal automaton ``m``: the class's
    own construction with the theorem's options (compile options recorded as usual)."""
    from fsmnet.constructions import compile_automaton

    chosen = theorem if theorem is not None else theorem_for(arch)
    options = dict(chosen.construction_options) if chosen is not None else {}
    return compile_automaton(m, arch, **options)


def prove_witness(m: Automaton, net: Network, directory: str,
                  max_states: int | None = None) -> tuple[Verdict, dict[str, Any]]:
    """Write ``net`` as ``DIRECTORY/<arch>.safetensors`` and prove it equal to ``m``
    with a certificate ``DIRECTORY/<arch>.json`` (``fsmnet check CERT --network NET``).

    Returns the verdict of :func:`fsmnet.proofs.verifier.verify` and its details
    (``certificate`` is the path written, or ``certificate_error`` says why not).
    """
    from fsmnet.proofs.verifier import verify

    network_path = os.path.join(directory, f"{net.arch}.safetensors")
    certificate = os.path.join(directory, f"{net.arch}.json")
    net.save(network_path)
    result = verify(m, net, max_states=max_states, certificate=certificate,
                    network_path=network_path)
    details = dict(result.details)
    details["method"] = result.method
    details["network"] = network_path
    return result.verdict, details
