"""The independent certificate checker: the trusted base of fsmnet's proofs.

Its modules import nothing from fsmnet but each other, and only the standard
library (a test keeps it so).  Read it in
one sitting: it re-derives every claim of a certificate from scratch.

A certificate of method ``exact-product`` claims that a finite set of pairs
(network state h, automaton state q) contains (h0, q0), is closed under every
symbol, and agrees on outputs.  Then, by induction on the length of w,
(h_w, q_w) is in the set for every word w, so the network's output equals the
automaton's on every word.  The checker verifies exactly that:

1. pair 0 is (h0, q0);
2. for every pair p = (h, q) and symbol a, the listed target pair is
   (step_a(h), delta[a][q]) — recomputed here in exact rationals;
3. for every pair, the label of readout(h) equals outputs[q].

The model types (``network.model.type``) define h0, step and readout:

* ``linear``: step_a(h) = normalize(A_a h), readout = first argmax of
  readout @ h.  ``normalize`` divides by the largest absolute entry (a
  positive rescaling, which changes no argmax), so equal projective states
  have equal entries; h0 is normalized too.
* ``minmax-dense``: step_a(x) = (R_a ⊗ x) ⊕ s_a over (max, min), readout =
  first argmax of readout ⊗ x.
* ``minmax-cascade``: see :func:`models._cascade_model` (also used for minmax-scalar).

A ``cascade-components`` certificate proves a product cascade one component
at a time (:mod:`.components`); a ``channel-product`` one lists a closed product
of diagonal channels over a cyclotomic field (:mod:`.channel_product`).

Every number is a string read as an exact rational (``"p/q"`` or a decimal);
MinMax models only select values with max and min.

Before any of that, a certificate is held to :data:`.schema.SCHEMA`: every
key of every object known and in its place, every value of its kind, the
claim the method's own; text from a file is parsed by
:func:`.schema.parse_certificate` (a repeated key, NaN or a giant integer is
refused).  Every number string is bounded before it is read
(:data:`.core.MAX_DIGITS`).

Each method's module first parses its certificate into frozen dataclasses (a
typed certificate: every structural refusal is raised there, with the field it
concerns), then checks the mathematics in short steps on the parsed values.
The readers several methods share live once: :func:`.core.read_automaton`,
:mod:`.fields` (pair tables, successor tables, labels) and :mod:`.linear_model`
(linear models and the float32-step rounding bounds).  No function here is
over 40 lines (tests/test_checker_shape.py).

Each proof method has one module here (``product``, ``cones``, ``witness``),
one line in :data:`METHODS` and one entry in :data:`.schema.SCHEMA`; a new
method adds these, and nothing else.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Any

from .belief import check_belief_tracking
from .channel_product import check_channel_product
from .components import check_components
from .cones import check_cones
from .core import CertificateError, check_network_file
from .count_dominance import check_count_dominance
from .counts import check_counts
from .decay import check_decay
from .float32_states import check_float32_product
from .invariants import check_invariants
from .product import check_product
from .reduction import check_reduced
from .schema import CLAIMS, COVERS, SCHEMA, parse_certificate, validate
from .witness import check_witness
from .zonotope import check_zonotopes


def _product_summary(cert: dict[str, Any]) -> str:
    check_product(cert)
    return (f"valid: {len(cert['pairs'])} pairs, {len(cert['states'])} network states, "
            f"{len(cert['automaton']['delta'])} symbols, closed and consistent")


# method -> (check returning a one-line summary, whether it certifies a network file)
METHODS: dict[str, tuple[Callable[[dict[str, Any]], str], bool]] = {
    "exact-product": (_product_summary, True),
    "cone-invariant": (check_cones, True),
    "witness": (check_witness, False),
    "count-abstraction": (check_counts, True),
    "channel-product": (check_channel_product, True),
    "count-dominance": (check_count_dominance, True),
    "belief-tracking": (check_belief_tracking, True),
    "belief-decay": (check_decay, False),
    "box-invariant": (check_invariants, True),
    "reduced-invariant": (check_reduced, True),
    "zonotope-invariant": (check_zonotopes, True),
    "float32-product": (check_float32_product, True),
    "cascade-components": (check_components, True),
}


def check_certificate(cert: Any, network_path: str | None = None) -> str:
    """Check a parsed certificate; return a one-line summary or raise CertificateError.

    The certificate is first held to :data:`.schema.SCHEMA` (every key of every
    object known and in its place, every value of its kind) and to its
    method's claim; then the method's module checks the claim about the network
    model the certificate states.  With ``network_path`` the file's SHA-256 is
    compared with the one the certificate states; that ties nothing the
    certificate's writer could not also forge, so to trust a certificate about
    a file use ``fsmnet.proofs.certificate.check_against_network`` (``fsmnet
    check --network``), which also compares the model, labels and symbols with
    the file's.  Text from a file goes through :func:`parse_certificate` first
    (duplicate keys refused).
    """
    if not isinstance(cert, dict) or cert.get("format") != "fsmnet-certificate":
        raise CertificateError("not an fsmnet certificate")
    if cert.get("format_version") != 1:
        raise CertificateError(f"unsupported format_version {cert.get('format_version')!r}")
    validate(cert, SCHEMA)
    if cert["method"] not in METHODS:  # a schema entry alone checks nothing
        raise CertificateError(f"unsupported method {cert['method']!r}")
    claim = CLAIMS.get(cert["method"])
    if claim is not None and cert["claim"] != claim:
        raise CertificateError(f"claim: a {cert['method']} certificate proves {claim!r}, "
                               f"not {cert['claim']!r}")
    covers = COVERS.get(cert.get("rounding"))  # type: ignore[arg-type]
    if cert.get("covers") != covers:
        raise CertificateError(f"covers: a {cert.get('rounding')!r} certificate covers "
                               f"{covers!r}, not {cert.get('covers')!r}")
    check, about_network = METHODS[cert["method"]]
    try:
        summary = check(cert)
        if about_network and network_path is not None:
            check_network_file(cert, network_path)
    except (KeyError, TypeError, IndexError) as exc:
        raise CertificateError(f"malformed certificate ({type(exc).__name__}: {exc})") from None
    return summary if covers is None else f"{summary}; covers {covers}"


def main(argv: list[str]) -> int:
    """``python -m fsmnet.proofs.checker CERT.json [NET.safetensors]``: 0 valid,
    1 invalid (a false claim, or a malformed certificate), 2 unreadable or not JSON."""
    if not argv:
        print("usage: python -m fsmnet.proofs.checker CERT.json [NET]", file=sys.stderr)
        return 2
    try:
        with open(argv[0], "rb") as handle:
            cert = parse_certificate(handle.read())
        print(check_certificate(cert, argv[1] if len(argv) > 1 else None))
        return 0
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        print(f"invalid: cannot read {argv[0]}: {exc}", file=sys.stderr)
        return 2
    except CertificateError as exc:
        print(f"invalid: {exc}", file=sys.stderr)
        return 1


__all__ = ["METHODS", "CertificateError", "check_certificate", "main", "parse_certificate"]
