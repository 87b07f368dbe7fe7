"""Expressivity verdicts: can an architecture class track an automaton at all?

Every verdict is computed on the minimal automaton:

``possible``
    either a theorem says the class expresses every automaton
    (:mod:`fsmnet.decide.possibility`; ``by`` is ``"theorem: ID"`` and nothing
    was built or checked: the network is built, proved and certified on
    request, ``witness_dir``), or the construction compiled and the verifier
    *proved* it equal to the automaton (``by`` is ``"proof: METHOD"``);
``impossible``
    with a witness (:mod:`fsmnet.decide.witness`) that the independent checker
    re-verifies, backed by one of the theorems in docs/theory.md (``by`` is
    ``"witness: ID"``);
``unknown``
    neither (e.g. the construction compiled but no exact proof closed, or the
    construction does not apply and no theorem rules the class out; ``by`` is
    ``""``).

``by_theorem=False`` skips the possibility theorems and builds and proves every
network, as fsmnet did before them: a second, independent source for the same
verdicts (tests/test_expressivity_theorems.py compares the two).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from fsmnet import archs as registry
from fsmnet.automata import Automaton, load
from fsmnet.decide.witness import Witness
from fsmnet.errors import NotExpressible
from fsmnet.types import ClassVerdict


@dataclass(frozen=True)
class ExpressivityResult:
    """One row of ``fsmnet expressivity --json``.

    ``by`` says what the verdict rests on: ``"theorem: ID"`` (a possibility theorem,
    nothing checked), ``"proof: METHOD"`` (a network compiled and proved),
    ``"witness: ID"`` (an impossibility theorem and the ``witness`` certificate that
    ``fsmnet check`` re-verifies), or ``""`` (unknown).  ``files`` names what was
    written with ``witness_dir`` (``network``, ``certificate``).
    """

    arch: str
    verdict: ClassVerdict
    reason: str
    witness: dict[str, Any] | None = None
    size: dict[str, Any] | None = None
    by: str = ""
    files: dict[str, str] | None = None

    def to_json(self) -> dict[str, Any]:
        """The ``fsmnet expressivity --json`` row."""
        return {"arch": self.arch, "verdict": self.verdict, "reason": self.reason,
                "witness": self.witness, "by": self.by, "files": self.files}


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


Searches = dict[tuple[str, tuple[tuple[str, int], ...]], Witness | None]
"""Witness searches already run on this automaton, by (search, options): several
classes share a theorem (three share "commuting"), and a search on 5,040 states
takes seconds, so one ``expressivity`` call runs each once."""


def _theorem_witness(m: Automaton, arch: str,
                     searches: Searches | None = None) -> ExpressivityResult | None:
    """An impossibility verdict from the record's theorems, or None if none applies."""
    for theorem_id in registry.get(arch).theorems:
        theorem = registry.THEOREMS[theorem_id]
        key = (theorem.witness, theorem.witness_options)
        if searches is not None and key in searches:
            w = searches[key]
        else:
            search = registry.resolve(theorem.witness)
            w = search(m, **dict(theorem.witness_options))
            if searches is not None:
                searches[key] = w
        if w is not None:
            return ExpressivityResult(arch, "impossible", f"{theorem.statement}; "
                                      f"{w.explanation}",
                                      witness_certificate(m, arch, w, theorem.statement),
                                      by=f"witness: {theorem.id}")
    return None


def _possible_by_theorem(m: Automaton, arch: str) -> ExpressivityResult | None:
    """A ``possible`` verdict from a possibility theorem, building nothing; or None."""
    from fsmnet.decide.possibility import theorem_for, theorem_size

    theorem = theorem_for(arch)
    if theorem is None:
        return None
    size = theorem_size(theorem, m)
    bounds = ", ".join(f"{k} {v}" for k, v in size.items() if not isinstance(v, list))
    return ExpressivityResult(arch, "possible",
                              f"by theorem ({theorem.statement}); {bounds} suffice; no network "
                              "built or checked (--witness-dir builds, proves and "
                              "certifies one)", None, size, by=f"theorem: {theorem.id}")


