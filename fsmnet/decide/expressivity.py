"""Expressivity verdicts: can an architecture class track an automaton at all?

Every verdict is computed on the minimal automaton:

``possible``
    the construction compiled and the verifier *proved* it equal to the
    automaton (exact product exploration);
``impossible``
    with a witness (:mod:`fsmnet.decide.witness`) that the independent checker
    re-verifies, backed by one of the theorems in docs/theory.md;
``unknown``
    neither (e.g. the construction compiled but no exact proof closed, or the
    construction does not apply and no theorem rules the class out).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from fsmnet import archs as registry
from fsmnet.automata import Automaton, load
from fsmnet.decide.witness import Witness
from fsmnet.errors import NotExpressible
from fsmnet.types import ClassVerdict


@dataclass(frozen=True)
class ExpressivityResult:
    """One row of ``fsmnet expressivity --json``: arch, verdict, reason, witness."""

    arch: str
    verdict: ClassVerdict
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


def _theorem_witness(m: Automaton, arch: str) -> ExpressivityResult | None:
    """An impossibility verdict from the record's theorems, or None if none applies."""
    for theorem_id in registry.get(arch).theorems:
        theorem = registry.THEOREMS[theorem_id]
        search = registry.resolve(theorem.witness)
        w = search(m, **dict(theorem.witness_options))
        if w is not None:
            return ExpressivityResult(arch, "impossible", f"{theorem.statement}; "
                                      f"{w.explanation}",
                                      witness_certificate(m, arch, w, theorem.statement))
    return None


def _construct_and_prove(m: Automaton, arch: str, max_states: int | None
                         ) -> ExpressivityResult:
    from fsmnet.algebra.holonomy.skeleton import DecompositionTooLarge
    from fsmnet.algebra.monoid import MonoidTooLarge
    from fsmnet.constructions import compile_automaton
    from fsmnet.proofs.verifier import verify

    try:
        net = compile_automaton(m, arch)
    except NotExpressible as exc:
        return ExpressivityResult(arch, "unknown", f"no construction applies: {exc}")
    except (DecompositionTooLarge, MonoidTooLarge) as exc:
        # A resource limit of the construction, not a property of the class: the
        # verdict for the class is unknown, and the other classes still get theirs.
        return ExpressivityResult(arch, "unknown", f"the construction hit a size limit: {exc}")
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


def expressivity(spec: Any, archs: Sequence[str] | None = None, *,
                 max_states: int | None = None,
                 progress: Callable[[str], None] | None = None) -> list[ExpressivityResult]:
    """A verdict for each architecture class on the minimal automaton of ``spec``.

    ``archs`` defaults to every registered architecture (:func:`fsmnet.archs.ids`);
    ``progress`` is called with each class id before its verdict is computed.
    """
    m = load(spec).minimal()
    chosen = registry.ids() if archs is None else tuple(archs)
    for arch in chosen:
        registry.get(arch, source="<expressivity>")  # every unknown id fails before any work
    results = []
    for arch in chosen:
        if progress is not None:
            progress(arch)
        verdict = _theorem_witness(m, arch)
        results.append(verdict if verdict is not None
                       else _construct_and_prove(m, arch, max_states))
    return results
