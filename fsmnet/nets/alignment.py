"""Line a network up with an automaton: the same alphabet order, and label indices mapped.

A network file and an automaton name their symbols and labels independently;
every comparison of the two (proofs, fuzzing, long checked runs) goes through
these two functions.
"""

from __future__ import annotations

from fsmnet.automata import Automaton
from fsmnet.errors import SpecError
from fsmnet.nets.network import Network


def align_alphabet(automaton: Automaton, net: Network) -> Automaton:
    """The automaton with its symbols in the network's order (same set required)."""
    if set(automaton.symbols) != set(net.symbols) or len(net.symbols) != automaton.n_symbols:
        spec_only = sorted(set(automaton.symbols) - set(net.symbols))
        net_only = sorted(set(net.symbols) - set(automaton.symbols))
        # Neither side is the culprit: say which symbols each one has that the other lacks.
        sides = [f"SPEC has symbols {spec_only} that NET lacks" if spec_only else "",
                 f"NET has symbols {net_only} that SPEC lacks" if net_only else ""]
        raise SpecError("the network (NET) and the automaton (SPEC) have different "
                        "alphabets: " + ("; ".join(s for s in sides if s)
                                         or "a symbol is repeated"),
                        source="<alignment>")
    order = [automaton.symbol_index(s) for s in net.symbols]
    return automaton.replace(delta=automaton.delta[order], symbols=net.symbols)


def label_map(net: Network, automaton: Automaton) -> list[int]:
    """For each network label index, the automaton label index (-1 if unknown)."""
    index = {(type(lab).__name__, lab): i for i, lab in enumerate(automaton.labels)}
    return [index.get((type(lab).__name__, lab), -1) for lab in net.labels]
