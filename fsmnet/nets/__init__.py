"""Network objects: named weights plus one semantics module per architecture."""

from fsmnet.nets.evaluate import reference_labels, reference_trace
from fsmnet.nets.network import FORMAT_VERSION, Network, load_network
from fsmnet.nets.semantics import semantics_for

__all__ = [
    "FORMAT_VERSION",
    "Network",
    "load_network",
    "reference_labels",
    "reference_trace",
    "semantics_for",
]
