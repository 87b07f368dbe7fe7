"""``certify``: proofs for every length for networks with infinitely many reachable states.

Order of work, for a network N and the minimal automaton A (given, or learned
from N with L*, :mod:`.extract`):

1. a short exact product exploration (a proof if N's exact states close, as
   for compiled networks; a shortest counterexample if one is met); if it does
   not close, the same exploration of N's minimal linear representation
   (:mod:`.minimal_linear`, exact claims only: method ``reduced-product``), then
   split boxes (:mod:`.split_boxes`, exact claims only): a main block that never
   reads the other coordinates, explored exactly, and boxes on the rest;
2. clouds of float states per automaton state (:mod:`.search`); float
   disagreements are candidates, confirmed exactly before being reported;
3. the architecture's abstract domain (the registry's ``abstract_transformer``):
   candidate invariants found in floats, each checked in exact rationals by the
   independent checker (:mod:`fsmnet.proofs.checker.invariants`) — only a
   passing check is "proved";
4. otherwise random search for a confirmed counterexample, and exact bounded
   exploration (:mod:`.bounded`) for the proved length L: "unknown" with L.

With ``float32`` the claim is about the float32 reference execution
(:mod:`fsmnet.nets.float32`) too, so before step 2 words are run in float32
(:mod:`.float32_search`); a disagreement confirmed by the checker's independent
float32 replay is a refutation (method ``float32-search``).  When no invariant
closes (an invariant's float32 claim covers every summation order and exact
arithmetic), the float32 states themselves are explored bit for bit
(:mod:`fsmnet.proofs.float32_product`): a closed product proves the reference
order only.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from fsmnet.automata import Automaton
from fsmnet.nets import Network
from fsmnet.nets.alignment import label_map
from fsmnet.types import Verdict


@dataclass(frozen=True)
class CertifyResult:
    """The ``certify --json`` contract.

    ``proved_length`` is ``None`` when the claim holds for every length
    (verdict "proved"), the largest L with every word of length ≤ L correct
    for "unknown", and the counterexample's length minus one for "refuted"; ``None``
    for an "unknown" that has no claim to measure (``certify`` without SPEC whose
    learning stopped before a first hypothesis).
    """

    verdict: Verdict
    method: str
    counterexample: Any = None
    proved_length: int | None = None
    domain: str | None = None
    seconds: float = 0.0
    details: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        cex = self.counterexample
        return {"verdict": self.verdict, "method": self.method,
                "counterexample": None if cex is None else
                {"word": cex.word, "expected": cex.expected, "got": cex.got},
                "proved_length": self.proved_length, "domain": self.domain,
                "covers": self.details.get("covers"), "theorem": self.details.get("theorem"),
                "seconds": round(self.seconds, 3)}


# Theorem G (docs/theory.md §5) covers the homogeneous linear families in exact arithmetic.
GENERIC_WEIGHTS_FAMILIES = ("bilinear", "diagonal")


def _note_generic_weights(net: Network, automaton: Automaton, details: dict[str, Any]) -> None:
    """Say when no generic-weight network of this class is right for every length:
    then neither more training nor more proof search can make this one so."""
    from fsmnet import archs
    from fsmnet.algebra.generic_weights import generic_weights_obstruction

    if archs.get(net.arch).family not in GENERIC_WEIGHTS_FAMILIES:
        return
    report = generic_weights_obstruction(automaton, limit=2000)
    if report.obstruction is not None:
        details["theorem"] = report.obstruction.describe()


def _rights(net: Network, automaton: Automaton) -> dict[int, int] | None:
    to_auto = label_map(net, automaton)
    right = {}
    for q in range(automaton.n_states):
        hits = [c for c, x in enumerate(to_auto) if x == automaton.output_ids[q]]
        if not hits:
            return None
        right[q] = hits[0]
    return right


def _product_budget(net: Network, max_states: int) -> int:
    """A short exact exploration for noisy weights (their states never repeat, and
    each exact step of a 64-dimensional state is costly); the full budget for
    weights with small denominators (compiled networks, whose states close)."""
    from fractions import Fraction

    import numpy as np

    floats = [a for a in net.params.values() if a.dtype == np.float64]
    sample = np.concatenate([a.ravel() for a in floats])[:4096] if floats else np.zeros(0)
    noisy = any(Fraction(float(x)).denominator > 2**20 for x in sample)
    from fsmnet.nets.linear import LinearRecurrence

    linear = isinstance(net.semantics, LinearRecurrence)  # max/min steps cost nothing
    return min(max_states, 20) if noisy and linear and net.exact is None else max_states


def _affordable(net: Network, details: dict[str, Any],
                work: float = 1e8) -> Any:
    """A filter on candidate words: the exact reference run of a word of length n costs
    about H²·n² digit operations (exact states grow by the weights' digits every
    step), so candidates with H²·n² > ``work`` are left unconfirmed, and counted in
    ``details`` (H = 16 allows n ≤ 625; H = 2, n ≤ 5000)."""
    from fsmnet.nets.linear import LinearRecurrence

    growing = isinstance(net.semantics, LinearRecurrence)  # max/min states do not grow
    h = max(1, int(net.semantics.hidden_size(net)))

    def ok(word: list[int]) -> bool:
        if not growing or (h * len(word)) ** 2 <= work:
            return True
        details["unconfirmed"] = details.get("unconfirmed", 0) + 1
        return False

    return ok


def _float32_states(net: Network, automaton: Automaton, details: dict[str, Any],
                    certificate: str | None, network_path: str | None) -> Any:
    """(verdict, method, extras) from the bit-exact float32 exploration, or None when it
    does not close within its budget (:mod:`fsmnet.proofs.float32_product`)."""
    from fsmnet.proofs.abstract.float32_search import confirmed_float32
    from fsmnet.proofs.certificate import write_certificate
    from fsmnet.proofs.checker import CertificateError, check_certificate
    from fsmnet.proofs.float32_product import FLOAT32_COVERS, explore_float32, float32_certificate

    found = explore_float32(net, automaton)
    if found.status == "mismatch" and found.word is not None:
        cex = confirmed_float32(net, automaton, found.word)
        if cex is not None:
            details["semantics"] = "float32 reference execution (shortest word, breadth first)"
            return "refuted", "float32-product", {"counterexample": cex,
                                                  "proved_length": len(found.word) - 1}
    if found.status != "closed":
        details["float32_states"] = (f"{len(found.states)} float32 states, {len(found.pairs)} "
                                     f"pairs: no closed product ({found.status})")
        return None
    cert = float32_certificate(net, automaton, found, network_path=network_path)
    try:
        check_certificate(cert)
    except CertificateError as exc:  # never a proof unless the checker agrees
        details["float32_states"] = f"closed, but the check failed: {exc}"
        return None
    details["covers"] = FLOAT32_COVERS
    if certificate is not None:
        write_certificate(cert, certificate)
        details["certificate"] = certificate
    return "proved", "float32-product", {"domain": "float32-states"}


def _reduced_product(net: Network, automaton: Automaton, details: dict[str, Any],
                     certificate: str | None, network_path: str | None, max_states: int
                     ) -> tuple[Verdict, str, dict[str, Any]] | None:
    """(verdict, method, extras) from the exact product of the minimal linear
    representation (:func:`.minimal_linear.reduced_product`: exact claims only), or
    None when the network does not reduce or that product does not close either.
    A disagreement there is one of the network too (same scores on every word),
    confirmed on the network itself before it refutes."""
    from fsmnet.proofs.abstract.minimal_linear import reduce_network, reduced_product
    from fsmnet.proofs.certificate import write_certificate
    from fsmnet.proofs.verifier import confirm

    found = reduce_network(net)
    if found is None:
        return None
    cert, word, why = reduced_product(net, automaton, found, network_path=network_path,
                                      max_states=_product_budget(found[1], max_states))
    details["reduced_product"] = why
    cex = None if word is None else confirm(net, automaton, word)
    if cex is not None and word is not None:
        return "refuted", "reduced-product", {"counterexample": cex,
                                              "proved_length": len(word) - 1}
    if cert is None:
        return None
    if certificate is not None:
        write_certificate(cert, certificate)
        details["certificate"] = certificate
    return "proved", "reduced-product", {"domain": "exact-states"}


def prove_invariant(net: Network, automaton: Automaton, *, float32: bool = False,
                    network_path: str | None = None, seed: int = 0
                    ) -> tuple[dict[str, Any] | None, str, list[list[int]]]:
    """(checked certificate, why, float candidate words) for the registry's domain."""
    from fsmnet import archs
    from fsmnet.proofs.abstract.search import sample_states
    from fsmnet.proofs.certificate import _common, network_model
    from fsmnet.proofs.certificate_models import NotRational
    from fsmnet.proofs.checker import CertificateError, check_certificate
    from fsmnet.proofs.checker.schema import COVERS

    ref = archs.get(net.arch).abstract_transformer
    if ref is None:
        return None, f"{net.arch} has no abstract domain yet", []
    domain = archs.resolve(ref)
    right = _rights(net, automaton)
    if right is None:
        return None, "the network lacks a label of the automaton", []
    cloud = sample_states(net, automaton, seed=seed)
    if cloud.candidates:
        return None, "the float run disagrees on a sampled word", cloud.candidates
    try:
        model = network_model(net)
    except NotRational as exc:  # an irrational exact header: no box model to check
        return None, str(exc), []
    common = _common(net, automaton, "box-invariant", model, network_path)
    why = "no candidate"
    targets: list[tuple[Network, dict[int, Any], Any]] = [(net, cloud.states, None)]
    if not float32:  # reduce first (exact only): directions the readout never sees go
        from fsmnet.proofs.abstract.minimal_linear import reduce_network, reduced_certificate

        found = reduce_network(net)
        if found is not None:
            targets.insert(0, (found[1], sample_states(found[1], automaton, seed=seed).states,
                               found[0]))
    for target, states, red in targets:
        for body, why in domain.candidates(target, automaton, states, right, float32=float32):
            if body is None:
                continue
            if body.get("rounding") in COVERS:  # the float32 claim says what it covers
                body = {**body, "covers": COVERS[body["rounding"]]}
            cert = {**common, **body} if red is None else reduced_certificate(common, body, red)
            try:
                summary = check_certificate(cert)
            except CertificateError as exc:
                why = f"exact check failed: {exc}"
                continue
            return cert, summary, []
    return None, why, []


