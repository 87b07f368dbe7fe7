"""``verify``: prove a network equal to an automaton, or refute it with a confirmed word.

Methods, tried in order:

0. ``cascade-components``: a product cascade (MinMax, file format 3) one
   component at a time (:mod:`fsmnet.proofs.cascade_components`); when it
   does not apply or does not close, the methods below run.
1. ``exact-product``: exact exploration of the product (see
   :mod:`fsmnet.proofs.product`); closes into a proof when the network's
   reachable states are finitely many, or finds a shortest counterexample.
2. ``random-search``: when the product does not close within the budget,
   random words are run through the float reference evaluator; any
   disagreement is re-run exactly before it is reported.  Finding nothing is
   "unknown", never "proved".

Every counterexample is confirmed by the exact reference evaluator before it
is reported.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from fsmnet.automata import Automaton, load
from fsmnet.errors import FsmnetError, SpecError
from fsmnet.nets import Network
from fsmnet.nets.alignment import align_alphabet, label_map
from fsmnet.nets.exact_header import covers
from fsmnet.proofs.product import explore_product
from fsmnet.types import ProofMethod, Verdict


@dataclass(frozen=True)
class Counterexample:
    """A word on which the network and the automaton disagree, confirmed by the exact
    reference evaluator: ``word`` (symbol names), the automaton's label
    (``expected``) and the network's (``got``) after the whole word."""

    word: list[str]
    expected: Any
    got: Any


def _plain(value: Any) -> Any:
    """A label as a JSON value (a numpy scalar as its Python value)."""
    item = getattr(value, "item", None)
    return item() if callable(item) else value


@dataclass(frozen=True)
class VerifyResult:
    """What :func:`verify` found; :meth:`to_json` is the ``fsmnet verify --json``
    contract (docs/architecture.md, "JSON contracts").

    Attributes
    ----------
    verdict
        ``"proved"`` (equal on every word of every length), ``"refuted"`` (a
        confirmed :class:`Counterexample`) or ``"unknown"`` (the budget ran out and
        no method closed the proof).
    method
        The method that gave the verdict (the module docstring lists them in order).
    counterexample
        For ``"refuted"``: a shortest word found, confirmed exactly; else None.
    details
        What the methods report: ``pairs`` and ``network_states`` explored,
        ``certificate`` (the path written), ``certificate_error``, ``note``,
        ``rests_on_z3`` (claims only Z3 closed), ``covers`` and per-method notes.
    """

    verdict: Verdict
    method: ProofMethod | Literal["random-search", "cascade-components"]
    counterexample: Counterexample | None = None
    details: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """The ``fsmnet verify --json`` object, as plain JSON values: ``{"verdict",
        "method", "counterexample": {"word", "expected", "got"} | None, "rests_on_z3":
        [claim, ...], "certificate": path | None, "note": text | None,
        "certificate_error": text | None}``.

        >>> import json, fsmnet
        >>> net = fsmnet.compile("parity", "bilinear-full")
        >>> json.dumps(fsmnet.verify("parity", net).to_json()["verdict"])
        '"proved"'
        """
        cex = self.counterexample
        return {"verdict": self.verdict, "method": self.method,
                "counterexample": None if cex is None else
                {"word": list(cex.word), "expected": _plain(cex.expected),
                 "got": _plain(cex.got)},
                "rests_on_z3": list(self.details.get("rests_on_z3", [])),
                "certificate": self.details.get("certificate"),
                "note": self.details.get("note"),
                "certificate_error": self.details.get("certificate_error")}

    def _repr_html_(self) -> str:
        """A card for Jupyter: verdict, method, the confirmed counterexample."""
        from fsmnet.automata.render import repr_html

        rows = [("verdict", str(self.verdict)), ("method", str(self.method))]
        if self.counterexample is not None:
            c = self.counterexample
            rows += [("counterexample", " ".join(c.word) or "(empty word)"),
                     ("expected / got", f"{c.expected!r} / {c.got!r}")]
        rows += [(k, str(v)[:80]) for k, v in self.details.items()
                 if isinstance(v, (bool, int, float, str))][:8]
        colour = {"proved": "green", "refuted": "firebrick"}.get(str(self.verdict), "inherit")
        return repr_html(f"verify: {self.verdict}", rows, colour=colour)


def confirm(net: Network, automaton: Automaton, word: list[int]) -> Counterexample | None:
    """Re-run a candidate word with the exact reference evaluator; None if it agrees."""
    got = net.labels[int(net.label_trace(word, exact=True)[-1])]
    expected = automaton.output(automaton.run(word))
    if type(got) is type(expected) and got == expected:
        return None
    return Counterexample(word=automaton.decode(word), expected=expected, got=got)


