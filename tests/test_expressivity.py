"""Expressivity verdicts and their witnesses.

Independent sources: brute force over short words (for commutativity), and the
libsemigroups-based monoid (a second algorithm) for aperiodicity.
"""

import itertools
import json

import numpy as np
import pytest
from hypothesis import given

from fsmnet.automata import Automaton, load
from fsmnet.cli import main
from fsmnet.decide import witness as witness_module
from fsmnet.decide.expressivity import expressivity, witness_certificate
from fsmnet.decide.witness import equal_counts_witness, unsettled_powers_witness
from fsmnet.proofs.checker import CertificateError, check_certificate
from fsmnet.testing.strategies import automata


def _brute_noncommutative(m: Automaton, max_len: int = 4) -> bool:
    """Some two words of length <= max_len with equal counts have different outputs."""
    for length in range(2, max_len + 1):
        by_counts: dict = {}
        for w in itertools.product(range(m.n_symbols), repeat=length):
            key = tuple(sorted(w))
            out = m.output_ids[m.run(w)]
            if by_counts.setdefault(key, out) != out:
                return True
    return False


@given(automata(max_states=4, max_symbols=3, max_labels=3))
def test_equal_counts_witness_is_valid_and_found_when_brute_force_finds_one(a) -> None:
    m = a.minimal()
    w = equal_counts_witness(m)
    if w is not None:
        cert = witness_certificate(m, "bilinear-r2", w, "t1")
        assert check_certificate(cert).startswith("valid")
    if _brute_noncommutative(m):
        assert w is not None


def _monoid_maps(m: Automaton) -> set[tuple[int, ...]]:
    """Every element of the transition semigroup, by brute-force closure of the
    letter maps (a second algorithm to the witness search's NumPy layers)."""
    maps = {tuple(int(x) for x in m.delta[a]) for a in range(m.n_symbols)}
    frontier = list(maps)
    while frontier:
        f = frontier.pop()
        for a in range(m.n_symbols):
            g = tuple(int(m.delta[a, f[q]]) for q in range(m.n_states))
            if g not in maps:
                maps.add(g)
                frontier.append(g)
    return maps


def _cycle_lengths(f: tuple[int, ...]) -> set[int]:
    """Lengths of the cycles the states of f run into, by walking each one."""
    out = set()
    for q in range(len(f)):
        seen: list[int] = []
        x = q
        while x not in seen:
            seen.append(x)
            x = f[x]
        out.add(len(seen) - seen.index(x))
    return out


@given(automata(max_states=4, max_symbols=2, max_labels=2))
def test_unsettled_witness_exists_iff_monoid_not_aperiodic(a) -> None:
    m = a.minimal()
    w = unsettled_powers_witness(m, stride=1)
    if w is not None:
        assert check_certificate(witness_certificate(m, "minmax-scalar", w, "t4"))
    # Second algorithm: a state cycle of length > 1 under some monoid element.
    assert (w is not None) == any(max(_cycle_lengths(f)) > 1 for f in _monoid_maps(m))


@given(automata(max_states=5, max_symbols=3, max_labels=2))
def test_even_power_witness_exists_iff_a_cycle_longer_than_two(a) -> None:
    # stride 2 (real-diagonal nets): a witness iff some monoid element has a state cycle
    # of a length that does not divide 2.
    m = a.minimal()
    w = unsettled_powers_witness(m, stride=2)
    if w is not None:
        assert check_certificate(witness_certificate(m, "bilinear-real-diag", w, "t2"))
    assert (w is not None) == any(length not in (1, 2) for f in _monoid_maps(m)
                                  for length in _cycle_lengths(f))


def test_aperiodic_products_are_searched_a_layer_at_a_time(count_calls) -> None:
    # sequences:3,tracks=3: 64 states, an aperiodic monoid of 4,913 elements, searched to
    # the end (no witness).  The NumPy test of a whole layer clears every element, so
    # not one goes to the word-by-word check.
    word_checks = count_calls(witness_module, "_unsettled")
    assert unsettled_powers_witness(load("sequences:3,tracks=3"), stride=1) is None
    assert word_checks.calls == 0


