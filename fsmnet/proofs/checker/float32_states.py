"""Method ``float32-product``: the float32 run is a finite machine, listed in full.

The certificate lists float32 states (each entry an 8-hex-digit big-endian bit
pattern), pairs (state, automaton state), and the target pair of every pair on
every symbol.  Checked here with the float32 emulation of
:mod:`.float32_replay` (A32, R32 and h_0 re-derived from the exact model):

1. pair 0 is (h_0, q0), bit for bit;
2. for every pair (s, q) and symbol a, the target pair is (step_a(s), δ(a, q)),
   the step replayed here and compared bit for bit (an overflow fails);
3. every pair's float32 label is the automaton's output of its state.

By induction on the length of w the float32 run's state after w, paired with
δ(q0, w), is a listed pair, so its label is right on every word.  The claim
covers the reference step's order of operations (docs/formats.md), not exact
arithmetic; ``rounding`` must say ``float32-reference``.
"""

from __future__ import annotations

import math
import struct
from dataclasses import dataclass
from typing import Any

from .core import Automaton, CertificateError, _same_label, read_automaton
from .fields import PairTable, PairWords, read_pair_table
from .float32_replay import OVERFLOW, label, model32, step

FLOAT32_WORDS = PairWords(
    "pairs must be [state, automaton state] within range",
    "pairs must be [state, automaton state] within range",
    "one transition row per pair is required", "pair {i}: one target per symbol is required",
    "pair {i}, symbol {a}: bad target {t!r}")


def _state(entry: Any) -> list[float]:
    if not (isinstance(entry, list) and all(isinstance(x, str) and len(x) == 8 for x in entry)):
        raise CertificateError(f"a float32 state is a list of 8-hex-digit strings (value: "
                               f"{str(entry)[:60]})")
    try:
        values = [struct.unpack(">f", bytes.fromhex(x))[0] for x in entry]
    except ValueError:
        raise CertificateError(f"not a float32 bit pattern: {entry}") from None
    if not all(math.isfinite(x) for x in values):
        raise CertificateError(f"a listed float32 state is not finite: {entry}")
    return values


def _same_bits(x: list[float], y: list[float]) -> bool:
    return [struct.pack(">f", a) for a in x] == [struct.pack(">f", b) for b in y]


@dataclass(frozen=True)
class Float32Product:
    """A float32-product certificate, parsed: the float32 model (A32, R32, h_0) derived
    from the exact one, the listed float32 states and the pair table."""

    automaton: Automaton
    labels: tuple[Any, ...]
    mats: list[list[list[float]]]
    readout: list[list[float]]
    h0: list[float]
    states: tuple[list[float], ...]
    table: PairTable


def parse_float32_product(cert: dict[str, Any]) -> Float32Product:
    if cert.get("rounding") != "float32-reference":
        raise CertificateError("a float32-product certificate has rounding 'float32-reference'")
    auto = read_automaton(cert["automaton"])
    labels = tuple(cert["network"]["labels"])
    mats, readout, h0 = model32(cert["network"]["model"])
    if len(mats) != auto.n_symbols or len(readout) != len(labels):
        raise CertificateError("model and automaton sizes differ")
    states = tuple(_state(s) for s in cert["states"])
    if any(len(s) != len(h0) for s in states):
        raise CertificateError("a state's size differs from the model's")
    table = read_pair_table(cert["pairs"], cert["transitions"], len(states), auto.n_states,
                            auto.n_symbols, FLOAT32_WORDS)
    return Float32Product(auto, labels, mats, readout, h0, states, table)


def check_float32_product(cert: dict[str, Any]) -> str:
    """Re-check a ``float32-product`` certificate; a one-line summary or CertificateError."""
    fp = parse_float32_product(cert)
    delta, outputs, pairs = fp.automaton.delta, fp.automaton.outputs, fp.table.pairs
    if pairs[0][1] != fp.automaton.initial or not _same_bits(fp.states[pairs[0][0]], fp.h0):
        raise CertificateError("pair 0 is not (h_0, initial state)")
    images: dict[tuple[int, int], list[float] | None] = {}
    for i, ((s, q), row) in enumerate(zip(pairs, fp.table.transitions)):
        lab = label(fp.readout, fp.states[s])
        if lab == OVERFLOW or not _same_label(fp.labels[lab], outputs[q]):
            raise CertificateError(f"pair {i}: the float32 label differs from the automaton's "
                                   f"output {outputs[q]!r}")
        for a, t in enumerate(row):
            if (s, a) not in images:
                images[(s, a)] = step(fp.mats[a], fp.states[s])
            image = images[(s, a)]
            ts, tq = pairs[t]
            if image is None or not _same_bits(image, fp.states[ts]) or tq != delta[a][q]:
                raise CertificateError(f"pair {i}, symbol {a}: the replayed float32 step does "
                                       f"not reach pair {t}")
    return (f"valid: float32 product closed over {len(pairs)} pairs, {len(fp.states)} float32 "
            f"states (covers the float32 reference step)")