def random_search(net: Network, automaton: Automaton, *, examples: int = 200,
                  max_length: int = 200, seed: int = 0) -> Counterexample | None:
    """Random words through the float reference; confirmed exactly; shortest prefix kept."""
    rng = np.random.default_rng(seed)
    for _ in range(examples):
        word = rng.integers(0, automaton.n_symbols, size=int(rng.integers(1, max_length + 1)))
        net_trace = net.label_trace(word)
        auto_trace = automaton.output_ids[automaton.trace(word)]
        mapped = np.array(label_map(net, automaton))[net_trace]
        bad = np.flatnonzero(mapped != auto_trace)
        for t in bad[:3]:  # float may disagree where exact does not: try a few
            cex = confirm(net, automaton, [int(x) for x in word[:t]])
            if cex is not None:
                return cex
    return None


def _try_cones(net: Network, automaton: Automaton, details: dict[str, Any]) -> Any:
    """An inductive cone invariant (fsmnet.proofs.cones) for a linear network with
    rational weights, from a short exact exploration; None if none is found."""
    from fractions import Fraction

    from fsmnet.nets.linear import LinearRecurrence
    from fsmnet.proofs.cones import prove_by_cones

    sem = net.semantics
    if not isinstance(sem, LinearRecurrence):  # a record may list cones for any linear net
        return None
    mats = sem.matrices(net, True)
    h0 = list(sem.initial_state(net, True))
    readout = sem.readout_matrix(net, True)
    if not all(isinstance(x, Fraction) for x in [*np.ravel(mats), *h0, *np.ravel(readout)]):
        return None
    sample = explore_product(net, automaton, max_states=200)
    if sample.status != "budget":
        return None
    proof, why = prove_by_cones(net, automaton, sample, matrices=mats, h0=h0, readout=readout)
    details["cone_invariant"] = why
    return proof


def prepare_automaton(spec: Any, net: Network) -> Automaton:
    """The minimal automaton of ``spec`` in the network's alphabet order (it needs an
    initial state and outputs)."""
    automaton = load(spec)
    if automaton.is_semiautomaton:
        raise SpecError("verification needs an initial state and outputs",
                        source=automaton.name or "<automaton>", field="initial_state",
                        value=automaton.initial)
    return align_alphabet(automaton.minimal(), net)


def _try_abstract(net: Network, automaton: Automaton, details: dict[str, Any],
                  certificate: str | None, network_path: str | None) -> bool:
    """The abstract-simulation invariants of :mod:`fsmnet.proofs.abstract` (a set per
    automaton state, checked in exact rationals); True when one is proved."""
    from fsmnet.proofs.abstract.certify import prove_invariant

    cert, why, _ = prove_invariant(net, automaton, network_path=network_path)
    details["box_invariant"] = why
    if cert is not None and certificate is not None:
        from fsmnet.proofs.certificate import write_certificate

        write_certificate(cert, certificate)
        details["certificate"] = certificate
    return cert is not None


DEFAULT_MAX_STATES = 20_000
"""The product budget when the caller names none and the network records no count."""

RECORDED_STATES_CAP = 500_000
"""The most a recorded count raises the default budget to (a file could claim anything;
24,894 pairs took 17 s on 2 cores, so this bounds the default at minutes)."""


def default_max_states(net: Network) -> int:
    """The product budget :func:`verify` uses when none is given.

    A MinMax cascade's compiler counted the hidden states it reaches
    (``reachable_coordinates``), and its exact product has about that many pairs:
    the 141-state reset cascade of the aperiodic survey reaches 24,894, past the
    plain default of 20,000, and came out "unknown" on the budget alone.  Twice the
    recorded count (a wrong network can pair one hidden state with several automaton
    states), between :data:`DEFAULT_MAX_STATES` and :data:`RECORDED_STATES_CAP`.  The
    count only sizes the search; the verdict never rests on it."""
    recorded = net.options.get("reachable_coordinates")
    if isinstance(recorded, bool) or not isinstance(recorded, int) or recorded < 1:
        return DEFAULT_MAX_STATES
    return max(DEFAULT_MAX_STATES, min(2 * recorded, RECORDED_STATES_CAP))


def _channel_product(net: Network, automaton: Automaton, result: Any,
                     details: dict[str, Any], certificate: str,
                     network_path: str | None) -> None:
    """The closed product of diagonal channels (roots of unity), listed with at most a
    few times the pairs the exact exploration closed with: a decaying channel never
    repeats, so the listing gives up at once there."""
    from fsmnet.proofs.certificate import write_certificate
    from fsmnet.proofs.channel_product import channel_product_certificate

    listed, note = channel_product_certificate(net, automaton, network_path=network_path,
                                               max_pairs=2 * len(result.pairs) + 16)
    details["channel_product"] = note
    if listed is not None:
        write_certificate(listed, certificate)
        details["certificate"] = certificate


def _count_abstraction(net: Network, automaton: Automaton, result: Any,
                       details: dict[str, Any], certificate: str,
                       network_path: str | None) -> None:
    from fsmnet.proofs.count_certificate import prove_and_certify

    prove_and_certify(net, automaton, details, certificate=certificate,
                      network_path=network_path)


# Where a closed product's exact weights have no rational model (cyclotomic entries:
# irrational rotations), the certificates tried in turn, cheapest first: (the proof a
# record must list, writer).  The channel product takes milliseconds where every
# multiplier is a root of unity; the count abstraction also covers decaying channels.
_IRRATIONAL_CERTIFICATES = (
    ("exact-product", _channel_product),
    ("count-abstraction", _count_abstraction),
)