def _construct_and_prove(m: Automaton, arch: str, max_states: int | None,
                         witness_dir: str | None = None, *,
                         by_theorem: bool = False) -> ExpressivityResult:
    """Compile and prove; with ``witness_dir``, also write the network and a certificate.

    ``by_theorem``: build the possibility theorem's network (its construction options)
    rather than the class's default one."""
    from fsmnet.algebra.commutative import CountTableTooLarge
    from fsmnet.algebra.holonomy.skeleton import DecompositionTooLarge
    from fsmnet.algebra.monoid import MonoidTooLarge
    from fsmnet.constructions import compile_automaton
    from fsmnet.decide.possibility import prove_witness, theorem_witness_network
    from fsmnet.proofs.verifier import verify

    try:
        net = (theorem_witness_network(m, arch) if by_theorem
               else compile_automaton(m, arch))
    except NotExpressible as exc:
        return ExpressivityResult(arch, "unknown", f"no construction applies: {exc}")
    except (CountTableTooLarge, DecompositionTooLarge, MonoidTooLarge) as exc:
        # A resource limit of the construction, not a property of the class: the
        # verdict for the class is unknown, and the other classes still get theirs.
        return ExpressivityResult(arch, "unknown", f"the construction hit a size limit: {exc}")
    size = {"hidden": net.hidden_size, "parameters": net.n_params}
    for key in ("levels", "units", "rank", "n_h", "blocks"):
        if key in net.options:
            size[key] = net.options[key]
    files: dict[str, str] | None = None
    if witness_dir is None:
        result = verify(m, net, max_states=max_states)
        verdict, method, details = result.verdict, result.method, result.details
    else:
        verdict, details = prove_witness(m, net, witness_dir, max_states)
        method = details["method"]
        files = {"network": details["network"]}
        if details.get("certificate"):
            files["certificate"] = details["certificate"]
    if verdict == "proved":
        note = ("" if files is None or "certificate" in files
                else f"; no certificate: {details.get('certificate_error', 'none written')}")
        return ExpressivityResult(arch, "possible",
                                  f"construction compiled (hidden size {net.hidden_size}) and "
                                  f"proved equal to the automaton{note}", None, size,
                                  by=f"proof: {method}", files=files)
    if verdict == "refuted":  # a construction bug: never hide it
        raise AssertionError(f"{arch} construction refuted: {details}")
    return ExpressivityResult(arch, "unknown",
                              "construction compiled but no exact proof closed: "
                              f"{details.get('note', '')}", None, size, files=files)


def expressivity(spec: Any, archs: Sequence[str] | None = None, *,
                 max_states: int | None = None,
                 progress: Callable[[str], None] | None = None,
                 by_theorem: bool = True,
                 witness_dir: str | os.PathLike[str] | None = None
                 ) -> list[ExpressivityResult]:
    """A verdict for each architecture class on the minimal automaton of ``spec``.

    ``archs`` defaults to every registered architecture (:func:`fsmnet.archs.ids`);
    ``progress`` is called with each class id before its verdict is computed.

    ``by_theorem`` (default True): a class that a possibility theorem settles is
    ``possible`` from the theorem alone (``by = "theorem: ID"``), with no network
    built; False builds and proves every network (the path before the theorems).

    ``witness_dir``: an existing directory where each ``possible`` class gets its
    network (``ARCH.safetensors``, the theorem's construction when a theorem
    settles the class) and the certificate of its proof (``ARCH.json``); those
    verdicts then rest on the proof (``by = "proof: METHOD"``, ``files``).
    """
    m = load(spec).minimal()
    chosen = registry.ids() if archs is None else tuple(archs)
    for arch in chosen:
        registry.get(arch, source="<expressivity>")  # every unknown id fails before any work
    directory = None if witness_dir is None else os.fspath(witness_dir)
    searches: Searches = {}
    results = []
    for arch in chosen:
        if progress is not None:
            progress(arch)
        verdict = _theorem_witness(m, arch, searches)
        if verdict is None and by_theorem:
            verdict = _possible_by_theorem(m, arch)
            if verdict is not None and directory is not None:
                built = _construct_and_prove(m, arch, max_states, directory,
                                             by_theorem=True)
                # The theorem stands when its network could not be built or proved
                # here (a file-format limit, a proof budget): say so, keep the verdict.
                verdict = built if built.verdict == "possible" else replace(
                    verdict, reason=f"{verdict.reason}; its network was not proved here: "
                    f"{built.reason}", files=built.files)
        results.append(verdict if verdict is not None
                       else _construct_and_prove(m, arch, max_states, directory))
    return results
