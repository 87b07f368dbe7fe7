"""The ``channel-product`` certificate: written for group-character networks, re-derived
by the standard-library checker, and refused when anything in it is changed.

Independent sources: the pair count is the group's order (the minimal automaton's
states, a regular action); each tampered certificate states something false that
the checker must find (a state, a target, a label, pair 0), and a network compiled
for another language must get no certificate at all.
"""

from __future__ import annotations

import copy
import json
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis_budget import examples
from test_group_characters import group_languages

import fsmnet
import fsmnet.algebra.commutative as count_algebra
from fsmnet.automata import Automaton
from fsmnet.proofs.channel_product import channel_product_certificate
from fsmnet.proofs.checker import CertificateError, check_certificate
from fsmnet.proofs.checker.schema import parse_certificate
from fsmnet.proofs.verifier import verify
from fsmnet.train.data import task_automaton


def _certified(m: Automaton, arch: str = "bilinear-r2") -> dict[str, Any]:
    with pytest.MonkeyPatch.context() as patch:  # the characters, however few the types
        patch.setattr(count_algebra, "COUNT_TYPE_LIMIT", 0)
        net = fsmnet.compile(m, arch)
    cert, note = channel_product_certificate(net, m)
    assert cert is not None, note
    # Through JSON text and the checker's own parser, as `fsmnet check` reads it.
    parsed: dict[str, Any] = parse_certificate(json.dumps(cert))
    return parsed


@settings(max_examples=examples(20), deadline=None)
@given(group_languages())
def test_every_group_language_gets_a_valid_certificate(a: Automaton) -> None:
    m = a.minimal()
    cert = _certified(m)
    assert check_certificate(cert).startswith(f"valid: {m.n_states} pairs")


@pytest.fixture(scope="module")
def modadd7() -> dict[str, Any]:
    return _certified(task_automaton("modadd:7").minimal())


def _bump(element: dict[str, str]) -> dict[str, str]:
    """The number plus 1 (a different number in any field)."""
    return {**element, "0": str(Fraction(element.get("0", "0")) + 1)}


def _tampered(cert: dict[str, Any], change: str) -> dict[str, Any]:
    bad = copy.deepcopy(cert)
    if change == "a state":
        bad["states"][1][0] = _bump(bad["states"][1][0])
    elif change == "a target":
        row = bad["transitions"][0]
        row[1] = (row[1] + 1) % len(bad["pairs"])
    elif change == "an output":
        outputs = bad["automaton"]["outputs"]
        outputs[1], outputs[2] = outputs[2], outputs[1]
    elif change == "pair 0":
        bad["pairs"][0], bad["pairs"][1] = bad["pairs"][1], bad["pairs"][0]
    elif change == "a multiplier":
        bad["network"]["model"]["multipliers"][1][0] = _bump(
            bad["network"]["model"]["multipliers"][1][0])
    elif change == "a dropped pair":
        bad["pairs"].pop()
        bad["transitions"].pop()
    return bad


@pytest.mark.parametrize("change", ["a state", "a target", "an output", "pair 0",
                                    "a multiplier", "a dropped pair"])
def test_a_tampered_certificate_is_refused(modadd7: dict[str, Any], change: str) -> None:
    assert check_certificate(modadd7).startswith("valid: 7 pairs")
    with pytest.raises(CertificateError):
        check_certificate(_tampered(modadd7, change))


def test_a_wrong_network_gets_no_certificate(tmp_path: Path) -> None:
    m = task_automaton("modadd:10").minimal()
    net = fsmnet.compile(m, "bilinear-r2")
    outputs = list(m.outputs or ())
    outputs[int(m.delta[3, m.initial])] = outputs[int(m.delta[4, m.initial])]
    mutant = m.replace(outputs=outputs)
    cert, note = channel_product_certificate(net, mutant)
    assert cert is None and "differs" in note
    path = tmp_path / "c.json"
    assert verify(mutant, net, certificate=str(path)).verdict == "refuted"
    assert not path.exists()


def test_a_decaying_channel_stops_at_the_pair_limit() -> None:
    # A threshold letter (count a up to 1, then stop) has a channel multiplied by μ < 1:
    # its values never repeat, so the product is cut at the limit rather than listed.
    from test_commutative_algebra import counter_product

    a = counter_product([(1, 1), (0, 3)], [0, 1, 2, 1, 2, 0])
    net = fsmnet.compile(a.minimal(), "bilinear-r2")
    cert, note = channel_product_certificate(net, a.minimal(), max_pairs=50)
    assert cert is None and "more than 50 pairs" in note