def test_parity_verdicts_match_the_papers() -> None:
    # Bilinear paper (arXiv 2505.21749): real-diagonal nets learn parity; positive
    # (Mamba-like) diagonal ones cannot: parity is not star-free.
    parity = Automaton(delta=np.array([[1, 0]]), symbols=("1",), initial=0,
                       outputs=(True, False))
    verdicts = {r.arch: r for r in expressivity(parity, ["bilinear-full",
                                                         "bilinear-positive-diag",
                                                         "minmax-scalar"])}
    assert verdicts["bilinear-full"].verdict == "possible"
    assert verdicts["bilinear-positive-diag"].verdict == "impossible"
    assert verdicts["minmax-scalar"].verdict == "impossible"
    assert check_certificate(verdicts["minmax-scalar"].witness)


def test_tampered_witnesses_fail() -> None:
    two = Automaton(delta=np.array([[1, 1], [0, 0]]), symbols=("a", "b"), initial=0,
                    outputs=(True, False))  # remembers the last letter: not commutative
    w = equal_counts_witness(two)
    cert = witness_certificate(two, "bilinear-r2", w, "t1")
    assert check_certificate(cert)
    bad = json.loads(json.dumps(cert))
    bad["words"]["second"] = bad["words"]["first"]
    with pytest.raises(CertificateError):
        check_certificate(bad)
    bad2 = json.loads(json.dumps(cert))
    bad2["words"]["second"] = bad2["words"]["second"] + ["a"]
    with pytest.raises(CertificateError):
        check_certificate(bad2)


def test_cli_expressivity_json_and_witness_files(tmp_path, capsys) -> None:
    spec = tmp_path / "last.json"
    spec.write_text(json.dumps({
        "states": ["A", "B"], "input_symbols": ["a", "b"],
        "transitions": {"A": {"a": "A", "b": "B"}, "B": {"a": "A", "b": "B"}},
        "initial_state": "A", "final_states": ["A"]}))
    code = main(["expressivity", str(spec), "--arch", "bilinear-r2", "--json",
                 "--witness-dir", str(tmp_path / "w")])
    assert code == 1  # an impossible class exits 1 (README exit codes)
    out = json.loads(capsys.readouterr().out)
    assert set(out) == {"results"}
    (row,) = out["results"]
    assert set(row) == {"arch", "verdict", "reason", "witness", "by", "files"}
    assert row["by"] == "witness: commuting" and row["files"] is None
    assert row["verdict"] == "impossible"
    assert main(["check", str(tmp_path / "w" / "bilinear-r2.json")]) == 0


def test_a_construction_size_limit_is_unknown_not_a_crash(monkeypatch) -> None:
    # The holonomy's image-set limit stands in for a 942-state machine.  The
    # scalar class, which has no other form for this aperiodic up/down counter
    # (not monotone one way, one cycle, no congruence), gets "unknown" saying why;
    # minmax-cascade falls back to one matrix unit over the states and is proved.
    from fsmnet.algebra.holonomy import skeleton

    monkeypatch.setattr(skeleton, "ORBIT_LIMIT", 3)
    k = 4  # the counter min(x+1, 4) on u, max(x-1, 0) on d
    counter = Automaton(delta=np.array([[min(x + 1, k) for x in range(k + 1)],
                                        [max(x - 1, 0) for x in range(k + 1)]]),
                        symbols=["u", "d"], states=[f"c{x}" for x in range(k + 1)],
                        initial=0, outputs=[x == k for x in range(k + 1)], name="updown4")
    # by_theorem=False: minmax-cascade's own construction, not its possibility theorem.
    results = {r.arch: r for r in expressivity(counter, ["minmax-scalar", "minmax-cascade",
                                                         "bilinear-full"], by_theorem=False)}
    assert results["minmax-scalar"].verdict == "unknown"
    assert "size limit" in results["minmax-scalar"].reason
    assert results["minmax-cascade"].verdict == "possible"
    assert results["bilinear-full"].verdict == "possible"
