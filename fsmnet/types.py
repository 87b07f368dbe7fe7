"""The closed vocabularies of fsmnet as ``Literal`` types.

Verdicts, backends, evaluation paths and proof methods are strings in JSON and
on the command line; typing them here lets mypy catch a misspelt comparison
(``result.verdict == "proven"``) that a bare ``str`` would let through.
"""

from __future__ import annotations

from typing import Literal, get_args

Verdict = Literal["proved", "refuted", "unknown"]
"""What :func:`fsmnet.verify` concludes about one network."""

ClassVerdict = Literal["possible", "impossible", "unknown"]
"""What :func:`fsmnet.expressivity` concludes about an architecture class."""

Backend = Literal["auto", "cupy", "numba", "numpy", "dask"]
"""Backends of :func:`fsmnet.evaluate`."""

Outputs = Literal["all", "last"]
"""``"all"``: a label after every symbol; ``"last"``: the final state only."""

EvalPath = Literal["auto", "sequential", "words", "ilp", "cayley", "live", "tabulated",
                   "direct", "levelwise", "chase"]
"""Algorithms a caller may ask :func:`fsmnet.evaluate` for (see its docstring)."""

ProofMethod = Literal["exact-product", "count-abstraction", "cone-invariant",
                      "box-invariant"]
"""Proof methods an architecture record may list, tried in this order by the verifier."""

ScanFamily = Literal["linear", "minmax-dense", "minmax-cascade", "reference"]
"""Which family of scan kernels runs an architecture's networks."""

VERDICTS: tuple[str, ...] = get_args(Verdict)
CLASS_VERDICTS: tuple[str, ...] = get_args(ClassVerdict)
BACKENDS: tuple[str, ...] = get_args(Backend)
OUTPUTS: tuple[str, ...] = get_args(Outputs)
PROOF_METHODS: tuple[str, ...] = get_args(ProofMethod)
SCAN_FAMILIES: tuple[str, ...] = get_args(ScanFamily)

__all__ = ["BACKENDS", "CLASS_VERDICTS", "OUTPUTS", "PROOF_METHODS", "SCAN_FAMILIES",
           "VERDICTS", "Backend", "ClassVerdict", "EvalPath", "Outputs", "ProofMethod",
           "ScanFamily", "Verdict"]