def certify(spec: Any, net: Network, *, float32: bool = False, certificate: str | None = None,
            network_path: str | None = None, max_states: int = 200,
            max_pairs: int = 4000, seed: int = 0) -> CertifyResult:
    """Prove ``net`` equal to ``spec`` for all lengths, refute it, or bound the proof.

    ``max_pairs`` bounds the exact bounded exploration of an "unknown" (for a linear
    network wider than 16, ``max_pairs``·(16/H)³ pairs, at least 32).

    ``spec`` None learns the automaton from the network first (L*, needs aalpy).
    """
    from fsmnet.nets.linear import LinearRecurrence
    from fsmnet.proofs.abstract.bounded import bounded_exploration
    from fsmnet.proofs.certificate import build_certificate, write_certificate
    from fsmnet.proofs.product import explore_product
    from fsmnet.proofs.verifier import confirm, prepare_automaton, random_search

    start = time.perf_counter()
    details: dict[str, Any] = {}
    if spec is None:
        from fsmnet.proofs.abstract.extract import certify_extracted

        learned: CertifyResult = certify_extracted(net, float32=float32,
                                                   certificate=certificate,
                                                   network_path=network_path, start=start)
        return learned
    automaton = prepare_automaton(spec, net)

    from fsmnet.nets.exact_header import covers

    details["covers"] = covers(net)

    def done(verdict: Verdict, method: str, **kw: Any) -> CertifyResult:
        if verdict != "proved" and not float32:
            _note_generic_weights(net, automaton, details)
        return CertifyResult(verdict, method, seconds=time.perf_counter() - start,
                             details=details, **kw)

    product = explore_product(net, automaton, max_states=_product_budget(net, max_states))
    if product.status == "mismatch" and product.word is not None:
        cex = confirm(net, automaton, product.word)
        if cex is not None:
            return done("refuted", "exact-product", counterexample=cex,
                        proved_length=len(product.word) - 1)
    if float32:  # the claim is about the float32 run: a word where it fails refutes it
        from fsmnet.proofs.abstract.float32_search import float32_refutation

        cex = float32_refutation(net, automaton, seed=seed)
        if cex is not None:
            details["semantics"] = ("float32 reference execution, confirmed by the checker's "
                                    "independent float32 replay")
            return done("refuted", "float32-search", counterexample=cex,
                        proved_length=len(cex.word) - 1)
    if product.status == "closed" and not float32:
        if certificate is not None:
            from fsmnet.proofs.verifier import write_product_certificate

            write_product_certificate(net, automaton, product, details, certificate,
                                      network_path)
        return done("proved", "exact-product", domain="exact-states")
    from fsmnet import archs

    if not float32 and archs.get(net.arch).family == "diagonal":  # exact claims only
        from fsmnet.proofs.count_dominance import certify_dominance

        counted = certify_dominance(net, automaton, details, certificate=certificate,
                                    network_path=network_path)
        if counted is not None:  # checked by the checker, or a confirmed count vector
            return done(counted[0], "count-dominance", **counted[1])
    reduced = None if float32 else _reduced_product(net, automaton, details, certificate,
                                                    network_path, max_states)
    if reduced is not None:  # proved (its exact states closed) or a confirmed refutation
        return done(reduced[0], reduced[1], **reduced[2])
    if not float32:  # an exact main block, contracting coordinates beside it (split_boxes)
        from fsmnet.proofs.abstract.split_boxes import prove_split

        split = prove_split(net, automaton, _rights(net, automaton), details,
                            network_path=network_path)
        if split is not None:  # checked by the checker (a slice-box invariant)
            if certificate is not None:
                write_certificate(split, certificate)
                details["certificate"] = certificate
            return done("proved", "box-invariant", domain="slice-box")
    cert, why, candidates = prove_invariant(net, automaton, float32=float32,
                                            network_path=network_path, seed=seed)
    details["invariant"] = why
    if cert is not None:
        if certificate is not None:
            write_certificate(cert, certificate)
            details["certificate"] = certificate
        if "covers" in cert:
            details["covers"] = cert["covers"]
        return done("proved", "box-invariant", domain=cert["domain"])
    if float32:  # the weaker claim (the reference's order only) when no invariant closed
        proof = _float32_states(net, automaton, details, certificate, network_path)
        if proof is not None:
            verdict, method, extras = proof
            return done(verdict, method, **extras)
    affordable = _affordable(net, details)
    for word in filter(affordable, candidates):
        cex = confirm(net, automaton, word)
        if cex is not None:
            return done("refuted", "abstract-search", counterexample=cex,
                        proved_length=len(word) - 1)
    from fsmnet.proofs.abstract.search import pumped_candidates

    for word in filter(affordable, pumped_candidates(net, automaton)):
        cex = confirm(net, automaton, word)
        if cex is not None:
            return done("refuted", "pumped-search", counterexample=cex,
                        proved_length=len(word) - 1)
    cex = random_search(net, automaton, seed=seed)
    if cex is not None:
        return done("refuted", "random-search", counterexample=cex,
                    proved_length=len(cex.word) - 1)
    # An exact step of a linear net costs about H² products of growing numbers (60 ms at
    # H = 64 in one run): above H = 16 the pairs shrink as (16/H)³, 62 at H = 64.
    wide = isinstance(net.semantics, LinearRecurrence) and net.semantics.hidden_size(net) > 16
    pairs = max(32, max_pairs * 16**3 // net.semantics.hidden_size(net) ** 3) if wide \
        else max_pairs
    bounded = bounded_exploration(net, automaton, max_pairs=pairs)
    if bounded.word is not None:
        cex = confirm(net, automaton, bounded.word)
        if cex is not None:
            return done("refuted", "bounded", counterexample=cex,
                        proved_length=bounded.proved_length)
    if bounded.closed and not float32:  # the exact states closed after all: a proof
        product = explore_product(net, automaton, max_states=max_pairs + 1)
        if product.status == "closed":
            if certificate is not None:
                write_certificate(build_certificate(net, automaton, product,
                                                    network_path=network_path), certificate)
                details["certificate"] = certificate
            return done("proved", "exact-product", domain="exact-states")
    details["bounded"] = (f"exact exploration by length, equal states merged: "
                          f"{bounded.pairs} distinct pairs")
    if float32:
        details["note"] = ("the bounded length is for exact arithmetic" + (
            ", where the exact states closed (a proof for every length); float32 "
            "execution is not proved" if bounded.closed else ""))
    return done("unknown", "bounded", proved_length=bounded.proved_length)
