"""Expressivity verdicts: can an architecture class track an automaton at all?

Every verdict is computed on the minimal automaton:

``possible``
    the construction compiled and the verifier *proved* it equal to the
    automaton (exact product exploration);
``impossible``
    with a witness (:mod:`fsmnet.verify.witness`) that the independent checker
    re-verifies, backed by one of the theorems in docs/theory.md;
``unknown``
    neither (e.g. the construction compiled but no exact proof closed, or the
    construction does not apply and no theorem rules the class out).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from fsmnet.automata import Automaton, load
from fsmnet.errors import NotExpressible
from fsmnet.verify.witness import Witness, equal_counts_witness, unsettled_powers_witness

# The classes of DESIGN §5, in the order the table shows them.
CLASSES = (
    "bilinear-full",
    "bilinear-cp",
    "bilinear-r2",
    "bilinear-real-diag",
    "bilinear-positive-diag",
    "minmax-dense",
    "minmax-cascade",
    "minmax-scalar",
    "deltaproduct",
)

THEOREMS = {
    "commuting": "theorem 1 (commuting transitions): h depends only on the symbol counts",
    "real-diag": "theorem 2 (real diagonal): outputs along even powers of u settle",
    "positive-diag": "theorem 3 (positive diagonal): outputs along powers of u settle",
    "minmax-scalar": "theorem 4 (scalar MinMax cascade): outputs along powers of u settle "
    "after L steps",
}


@dataclass(frozen=True)
class ExpressivityResult:
    """One row of ``fsmnet expressivity --json``: arch, verdict, reason, witness."""

    arch: str
    verdict: str  # possible | impossible | unknown
    reason: str
    witness: dict[str, Any] | None = None
    size: dict[str, Any] | None = None


def witness_certificate(automaton: Automaton, arch: str, witness: Witness,
                        theorem: str) -> dict[str, Any]:
    """A certificate that ``fsmnet check`` re-verifies (method ``witness``)."""
    return {
        "format": "fsmnet-certificate",
        "format_version": 1,
        "method": "witness",
        "arch": arch,
        "theorem": theorem,
        "kind": witness.kind,
        "words": witness.words,
        "stride": witness.stride,
        "automaton": {
            "symbols": list(automaton.symbols),
            "delta": automaton.delta.tolist(),
            "initial": automaton.initial,
            "outputs": list(automaton.outputs or ()),
        },
    }


def _impossible(m: Automaton, arch: str, witness: Witness, theorem: str) -> ExpressivityResult:
    return ExpressivityResult(arch, "impossible", f"{THEOREMS[theorem]}; {witness.explanation}",
                              witness_certificate(m, arch, witness, THEOREMS[theorem]))


def _theorem_witness(m: Automaton, arch: str) -> ExpressivityResult | None:
    """An impossibility verdict from the theorems, or None if none applies."""
    if arch in ("bilinear-r2", "bilinear-real-diag", "bilinear-positive-diag"):
        w = equal_counts_witness(m)
        if w is not None:
            return _impossible(m, arch, w, "commuting")
    if arch == "bilinear-real-diag":
        w = unsettled_powers_witness(m, stride=2)
        if w is not None:
            return _impossible(m, arch, w, "real-diag")
    if arch in ("bilinear-positive-diag", "minmax-scalar"):
        w = unsettled_powers_witness(m, stride=1)
        if w is not None:
            theorem = "positive-diag" if arch == "bilinear-positive-diag" else "minmax-scalar"
            return _impossible(m, arch, w, theorem)
    return None


def _construct_and_prove(m: Automaton, arch: str, max_states: int) -> ExpressivityResult:
    from fsmnet.compile import compile_automaton
    from fsmnet.verify.verifier import verify

    try:
        net = compile_automaton(m, arch)
    except NotExpressible as exc:
        return ExpressivityResult(arch, "unknown", f"no construction applies: {exc}")
    size = {"hidden": net.hidden_size, "parameters": net.n_params}
    for key in ("levels", "units", "rank", "n_h", "blocks"):
        if key in net.options:
            size[key] = net.options[key]
    result = verify(m, net, max_states=max_states)
    if result.verdict == "proved":
        return ExpressivityResult(arch, "possible",
                                  f"construction compiled (hidden size {net.hidden_size}) and "
                                  "proved equal to the automaton", None, size)
    if result.verdict == "refuted":  # a construction bug: never hide it
        raise AssertionError(f"{arch} construction refuted: {result.counterexample}")
    return ExpressivityResult(arch, "unknown",
                              "construction compiled but no exact proof closed: "
                              f"{result.details.get('note', '')}", None, size)


def expressivity(spec: Any, archs: tuple[str, ...] | list[str] = CLASSES, *,
                 max_states: int = 20_000) -> list[ExpressivityResult]:
    """A verdict for each architecture class on the minimal automaton of ``spec``."""
    m = load(spec).minimal()
    results = []
    for arch in archs:
        verdict = _theorem_witness(m, arch)
        results.append(verdict if verdict is not None
                       else _construct_and_prove(m, arch, max_states))
    return results
