"""Automata: the validated :class:`Automaton`, spec files, families, minimization."""

from fsmnet.automata.automaton import Automaton, Label
from fsmnet.automata.minimize import (
    distinguishing_word,
    equivalent,
    is_minimal,
    minimize,
    state_classes,
)
from fsmnet.automata.resolve import load
from fsmnet.automata.words import access_words, random_word

__all__ = [
    "Automaton",
    "access_words",
    "Label",
    "distinguishing_word",
    "equivalent",
    "is_minimal",
    "load",
    "minimize",
    "random_word",
    "state_classes",
]