def write_product_certificate(net: Network, automaton: Automaton, result: Any,
                              details: dict[str, Any], certificate: str,
                              network_path: str | None) -> None:
    """Write the certificate of a closed exact product, recording it (or why there is
    none) in ``details``.  A network whose exact weights the product certificate cannot
    state (cyclotomic entries: irrational rotations) gets a ``channel-product`` or a
    ``count-abstraction`` certificate instead where its architecture has one."""
    from fsmnet import archs
    from fsmnet.proofs.certificate import build_certificate, write_certificate

    try:
        cert = build_certificate(net, automaton, result, network_path=network_path)
    except (FsmnetError, TypeError) as exc:
        # The proof stands; only its portable form is missing.
        details["certificate_error"] = f"no certificate for {net.arch}: {exc}"
        proofs = archs.get(net.arch).proofs
        for needs, write in _IRRATIONAL_CERTIFICATES:
            if needs in proofs and "certificate" not in details:
                write(net, automaton, result, details, certificate, network_path)
        if "certificate" in details:
            details.pop("certificate_error", None)
        return
    write_certificate(cert, certificate)
    details["certificate"] = certificate


def verify(spec: Any, net: Network, *, max_states: int | None = None,
           certificate: str | None = None, network_path: str | None = None,
           progress: Any = None) -> VerifyResult:
    """Prove ``net`` equal to the automaton ``spec`` on every word, or refute it.

    Parameters
    ----------
    spec
        Anything :func:`fsmnet.load` accepts; it needs an initial state and outputs.
    net
        The network.
    max_states
        Budget of distinct exact network states for the product exploration; by
        default :func:`default_max_states` (20,000, or twice the hidden states a
        MinMax compiler recorded).
    certificate
        Path to write a JSON proof certificate to, when the verdict is "proved".
    network_path
        The network's file, recorded (SHA-256) in the certificate.
    progress
        Called with the number of product pairs explored so far (a progress bar).

    Returns
    -------
    VerifyResult
        The verdict ("proved", "refuted" with a confirmed counterexample, or
        "unknown"), the method that gave it and its details; ``to_json()`` is the
        ``fsmnet verify --json`` object.

    Raises
    ------
    SpecError
        For a bad ``spec``, a semiautomaton, an alphabet the network does not share,
        or a ``max_states`` that is not a positive whole number.
    """
    if max_states is None:
        max_states = default_max_states(net)
    if isinstance(max_states, bool) or not isinstance(max_states, int) or max_states < 1:
        raise SpecError("the product budget must be a positive whole number of states",
                        source="verify", field="max_states", value=max_states)
    automaton = prepare_automaton(spec, net)
    from fsmnet import archs

    record = archs.get(net.arch, source=net.name or "<network>")
    if record.product_budget is not None:  # their states rarely close: keep it short
        max_states = min(max_states, record.product_budget)
    from fsmnet.proofs.cascade_components import verify_components

    # A product cascade, one component at a time: its joint states need not close.
    done = verify_components(net, automaton, max_states=max_states, certificate=certificate,
                             network_path=network_path)
    if done is not None:
        return VerifyResult("proved", "cascade-components", None, {**done, "covers": covers(net)})
    result = explore_product(net, automaton, max_states=max_states, progress=progress)
    details: dict[str, Any] = {"pairs": len(result.pairs), "network_states": len(result.states),
                               "covers": covers(net)}
    if result.status == "closed":
        if certificate is not None:
            write_product_certificate(net, automaton, result, details, certificate,
                                      network_path)
        return VerifyResult("proved", "exact-product", None, details)
    if result.status == "mismatch":
        assert result.word is not None
        cex = confirm(net, automaton, result.word)
        if cex is not None:
            return VerifyResult("refuted", "exact-product", cex, details)
        details["note"] = "a product mismatch was not confirmed by the reference evaluator"
        return VerifyResult("unknown", "exact-product", None, details)
    if "count-abstraction" in record.proofs:
        from fsmnet.proofs.count_certificate import prove_and_certify

        if prove_and_certify(net, automaton, details, certificate=certificate,
                             network_path=network_path):
            return VerifyResult("proved", "count-abstraction", None, details)
    cone = _try_cones(net, automaton, details) if "cone-invariant" in record.proofs else None
    if cone is not None:
        if certificate is not None:
            from fsmnet.proofs.certificate import cone_certificate, write_certificate

            write_certificate(cone_certificate(net, automaton, cone,
                                               network_path=network_path), certificate)
            details["certificate"] = certificate
        return VerifyResult("proved", "cone-invariant", None, details)
    if record.abstract_transformer is not None and _try_abstract(
            net, automaton, details, certificate, network_path):
        return VerifyResult("proved", "box-invariant", None, details)
    details["note"] = (f"the network's exact states did not close within {max_states}; "
                       "no invariant method proved it")
    cex = random_search(net, automaton)
    if cex is not None:
        return VerifyResult("refuted", "random-search", cex, details)
    return VerifyResult("unknown", "exact-product", None, details)
